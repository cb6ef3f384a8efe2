package bench

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/kernel"
)

func TestSuiteNames(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Suite(Options{DataDir: t.TempDir()}) {
		if seen[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		seen[c.Name] = true
		if c.Unit == "" || c.Count < 1 || c.Run == nil {
			t.Errorf("%s: incomplete case %+v", c.Name, c)
		}
	}
	want := []string{"epoch/mnist-ncg", "epoch/mnist-ncg-gaussian", "peer/numpy/mnist-ncg", "peer/numpy/mnist-ncg-gaussian", "epoch/mnist-dense", "epoch/mnist-ncg/workers1", "epoch/mnist-ncg/pair", "ais/mnist-h500", "exact/logz-2^20",
		"epoch/mnist-dbm", "epoch/mnist-dbm-ncg", "peer/numpy/mnist-dbm", "peer/numpy/mnist-dbm-ncg",
		"epoch/mnist-ncg-momentum-l2", "epoch/mnist-random/d1", "epoch/mnist-random/d20", "epoch/mnist-set/h500", "epoch/mnist-set/h10000",
		"epoch/mnist-set-mocanu/h2500",
		"kernel/dense/gonum/x784-h500-c64", "kernel/dense/gonum-1core/x784-h500-c64"}
	for _, tier := range kernel.Tiers() {
		want = append(want, "kernel/dense/"+tier+"/x784-h500-c16", "kernel/sigmoid/"+tier+"/n32000")
	}
	for _, n := range want {
		if !seen[n] {
			t.Errorf("no case %s", n)
		}
	}
}

func TestKernelCases(t *testing.T) {
	for _, c := range Kernels(Options{BenchTime: 5 * time.Millisecond}) {
		if !strings.Contains(c.Name, "/c8") && !strings.Contains(c.Name, "sigmoid/") {
			continue
		}
		v, err := c.Run()
		if err != nil || !(v > 0) {
			t.Errorf("%s: %v, %v", c.Name, v, err)
		}
	}
}

func TestMachineCases(t *testing.T) {
	cs := Machine(Options{BenchTime: 5 * time.Millisecond})
	if want := 4 + 2*len(pinCPUs()); len(cs) != want {
		t.Fatalf("%d machine cases, want %d", len(cs), want)
	}
	for _, c := range cs {
		v, err := c.Run()
		if err != nil || !(v > 0) {
			t.Errorf("%s: %v, %v", c.Name, v, err)
		}
	}
}

func TestMissingDataSkips(t *testing.T) {
	for _, c := range Training(t.TempDir()) {
		if !strings.HasPrefix(c.Name, "epoch/") && !strings.HasPrefix(c.Name, "ais/") {
			continue
		}
		if _, err := c.Run(); !IsSkip(err) {
			t.Errorf("%s without data: %v, want a skip", c.Name, err)
		}
	}
}

// TestMeasure: measure grows the number of calls until one run lasts the
// bench time, and the time it reports is that of the calls it counts
// (each call sleeps 1 ms, so n calls take at least n ms).
func TestMeasure(t *testing.T) {
	calls := 0
	n, took := measure(30*time.Millisecond, func(n int) {
		for range n {
			calls++
			time.Sleep(time.Millisecond)
		}
	})
	if took < 30*time.Millisecond {
		t.Errorf("measure stopped after %v, want at least 30ms", took)
	}
	if took < time.Duration(n)*time.Millisecond {
		t.Errorf("measure reports %d calls in %v, less than 1 ms each", n, took)
	}
	if calls <= n {
		t.Errorf("%d calls in all for a last run of %d: no run before the last", calls, n)
	}
	for _, d := range []time.Duration{0, -time.Second} {
		if got := (Options{BenchTime: d}).benchTime(); got != time.Second {
			t.Errorf("BenchTime %v measures for %v, want 1s", d, got)
		}
	}
}

// TestScaledEpoch runs scaled epochs of SET (both procedures) and a
// random mask (H = 500) on a small made-up data set: 100 rows in
// minibatches of 10, 2 of them timed, so scaled by 5. The epoch is the sum of its parts.
func TestScaledEpoch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	d := &engine.Data{N: 100, D: 784, X: make([]uint8, 100*784)}
	for i := range d.X {
		d.X[i] = uint8(r.IntN(2))
	}
	load := func() (*engine.Data, error) { return d, nil }
	random := engine.DefaultConfig()
	random.Method, random.Density = engine.Random, 0.05
	// 14,000 to 20,000 connections each, all trained on compressed rows.
	for _, cfg := range []engine.Config{setConfig(500, false), setConfig(500, true), random} {
		cfg.Batch, cfg.K = 10, 1
		c := scaledEpoch("epoch/test", load, cfg, 2)
		v, err := c.Run()
		if err != nil {
			t.Fatalf("%s %s: %v", cfg.Method, cfg.SETProcedure, err)
		}
		parts := map[string]float64{}
		var names []string
		for _, p := range c.Parts() {
			parts[p.Name] = p.Value
			names = append(names, p.Name)
		}
		if want := "chains chains-idle rows rows-idle serial setup init rewire connections units"; strings.Join(names, " ") != want {
			t.Errorf("parts %v, want %s", names, want)
		}
		sum := parts["chains"] + parts["rows"] + parts["serial"] + parts["setup"] + parts["rewire"]
		if !(v > 0) || math.Abs(v-sum) > 1e-6 {
			t.Errorf("%s %s: epoch %v s, parts sum to %v", cfg.Method, cfg.SETProcedure, v, sum)
		}
		if parts["units"] != 1284 || parts["connections"] < 13000 || parts["connections"] > 21000 {
			t.Errorf("%s: %v connections, %v units", cfg.Method, parts["connections"], parts["units"])
		}
	}
}

// TestScaleConfigs: the SET cases' settings, and those the command gives
// the SET authors' procedure.
func TestScaleConfigs(t *testing.T) {
	c := setConfig(2500, false)
	if c.Method != engine.SET || c.Hidden != 2500 || c.Epsilon != 11 || c.Zeta != 0.3 || c.LR != 0.01 || c.K != 10 || c.Batch != 50 || c.SETProcedure != "" || c.L2 != 0 {
		t.Errorf("SET %+v", c)
	}
	m := setConfig(2500, true)
	if m.SETProcedure != engine.Mocanu || m.K != 1 || m.Init != engine.Normal || m.InitScale != 0.05 || math.Abs(m.L2-2e-5) > 1e-18 || m.LR != 0.01 {
		t.Errorf("Mocanu %+v", m)
	}
}
