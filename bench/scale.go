package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"time"

	"github.com/ncg-rbm/ncg/engine"
	"gonum.org/v1/gonum/stat"
)

// SETSizes are the hidden-layer sizes of the epoch/mnist-set/h<H> cases.
var SETSizes = []int{500, 1000, 2500, 5000, 10000}

// RandomDensities are the connection densities, in percent, of the
// epoch/mnist-random/d<percent> cases.
var RandomDensities = []int{1, 5, 10, 20}

// ScaledBatches is the number of minibatches a scaled epoch case times: a
// tenth of the 1,200 of a 60,000-sample MNIST epoch.
const ScaledBatches = 120

// setConfig is the paper's MNIST SET configuration (its SET row, as
// docs/training.md gives it) with h hidden units: ε = 11, ζ = 0.3,
// α = 0.01, CD-10, minibatches of 50, weights from U(−1, 1). With mocanu
// it is the SET authors' procedure with the settings ncgbench train
// -set-procedure mocanu gives it where no flag does: CD-1, weights from
// N(0, 0.05²), L2 = 2·10⁻⁷/α = 2·10⁻⁵.
func setConfig(h int, mocanu bool) engine.Config {
	c := engine.DefaultConfig()
	c.Method, c.Hidden, c.Epsilon, c.LR = engine.SET, h, 11, 0.01
	if mocanu {
		c.SETProcedure = engine.Mocanu
		c.K, c.Init, c.InitScale = engine.MocanuK, engine.Normal, engine.MocanuInitScale
		c.L2 = engine.MocanuDecay / c.LR
	}
	return c
}

// sizeParts are a model's data connections and units (visible and hidden)
// as parts of a case.
func sizeParts(m *engine.Model) []Part {
	return []Part{
		{"connections", "count", float64(m.Connectivity().Active)},
		{"units", "count", float64(m.X + m.H)},
	}
}

