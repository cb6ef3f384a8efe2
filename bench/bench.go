// Package bench is the standard benchmark set of ncgbench bench: kernel
// throughput per tier, seconds per MNIST training epoch, AIS and the exact
// log Z. Each Case measures one number; the command repeats cases, takes
// medians and prints them.
//
// Names:
//
//	kernel/<kernel>/<tier>/<shape>   GFLOP/s or GB/s (tier "gonum": gonum's BLAS Sgemm on
//	                                 all cores, "gonum-1core": on one, like our kernels;
//	                                 kernel/copy/go: Go's copy, the fused update's reference)
//	epoch/mnist-ncg, epoch/mnist-dense, epoch/mnist-ncg/workers1   s per 60,000-sample epoch
//	ais/mnist-h500                   s for AIS (100 runs, 14,500 intervals) on the CD-25 reference model
//	exact/logz-2^20                  s for the exact log Z of X = 784, H = 20
//	machine/<work>/goroutines<n>     what n cores do together (see Machine)
//
// Kernel cases use testing.Benchmark (see SetBenchTime); the others time
// one call.
package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/kernel"
)

// Case is one benchmark.
type Case struct {
	Name  string
	Unit  string // GFLOP/s, GB/s or s
	Count int    // default repetitions (the command's -count overrides)
	// Run measures once. It returns a *SkipError when something it needs
	// (data, the reference model) is missing.
	Run func() (float64, error)
}

// SkipError says why a case cannot run here.
type SkipError struct{ Reason string }

func (e *SkipError) Error() string { return "skipped: " + e.Reason }

// IsSkip reports whether err is a *SkipError.
func IsSkip(err error) bool {
	var s *SkipError
	return errors.As(err, &s)
}

// ReferenceModel is the published CD-25 MNIST model, relative to the data
// directory.
const ReferenceModel = "reference/mnistvh_CD25.mat"

var initTesting sync.Once

// SetBenchTime sets the time testing.Benchmark aims for per kernel
// measurement (the go test -benchtime flag; default 1s).
func SetBenchTime(d time.Duration) error {
	initTesting.Do(testing.Init)
	return flag.Set("test.benchtime", d.String())
}

// Suite returns every case, in a stable order; dataDir is as for data.Dir.
func Suite(dataDir string) []Case {
	out := Kernels()
	out = append(out, Machine()...)
	return append(out, Training(dataDir)...)
}

const benchH, benchX = 500, 784

// Shape parts of the kernel case names, shared with the target rules.
var (
	matShape = fmt.Sprintf("x%d-h%d", benchX, benchH) // an H×X matrix
	ewShape  = fmt.Sprintf("n%d", ewN)                // an element-wise vector
)

// ewN is the length of the element-wise kernels' vectors: 64 chains × H.
const ewN = 64 * benchH

// productShape names a block product of nc chains on the MNIST matrix.
func productShape(nc int) string { return fmt.Sprintf("%s-c%d", matShape, nc) }

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
		if r.Float64() < p {
			s[i] = 1
		}
	}
	return s
}

// kernelCase makes a case that runs f under tier ("gonum", "go": no tier) with
// testing.Benchmark and reports work per second: flops (GFLOP/s) or bytes
// (GB/s) per call.
func kernelCase(name, tier string, work float64, unit string, f func()) Case {
	return Case{Name: name, Unit: unit, Count: 5, Run: func() (float64, error) {
		initTesting.Do(testing.Init)
		if tier != "gonum" && tier != "go" {
			restore, err := kernel.UseTier(tier)
			if err != nil {
				return 0, err
			}
			defer restore()
		}
		r := testing.Benchmark(func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				f()
			}
		})
		if r.N == 0 || r.T <= 0 {
			return 0, fmt.Errorf("%s: benchmark did not run", name)
		}
		return work * float64(r.N) / r.T.Seconds() / 1e9, nil
	}}
}

