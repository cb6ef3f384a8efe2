package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
	"gonum.org/v1/gonum/stat/distuv"
)

// Gaussian visible units: one CD-1 minibatch against the equations worked
// out here in float64, learning on real-valued data, and the binary
// models' guarantees (any workers, bit-identical resume) for every method
// and sampler.

// gaussData makes n rows of d real values around three prototypes
// (N(0, 1) each), with N(0, 0.3²) noise: something to learn.
func gaussData(seed uint64, n, d int) *Data {
	r := rand.New(rand.NewPCG(seed, 1))
	protos := make([][]float32, 3)
	for p := range protos {
		protos[p] = make([]float32, d)
		for j := range protos[p] {
			protos[p][j] = float32(r.NormFloat64())
		}
	}
	out := &Data{N: n, D: d, Real: make([]float32, n*d)}
	for i := 0; i < n; i++ {
		p := protos[r.IntN(len(protos))]
		for j := range p {
			out.Real[i*d+j] = p[j] + float32(0.3*r.NormFloat64())
		}
	}
	return out
}

func gaussConfig(method Method, learn bool) Config {
	c := smallConfig(method)
	c.Visible, c.LearnSigma, c.LR, c.InitScale = unit.Gaussian, learn, 0.01, 0.1
	return c
}

func sigm(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// TestGaussianMinibatchByHand runs one minibatch of a small Gaussian–
// Bernoulli model and checks every parameter against the update worked out
// in float64 from the energy E = Σ (v−b)²/(2σ²) − c·h − (v/σ²)·(W h) with
// z = log σ² (Cho, Ilin & Raiko 2011), drawing the same random numbers:
// each slot's stream gives a block of 16 uniforms for each hidden sample
// and a block of 16 normal deviates for each visible one, in the order of
// the chain. CD-1 on a 3×2 model with two slots, and CD-3 and PCD-3 on a
// 5×4 model with ten slots (two chain blocks, the incremental down pass);
// σ fixed at 1 and learned (from σ ≠ 1); dense, and NCG, whose A′ follows
// G ⊙ W_old.
func TestGaussianMinibatchByHand(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	type shape struct{ x, h, b, k int }
	for _, sh := range []shape{{3, 2, 2, 1}, {5, 4, 10, 3}} {
		d := gaussData(8, sh.b, sh.x)
		w0 := make([]float32, sh.x*sh.h)
		ap0 := make([]float32, sh.x*sh.h)
		for k := range w0 {
			w0[k] = float32(r.Float64() - 0.5)
			ap0[k] = float32(0.55 + 0.4*r.Float64())
		}
		hb0 := make([]float32, sh.h)
		for i := range hb0 {
			hb0[i] = float32(0.4 * (r.Float64() - 0.5))
		}
		vb0 := make([]float32, sh.x)
		zInit := make([]float32, sh.x)
		for j := range vb0 {
			vb0[j] = float32(r.Float64() - 0.5)
			zInit[j] = float32(r.Float64() - 0.5)
		}
		rows := make([]int32, sh.b)
		for i := range rows {
			rows[i] = int32(i)
		}
		for _, method := range []Method{Dense, NCG} {
			for _, learn := range []bool{false, true} {
				for _, pcd := range []bool{false, true} {
					for _, centre := range []bool{false, true} {
						if pcd && sh.k == 1 {
							continue
						}
						// σ's step and floor: the defaults, the biases' step
						// and no floor (0, 0), and a floor above some of
						// the z the step leaves.
						for _, sig := range [][2]float64{{DefaultSigmaStep, DefaultMinSigma}, {0, 0}, {0.5, 1.05}} {
							if !learn && sig[0] != DefaultSigmaStep {
								continue
							}
							cfg := DefaultConfig()
							cfg.Method, cfg.Hidden, cfg.K, cfg.Batch, cfg.LR, cfg.LRConn, cfg.P, cfg.Seed = method, sh.h, sh.k, sh.b, 0.1, 0.3, 1, 7
							cfg.Visible, cfg.LearnSigma, cfg.Sampler, cfg.Centre = unit.Gaussian, learn, pcdSampler(pcd), centre
							cfg.SigmaStep, cfg.MinSigma = sig[0], sig[1]
							name := fmt.Sprintf("%d×%d CD-%d %s learn-sigma=%v (step %v, floor %v) pcd=%v centre=%v", sh.x, sh.h, sh.k, method, learn, sig[0], sig[1], pcd, centre)
							checkGaussianByHand(t, name, cfg, d, rows, w0, ap0, hb0, vb0, zInit)
						}
					}
				}
			}
		}
	}
}

// checkGaussianByHand sets the model's parameters, runs one minibatch of
// rows and compares the result with the float64 worked example; it
// returns the trainer, closed. DoubleUp and DoubleDown double the input
// (not the bias) of the hidden and of the visible units in the chains'
// conditionals; the gradients keep their form.
func checkGaussianByHand(t *testing.T, name string, cfg Config, d *Data, rows []int32, w0, ap0, hb0, vb0, zInit []float32) *Trainer {
	t.Helper()
	x, h, b := d.D, cfg.Hidden, len(rows)
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	m := tr.m
	copy(m.W, w0)
	copy(m.HiddenBias, hb0)
	copy(m.VisibleBias, vb0)
	if m.AP != nil {
		copy(m.AP, ap0)
	}
	z0 := make([]float32, x)
	if cfg.LearnSigma {
		copy(z0, zInit)
		copy(m.LogVar, z0)
		m.refreshSigma(gaussOf(tr).invVar, 0, x)
	}
	m.refreshC()

	s2 := make([]float64, x)
	for j := range s2 {
		s2[j] = math.Exp(float64(z0[j]))
	}
	W := func(j, i int) float64 { return float64(w0[j*h+i]) }
	fu, fd := 1.0, 1.0 // the factors of the hidden and visible units' inputs
	if cfg.DoubleUp {
		fu = 2
	}
	if cfg.DoubleDown {
		fd = 2
	}
	up := func(v []float64) []float64 {
		p := make([]float64, h)
		for i := range p {
			var in float64
			for j := 0; j < x; j++ {
				in += W(j, i) * v[j] / s2[j]
			}
			p[i] = sigm(float64(hb0[i]) + fu*in)
		}
		return p
	}
	wh := func(p []float64) []float64 { // W p, without the bias
		u := make([]float64, x)
		for j := range u {
			for i := 0; i < h; i++ {
				u[j] += W(j, i) * p[i]
			}
		}
		return u
	}
	// Centred: the offsets of v/σ² (the data's mean over σ²) and of h (½).
	vOff, hOff := make([]float64, x), make([]float64, h)
	if cfg.Centre {
		for r := 0; r < d.N; r++ {
			for j := range vOff {
				vOff[j] += float64(d.Real[r*x+j]) / float64(d.N) / s2[j]
			}
		}
		for i := range hOff {
			hOff[i] = 0.5
		}
	}
	G := make([]float64, x*h)
	gb, gc, gz := make([]float64, x), make([]float64, h), make([]float64, x)
	var recon float64
	for c := 0; c < b; c++ {
		st := kernel.NewStream(cfg.Seed, uint64(c))
		sample := func(p []float64) []float64 { // one block of uniforms
			u := make([]float32, h)
			st.Uniforms(u)
			hs := make([]float64, h)
			for i := range hs {
				if math.Abs(float64(u[i])-p[i]) < 1e-4 {
					t.Fatalf("%s: slot %d: u %g too close to p %g for a float64 check", name, c, u[i], p[i])
				}
				if float64(u[i]) < p[i] {
					hs[i] = 1
				}
			}
			return hs
		}
		x0 := make([]float64, x)
		for j := range x0 {
			x0[j] = float64(d.Real[int(rows[c])*x+j])
		}
		pp := up(x0)
		hs := sample(pp)
		v := x0
		if cfg.Sampler == PersistentCD { // the first minibatch's chains start at the data
			hs = sample(up(v))
		}
		for s := 1; s <= cfg.K; s++ {
			mean := wh(hs)
			zs := make([]float32, x)
			kernel.GaussianSample(zs, make([]float32, x), ones(x), &st)
			v = make([]float64, x)
			for j := range v {
				mean[j] = float64(vb0[j]) + fd*mean[j]
				v[j] = mean[j] + math.Sqrt(s2[j])*float64(zs[j])
				if s == 1 {
					recon += (x0[j] - mean[j]) * (x0[j] - mean[j])
				}
			}
			if s < cfg.K {
				hs = sample(up(v))
			}
		}
		pn := up(v)
		upos, uneg := wh(pp), wh(pn)
		for j := 0; j < x; j++ {
			for i := 0; i < h; i++ {
				G[j*h+i] += (x0[j]/s2[j]-vOff[j])*(pp[i]-hOff[i]) - (v[j]/s2[j]-vOff[j])*(pn[i]-hOff[i])
			}
			bj := float64(vb0[j])
			gb[j] += (x0[j] - v[j]) / s2[j]
			gz[j] += ((x0[j]-bj)*(x0[j]-bj)/2 - x0[j]*upos[j] - (v[j]-bj)*(v[j]-bj)/2 + v[j]*uneg[j]) / s2[j]
		}
		for i := 0; i < h; i++ {
			gc[i] += pp[i] - pn[i]
		}
	}
	got, err := tr.Step(rows)
	tr.Close()
	if err != nil {
		t.Fatal(err)
	}
	near := func(what string, got float32, want float64) {
		t.Helper()
		if math.Abs(float64(got)-want) > 2e-5*max(1, math.Abs(want)) {
			t.Errorf("%s: %s = %.7g, want %.7g", name, what, got, want)
		}
	}
	if math.Abs(got-recon) > 1e-5*max(1, recon) {
		t.Errorf("%s: reconstruction error %g, want %g", name, got, recon)
	}
	alpha := cfg.LR / float64(b)
	// The centred biases d + Cᵀλ and b + C μ step along their gradients;
	// the ordinary ones follow with the new C (the offsets zero: as is).
	dC, bC := make([]float64, x), make([]float64, h)
	for j := 0; j < x; j++ {
		dC[j] = float64(vb0[j]) + alpha*gb[j]
		for i := 0; i < h; i++ {
			c0, c1 := W(j, i), W(j, i)+alpha*G[j*h+i]
			if m.AP != nil {
				ap := math.Min(math.Max(float64(ap0[j*h+i])+cfg.LRConn/float64(b)*G[j*h+i]*W(j, i), 0), 1)
				near(fmt.Sprintf("A′[%d,%d]", j, i), m.AP[j*h+i], ap)
				if ap < cfg.Gamma {
					c1 = 0
				}
			}
			near(fmt.Sprintf("W[%d,%d]", j, i), m.W[j*h+i], W(j, i)+alpha*G[j*h+i])
			dC[j] += (c0 - c1) * hOff[i]
			bC[i] += (c0 - c1) * vOff[j]
		}
		near(fmt.Sprintf("b[%d]", j), m.VisibleBias[j], dC[j])
		if cfg.LearnSigma {
			// z takes SigmaStep of α's step (0: all of it), then at least
			// 2 log MinSigma.
			f := cfg.SigmaStep
			if f == 0 {
				f = 1
			}
			z := float64(z0[j]) + f*alpha*gz[j]
			if cfg.MinSigma > 0 {
				z = math.Max(z, 2*math.Log(cfg.MinSigma))
			}
			near(fmt.Sprintf("z[%d]", j), m.LogVar[j], z)
			near(fmt.Sprintf("σ[%d]", j), m.Sigma[j], math.Exp(z/2))
		} else if m.LogVar[j] != 0 || m.Sigma[j] != 1 {
			t.Errorf("%s: σ[%d] = %g (z %g) moved without learn-sigma", name, j, m.Sigma[j], m.LogVar[j])
		}
	}
	for i := 0; i < h; i++ {
		near(fmt.Sprintf("c[%d]", i), m.HiddenBias[i], float64(hb0[i])+alpha*gc[i]+bC[i])
	}
	return tr
}

func ones(n int) []float32 {
	s := make([]float32, n)
	fill(s, 1)
	return s
}

// TestGaussianLearns trains every method on real-valued data from three
// prototypes: the reconstruction error per unit falls below half its first
// epoch's value (the data's noise variance is 0.09 per unit, its total
// variance about 0.76), with and without learned σ.
func TestGaussianLearns(t *testing.T) {
	d := gaussData(3, 300, 20)
	for _, m := range allMethods {
		for _, learn := range []bool{false, true} {
			cfg := gaussConfig(m, learn)
			cfg.Epochs, cfg.K, cfg.LR = 30, 1, 0.02
			tr, err := New(cfg, d)
			if err != nil {
				t.Fatal(err)
			}
			var first, last float64
			err = tr.Train(context.Background(), Options{OnEpoch: func(r Record) error {
				if r.Epoch == 1 {
					first = r.ReconError
				}
				last = r.ReconError
				return nil
			}})
			if err != nil {
				t.Fatal(err)
			}
			if !(last < first/2) {
				t.Errorf("%s learn-sigma=%v: reconstruction error %.4g after epoch 1, %.4g after %d", m, learn, first, last, cfg.Epochs)
			}
		}
	}
}

// gaussSamplers are the sampler variants the invariance tests run.
func gaussSamplers(cfg Config) []Config {
	pcd, pt, mom := cfg, cfg, cfg
	pcd.Sampler = PersistentCD
	pt.Sampler, pt.Temperatures, pt.MinBeta = ParallelTempering, 3, 0.4
	mom.Momentum, mom.L2 = 0.5, 1e-3
	return []Config{cfg, pcd, pt, mom}
}

// TestGaussianSameResultAnyWorkers: every method and sampler, with fixed
// and learned σ, gives the same parameters in every bit for 1, 2, 3 and 8
// workers, and a fixed sparse mask trains on the dense matrices.
func TestGaussianSameResultAnyWorkers(t *testing.T) {
	d := gaussData(5, 157, 40) // a last partial batch of 7
	cfgs := []Config{}
	for _, m := range allMethods {
		cfgs = append(cfgs, smallConfig(m))
	}
	cfgs = append(cfgs, sparseConfigs()...)
	for _, base := range cfgs {
		for _, learn := range []bool{false, true} {
			base.Visible, base.LearnSigma, base.LR, base.InitScale = unit.Gaussian, learn, 0.01, 0.1
			for _, cfg := range gaussSamplers(base) {
				cfg.Workers = 1
				tr, err := New(cfg, d)
				if err != nil {
					t.Fatal(err)
				}
				if tr.Compressed() {
					t.Fatalf("%s: a Gaussian model trains on compressed rows", cfg.Method)
				}
				ref := train(t, cfg, d)
				for _, w := range []int{2, 3, 8} {
					cfg.Workers = w
					if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
						t.Fatalf("%s learn-sigma=%v sampler %q μ=%v: %s differs between 1 and %d workers", cfg.Method, learn, cfg.Sampler, cfg.Momentum, p, w)
					}
				}
			}
		}
	}
}

