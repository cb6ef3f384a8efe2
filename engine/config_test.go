package engine

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestDecayStability: Validate refuses exactly the L2 decays under which
// the weights grow without bound with no gradient at all. The expected
// answer comes from iterating the update itself (float64, the gradient
// zero): s ← μs − λ₂w, w ← w + αs from w = 1, s = 0, for 4000 steps; the
// weight grows (past 10⁶, or |w| > 1 at the end) or decays. Pairs within 2% of the
// boundary αλ₂ = 2(1 + μ) are left out: near it the iteration needs more
// steps to tell.
func TestDecayStability(t *testing.T) {
	grows := func(alpha, l2, mu float64) bool {
		w, s := 1.0, 0.0
		for range 4000 {
			s = mu*s - l2*w
			w += alpha * s
			if math.Abs(w) > 1e6 {
				return true
			}
		}
		return math.Abs(w) > 1
	}
	n := 0
	for _, alpha := range []float64{0.01, 0.1, 0.5, 1, 3} {
		for _, l2 := range []float64{0.001, 0.1, 1, 1.9, 2.5, 3.5, 5, 20, 300} {
			for _, mu := range []float64{0, 0.5, 0.9} {
				if r := alpha * l2 / (2 * (1 + mu)); math.Abs(r-1) < 0.02 {
					continue
				}
				cfg := DefaultConfig()
				cfg.LR, cfg.L2, cfg.Momentum = alpha, l2, mu
				err := cfg.Validate(0)
				refused := err != nil && strings.Contains(err.Error(), "weight decay alone makes the weights grow without bound")
				if refused != grows(alpha, l2, mu) {
					t.Errorf("lr %v, l2 %v, momentum %v: refused %v, the weights grow %v (%v)", alpha, l2, mu, refused, grows(alpha, l2, mu), err)
				}
				n++
			}
		}
	}
	if n < 100 {
		t.Fatalf("%d cases", n)
	}
	// The schedule's largest α and each phase's momentum count: a linear
	// schedule rising to 5 with l2 1 is unstable in its last epochs; a
	// first epoch at momentum 0 with lr 3, l2 1 is unstable though the
	// later momentum 0.9 would hold it.
	rising := DefaultConfig()
	rising.LR, rising.LRSchedule, rising.LRFinal, rising.L2 = 0.1, Linear, 5, 1
	start := DefaultConfig()
	start.LR, start.L2, start.Momentum, start.MomentumStart, start.MomentumEpochs = 3, 1, 0.9, 0, 1
	for name, cfg := range map[string]Config{"linear to 5": rising, "momentum 0 at first": start} {
		if err := cfg.Validate(0); err == nil || !strings.Contains(err.Error(), "l2 = 1: ") {
			t.Errorf("%s: %v, want l2 refused", name, err)
		}
	}
}

// TestSettingsInFloat32: a setting beyond float32's range, which training
// computes in, is refused naming it (-l1 1e39 made the first minibatch's
// weights NaN); the largest float32 is accepted.
func TestSettingsInFloat32(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*Config, float64)
	}{
		{"l1", func(c *Config, v float64) { c.L1 = v }},
		{"init-scale", func(c *Config, v float64) { c.InitScale = v }},
		{"lr-conn", func(c *Config, v float64) { c.LRConn = v }},
	} {
		cfg := DefaultConfig()
		c.set(&cfg, 1e39)
		if err := cfg.Validate(0); err == nil || !strings.Contains(err.Error(), c.name+" = 1e+39 is beyond float32's range") {
			t.Errorf("%s = 1e39: %v", c.name, err)
		}
		cfg = DefaultConfig()
		c.set(&cfg, math.MaxFloat32)
		if err := cfg.Validate(0); err != nil {
			t.Errorf("%s = MaxFloat32: %v", c.name, err)
		}
	}
}

// pcdSampler is the sampler of the tests that run with and without
// persistent chains.
func pcdSampler(on bool) Sampler {
	if on {
		return PersistentCD
	}
	return ""
}

// TestConfigReadsOldPCD: a configuration written with persistent chains
// as "pcd": true (a checkpoint's or config.json's of an earlier version)
// reads as the sampler pcd, and contradicts the samplers cd and pt; what
// MarshalJSON writes reads back equal.
func TestConfigReadsOldPCD(t *testing.T) {
	for _, c := range []struct {
		json    string
		sampler Sampler
		err     bool
	}{
		{`{"method": "ncg", "pcd": true}`, PersistentCD, false},
		{`{"method": "ncg", "pcd": true, "sampler": "pcd"}`, PersistentCD, false},
		{`{"method": "ncg", "pcd": false}`, "", false},
		{`{"method": "ncg", "sampler": "pt"}`, ParallelTempering, false},
		{`{"method": "ncg", "pcd": true, "sampler": "cd"}`, "", true},
		{`{"method": "ncg", "pcd": true, "sampler": "pt"}`, "", true},
	} {
		var cfg Config
		err := json.Unmarshal([]byte(c.json), &cfg)
		if (err != nil) != c.err || (err == nil && (cfg.Sampler != c.sampler || cfg.Method != NCG)) {
			t.Errorf("%s: sampler %q, method %q, %v", c.json, cfg.Sampler, cfg.Method, err)
		}
	}
	cfg := DefaultConfig()
	cfg.Sampler, cfg.Momentum = PersistentCD, 0.5
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil || back != cfg {
		t.Errorf("%s read back as %+v (%v)", b, back, err)
	}
}

// TestMethodAndSamplerLists: Validate accepts every method of Methods and
// sampler of Samplers, and refuses another naming the lists, as written
// here by hand: dense, ncg, line, random, set and cd, pcd, pt.
func TestMethodAndSamplerLists(t *testing.T) {
	for _, m := range Methods() {
		cfg := DefaultConfig()
		cfg.Method = m
		if err := cfg.Validate(784); err != nil {
			t.Errorf("method %s: %v", m, err)
		}
	}
	for _, s := range Samplers() {
		cfg := DefaultConfig()
		cfg.Sampler = s
		if s == ParallelTempering {
			cfg.Temperatures, cfg.MinBeta = 2, 0.5
		}
		if err := cfg.Validate(784); err != nil {
			t.Errorf("sampler %s: %v", s, err)
		}
	}
	cfg := DefaultConfig()
	cfg.Method, cfg.Sampler = "gibbs", "gibbs"
	err := cfg.Validate(784)
	for _, want := range []string{`method "gibbs" is not one of dense, ncg, line, random, set`, `sampler "gibbs" is not one of cd, pcd, pt`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want %q", err, want)
		}
	}
}
