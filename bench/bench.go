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
//	epoch/mnist-ncg/pair             s per epoch with two one-worker runs at once (half their time)
//	epoch/mnist-ncg-gaussian         s per epoch of epoch/mnist-ncg with Gaussian visible units
//	epoch/mnist-ncg-gaussian-std     the same on standardised pixels from W ~ N(0, 0.01²), α 0.01
//	                                 (σ = 1) on grey levels in [0, 1], α = 0.001
//	peer/numpy/mnist-ncg, peer/numpy/mnist-ncg-gaussian
//	                                 s per epoch of the same two in NumPy (bench/peers/numpy_epoch.py,
//	                                 run by PeerPython from the repository's root; skipped elsewhere)
//	epoch/mnist-dbm, epoch/mnist-dbm-ncg
//	                                 s per epoch of a 784-500-1000 DBM's joint training (dense, NCG;
//	                                 no pre-training; 100 rows and 100 chains per update), with
//	                                 <epoch>/init the time of NewStack and Train outside the epoch
//	peer/numpy/mnist-dbm, peer/numpy/mnist-dbm-ncg
//	                                 s per epoch of the same two in NumPy (bench/peers/numpy_dbm.py)
//	epoch/mnist-ncg-momentum-l2      s per epoch of epoch/mnist-ncg with momentum 0.9 and L2 2e-4
//	epoch/mnist-random/d<percent>    s per epoch of a random mask, H = 500, density 1, 5, 10, 20%
//	epoch/mnist-set/h<H>             s per epoch of SET, H = 500, 1000, 2500, 5000, 10000, scaled
//	                                 from 120 minibatches (below)
//	epoch/mnist-set-mocanu/h2500     the same with the SET authors' procedure (engine.Mocanu)
//	ais/mnist-h500                   s for AIS (100 runs, 14,500 intervals) on the CD-25 reference model
//	exact/logz-2^20                  s for the exact log Z of X = 784, H = 20
//	machine/<work>/goroutines<n>     what n cores do together (see Machine)
//	machine/<work>/cpu<n>            one goroutine pinned to CPU n (Linux)
//
// An epoch case is followed by its breakdown (see engine.Phases), each part
// the median over the repetitions:
//
//	<epoch>/chains, <epoch>/rows     s in the two parallel phases of the minibatches
//	<epoch>/chains-idle, …/rows-idle % of the workers' time in that phase spent waiting
//	<epoch>/serial                   s of the minibatches outside the phases
//	<epoch>/setup                    s of the epoch outside the minibatches (the
//	                                 shuffle, the workers' start)
//	<epoch>/init                     s of engine.New before the epoch (the
//	                                 model's initialisation): not part of the
//	                                 epoch's time, which is Train's, as a
//	                                 training run pays it once and the NumPy
//	                                 peer (bench/peers) starts its clock after it
//
// The momentum and random cases report, after these parts, the model's
// data connections and its units (visible + hidden) as <epoch>/connections
// and <epoch>/units (counts, at the epoch's start).
//
// The SET cases are the paper's SET configuration (ε = 11, ζ = 0.3,
// α = 0.01, CD-10, batch 50) at each H; the Mocanu case has the settings
// ncgbench train -set-procedure mocanu gives it (CD-1, N(0, 0.05²) weights,
// L2 = 2·10⁻⁷/α). Each trains on the first 120 minibatches' rows (6,000)
// and reports the time of those 120 minibatches × 10, plus once what a run
// does between two epochs, as <epoch>/rewire: the pruning and regrowth,
// and the rebuilding of the compressed rows in the next epoch's first
// minibatch. A minibatch before the timed epoch builds the compressed rows,
// as a run does once. Their parts are the ones above (chains, rows and
// serial scaled like the epoch; setup shuffles 6,000 rows), then rewire,
// connections and units. The targets fit the exponent of their time's
// growth in connections + units (GrowthExponent).
//
// The epoch cases take their repetitions in turn (Case.Group), and so do
// the machine cases. Kernel and machine cases repeat their work for about
// Options.BenchTime, as go test -bench does; the others time one call.
// The kernel cases are defined once, in internal/kernelbench, for both
// this suite and go test -bench Kernel ./kernel.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/internal/kernelbench"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
	"golang.org/x/sync/errgroup"
)

