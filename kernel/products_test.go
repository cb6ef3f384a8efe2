package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Differential tests of the products: dense, binary-state (row sums,
// blocked and batched) and the transpose, with the layout helpers.

func TestAffine(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, nc := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16} {
			for _, nout := range []int{1, 3, 7, 8, 15, 16, 17, 31, 33, 64, 65, 100, 129} {
				for _, nin := range []int{0, 1, 2, 5, 13} {
					off := (nc + nout + nin) % 4
					in, _ := padded(t, r, nc*nin, off, bits01(0.5))
					for i := range in {
						if r.IntN(3) == 0 {
							in[i] = r.Float32()
						}
					}
					m, _ := padded(t, r, nin*nout, off, uni(-1, 1))
					bias, _ := padded(t, r, nout, off, uni(-1, 1))
					want := make([]float32, nc*nout)
					affineGeneric(want, bias, in, m, nc, nin, nout)
					for _, b := range [][]float32{bias, nil} {
						if b == nil {
							affineGeneric(want, nil, in, m, nc, nin, nout)
						}
						got, check := padded(t, r, nc*nout, off, uni(-9, 9))
						im.affine(got, b, in, m, nc, nin, nout)
						check(im.name + " affine")
						for i := range want {
							if !near(got[i], want[i], 1e-5*float32(nin+1)) {
								t.Fatalf("%s affine nc=%d nin=%d nout=%d bias=%v: out[%d] = %g, want %g", im.name, nc, nin, nout, b != nil, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	})
}

func TestSumRows(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, n := range lengths() {
			off := n % 4
			stride := n + r.IntN(5)
			rows := 1 + r.IntN(40)
			m, _ := padded(t, r, rows*stride, 0, uni(-1, 1))
			idx := make([]int32, r.IntN(rows+1))
			for i := range idx {
				idx[i] = int32(r.IntN(rows))
			}
			if n > 0 && rows*stride < (rows-1)*stride+n {
				continue
			}
			checkSumRows(t, r, im, m, stride, idx, n, off)
		}
	})
}

// checkSumRows adds the rows idx of m (n columns, stride apart) to a
// non-zero output at offset off in a guarded buffer, with the reference
// and with a tier, and compares the two.
func checkSumRows(t testing.TB, r *rand.Rand, im *impl, m []float32, stride int, idx []int32, n, off int) {
	t.Helper()
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(i%7) - 3
	}
	got, check := padded(t, r, n, off, uni(0, 0))
	copy(got, want)
	sumRowsGeneric(want, m, stride, idx, n)
	im.sumRows(got, m, stride, idx, n)
	check(im.name + " sumRows")
	for i := range want {
		if !near(got[i], want[i], 1e-5*float32(len(idx)+1)) {
			t.Fatalf("%s sumRows n=%d stride=%d rows=%v: out[%d] = %g, want %g", im.name, n, stride, idx, i, got[i], want[i])
		}
	}
}

func TestTranspose(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(17, 18))
		for _, rows := range []int{1, 2, 3, 7, 8, 9, 15, 16, 17, 33, 100} {
			for _, cols := range []int{1, 2, 5, 8, 9, 16, 17, 31, 64, 65} {
				src, _ := padded(t, r, rows*cols, 1, uni(-1, 1))
				want := make([]float32, rows*cols)
				transposeGeneric(want, src, rows, cols, rows, cols)
				got, check := padded(t, r, rows*cols, 2, uni(0, 0))
				im.transpose(got, src, rows, cols, rows, cols)
				check(im.name + " transpose")
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s transpose %d×%d: [%d] = %g, want %g", im.name, rows, cols, i, got[i], want[i])
					}
				}
				// Inside larger matrices: only the rows×cols block moves,
				// the rest of dst keeps its values.
				lds, ldd := cols+3, rows+5
				srcS, _ := padded(t, r, (rows-1)*lds+cols, 1, uni(-1, 1))
				wantS := make([]float32, (cols-1)*ldd+rows)
				for k := range wantS {
					wantS[k] = -7
				}
				gotS, checkS := padded(t, r, len(wantS), 2, uni(-7, -7))
				transposeGeneric(wantS, srcS, rows, cols, ldd, lds)
				im.transpose(gotS, srcS, rows, cols, ldd, lds)
				checkS(im.name + " strided transpose")
				for i := range wantS {
					if gotS[i] != wantS[i] {
						t.Fatalf("%s strided transpose %d×%d (ldd %d, lds %d): [%d] = %g, want %g", im.name, rows, cols, ldd, lds, i, gotS[i], wantS[i])
					}
				}
			}
		}
	})
}

func TestAffineBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, p := range []float64{0, 0.05, 0.13, 0.5, 1} {
		for _, nc := range []int{1, 3, 16} {
			for _, shape := range [][2]int{{1, 1}, {7, 300}, {784, 500}, {500, 784}} {
				nin, nout := shape[0], shape[1]
				in := binarySliceT(r, nc*nin, p)
				m := make([]float32, nin*nout)
				for i := range m {
					m[i] = r.Float32()*2 - 1
				}
				bias := make([]float32, nout)
				for i := range bias {
					bias[i] = r.Float32()
				}
				want := make([]float32, nc*nout)
				affineGeneric(want, bias, in, m, nc, nin, nout)
				// The same m with rows nout, nout+3 and PadStride(nout)
				// floats apart.
				for _, ldm := range []int{nout, nout + 3, PadStride(nout)} {
					pm := make([]float32, nin*ldm)
					for j := 0; j < nin; j++ {
						copy(pm[j*ldm:j*ldm+nout], m[j*nout:(j+1)*nout])
					}
					got := make([]float32, nc*nout)
					idx := make([]int32, nc*nin)
					counts := make([]int32, nc)
					total := AffineBinaryStride(got, bias, in, pm, ldm, nc, nin, nout, idx, counts)
					ones := 0
					for c := 0; c < nc; c++ {
						k := 0
						for j := 0; j < nin; j++ {
							if in[c*nin+j] != 0 {
								if int(counts[c]) <= k || idx[c*nin+k] != int32(j) {
									t.Fatalf("p=%g nc=%d: chain %d's index list is wrong at %d", p, nc, c, k)
								}
								k++
							}
						}
						if k != int(counts[c]) {
							t.Fatalf("chain %d: count %d, want %d", c, counts[c], k)
						}
						ones += k
					}
					if total != ones {
						t.Fatalf("total %d, want %d", total, ones)
					}
					for i := range want {
						if !near(got[i], want[i], 1e-4) {
							t.Fatalf("p=%g nc=%d %v ldm=%d: out[%d] = %g, want %g", p, nc, shape, ldm, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestSumRowsBlocked: a tier's blocked row sums equal the generic ones
// exactly (same rows, same order) for chain groups beyond 64, column tiles
// and row blocks with tails, strided rows, and write nothing outside out.
func TestSumRowsBlocked(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	tested := 0
	forEachTier(t, asmOnly, func(im *impl) {
		if im.sumRowsBlocked == nil {
			return
		}
		tested++
		for _, c := range []struct{ nc, nin, nout int }{
			{1, 1, 1}, {3, 9, 15}, {5, 40, 16}, {2, 33, 17}, {7, 20, 64}, {4, 50, 65},
			{9, 30, 100}, {3, 70, 128}, {2, 70, 129}, {65, 60, 300}, {130, 784, 500}, {8, 500, 784},
		} {
			for _, rows := range []int{1, 7, 96, 1000} {
				for _, p := range []float64{0.02, 0.13, 0.6} {
					unforce := forceBlockRows(rows)
					ldm := PadStride(c.nout) + int(r.IntN(3))
					m := make([]float32, c.nin*ldm)
					for i := range m {
						m[i] = r.Float32()*2 - 1
					}
					in := binarySliceT(r, c.nc*c.nin, p)
					idx, counts := make([]int32, c.nc*c.nin), make([]int32, c.nc)
					for k := 0; k < c.nc; k++ {
						counts[k] = int32(indicesGeneric(idx[k*c.nin:(k+1)*c.nin], in[k*c.nin:(k+1)*c.nin]))
					}
					want := make([]float32, c.nc*c.nout)
					for i := range want {
						want[i] = r.Float32()
					}
					got, check := padded(t, r, len(want), c.nc%4, uni(0, 0))
					copy(got, want)
					sumRowsBlockedGeneric(m, ldm, c.nc, c.nin, c.nout, rowSums{want, idx, counts}, rowSums{})
					im.sumRowsBlocked(m, ldm, c.nc, c.nin, c.nout, rowSums{got, idx, counts}, rowSums{})
					unforce()
					check(fmt.Sprintf("%s sumRowsBlocked %+v", im.name, c))
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%s %+v rows %d p %g: out[%d] = %g, want %g", im.name, c, rows, p, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
	if tested == 0 {
		t.Skip("no tier with blocked row sums on this CPU/build")
	}
}

// TestSumRowsBatch: on every tier, SumRowsBatch equals one SumRows call per
// chain exactly (blocked or not), chains with no rows included, and writes
// nothing outside out.
func TestSumRowsBatch(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	forEachTier(t, withGeneric, func(im *impl) {
		tier := im.name
		for _, c := range []struct{ nc, nin, nout int }{{1, 1, 1}, {3, 9, 15}, {7, 40, 129}, {50, 784, 500}, {50, 500, 784}, {70, 60, 33}} {
			ldm := PadStride(c.nout)
			m := Aligned(c.nin * ldm)
			for i := range m {
				m[i] = r.Float32()*2 - 1
			}
			idx, counts := make([]int32, c.nc*c.nin), make([]int32, c.nc)
			for k := 0; k < c.nc; k++ {
				p := []float64{0, 0.05, 0.13, 0.9}[k%4]
				counts[k] = int32(indicesGeneric(idx[k*c.nin:(k+1)*c.nin], binarySliceT(r, c.nin, p)))
			}
			want, got, check := batchOut(t, r, c.nc*c.nout, c.nc%4)
			for k := 0; k < c.nc; k++ {
				sumRowsGeneric(want[k*c.nout:(k+1)*c.nout], m, ldm, idx[k*c.nin:k*c.nin+int(counts[k])], c.nout)
			}
			SumRowsBatch(got, m, ldm, c.nc, c.nin, c.nout, idx, counts)
			check(fmt.Sprintf("%s SumRowsBatch %+v", tier, c))
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s %+v: out[%d] = %g, want %g", tier, c, i, got[i], want[i])
				}
			}
		}
	})
}

// TestBlockRows: the row blocks are equal, at most binaryBlockRows high
// where the chains add many rows (the training products: 8 chains of about
// 100 of 784 rows in 7 blocks of 112, the down pass's 250 of 500 rows in 5
// of 100), and taller where they add few (AIS: 50 runs switching about 26
// of 784 units, 2 blocks of 392; one block below that).
func TestBlockRows(t *testing.T) {
	for _, c := range []struct{ nin, used, nc, want int }{
		{784, 800, 8, 112}, {500, 2000, 8, 100}, {784, 26 * 50, 50, 392}, {784, 10 * 50, 50, 784},
		{500, 115 * 50, 50, 100}, {784, 0, 8, 112}, {126, 42 * 8, 8, 63}, {1, 1, 1, 1},
	} {
		if got := blockRows(c.nin, c.used, c.nc); got != c.want {
			t.Errorf("blockRows(%d, %d, %d) = %d, want %d", c.nin, c.used, c.nc, got, c.want)
		}
	}
}

// batchOut returns n random sums to start a batch of row sums from: want,
// and the same in got, a guarded slice at offset off whose check fails if
// anything outside it was written.
func batchOut(t *testing.T, r *rand.Rand, n, off int) (want, got []float32, check func(string)) {
	want = make([]float32, n)
	for i := range want {
		want[i] = r.Float32()
	}
	got, check = padded(t, r, n, off, uni(0, 0))
	copy(got, want)
	return want, got, check
}

// forceBlockRows makes the blocked row sums use blocks of at most rows
// rows, whatever the chains use, and returns the function that restores
// the defaults.
func forceBlockRows(rows int) (restore func()) {
	r, u := binaryBlockRows, blockMinUse
	binaryBlockRows, blockMinUse = rows, 0
	return func() { binaryBlockRows, blockMinUse = r, u }
}

// TestPadStride: whole cache lines, an odd number of them, never shorter.
func TestPadStride(t *testing.T) {
	for n := 0; n < 3000; n++ {
		s := PadStride(n)
		if s < n || s%16 != 0 || s/16%2 != 1 || s > n+32 {
			t.Fatalf("PadStride(%d) = %d", n, s)
		}
	}
	if PadStride(500) != 528 || PadStride(784) != 784 {
		t.Errorf("PadStride(500, 784) = %d, %d, want 528, 784", PadStride(500), PadStride(784))
	}
}