// TestGaussianResumeIsBitIdentical: a run stopped mid-epoch and resumed
// from its checkpoint (σ, momentum's velocities and the chains in it)
// ends with the uninterrupted run's parameters.
func TestGaussianResumeIsBitIdentical(t *testing.T) {
	d := gaussData(6, 95, 30)
	for _, m := range []Method{NCG, SET, Dense} {
		for _, learn := range []bool{false, true} {
			for _, cfg := range gaussSamplers(gaussConfig(m, learn)) {
				cfg.Epochs = 3
				checkResume(t, cfg, d, fmt.Sprintf("%s learn-sigma=%v sampler %q μ=%v", m, learn, cfg.Sampler, cfg.Momentum))
			}
		}
	}
}

// TestGaussianRefusals: the settings and data Gaussian units do not take.
func TestGaussianRefusals(t *testing.T) {
	real := gaussData(1, 20, 5)
	bin := randomData(1, 20, 5, 0)
	labelled := gaussData(1, 20, 5)
	labelled.Labels, labelled.Classes = make([]int32, 20), 2
	mocanu := gaussConfig(SET, false)
	mocanu.SETProcedure = Mocanu
	badType := gaussConfig(Dense, false)
	badType.Visible = "gauss"
	for _, c := range []struct {
		cfg  Config
		d    *Data
		want string
	}{
		{gaussConfig(Dense, false), bin, "gaussian units need real-valued rows"},
		{smallConfig(Dense), real, "binary units need binary rows"},
		{gaussConfig(Dense, false), labelled, "generative models only"},
		{mocanu, real, "binary visible units only"},
		{badType, real, `visible "gauss"`},
		{func() Config { c := smallConfig(Dense); c.LearnSigma = true; return c }(), bin, "learn-sigma needs visible gaussian"},
	} {
		if _, err := New(c.cfg, c.d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q, learn-sigma=%v): %v, want an error about %q", c.cfg.Visible, c.cfg.LearnSigma, err, c.want)
		}
	}
	bad := gaussData(1, 4, 2)
	bad.Real[3] = float32(math.NaN())
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "row 1, unit 1") {
		t.Errorf("NaN in the data: %v", err)
	}
}