// Kernels returns the kernel cases on the MNIST shapes (H = 500, X = 784),
// as package kernel's BenchmarkKernel: one per tier this CPU runs.
func Kernels() []Case {
	r := rand.New(rand.NewPCG(1, 1))
	m := randSlice(r, benchX*benchH, -1, 1)
	bias := randSlice(r, benchH, -1, 1)
	ncs := []int{8, 16, 64}
	shape := productShape
	flops := func(nc int) float64 { return 2.0 * float64(nc*benchX*benchH) }
	probs := randSlice(r, 64*benchX, 0, 1)
	states := binarySlice(r, 64*benchX, 0.13)
	out := make([]float32, 64*benchH)
	idx := make([]int32, 64*benchX)
	counts := make([]int32, 64)
	tiers := kernel.Tiers()
	var cs []Case
	for _, nc := range ncs {
		sgemm := func() {
			gonum.Implementation{}.Sgemm(blas.NoTrans, blas.NoTrans, nc, benchH, benchX, 1, probs, benchX, m, benchH, 0, out, benchH)
		}
		cs = append(cs, kernelCase("kernel/dense/gonum/"+shape(nc), "gonum", flops(nc), "GFLOP/s", sgemm))
		// Our products run on one goroutine; gonum's Sgemm splits the work over
		// GOMAXPROCS goroutines. gonum-1core is gonum on one core, like for like.
		one := kernelCase("kernel/dense/gonum-1core/"+shape(nc), "gonum", flops(nc), "GFLOP/s", sgemm)
		run := one.Run
		one.Run = func() (float64, error) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			return run()
		}
		cs = append(cs, one)
	}
	for _, t := range tiers {
		for _, nc := range ncs {
			cs = append(cs, kernelCase("kernel/dense/"+t+"/"+shape(nc), t, flops(nc), "GFLOP/s", func() {
				kernel.Affine(out, bias, probs, m, nc, benchX, benchH)
			}))
		}
	}
	// The binary-state product at MNIST's 13% density; GFLOP/s counts the
	// dense-equivalent work. m is laid out as the engine keeps it for this
	// product: rows kernel.PadStride(H) floats apart, 64-byte aligned.
	ld := kernel.PadStride(benchH)
	pm := kernel.Aligned(benchX * ld)
	for j := 0; j < benchX; j++ {
		copy(pm[j*ld:j*ld+benchH], m[j*benchH:(j+1)*benchH])
	}
	for _, t := range tiers {
		for _, nc := range ncs {
			cs = append(cs, kernelCase("kernel/binary13/"+t+"/"+shape(nc), t, flops(nc), "GFLOP/s", func() {
				kernel.AffineBinaryStride(out, bias, states, pm, ld, nc, benchX, benchH, idx, counts)
			}))
		}
	}
	n := ewN
	src := randSlice(r, n, -8, 8)
	dst := make([]float32, n)
	st := make([]float32, n)
	s := kernel.NewStream(1, 2)
	pos := make([]int32, n)
	ew := []struct {
		name string
		f    func()
	}{
		{"sigmoid", func() { kernel.Sigmoid(dst, src) }},
		{"softplus", func() { kernel.Softplus(dst, src) }},
		{"bernoulli", func() { kernel.Bernoulli(st, dst, &s) }},
		{"sigmoidbernoulli", func() { kernel.SigmoidBernoulli(dst, st, src, &s) }},
		{"indices", func() { kernel.Indices(pos, st) }},
	}
	for _, e := range ew {
		for _, t := range tiers {
			cs = append(cs, kernelCase("kernel/"+e.name+"/"+t+"/"+ewShape, t, float64(4*n), "GB/s", e.f))
		}
	}
	g := make([]float32, benchX*benchH)
	v := randSlice(r, benchH, 0, 1)
	rows := make([]int32, benchX)
	k := kernel.Indices(rows, binarySlice(r, benchX, 0.13))
	for _, t := range tiers {
		cs = append(cs, kernelCase(fmt.Sprintf("kernel/addrows/%s/x%d-h%d-rows%d", t, benchX, benchH, k), t, 2*float64(k*benchH), "GFLOP/s", func() {
			kernel.AddRows(g, benchH, rows[:k], 0.5, v)
		}))
	}
	nn := benchX * benchH
	w, ap, a, c := randSlice(r, nn, -1, 1), randSlice(r, nn, 0, 1), binarySlice(r, nn, 0.5), make([]float32, nn)
	gg := make([]float32, nn)
	// The update's reference: a copy of the same number of bytes read and
	// written (NCG reads w, a′, a, g and writes w, a′, a, c, g: 9 arrays).
	big, bigDst := make([]float32, 9*nn/2), make([]float32, 9*nn/2)
	cs = append(cs, kernelCase("kernel/copy/go/"+matShape, "go", float64(4*9*nn), "GB/s", func() { copy(bigDst, big) }))
	for _, t := range tiers {
		cs = append(cs, kernelCase("kernel/updatencg/"+t+"/"+matShape, t, float64(4*9*nn), "GB/s", func() {
			kernel.UpdateNCG(w, ap, a, c, gg, 1e-4, 1e-4, 0.5)
		}))
	}
	for _, t := range tiers {
		cs = append(cs, kernelCase("kernel/transpose/"+t+"/"+matShape, t, float64(4*2*nn), "GB/s", func() {
			kernel.Transpose(c, w, benchX, benchH)
		}))
	}
	return cs
}