// Case is one benchmark.
type Case struct {
	Name  string
	Unit  string // GFLOP/s, GB/s or s
	Count int    // default repetitions (the command's -count overrides)
	// Run measures once. It returns a *SkipError when something it needs
	// (data, the reference model) is missing.
	Run func() (float64, error)
	// Parts, if set, returns the breakdown of Run's last measurement (an
	// epoch's phases): values reported as cases <Name>/<part>.
	Parts func() []Part
	// Group, if set, names the consecutive cases that take their
	// repetitions in turn (the epochs, the machine's cases): on a shared
	// machine whose speed drifts within minutes, the ratios between them
	// then compare measurements taken seconds apart.
	Group string
}

// Part is one component of a case's measurement.
type Part struct {
	Name  string
	Unit  string
	Value float64
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

// Options are the settings of a suite's cases.
type Options struct {
	DataDir string // as for data.Dir
	// BenchTime is the time one measurement of a kernel or machine case
	// aims for, as go test's -benchtime; 0 or less means one second.
	BenchTime time.Duration
}

// benchTime returns BenchTime, or one second if it is not positive.
func (o Options) benchTime() time.Duration {
	if o.BenchTime <= 0 {
		return time.Second
	}
	return o.BenchTime
}

// Suite returns every case, in a stable order.
func Suite(o Options) []Case {
	out := Kernels(o)
	out = append(out, Machine(o)...)
	return append(out, Training(o.DataDir)...)
}

// measure runs f(n), n calls of the measured work, with n growing until
// one run takes at least d, as go test -bench does, and returns
// the last run's n and time. The heap is collected before every timed
// run, so that one case's garbage is not collected in another's time.
func measure(d time.Duration, f func(n int)) (int, time.Duration) {
	n := 1
	for {
		runtime.GC()
		start := time.Now()
		f(n)
		took := time.Since(start)
		if took >= d || n >= 1e9 {
			return n, took
		}
		// Aim 20% past the target from the rate so far, growing at most
		// 100-fold and at least by one.
		next := int(1.2 * float64(n) * float64(d) / float64(max(took, time.Microsecond)))
		n = min(max(next, n+1), 100*n, 1e9)
	}
}

// rate measures f for about d (see measure) and returns work per call ×
// calls per second, in billions.
func rate(d time.Duration, work float64, f func(n int)) float64 {
	n, took := measure(d, f)
	return work * float64(n) / took.Seconds() / 1e9
}

// Kernels returns the kernel cases of internal/kernelbench on the MNIST
// shapes (H = 500, X = 784), one per tier this CPU runs, as package
// kernel's BenchmarkKernel runs them, leaving out its diagnostic cases.
func Kernels(o Options) []Case {
	var cs []Case
	for _, k := range kernelbench.Cases() {
		if k.Detail {
			continue
		}
		cs = append(cs, Case{Name: "kernel/" + k.Name, Unit: k.Unit.String(), Count: 5, Run: func() (float64, error) {
			restore, err := k.Use()
			if err != nil {
				return 0, err
			}
			defer restore()
			return rate(o.benchTime(), k.Work, func(n int) {
				for range n {
					k.Call()
				}
			}), nil
		}})
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
//
// On Linux, machine/<work>/cpu<n> runs the one-goroutine work on a thread
// pinned to CPU n (the first 8 CPUs the process may use). A virtual
// machine's CPUs need not be equally fast at a given moment; the slower
// CPU's rate over the faster's is the spread target, printed with the
// targets. Two workers get at most the sum of the two CPUs' rates,
// whatever the split: 1 + spread times the faster CPU's.
func Machine(o Options) []Case {
	r := rand.New(rand.NewPCG(3, 3))
	const ch, cx, cc = 64, 96, 8
	type part struct{ m, in, out, bias []float32 }
	compute := make([]part, 2)
	for i := range compute {
		compute[i] = part{kernelbench.RandSlice(r, cx*ch, -1, 1), kernelbench.RandSlice(r, cc*cx, 0, 1), make([]float32, cc*ch), kernelbench.RandSlice(r, ch, -1, 1)}
	}
	nn := kernelbench.X * kernelbench.H
	w, ap, a, c := kernelbench.RandSlice(r, nn, -1, 1), kernelbench.RandSlice(r, nn, 0, 1), kernelbench.BinarySlice(r, nn, 0.5), make([]float32, nn)
	g := make([]float32, nn)
	// Units of 10–20 ms of work, so that handing a part to the other
	// goroutine (a channel send that wakes a parked goroutine, then a
	// WaitGroup) costs under 1% and the cases measure the machine, not the
	// hand-offs.
	const creps, sreps = 40000, 200
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
			lo, hi := i*kernelbench.X/n*kernelbench.H, (i+1)*kernelbench.X/n*kernelbench.H
			for k := 0; k < sreps; k++ {
				kernel.UpdateNCG(w[lo:hi], ap[lo:hi], a[lo:hi], c[lo:hi], g[lo:hi], 1e-6, 1e-6, 0.5)
			}
		}},
	}
	var cs []Case
	for _, name := range []string{"compute", "stream"} {
		wk := work[name]
		for _, n := range []int{1, 2} {
			cs = append(cs, Case{Name: fmt.Sprintf("machine/%s/goroutines%d", name, n), Unit: wk.unit, Count: 5, Group: "machine", Run: func() (float64, error) {
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
				return rate(o.benchTime(), wk.amount, func(calls int) {
					for range calls {
						wg.Add(n - 1)
						for i := 1; i < n; i++ {
							start[i] <- true
						}
						wk.f(0, n)
						wg.Wait()
					}
				}), nil
			}})
		}
	}
	for _, cpu := range pinCPUs() {
		for _, name := range []string{"compute", "stream"} {
			wk := work[name]
			cs = append(cs, Case{Name: fmt.Sprintf("machine/%s/cpu%d", name, cpu), Unit: wk.unit, Count: 5, Group: "machine", Run: func() (v float64, err error) {
				err = onCPU(cpu, func() {
					v = rate(o.benchTime(), wk.amount, func(calls int) {
						for range calls {
							wk.f(0, 1)
						}
					})
				})
				return v, err
			}})
		}
	}
	return cs
}

