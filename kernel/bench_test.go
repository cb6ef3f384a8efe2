package kernel

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Benchmarks on the MNIST shapes (H = 500, X = 784), one sub-benchmark per
// tier: BenchmarkKernel/<kernel>/<tier>/<shape>, plus gonum's BLAS as the
// baseline under the tier names "gonum" (all cores) and "gonum-1core" (one
// core, as our kernels run). Compare tiers as ratios in one run; benchstat
// reads the output directly.

const benchH, benchX = 500, 784

func randSlice(r *rand.Rand, n int, lo, hi float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = lo + (hi-lo)*r.Float32()
	}
	return s
}

func binarySlice(r *rand.Rand, n int, p float64) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = b2f(r.Float64() < p)
	}
	return s
}

func forEachTier(b *testing.B, f func(b *testing.B)) {
	for _, tier := range Tiers() {
		b.Run(tier, func(b *testing.B) {
			restore, err := UseTier(tier)
			if err != nil {
				b.Fatal(err)
			}
			defer restore()
			f(b)
		})
	}
}

func setFlops(b *testing.B, flops float64) {
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkKernel(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	m := randSlice(r, benchX*benchH, -1, 1) // Cᵀ: X×H
	bias := randSlice(r, benchH, -1, 1)
	ncs := []int{8, 16, 64}
	shape := func(nc int) string { return fmt.Sprintf("x%d-h%d-c%d", benchX, benchH, nc) }
	flops := func(nc int) float64 { return 2.0 * float64(nc*benchX*benchH) }
	probs := randSlice(r, 64*benchX, 0, 1)
	states := binarySlice(r, 64*benchX, 0.13) // MNIST's density
	out := make([]float32, 64*benchH)
	idx := make([]int32, 64*benchX)
	counts := make([]int32, 64)
	b.Run("dense", func(b *testing.B) {
		for _, nc := range ncs {
			// Our products run on one goroutine; gonum's Sgemm splits the work
			// over GOMAXPROCS goroutines, so it runs twice: on every core
			// ("gonum") and on one ("gonum-1core"), like for like.
			for _, g := range []struct {
				name  string
				procs int // GOMAXPROCS while measured; 0: unchanged
			}{{"gonum", 0}, {"gonum-1core", 1}} {
				b.Run(g.name+"/"+shape(nc), func(b *testing.B) {
					if g.procs > 0 {
						defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(g.procs))
					}
					impl := gonum.Implementation{}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						// out (nc×H) = probs (nc×X) · m (X×H), bias left out.
						impl.Sgemm(blas.NoTrans, blas.NoTrans, nc, benchH, benchX, 1, probs, benchX, m, benchH, 0, out, benchH)
					}
					setFlops(b, flops(nc))
				})
			}
		}
		forEachTier(b, func(b *testing.B) {
			for _, nc := range ncs {
				b.Run(shape(nc), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						Affine(out, bias, probs, m, nc, benchX, benchH)
					}
					setFlops(b, flops(nc))
				})
			}
		})
	})
	// The binary-state product at 13% density, same shapes; GFLOP/s counts
	// the dense-equivalent work, so it compares directly with the dense form.
	// binary13 reads m as the engine keeps it, rows PadStride(H) floats apart
	// from a 64-byte boundary; binary13-unpadded reads the rows of 500
	// floats of m itself.
	ld := PadStride(benchH)
	pm := Aligned(benchX * ld)
	for j := 0; j < benchX; j++ {
		copy(pm[j*ld:j*ld+benchH], m[j*benchH:(j+1)*benchH])
	}
	for _, v := range []struct {
		name string
		m    []float32
		ld   int
	}{{"binary13", pm, ld}, {"binary13-unpadded", m, benchH}} {
		b.Run(v.name, func(b *testing.B) {
			forEachTier(b, func(b *testing.B) {
				for _, nc := range ncs {
					b.Run(shape(nc), func(b *testing.B) {
						b.ReportAllocs()
						for i := 0; i < b.N; i++ {
							AffineBinaryStride(out, bias, states, v.m, v.ld, nc, benchX, benchH, idx, counts)
						}
						setFlops(b, flops(nc))
					})
				}
			})
		})
	}
	// rowrate is the rate (MB/s of rows added, 500 floats a row) at which
	// the binary-state product's row sums run when every chain has the same
	// first R rows: how fast rows reach the adds when a row block × tile
	// (R × 128 floats, at most 112 rows) is reused from L1 by the chains (R ≤
	// 64 rows, 32 KB) and when it is not. It bounds binary13: at 13% ones
	// the 8 chains add about 815 rows, of which about 527 differ
	// (docs/kernels.md derives the bound).
	b.Run("rowrate", func(b *testing.B) {
		forEachTier(b, func(b *testing.B) {
			for _, nc := range []int{8, 64} {
				for _, rows := range []int{8, 64, 112, benchX} {
					ri := make([]int32, nc*benchX)
					rc := make([]int32, nc)
					for c := range rc {
						for j := 0; j < rows; j++ {
							ri[c*benchX+j] = int32(j)
						}
						rc[c] = int32(rows)
					}
					b.Run(fmt.Sprintf("c%d-rows%d", nc, rows), func(b *testing.B) {
						b.SetBytes(int64(4 * nc * rows * benchH))
						for i := 0; i < b.N; i++ {
							SumRowsBatch(out, pm, ld, nc, benchX, benchH, ri, rc)
						}
					})
				}
			}
		})
	})
	n := 64 * benchH
	src := randSlice(r, n, -8, 8)
	dst := make([]float32, n)
	st := make([]float32, n)
	s := NewStream(1, 2)
	ew := func(name string, f func()) {
		b.Run(name, func(b *testing.B) {
			forEachTier(b, func(b *testing.B) {
				b.Run(fmt.Sprintf("n%d", n), func(b *testing.B) {
					b.SetBytes(int64(4 * n))
					for i := 0; i < b.N; i++ {
						f()
					}
				})
			})
		})
	}
	ew("sigmoid", func() { Sigmoid(dst, src) })
	ew("softplus", func() { Softplus(dst, src) })
	ew("bernoulli", func() { Bernoulli(st, dst, &s) })
	ew("sigmoidbernoulli", func() { SigmoidBernoulli(dst, st, src, &s) })
	pos := make([]int32, n)
	ew("indices", func() { Indices(pos, st) })

	// Gradient accumulation: one chain's ĥ added to its 13% active rows.
	g := make([]float32, benchX*benchH)
	v := randSlice(r, benchH, 0, 1)
	ones := binarySlice(r, benchX, 0.13)
	rows := make([]int32, benchX)
	k := Indices(rows, ones)
	b.Run("addrows", func(b *testing.B) {
		forEachTier(b, func(b *testing.B) {
			b.Run(fmt.Sprintf("x%d-h%d-rows%d", benchX, benchH, k), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					AddRows(g, benchH, rows[:k], 0.5, v)
				}
				setFlops(b, 2*float64(k*benchH))
			})
		})
	})

	// The fused updates stream H×X matrices; "copy" is the reference: a
	// copy of the same number of bytes read and written (NCG reads w, ap, a,
	// g and writes w, ap, a, c, g: 9 arrays).
	nn := benchX * benchH
	w, ap, a, c := randSlice(r, nn, -1, 1), randSlice(r, nn, 0, 1), binarySlice(r, nn, 0.5), make([]float32, nn)
	gg := make([]float32, nn)
	big := make([]float32, 9*nn)
	bigDst := make([]float32, 9*nn)
	b.Run("update/copy/x784-h500", func(b *testing.B) {
		b.SetBytes(int64(4 * 9 * nn))
		for i := 0; i < b.N; i++ {
			copy(bigDst[:9*nn/2], big[:9*nn/2])
		}
	})
	b.Run("updatencg", func(b *testing.B) {
		forEachTier(b, func(b *testing.B) {
			b.Run("x784-h500", func(b *testing.B) {
				b.SetBytes(int64(4 * 9 * nn))
				for i := 0; i < b.N; i++ {
					UpdateNCG(w, ap, a, c, gg, 1e-4, 1e-4, 0.5)
				}
			})
		})
	})
	b.Run("transpose", func(b *testing.B) {
		forEachTier(b, func(b *testing.B) {
			b.Run("x784-h500", func(b *testing.B) {
				b.SetBytes(int64(4 * 2 * nn))
				for i := 0; i < b.N; i++ {
					Transpose(c, w, benchX, benchH)
				}
			})
		})
	})
}