// scaledEpoch is a case that estimates one epoch of cfg on the data load
// returns from its first batches minibatches: it trains on the first
// batches·Batch rows alone, times that epoch's minibatches and scales
// them by (the data's minibatches)/batches (1200/120 = 10 on MNIST), and
// adds once what a run does between two epochs. For SET that is the
// rewiring (the prune and regrowth after the epoch, and the rebuilding of
// the compressed rows in the next epoch's first minibatch, taken from that
// minibatch's serial time); the case's "rewire" part reports it. One
// minibatch before the timed epoch builds the model's compressed rows, as
// a run does once. The parts
// are epochParts' with the minibatch phases scaled like the epoch, then
// rewire, connections and units (at the start of the timed epoch).
func scaledEpoch(name string, load func() (*engine.Data, error), cfg engine.Config, batches int) Case {
	var parts []Part
	c := Case{Name: name, Unit: "s", Count: 3, Group: "epoch"}
	c.Parts = func() []Part { return parts }
	c.Run = func() (float64, error) {
		d, err := load()
		if err != nil {
			return 0, err
		}
		bs := cfg.Batch
		full := (d.N + bs - 1) / bs
		n := min(batches, full)
		sub := *d
		sub.N = min(n*bs, d.N)
		sub.X = d.X[:sub.N*d.D]
		if d.Labels != nil {
			sub.Labels = d.Labels[:sub.N]
		}
		cfg := cfg
		cfg.Epochs = 2 // so that the first epoch ends with SET's rewiring
		runtime.GC()
		start := time.Now()
		t, err := engine.New(cfg, &sub)
		if err != nil {
			return 0, err
		}
		initTook := time.Since(start)
		defer t.Close()
		size := sizeParts(t.Model())
		rows := make([]int32, min(bs, sub.N))
		for i := range rows {
			rows[i] = int32(i)
		}
		if _, err := t.Step(rows); err != nil {
			return 0, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var ph, atEpoch, after engine.Phases
		var lastBatch, epochEnd time.Time
		stopped := false
		opts := engine.Options{
			Phases: &ph,
			OnBatch: func(epoch, done, _ int) {
				switch {
				case epoch == 1 && done == n:
					lastBatch = time.Now()
				case epoch == 2:
					after, stopped = ph, true
					cancel()
				}
			},
			OnEpoch: func(engine.Record) error {
				epochEnd, atEpoch = time.Now(), ph
				return nil
			},
		}
		runtime.GC()
		start = time.Now()
		err = t.Train(ctx, opts)
		switch {
		case !stopped && err == nil:
			return 0, errors.New("training ended before the second epoch")
		case !stopped || err != nil && !errors.Is(err, context.Canceled):
			return 0, err
		}
		scale := float64(full) / float64(n)
		mul := func(d time.Duration) time.Duration { return time.Duration(math.Round(scale * float64(d))) }
		sc := engine.Phases{Workers: atEpoch.Workers, Minibatches: full, Total: mul(atEpoch.Total),
			Chains: engine.PhaseTime{Wall: mul(atEpoch.Chains.Wall), Busy: mul(atEpoch.Chains.Busy)},
			Rows:   engine.PhaseTime{Wall: mul(atEpoch.Rows.Wall), Busy: mul(atEpoch.Rows.Busy)}}
		setup := lastBatch.Sub(start) - atEpoch.Total
		rewire := epochEnd.Sub(lastBatch) + after.Serial() - atEpoch.Serial()
		took := sc.Total + setup
		parts = append(epochParts(&sc, took, initTook), Part{"rewire", "s", rewire.Seconds()})
		parts = append(parts, size...)
		return (took + rewire).Seconds(), nil
	}
	return c
}

// scaleCases are the epochs of the sparse models and of NCG with momentum
// and decay (see the package documentation); epoch makes a full-epoch
// case of a configuration, reporting its size with the parts.
func scaleCases(mn *mnist, epoch func(name string, cfg engine.Config) Case) []Case {
	ncg := engine.DefaultConfig()
	ncg.Momentum, ncg.L2 = 0.9, 2e-4
	cs := []Case{epoch("epoch/mnist-ncg-momentum-l2", ncg)}
	for _, p := range RandomDensities {
		cfg := engine.DefaultConfig()
		cfg.Method, cfg.Density = engine.Random, float64(p)/100
		cs = append(cs, epoch(fmt.Sprintf("epoch/mnist-random/d%d", p), cfg))
	}
	for _, h := range SETSizes {
		cs = append(cs, scaledEpoch(fmt.Sprintf("epoch/mnist-set/h%d", h), mn.engineData, setConfig(h, false), ScaledBatches))
	}
	return append(cs, scaledEpoch("epoch/mnist-set-mocanu/h2500", mn.engineData, setConfig(2500, true), ScaledBatches))
}

// ScalePoint is one SET size's epoch.
type ScalePoint struct {
	Hidden  int
	Size    float64 // the model's data connections + units
	Seconds float64 // per 60,000-sample epoch
}

// SETScaling returns the epoch/mnist-set/h<H> cases in results (case name
// → median), in increasing H, with their models' connections + units (the
// cases' parts).
func SETScaling(results map[string]float64) []ScalePoint {
	var pts []ScalePoint
	for _, h := range SETSizes {
		name := fmt.Sprintf("epoch/mnist-set/h%d", h)
		s, ok1 := results[name]
		conn, ok2 := results[name+"/connections"]
		units, ok3 := results[name+"/units"]
		if ok1 && ok2 && ok3 {
			pts = append(pts, ScalePoint{Hidden: h, Size: conn + units, Seconds: s})
		}
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].Hidden < pts[j].Hidden })
	return pts
}

// GrowthExponent fits log(Seconds) = a + b·log(Size) by least squares over
// pts and returns the exponent b and a; ok is false unless there are two
// or more distinct sizes, every size and time positive.
func GrowthExponent(pts []ScalePoint) (b, a float64, ok bool) {
	x, y := make([]float64, len(pts)), make([]float64, len(pts))
	distinct := map[float64]bool{}
	for i, p := range pts {
		if !(p.Size > 0) || !(p.Seconds > 0) || math.IsInf(p.Size, 0) || math.IsInf(p.Seconds, 0) {
			return 0, 0, false
		}
		x[i], y[i] = math.Log(p.Size), math.Log(p.Seconds)
		distinct[p.Size] = true
	}
	if len(distinct) < 2 {
		return 0, 0, false
	}
	a, b = stat.LinearRegression(x, y, nil, false)
	return b, a, true
}