// epochParts is the breakdown of an epoch that took took, with phases ph,
// after an initialisation that took initTook.
func epochParts(ph *engine.Phases, took, initTook time.Duration) []Part {
	return []Part{
		{"chains", "s", ph.Chains.Wall.Seconds()},
		{"chains-idle", "%", 100 * ph.Chains.Idle(ph.Workers)},
		{"rows", "s", ph.Rows.Wall.Seconds()},
		{"rows-idle", "%", 100 * ph.Rows.Idle(ph.Workers)},
		{"serial", "s", ph.Serial().Seconds()},
		{"setup", "s", (took - ph.Total).Seconds()},
		{"init", "s", initTook.Seconds()},
	}
}

// Training returns the epoch, AIS and exact log Z cases. Each runs three
// times by default and reports the median, since one epoch's time varies
// from run to run on a shared machine.
func Training(dataDir string) []Case {
	mn := &mnist{dir: dataDir}
	c4 := &connect4{dir: dataDir}
	epochWith := func(name string, cfg engine.Config, sized bool, load func() (*engine.Data, error)) Case {
		var ph engine.Phases
		var took, initTook time.Duration
		var size []Part
		c := Case{Name: name, Unit: "s", Count: 3, Group: "epoch"}
		c.Parts = func() []Part { return append(epochParts(&ph, took, initTook), size...) }
		c.Run = func() (float64, error) {
			d, err := load()
			if err != nil {
				return 0, err
			}
			cfg.Epochs = 1
			start := time.Now()
			t, err := engine.New(cfg, d)
			if err != nil {
				return 0, err
			}
			initTook = time.Since(start)
			if sized {
				size = sizeParts(t.Model())
			}
			ph = engine.Phases{}
			start = time.Now()
			if err := t.Train(context.Background(), engine.Options{Phases: &ph}); err != nil {
				return 0, err
			}
			took = time.Since(start)
			return took.Seconds(), nil
		}
		return c
	}
	epochOn := func(name string, cfg engine.Config, sized bool, mode data.RealMode) Case {
		return epochWith(name, cfg, sized, func() (*engine.Data, error) { return mn.dataAs(mode) })
	}
	// epoch trains binary units on the binarised set, Gaussian ones on
	// the grey levels in [0, 1].
	epoch := func(name string, cfg engine.Config, sized bool) Case {
		mode := data.RealNone
		if cfg.Visible == unit.Gaussian {
			mode = data.RealUnit
		}
		return epochOn(name, cfg, sized, mode)
	}
	// paper is the paper's MNIST NCG configuration (H 500, CD-10, batch
	// 50, α 0.1, α_A 0.5, γ 0.5, p 0.5) with the given method and workers.
	paper := func(method engine.Method, workers int) engine.Config {
		cfg := engine.DefaultConfig()
		cfg.Method, cfg.Workers = method, workers
		return cfg
	}
	// pair trains two one-worker epochs (seeds 1 and 2) at once, each on
	// its own model, as a sweep runs them, and returns half the time both
	// took: the machine's time per epoch when two runs share it and
	// nothing else. workers1 over it is what a second core gives this work
	// when the cores share no data (but each has a model of its own to
	// keep in the caches they share): the reference for a two-worker
	// run's speed-up.
	pair := Case{Name: "epoch/mnist-ncg/pair", Unit: "s", Count: 3, Group: "epoch", Run: func() (float64, error) {
		d, err := mn.engineData()
		if err != nil {
			return 0, err
		}
		var ts [2]*engine.Trainer
		for i := range ts {
			cfg := engine.DefaultConfig()
			cfg.Epochs, cfg.Method, cfg.Workers, cfg.Seed = 1, engine.NCG, 1, uint64(i+1)
			if ts[i], err = engine.New(cfg, d); err != nil {
				return 0, err
			}
		}
		var g errgroup.Group
		start := time.Now()
		for _, t := range ts {
			g.Go(func() error { return t.Train(context.Background(), engine.Options{}) })
		}
		if err := g.Wait(); err != nil {
			return 0, err
		}
		return time.Since(start).Seconds() / 2, nil
	}}
	// gaussian is the paper's NCG configuration with Gaussian visible
	// units (σ = 1) on MNIST's grey levels in [0, 1], at α = 0.001: at
	// H = 500 from W ~ U(−1, 1), 0.1 and 0.01 turn W to NaN in the epoch.
	// NCG prunes C to about 1% within its first 100 minibatches here, and
	// the chains then take compressed rows (docs/design-notes.md).
	gaussian := paper(engine.NCG, 0)
	gaussian.Visible, gaussian.LR = unit.Gaussian, 0.001
	// gaussianDense is docs/training.md's real-valued MNIST comparison:
	// standardised pixels, W ~ N(0, 0.01²), α = 0.01, with which NCG
	// keeps over a third of C through the epoch, so the chains' products
	// stay dense.
	gaussianDense := gaussian
	gaussianDense.LR, gaussianDense.Init, gaussianDense.InitScale = 0.01, engine.Normal, 0.01
	cs := []Case{
		epoch("epoch/mnist-ncg", paper(engine.NCG, 0), false),
		epoch("epoch/mnist-ncg-gaussian", gaussian, false),
		epochOn("epoch/mnist-ncg-gaussian-std", gaussianDense, false, data.RealStandardise),
		peerCase("peer/numpy/mnist-ncg", "numpy_epoch.py", dataDir),
		peerCase("peer/numpy/mnist-ncg-gaussian", "numpy_epoch.py", dataDir, "--gaussian"),
		epoch("epoch/mnist-ncg/workers1", paper(engine.NCG, 1), false),
		pair,
		epoch("epoch/mnist-dense", paper(engine.Dense, 0), false),
		epochWith("epoch/connect4-ncg", connect4Config(unit.Binary), false, c4.engineData),
		epochWith("epoch/connect4-ncg-categorical", connect4Config(unit.Categorical), false, c4.engineData),
	}
	cs = append(cs, dbmCases(mn, dataDir)...)
	cs = append(cs, scaleCases(mn, func(name string, cfg engine.Config) Case { return epoch(name, cfg, true) })...)
	return append(cs, []Case{
		{Name: "ais/mnist-h500", Unit: "s", Count: 3, Run: func() (float64, error) {
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
		{Name: "exact/logz-2^20", Unit: "s", Count: 3, Run: func() (float64, error) {
			m := RandomModel(784, 20, 0.01, 1)
			start := time.Now()
			if _, err := eval.ExactLogZ(context.Background(), m, 0); err != nil {
				return 0, err
			}
			return time.Since(start).Seconds(), nil
		}},
	}...)
}

// RandomModel is an RBM with weights uniform in (−scale, scale) and zero
// biases, for timing.
func RandomModel(X, H int, scale float32, seed uint64) *eval.Model {
	r := rand.New(rand.NewPCG(seed, 2))
	return &eval.Model{X: X, H: H, C: kernelbench.RandSlice(r, X*H, -scale, scale), HiddenBias: make([]float32, H), VisibleBias: make([]float32, X)}
}