// Machine returns cases that show how this machine runs work on one core
// and on two at once, to read the engine's two-worker speed-up against:
// "compute" is a dense block product small enough for L1 (8 chains, 64×96),
// limited by the FMA units; "stream" is the fused NCG update over the MNIST
// matrices (9 arrays of 392,000 floats, 14 MB moved, as in every minibatch),
// limited by memory. With n goroutines the work is split in n fixed parts,
// each always run by the same goroutine; the unit is the total throughput,
// so perfect scaling doubles it.
func Machine() []Case {
	r := rand.New(rand.NewPCG(3, 3))
	const ch, cx, cc = 64, 96, 8
	type part struct{ m, in, out, bias []float32 }
	compute := make([]part, 2)
	for i := range compute {
		compute[i] = part{randSlice(r, cx*ch, -1, 1), randSlice(r, cc*cx, 0, 1), make([]float32, cc*ch), randSlice(r, ch, -1, 1)}
	}
	nn := benchX * benchH
	w, ap, a, c := randSlice(r, nn, -1, 1), randSlice(r, nn, 0, 1), binarySlice(r, nn, 0.5), make([]float32, nn)
	g := make([]float32, nn)
	// Units of 2–3 ms of work, so that handing a part to the other goroutine
	// (tens of µs on this VM) does not count.
	const creps, sreps = 4000, 20
	work := map[string]struct {
		amount float64 // per call, in the unit
		unit   string
		f      func(part, parts int)
	}{
		"compute": {creps * 2 * cc * cx * ch, "GFLOP/s", func(i, n int) {
			for k := 0; k < creps/n; k++ {
				p := compute[i]
				kernel.Affine(p.out, p.bias, p.in, p.m, cc, cx, ch)
			}
		}},
		"stream": {sreps * 4 * 9 * float64(nn), "GB/s", func(i, n int) {
			lo, hi := i*benchX/n*benchH, (i+1)*benchX/n*benchH
			for k := 0; k < sreps; k++ {
				kernel.UpdateNCG(w[lo:hi], ap[lo:hi], a[lo:hi], c[lo:hi], g[lo:hi], 1e-6, 1e-6, 0.5)
			}
		}},
	}
	var cs []Case
	for _, name := range []string{"compute", "stream"} {
		wk := work[name]
		for _, n := range []int{1, 2} {
			cs = append(cs, Case{Name: fmt.Sprintf("machine/%s/goroutines%d", name, n), Unit: wk.unit, Count: 5, Run: func() (float64, error) {
				initTesting.Do(testing.Init)
				start := make([]chan bool, n)
				var wg sync.WaitGroup
				for i := 1; i < n; i++ {
					start[i] = make(chan bool)
					go func() {
						for range start[i] {
							wk.f(i, n)
							wg.Done()
						}
					}()
				}
				defer func() {
					for i := 1; i < n; i++ {
						close(start[i])
					}
				}()
				res := testing.Benchmark(func(b *testing.B) {
					for it := 0; it < b.N; it++ {
						wg.Add(n - 1)
						for i := 1; i < n; i++ {
							start[i] <- true
						}
						wk.f(0, n)
						wg.Wait()
					}
				})
				if res.N == 0 || res.T <= 0 {
					return 0, fmt.Errorf("machine/%s: benchmark did not run", name)
				}
				return wk.amount * float64(res.N) / res.T.Seconds() / 1e9, nil
			}})
		}
	}
	return cs
}

