package engine

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/kernel"
)

// Training as a whole: validation, NaN detection, learning, persistent
// chains and the phase timings.

func TestValidate(t *testing.T) {
	good := smallConfig(NCG)
	cases := []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Hidden = 0 }, "hidden"},
		{func(c *Config) { c.K = 0 }, "k = 0"},
		{func(c *Config) { c.Batch = 0 }, "batch"},
		{func(c *Config) { c.LR = -1 }, "lr"},
		{func(c *Config) { c.LR = math.NaN() }, "lr"},
		{func(c *Config) { c.LRConn = math.Inf(1) }, "lr-conn"},
		{func(c *Config) { c.Gamma = 1 }, "gamma"},
		{func(c *Config) { c.Gamma = 0 }, "gamma"},
		{func(c *Config) { c.P = 1.5 }, "p ="},
		{func(c *Config) { c.Method = Random; c.Density = -0.1 }, "density"},
		{func(c *Config) { c.Method = Line; c.LineWidth = 0 }, "v = 0"},
		{func(c *Config) { c.Method = Line; c.LineWidth = 31 }, "v = 31"},
		{func(c *Config) { c.Method = SET; c.Epsilon = 0 }, "epsilon"},
		{func(c *Config) { c.Method = SET; c.Zeta = 1 }, "zeta"},
		{func(c *Config) { c.Method = "sparse" }, "method"},
		{func(c *Config) { c.Init = "ones" }, "init"},
	}
	d := randomData(1, 20, 30, 0)
	if _, err := New(good, d); err != nil {
		t.Fatalf("good config rejected: %v", err)
	}
	for _, tc := range cases {
		c := good
		tc.edit(&c)
		_, err := New(c, d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error mentioning %q, got %v", tc.want, err)
		}
	}
	bad := *d
	bad.X = append([]uint8(nil), d.X...)
	bad.X[65] = 2
	if _, err := New(good, &bad); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("value 2 in the data: %v", err)
	}
	short := *d
	short.X = d.X[:10]
	if _, err := New(good, &short); err == nil {
		t.Error("data of the wrong width accepted")
	}
}

func TestNaNStopsTraining(t *testing.T) {
	d := randomData(2, 50, 20, 0)
	cfg := smallConfig(Dense)
	cfg.LR, cfg.InitScale = 3e38, 1e30 // the first updates overflow float32
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	err = tr.Train(context.Background(), Options{})
	var ne *NumericalError
	if !errors.As(err, &ne) || ne.Epoch != 1 || !strings.Contains(err.Error(), "minibatch") {
		t.Fatalf("want a NumericalError in epoch 1, got %v", err)
	}
	t.Log(err)
}

func TestReconstructionImproves(t *testing.T) {
	d := randomData(8, 300, 40, 0)
	for _, method := range allMethods {
		cfg := smallConfig(method)
		cfg.Epochs, cfg.InitScale = 8, 0.1
		var first, last float64
		tr, _ := New(cfg, d)
		tr.Train(context.Background(), Options{OnEpoch: func(r Record) error {
			if r.Epoch == 1 {
				first = r.ReconError
			}
			last = r.ReconError
			return nil
		}})
		if !(last < first*0.9) {
			t.Errorf("%s: reconstruction error %.4f → %.4f, want a clear fall", method, first, last)
		}
	}
}

func TestPCDChainsPersist(t *testing.T) {
	d := randomData(9, 40, 20, 0)
	cfg := smallConfig(Dense)
	cfg.Sampler, cfg.K, cfg.LR, cfg.Batch = PersistentCD, 1, 0, 4 // LR 0: the model stays put
	tr, _ := New(cfg, d)
	defer tr.Close()
	if _, err := tr.Step([]int32{0, 1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	state := append([]float32(nil), tr.pcd...)
	streams := append([]kernel.Stream(nil), tr.streams...)
	if _, err := tr.Step([]int32{4, 5, 6, 7}); err != nil {
		t.Fatal(err)
	}
	// Replay chain 0 from the saved persistent state: the positive phase
	// draws H numbers, then the chain draws h from the persistent state and
	// x from h.
	m := tr.Model()
	x, h := m.X, m.H
	st := streams[0]
	pre, prob, hs := make([]float32, h), make([]float32, h), make([]float32, h)
	x0 := make([]float32, x)
	for j := range x0 {
		x0[j] = float32(d.X[4*d.D+j])
	}
	kernel.Affine(pre, m.HiddenBias, x0, m.c, 1, x, h)
	kernel.SigmoidBernoulli(prob, hs, pre, &st)
	kernel.Affine(pre, m.HiddenBias, state[:x], m.c, 1, x, h)
	kernel.SigmoidBernoulli(prob, hs, pre, &st)
	vpre, xs := make([]float32, x), make([]float32, x)
	kernel.Affine(vpre, m.VisibleBias, hs, m.ch, 1, h, x)
	kernel.SigmoidBernoulli(vpre, xs, vpre, &st)
	for j := range xs {
		if xs[j] != tr.pcd[j] {
			t.Fatalf("chain 0 did not continue from its persistent state (unit %d)", j)
		}
	}
	same := true
	for j := range xs {
		same = same && xs[j] == x0[j]
	}
	if same {
		t.Fatal("the persistent chain equals the data: nothing was tested")
	}
}

// TestPhasesAccountForTraining: Options.Phases counts every minibatch, and
// its times nest as documented (phases inside the minibatches, busy time
// inside the workers' share of each phase).
func TestPhasesAccountForTraining(t *testing.T) {
	d := randomData(5, 157, 40, 0) // 4 minibatches of 40 per epoch, the last of 37
	for _, w := range []int{1, 2} {
		cfg := smallConfig(NCG)
		cfg.Epochs, cfg.Workers, cfg.Batch = 3, w, 40
		tr, err := New(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		var ph Phases
		var trained time.Duration
		err = tr.Train(context.Background(), Options{Phases: &ph, OnEpoch: func(r Record) error {
			trained += time.Duration(r.Seconds * float64(time.Second))
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		if ph.Workers != w || ph.Minibatches != 3*4 {
			t.Fatalf("workers %d: Phases counts %d workers and %d minibatches, want %d and 12", w, ph.Workers, ph.Minibatches, w)
		}
		if ph.Total > trained || ph.Serial() < 0 {
			t.Fatalf("workers %d: minibatches %v of %v trained, serial %v", w, ph.Total, trained, ph.Serial())
		}
		for name, p := range map[string]PhaseTime{"chains": ph.Chains, "rows": ph.Rows} {
			if p.Wall <= 0 || p.Busy <= 0 || p.Busy > time.Duration(w)*p.Wall {
				t.Fatalf("workers %d, %s: wall %v, busy %v", w, name, p.Wall, p.Busy)
			}
			if idle := p.Idle(w); idle < 0 || idle >= 1 {
				t.Fatalf("workers %d, %s: idle fraction %v", w, name, idle)
			}
		}
	}
}
