package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// Doubled inputs (DoubleUp, DoubleDown): the chains' conditionals against
// float64 sums of the same states, a DoubleUp model's up pass against the
// plain model with 2C, whole minibatches against the float64 reference
// (binary and categorical units) and the Gaussian worked example, the
// refusals, and the guarantees (any workers, bit-identical resume).

// doublings are the three ways to double, as edits of a configuration.
var doublings = []struct {
	name     string
	up, down bool
}{{"up", true, false}, {"down", false, true}, {"both", true, true}}

func withDoubling(c Config, up, down bool) Config {
	c.DoubleUp, c.DoubleDown = up, down
	return c
}

// randomBiases sets m's biases to N(0, 0.5²) values, so that a doubled
// bias (2·(b + input) instead of b + 2·input) shows.
func randomBiases(m *Model, r *rand.Rand) {
	for i := range m.HiddenBias {
		m.HiddenBias[i] = float32(0.5 * r.NormFloat64())
	}
	for j := range m.VisibleBias {
		m.VisibleBias[j] = float32(0.5 * r.NormFloat64())
	}
}

// TestDoubledConditionals runs one CD-1 minibatch of a 6×5 binary model
// (four slots), undoubled and in each doubling, and checks every value
// the chain keeps against float64 sums of the model before the step and
// the chain's own states, with the uniforms replayed from a copy of each
// slot's stream: ĥ⁺ = σ(b + f↑·Cᵀx⁰) and h drawn from it, vpre = d + C h
// (undoubled), the reconstruction's probabilities σ(d + f↓·C h) and x̃
// drawn from them, hpre = b + Cᵀx̃ (undoubled) and ĥ⁻ = σ(b + f↑·Cᵀx̃),
// with f = 2 where doubled. A doubled pre-activation, the wrong pass
// doubled or a doubled bias fails it.
func TestDoubledConditionals(t *testing.T) {
	const x, h, b = 6, 5, 4
	d := randomData(4, 12, x, 0)
	rows := []int32{3, 0, 7, 11}
	for _, dbl := range append(doublings, struct {
		name     string
		up, down bool
	}{"none", false, false}) {
		cfg := withDoubling(smallConfig(Dense), dbl.up, dbl.down)
		cfg.Hidden, cfg.Batch, cfg.K, cfg.Workers = h, b, 1, 1
		tr, err := New(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		m := tr.m
		r := rand.New(rand.NewPCG(5, 6))
		for k := range m.W {
			m.W[k] = float32(2*r.Float64() - 1)
		}
		randomBiases(m, r)
		m.refreshC()
		m0 := m.Clone()
		streams := append([]kernel.Stream(nil), tr.streams...)
		if _, err := tr.Step(rows); err != nil {
			t.Fatal(err)
		}
		tr.Close()
		fu, fd := 1.0, 1.0
		if dbl.up {
			fu = 2
		}
		if dbl.down {
			fd = 2
		}
		C := func(j, i int) float64 { return float64(m0.c[j*h+i]) }
		near := func(what string, c, k int, got float32, want, tol float64) {
			t.Helper()
			if math.Abs(float64(got)-want) > tol {
				t.Fatalf("doubling %s, slot %d: %s[%d] = %.7g, want %.7g", dbl.name, c, what, k, got, want)
			}
		}
		// draw replays the slot's next uniforms: state k is on iff u_k < p_k.
		draw := func(what string, c int, st *kernel.Stream, p []float64, got []float32) {
			t.Helper()
			u := make([]float32, len(p))
			st.Uniforms(u)
			for k := range p {
				if math.Abs(float64(u[k])-p[k]) < 1e-5 {
					t.Fatalf("doubling %s, slot %d: uniform %g too close to p %g for a float64 check", dbl.name, c, u[k], p[k])
				}
				want := float32(0)
				if float64(u[k]) < p[k] {
					want = 1
				}
				if got[k] != want {
					t.Fatalf("doubling %s, slot %d: %s[%d] = %v, want %v (u %g, p %g)", dbl.name, c, what, k, got[k], want, u[k], p[k])
				}
			}
		}
		// hidden returns b + f·Cᵀs (f·Cᵀs plus the bias) and its σ.
		hidden := func(s []float32, f float64) (pre, p []float64) {
			pre, p = make([]float64, h), make([]float64, h)
			for i := range pre {
				var in float64
				for j := 0; j < x; j++ {
					in += C(j, i) * float64(s[j])
				}
				pre[i] = float64(m0.HiddenBias[i]) + f*in
				p[i] = sigm(pre[i])
			}
			return pre, p
		}
		visible := func(s []float32, f float64) (pre, p []float64) {
			pre, p = make([]float64, x), make([]float64, x)
			for j := range pre {
				var in float64
				for i := 0; i < h; i++ {
					in += C(j, i) * float64(s[i])
				}
				pre[j] = float64(m0.VisibleBias[j]) + f*in
				p[j] = sigm(pre[j])
			}
			return pre, p
		}
		for c := 0; c < b; c++ {
			st := &streams[c]
			x0, hs, xs := tr.x0[c*x:(c+1)*x], tr.h[c*h:(c+1)*h], tr.xs[c*x:(c+1)*x]
			for j := 0; j < x; j++ {
				if x0[j] != float32(d.X[int(rows[c])*x+j]) {
					t.Fatalf("slot %d: x⁰ is not data row %d", c, rows[c])
				}
			}
			_, pos := hidden(x0, fu)
			for i, p := range pos {
				near("ĥ⁺", c, i, tr.hpos[c*h+i], p, 1e-6)
			}
			draw("h", c, st, pos, hs)
			vpre, _ := visible(hs, 1)
			_, vp := visible(hs, fd)
			for j := range vp {
				near("vpre", c, j, tr.vpre[c*x+j], vpre[j], 1e-5)
				near("reconstruction", c, j, tr.vprob[c*x+j], vp[j], 1e-6)
			}
			draw("x̃", c, st, vp, xs)
			hpre, _ := hidden(xs, 1)
			_, neg := hidden(xs, fu)
			for i := range neg {
				near("hpre", c, i, tr.hpre[c*h+i], hpre[i], 1e-5)
				near("−ĥ⁻", c, i, tr.nhneg[c*h+i], -neg[i], 1e-6)
			}
		}
	}
}

// TestDoubleUpIsTwiceC: in the up pass a DoubleUp model with weights C is
// the plain model with 2C: both give the same ĥ⁺ (to float32 rounding:
// 2·(b + Cᵀx) − b against b + 2Cᵀx) in the positive phase of three CD-3
// minibatches of a 21×7 NCG model from random biases, the DoubleUp model
// trained on between them. Its down pass, unlike the 2C model's, is the
// plain model's with C: TestDoubledConditionals and
// TestDoubledMinibatchMatchesReference check it.
func TestDoubleUpIsTwiceC(t *testing.T) {
	d := randomData(3, 40, 21, 0)
	base := smallConfig(NCG)
	base.Hidden, base.Batch, base.Workers = 7, 5, 1
	dbl, plain := withDoubling(base, true, false), base
	r := rand.New(rand.NewPCG(7, 8))
	tu, err := New(dbl, d)
	if err != nil {
		t.Fatal(err)
	}
	randomBiases(tu.m, r)
	defer tu.Close()
	for n, rows := range [][]int32{{1, 2, 3, 5, 8}, {4, 17, 0, 33, 9}, {12, 30, 7, 21, 39}} {
		// The plain model with 2C (2W, the same mask and biases) and the
		// same streams.
		tp, err := New(plain, d)
		if err != nil {
			t.Fatal(err)
		}
		mu, mp := tu.Model(), tp.m
		copy(mp.A, mu.A)
		copy(mp.AP, mu.AP)
		copy(mp.HiddenBias, mu.HiddenBias)
		copy(mp.VisibleBias, mu.VisibleBias)
		for k, w := range mu.W {
			mp.W[k] = 2 * w
		}
		mp.refreshC()
		copy(tp.streams, tu.streams)
		for _, tr := range []*Trainer{tu, tp} {
			if _, err := tr.Step(rows); err != nil {
				t.Fatal(err)
			}
		}
		tp.Close()
		for k, p := range tp.hpos[:len(rows)*tp.m.H] {
			if math.Abs(float64(tu.hpos[k]-p)) > 1e-6 {
				t.Fatalf("minibatch %d: ĥ⁺[%d] = %v with DoubleUp, %v with 2C", n+1, k, tu.hpos[k], p)
			}
		}
	}
}

// TestDoubledMinibatchMatchesReference runs three minibatches of doubled
// configurations (dense, NCG with PCD, line, compressed rows of SET and
// random with PCD, momentum with decay, centred; binary and categorical
// units; generative and with three label units), each doubling, from
// random biases, and checks the second and third against the float64
// reference started from the engine's state before each. CD-3 draws two
// intermediate hidden states and three visible ones: doubling the wrong
// pass, only the first step, or the bias as well fails it.
func TestDoubledMinibatchMatchesReference(t *testing.T) {
	ncgPCD, randomPCD := smallConfig(NCG), sparseConfigs()[1]
	ncgPCD.Sampler, randomPCD.Sampler = PersistentCD, PersistentCD
	mom, ctr := smallConfig(NCG), smallConfig(Dense)
	mom.Momentum, mom.MomentumStart, mom.MomentumEpochs, mom.L2, mom.L1 = 0.9, 0.5, 2, 0.02, 0.003
	ctr.Centre = true
	catPCD := catConfig(smallConfig(NCG))
	catPCD.Sampler = PersistentCD
	bases := []Config{smallConfig(Dense), ncgPCD, smallConfig(Line), sparseConfigs()[0], randomPCD, mom, ctr,
		catConfig(smallConfig(Dense)), catPCD, catConfig(sparseConfigs()[0])}
	r := rand.New(rand.NewPCG(9, 10))
	for _, base := range bases {
		for _, dbl := range doublings {
			for _, classes := range []int{0, 3} {
				cfg := withDoubling(base, dbl.up, dbl.down)
				cfg.Batch, cfg.InitScale = 5, 0.5
				if cfg.Method != SET { // the sparse SET keeps its ε for 21 units
					cfg.Hidden, cfg.K = 7, 3
				}
				d := randomData(3, 40, 21, classes)
				if cfg.Visible == unit.Categorical {
					d = categoricalData(3, 40, catGroups, classes)
				}
				name := fmt.Sprintf("%s %s double-%s classes=%d", cfg.Visible, describeConfig(cfg), dbl.name, classes)
				tr, err := New(cfg, d)
				if err != nil {
					t.Fatal(err)
				}
				if sparse := cfg.Method == SET || cfg.Method == Random; tr.Compressed() != sparse {
					t.Fatalf("%s: compressed %v, want %v", name, tr.Compressed(), sparse)
				}
				randomBiases(tr.m, r)
				if _, err := tr.Step([]int32{1, 2, 3, 5, 8}); err != nil { // PCD's chains start at this batch
					t.Fatal(err)
				}
				for n, rows := range [][]int32{{4, 17, 0, 33, 9}, {12, 30, 7, 21, 39}} {
					tr.epoch = 1 + n
					m0 := tr.Model().Clone()
					in := refState{epoch: tr.epoch, vW: f64(tr.velW), vB: f64(tr.velB), vV: f64(tr.velV), chains: f64(tr.pcd)}
					if tr.ctr != nil {
						in.lambda = f64(tr.ctr.lambda)
					}
					streams := append([]kernel.Stream(nil), tr.streams...)
					if _, err := tr.Step(rows); err != nil {
						t.Fatal(err)
					}
					want, out := reference(t, m0, cfg, d, rows, streams, in)
					tolB := 1e-5
					if cfg.Centre {
						tolB = 2e-5
					}
					matchReference(t, fmt.Sprintf("%s step %d", name, n+2), tr, want, out, tolB)
				}
				tr.Close()
			}
		}
	}
}

// TestDoubledGaussianByHand: Gaussian visible units, doubled, against the
// float64 worked example of TestGaussianMinibatchByHand (the hidden units'
// input C(v/σ²) doubled, the visible units' mean d + 2Cᵀh), with learned
// σ, CD-3 and PCD-3, on the dense matrices and on compressed copies of a
// sparse C (an NCG model with 5 of its 60 weights non-zero).
func TestDoubledGaussianByHand(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for _, sparse := range []bool{false, true} {
		x, h, b := 5, 4, 10
		if sparse {
			x, h = 10, 6
		}
		d := gaussData(8, b, x)
		w0, ap0 := make([]float32, x*h), make([]float32, x*h)
		for k := range w0 {
			w0[k] = float32(r.Float64() - 0.5)
			ap0[k] = float32(0.55 + 0.4*r.Float64())
		}
		if sparse {
			keep := map[int]bool{}
			for len(keep) < 5 {
				keep[r.IntN(x*h)] = true
			}
			for k := range w0 {
				if !keep[k] {
					w0[k] = 0
				}
			}
		}
		hb0, vb0, z0 := make([]float32, h), make([]float32, x), make([]float32, x)
		for i := range hb0 {
			hb0[i] = float32(r.Float64() - 0.5)
		}
		for j := range vb0 {
			vb0[j] = float32(r.Float64() - 0.5)
			z0[j] = float32(r.Float64() - 0.5)
		}
		rows := make([]int32, b)
		for i := range rows {
			rows[i] = int32(i)
		}
		for _, dbl := range doublings {
			for _, pcd := range []bool{false, true} {
				cfg := DefaultConfig()
				cfg.Method, cfg.Hidden, cfg.K, cfg.Batch, cfg.LR, cfg.LRConn, cfg.P, cfg.Seed = NCG, h, 3, b, 0.1, 0.3, 1, 7
				cfg.Visible, cfg.LearnSigma, cfg.Sampler = unit.Gaussian, true, pcdSampler(pcd)
				cfg = withDoubling(cfg, dbl.up, dbl.down)
				name := fmt.Sprintf("%d×%d double-%s pcd=%v", x, h, dbl.name, pcd)
				tr := checkGaussianByHand(t, name, cfg, d, rows, w0, ap0, hb0, vb0, z0)
				if gaussOf(tr).sparse != sparse {
					t.Fatalf("%s: compressed chain products %v, want %v", name, gaussOf(tr).sparse, sparse)
				}
			}
		}
	}
}

// TestDoubledRefusals: the doubling takes the cd and pcd samplers only,
// and not the SET authors' procedure; the errors name the setting.
func TestDoubledRefusals(t *testing.T) {
	d := randomData(1, 20, 30, 0)
	for _, dbl := range doublings {
		want := map[string]string{"up": "double-up", "down": "double-down", "both": "double-up and double-down"}[dbl.name]
		for _, s := range []Sampler{"", CD, PersistentCD} {
			c := withDoubling(smallConfig(NCG), dbl.up, dbl.down)
			c.Sampler = s
			if _, err := New(c, d); err != nil {
				t.Errorf("double-%s with sampler %q refused: %v", dbl.name, s, err)
			}
		}
		pt := withDoubling(smallConfig(NCG), dbl.up, dbl.down)
		pt.Sampler, pt.Temperatures, pt.MinBeta = ParallelTempering, 3, 0.3
		moc := withDoubling(smallConfig(SET), dbl.up, dbl.down)
		moc.SETProcedure = Mocanu
		for _, c := range []struct {
			cfg  Config
			what string
		}{{pt, "pt sampler"}, {moc, "set-procedure mocanu"}} {
			_, err := New(c.cfg, d)
			if err == nil || !strings.Contains(err.Error(), want+": ") || !strings.Contains(err.Error(), c.what) {
				t.Errorf("double-%s with the %s: want an error naming %q and %q, got %v", dbl.name, c.what, want, c.what, err)
			}
		}
	}
}

// TestDoubledGuarantees: doubled runs give the same bits for any number
// of workers (compressed rows' blocks follow the workers) and resume
// bit-identically from a checkpoint taken mid-epoch, which carries the
// doubling in its configuration.
func TestDoubledGuarantees(t *testing.T) {
	sparsePCD := withDoubling(sparseConfigs()[0], true, true)
	sparsePCD.Sampler, sparsePCD.Batch = PersistentCD, 40
	thin := withDoubling(gaussConfig(NCG, true), false, true) // compressed chain products
	thin.P = 0.1
	cfgs := []Config{withDoubling(smallConfig(NCG), true, false), sparsePCD, thin, withDoubling(catConfig(smallConfig(Dense)), true, true)}
	// data of n rows of the configuration's units.
	data := func(cfg Config, n int) *Data {
		switch cfg.Visible {
		case unit.Gaussian:
			return gaussData(5, n, 40)
		case unit.Categorical:
			return categoricalData(5, n, catGroups, 0)
		}
		return randomData(5, n, 40, 0)
	}
	for _, cfg := range cfgs {
		name := fmt.Sprintf("%s %s up=%v down=%v", cfg.Visible, describeConfig(cfg), cfg.DoubleUp, cfg.DoubleDown)
		d := data(cfg, 157) // a last partial batch
		cfg.Workers = 1
		ref := train(t, cfg, d)
		for _, w := range []int{2, 3} {
			cfg.Workers = w
			if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
				t.Fatalf("%s: %s differs between 1 and %d workers", name, p, w)
			}
		}
		// checkResume stops after 14 minibatches: in epoch 2 of 10.
		cfg.Batch, cfg.Epochs = 10, 3
		checkResume(t, cfg, data(cfg, 95), name)
	}
}