// mnist loads the binarised MNIST training set once.
type mnist struct {
	dir  string
	once sync.Once
	set  *data.Set
	err  error
}

func (m *mnist) load() (*data.Set, error) {
	m.once.Do(func() {
		d := data.Dir(m.dir)
		if _, err := os.Stat(filepath.Join(d, "mnist")); err != nil {
			m.err = &SkipError{fmt.Sprintf("no MNIST in %s (ncgbench data fetch mnist, or -data-dir)", d)}
			return
		}
		m.set, _, m.err = data.Load("mnist", data.Options{Dir: d})
	})
	return m.set, m.err
}

// Training returns the epoch, AIS and exact log Z cases.
func Training(dataDir string) []Case {
	mn := &mnist{dir: dataDir}
	epoch := func(method engine.Method, workers int) func() (float64, error) {
		return func() (float64, error) {
			train, err := mn.load()
			if err != nil {
				return 0, err
			}
			d, err := engine.FromSet(train, false)
			if err != nil {
				return 0, err
			}
			cfg := engine.DefaultConfig() // H 500, CD-10, batch 50, α 0.1, α_A 0.5, γ 0.5, p 0.5
			cfg.Epochs = 1
			cfg.Method = method
			cfg.Workers = workers
			start := time.Now()
			t, err := engine.New(cfg, d)
			if err != nil {
				return 0, err
			}
			if err := t.Train(context.Background(), engine.Options{}); err != nil {
				return 0, err
			}
			return time.Since(start).Seconds(), nil
		}
	}
	return []Case{
		{Name: "epoch/mnist-ncg", Unit: "s", Count: 1, Run: epoch(engine.NCG, 0)},
		{Name: "epoch/mnist-ncg/workers1", Unit: "s", Count: 1, Run: epoch(engine.NCG, 1)},
		{Name: "epoch/mnist-dense", Unit: "s", Count: 1, Run: epoch(engine.Dense, 0)},
		{Name: "ais/mnist-h500", Unit: "s", Count: 1, Run: func() (float64, error) {
			p := filepath.Join(data.Dir(dataDir), ReferenceModel)
			if _, err := os.Stat(p); err != nil {
				return 0, &SkipError{"no reference model " + p}
			}
			m, err := eval.LoadMATModel(p)
			if err != nil {
				return 0, err
			}
			train, err := mn.load()
			if err != nil {
				return 0, err
			}
			base, err := eval.DataBaseRate(train.X, train.N, train.D)
			if err != nil {
				return 0, err
			}
			start := time.Now()
			if _, err := eval.AIS(context.Background(), m, eval.AISConfig{Runs: eval.DefaultRuns, BaseBias: base}); err != nil {
				return 0, err
			}
			return time.Since(start).Seconds(), nil
		}},
		{Name: "exact/logz-2^20", Unit: "s", Count: 1, Run: func() (float64, error) {
			m := RandomModel(784, 20, 0.01, 1)
			start := time.Now()
			if _, err := eval.ExactLogZ(context.Background(), m, 0); err != nil {
				return 0, err
			}
			return time.Since(start).Seconds(), nil
		}},
	}
}

// RandomModel is an RBM with weights uniform in (−scale, scale) and zero
// biases, for timing.
func RandomModel(X, H int, scale float32, seed uint64) *eval.Model {
	r := rand.New(rand.NewPCG(seed, 2))
	return &eval.Model{X: X, H: H, C: randSlice(r, X*H, -scale, scale), B: make([]float32, H), D: make([]float32, X)}
}