// TestGaussianPTSamplesTemperedDistributions checks that parallel
// tempering's chains at β = 1 and at the lowest β sample a 2×3
// Gaussian–Bernoulli model's tempered distributions p_β(v, h) ∝ e^(−βE):
// summing v out, p_β(h) ∝ exp(β c·h + β Σ_j ((b_j + (W h)_j)² − b_j²)/(2σ_j²))
// and v_j | h ~ N(b_j + (W h)_j, σ_j²/β). With the learning rate 0 the
// model stays fixed (σ = 0.7 and 1.2, through learn-sigma's z); 4000 slots
// run 60 minibatches, and each chain's last state is one sample, counted in
// the 4×4 cells of v cut at −1, 0 and 1 per unit, whose probabilities are
// sums over h of products of normal interval probabilities. χ² at a false
// alarm rate of 10⁻³ per temperature.
func TestGaussianPTSamplesTemperedDistributions(t *testing.T) {
	const x, h, slots, steps, temps = 2, 3, 4000, 60, 5
	d := gaussData(11, 50, x)
	cfg := gaussConfig(Dense, true)
	cfg.Hidden, cfg.Batch, cfg.K, cfg.LR = h, slots, 1, 0
	cfg.Sampler, cfg.Temperatures, cfg.MinBeta = ParallelTempering, temps, 0.15
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	m := tr.Model()
	copy(m.W, []float32{2, -2, 1.5, -1.5, 2, 2}) // X×H
	copy(m.HiddenBias, []float32{-1, -1.5, -1})
	copy(m.VisibleBias, []float32{0.2, -0.3})
	sigma := []float64{0.7, 1.2}
	for j, s := range sigma {
		m.LogVar[j] = float32(math.Log(s * s))
	}
	m.refreshSigma(gaussOf(tr).invVar, 0, x)
	m.refreshC()
	rows := make([]int32, slots)
	for i := range rows {
		rows[i] = int32(i % d.N)
	}
	for s := 0; s < steps; s++ {
		if _, err := tr.Step(rows); err != nil {
			t.Fatal(err)
		}
	}
	cuts := []float64{math.Inf(-1), -1, 0, 1, math.Inf(1)}
	cell := func(v float32) int {
		k := 0
		for k < 3 && float64(v) >= cuts[k+1] {
			k++
		}
		return k
	}
	for _, k := range []int{0, temps - 1} {
		beta := tr.betas[k]
		counts := make([]float64, 16)
		for c := 0; c < slots; c++ {
			v := tr.pcd[(k*slots+c)*x : (k*slots+c+1)*x]
			counts[cell(v[0])*4+cell(v[1])]++
		}
		p := make([]float64, 16)
		var z float64
		for hs := 0; hs < 1<<h; hs++ {
			lw := 0.0
			var mu [x]float64
			for j := 0; j < x; j++ {
				mu[j] = float64(m.VisibleBias[j])
				for i := 0; i < h; i++ {
					if hs>>i&1 == 1 {
						mu[j] += float64(m.W[j*h+i])
					}
				}
				b := float64(m.VisibleBias[j])
				lw += beta * (mu[j]*mu[j] - b*b) / (2 * sigma[j] * sigma[j])
			}
			for i := 0; i < h; i++ {
				if hs>>i&1 == 1 {
					lw += beta * float64(m.HiddenBias[i])
				}
			}
			w := math.Exp(lw)
			z += w
			for a := 0; a < 4; a++ {
				for b := 0; b < 4; b++ {
					pa, pb := 1.0, 1.0
					for j, q := range [2]int{a, b} {
						n := distuv.Normal{Mu: mu[j], Sigma: sigma[j] / math.Sqrt(beta)}
						pr := n.CDF(cuts[q+1]) - n.CDF(cuts[q])
						if j == 0 {
							pa = pr
						} else {
							pb = pr
						}
					}
					p[a*4+b] += w * pa * pb
				}
			}
		}
		chi2, cells := chiSquare(counts, p, z, slots)
		limit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(1 - 1e-3)
		t.Logf("β = %.3g: χ² = %.1f over %d cells, limit %.1f", beta, chi2, cells, limit)
		if chi2 > limit {
			t.Errorf("PT's chains at β = %.3g do not sample the tempered model: χ² = %.1f > %.1f (%d cells)", beta, chi2, limit, cells)
		}
	}
}
