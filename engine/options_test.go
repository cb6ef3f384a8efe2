package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ncg-rbm/ncg/kernel"
)

// optionConfigs are small configurations that use momentum (with its
// start phase), weight decay, the schedules and parallel tempering.
func optionConfigs() []Config {
	var cs []Config
	for _, cfg := range append(allConfigs()[:3], sparseConfigs()[0]) { // dense, ncg, line, sparse set
		c := cfg
		c.Momentum, c.MomentumStart, c.MomentumEpochs = 0.9, 0.5, 2
		c.L2, c.L1 = 0.02, 0.003
		c.LRSchedule, c.LRFinal, c.Epochs = Linear, 0.01, 4
		cs = append(cs, c)
		p := cfg
		p.Sampler, p.Temperatures, p.MinBeta = ParallelTempering, 4, 0.2
		p.LRSchedule, p.LRStepEvery, p.LRStepFactor, p.Epochs = Step, 2, 0.5, 4
		cs = append(cs, p)
	}
	pcd := smallConfig(NCG)
	pcd.Sampler = PersistentCD
	cs = append(cs, pcd)
	both := smallConfig(NCG)
	both.Sampler, both.Temperatures, both.MinBeta = ParallelTempering, 3, 0.3
	both.Momentum, both.L2 = 0.8, 0.01
	cs = append(cs, both)
	// The SET authors' procedure, on compressed rows (k = 2, decay) and on
	// the dense matrices (k = 1, momentum and decay).
	sparse, dense := sparseConfigs()[0], smallConfig(SET)
	sparse.SETProcedure, sparse.K, sparse.L2 = Mocanu, 2, 0.02
	dense.SETProcedure, dense.K, dense.L2, dense.Momentum = Mocanu, 1, 0.02, 0.5
	return append(cs, sparse, dense)
}

func describeConfig(c Config) string {
	return fmt.Sprintf("%s%s sampler=%q μ=%v/%v λ2=%v λ1=%v schedule=%q centre=%v", c.Method, c.SETProcedure, c.Sampler, c.MomentumStart, c.Momentum, c.L2, c.L1, c.LRSchedule, c.Centre)
}

// TestMinibatchOptionsMatchReference runs three minibatches of every
// option configuration, and of every configuration centred, and checks
// the second and third against the float64 reference, started from the
// engine's state before each: parameters, velocities, PT's chains and the
// hidden offsets. The epoch is set so that the momentum's start phase, its
// switch and the schedules are exercised. The centred reference takes the
// step in the centred parameterisation itself (biases b + Cμ and d + Cᵀλ,
// the correlations of the offset units) and converts back with the new C.
func TestMinibatchOptionsMatchReference(t *testing.T) {
	for _, cfg := range append(optionConfigs(), centredConfigs()...) {
		for _, classes := range []int{0, 3} {
			d := randomData(3, 40, 21, classes)
			cfg.Batch, cfg.InitScale = 5, 0.5
			if cfg.Method != SET { // the sparse SET keeps its ε for 21 units
				cfg.Hidden, cfg.K = 7, 3
			}
			name := describeConfig(cfg) + fmt.Sprintf(" classes=%d", classes)
			tr, err := New(cfg, d)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tr.Step([]int32{1, 2, 3, 5, 8}); err != nil { // PT chains start at this batch
				t.Fatal(err)
			}
			for n, rows := range [][]int32{{4, 17, 0, 33, 9}, {12, 30, 7, 21, 39}} {
				tr.epoch = 1 + n // epoch 1: μ start, epoch 2: μ; linear α 0.07, 0.04; step α 0.05, 0.025
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
				got := tr.Model()
				tolB := 1e-5
				if cfg.Centre { // the biases' shifts: sums of H or X products
					tolB = 2e-5
				}
				matchReference(t, fmt.Sprintf("%s step %d", name, n+2), tr, want, out, tolB)
				if msg := copiesFollowC(got); msg != "" {
					t.Fatal(msg)
				}
			}
			tr.Close()
		}
	}
}

// matchReference compares the trainer's state after a minibatch with the
// reference's (want, out): parameters, velocities, PT's chains, the
// hidden offsets of a centred run; biases to tolerance tolB.
func matchReference(t *testing.T, name string, tr *Trainer, want *Model, out refState, tolB float64) {
	t.Helper()
	cfg, got := tr.cfg, tr.Model()
	cmp := func(what string, a []float32, b []float64, tol float64) {
		t.Helper()
		if len(a) != len(b) {
			t.Fatalf("%s: %s has %d values, want %d", name, what, len(a), len(b))
		}
		for k := range a {
			if math.Abs(float64(a[k])-b[k]) > tol {
				t.Fatalf("%s: %s[%d] = %g, want %g", name, what, k, a[k], b[k])
			}
		}
	}
	cmp("W", got.W, f64(want.W), 1e-5)
	cmp("A", got.A, f64(want.A), 0)
	cmp("C", got.c, f64(want.c), 1e-5)
	cmp("b", got.HiddenBias, f64(want.HiddenBias), tolB)
	cmp("d", got.VisibleBias, f64(want.VisibleBias), tolB)
	if cfg.Method == NCG {
		cmp("A′", got.AP, f64(want.AP), 1e-5)
	}
	if cfg.hasMomentum() {
		cmp("velocity of W", tr.velW, out.vW, 1e-5)
		cmp("velocity of b", tr.velB, out.vB, 1e-5)
		cmp("velocity of d", tr.velV, out.vV, 1e-5)
	}
	if cfg.Sampler == ParallelTempering {
		cmp("PT chains", tr.pcd, out.chains, 0)
	}
	if tr.ctr != nil {
		cmp("λ", tr.ctr.lambda, out.lambda, 1e-6)
	}
	if msg := copiesFollowC(got); msg != "" {
		t.Fatal(msg)
	}
}

func f64(a []float32) []float64 {
	if a == nil {
		return nil
	}
	out := make([]float64, len(a))
	for i, v := range a {
		out[i] = float64(v)
	}
	return out
}

// TestScheduleValues checks the schedules against values worked out by
// hand.
func TestScheduleValues(t *testing.T) {
	c := smallConfig(Dense)
	c.LR, c.Epochs = 0.1, 10
	c.LRSchedule, c.LRFinal = Linear, 0.01
	for e, want := range map[int]float64{0: 0.1, 3: 0.07, 9: 0.01, 12: 0.01} {
		if got := c.LRAt(e); math.Abs(got-want) > 1e-15 {
			t.Errorf("linear: epoch %d: α = %v, want %v", e, got, want)
		}
	}
	c.LRSchedule, c.LRFinal, c.LRStepEvery, c.LRStepFactor = Step, 0, 3, 0.5
	for e, want := range map[int]float64{0: 0.1, 2: 0.1, 3: 0.05, 8: 0.025, 9: 0.0125} {
		if got := c.LRAt(e); math.Abs(got-want) > 1e-15 {
			t.Errorf("step: epoch %d: α = %v, want %v", e, got, want)
		}
	}
	c.LRSchedule = ""
	if c.LRAt(7) != 0.1 {
		t.Error("the constant schedule changed α")
	}
	c.Momentum, c.MomentumStart, c.MomentumEpochs = 0.9, 0.5, 5
	if c.MomentumAt(4) != 0.5 || c.MomentumAt(5) != 0.9 {
		t.Errorf("momentum %v in epoch 4, %v in epoch 5; want 0.5, 0.9", c.MomentumAt(4), c.MomentumAt(5))
	}
	c.Sampler, c.Temperatures, c.MinBeta = ParallelTempering, 3, 0.25
	if b := c.Betas(); len(b) != 3 || b[0] != 1 || b[1] != 0.5 || b[2] != 0.25 {
		t.Errorf("ladder %v, want [1 0.5 0.25]", b)
	}
}

// TestBiasesAndConnectionStrengthGetNoDecayOrMomentum pins two choices:
// weight decay leaves the biases alone (a run with L2 and L1 moves the
// biases exactly as one without), and A′ gets no momentum (with momentum,
// A′ after two minibatches is A′ + α_A·(g₁w₀ + g₂w₁) with the plain
// gradients, recomputed here from the engine's own gradients).
func TestBiasesAndConnectionStrengthGetNoDecayOrMomentum(t *testing.T) {
	d := randomData(3, 40, 21, 0)
	base := smallConfig(NCG)
	base.Hidden, base.Batch, base.Momentum = 7, 5, 0.9 // momentum: both runs take the same Go update
	decayed := base
	decayed.L2, decayed.L1 = 0.5, 0.1
	rows := []int32{4, 17, 0, 33, 9}
	models := make([]*Model, 2)
	for i, c := range []Config{base, decayed} {
		tr, err := New(c, d)
		if err != nil {
			t.Fatal(err)
		}
		for k := range tr.m.HiddenBias { // non-zero biases, which decay would shrink
			tr.m.HiddenBias[k] = 0.3 * float32(k%3-1)
		}
		for k := range tr.m.VisibleBias {
			tr.m.VisibleBias[k] = 0.2 * float32(k%3-1)
		}
		if _, err := tr.Step(rows); err != nil {
			t.Fatal(err)
		}
		tr.Close()
		models[i] = tr.Model()
	}
	if p := paramsEqual(models[0], models[1]); p != "W" {
		t.Fatalf("decay changed %q first, want W (and only W, A, A′, C: not the biases)", p)
	}
	for k := range models[0].HiddenBias {
		if models[0].HiddenBias[k] != models[1].HiddenBias[k] {
			t.Fatalf("hidden bias %d: %v with decay, %v without", k, models[1].HiddenBias[k], models[0].HiddenBias[k])
		}
	}
	for k := range models[0].VisibleBias {
		if models[0].VisibleBias[k] != models[1].VisibleBias[k] {
			t.Fatalf("visible bias %d: %v with decay, %v without", k, models[1].VisibleBias[k], models[0].VisibleBias[k])
		}
	}

	// A′ after two minibatches with momentum 0.9 is what the plain rule
	// gives from each minibatch's gradient: the gradient g of a minibatch
	// is recovered from the velocity (v₁ = g₁, v₂ = μv₁ + g₂ on active
	// connections; no decay).
	tr, _ := New(base, d)
	defer tr.Close()
	m := tr.Model()
	ap0, w0, a0 := append([]float32(nil), m.AP...), append([]float32(nil), m.W...), append([]float32(nil), m.A...)
	if _, err := tr.Step(rows); err != nil {
		t.Fatal(err)
	}
	v1, w1, a1, ap1 := append([]float32(nil), tr.velW...), append([]float32(nil), m.W...), append([]float32(nil), m.A...), append([]float32(nil), m.AP...)
	if _, err := tr.Step([]int32{12, 30, 7, 21, 39}); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for k := 0; k < m.DataUnits*m.H; k++ {
		if a0[k] != 1 || a1[k] != 1 || ap1[k] <= 0 || ap1[k] >= 1 || m.AP[k] <= 0 || m.AP[k] >= 1 {
			continue // both steps active and A′ not clamped: g recoverable
		}
		g1 := float64(v1[k])
		g2 := float64(tr.velW[k]) - 0.9*float64(v1[k])
		want := float64(ap0[k]) + base.LRConn*(g1*float64(w0[k])+g2*float64(w1[k]))
		if math.Abs(float64(m.AP[k])-want) > 1e-5 {
			t.Fatalf("A′[%d] = %v, want %v (no momentum)", k, m.AP[k], want)
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d connections checked", checked)
	}
}

// TestOptionsSameResultAnyWorkers: momentum, decay, schedules and PT give
// the same bits for any number of workers and GOMAXPROCS.
func TestOptionsSameResultAnyWorkers(t *testing.T) {
	d := randomData(5, 157, 40, 0) // a last partial batch of 7
	for _, cfg := range optionConfigs() {
		cfg.Workers = 1
		ref := train(t, cfg, d)
		for _, w := range []int{2, 3, 8} {
			cfg.Workers = w
			if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
				t.Fatalf("%s: %s differs between 1 and %d workers", describeConfig(cfg), p, w)
			}
		}
		for _, procs := range []int{1, 3} {
			old := runtime.GOMAXPROCS(procs)
			cfg.Workers = 0
			m := train(t, cfg, d)
			runtime.GOMAXPROCS(old)
			if p := paramsEqual(ref, m); p != "" {
				t.Fatalf("%s: %s differs with GOMAXPROCS=%d", describeConfig(cfg), p, procs)
			}
		}
	}
}

// TestOptionsResumeIsBitIdentical: a run stopped mid-epoch and resumed from
// its checkpoint (velocities, PT chains and streams included) ends with the
// uninterrupted run's bits.
func TestOptionsResumeIsBitIdentical(t *testing.T) {
	d := randomData(6, 95, 30, 2)
	for _, cfg := range optionConfigs() {
		cfg.Epochs = 3
		if cfg.LRSchedule == Linear {
			cfg.Epochs = 4
		}
		checkResume(t, cfg, d, describeConfig(cfg))
	}
}

func TestValidateOptions(t *testing.T) {
	good := smallConfig(NCG)
	pt := good
	pt.Sampler, pt.Temperatures, pt.MinBeta = ParallelTempering, 5, 0.1
	cases := []struct {
		base Config
		edit func(*Config)
		want string
	}{
		{good, func(c *Config) { c.Sampler = "gibbs" }, "sampler"},
		{good, func(c *Config) { c.Temperatures = 4 }, "only the pt sampler"},
		{pt, func(c *Config) { c.Temperatures = 1 }, "temperatures = 1"},
		{pt, func(c *Config) { c.MinBeta = 1 }, "min-beta"},
		{pt, func(c *Config) { c.MinBeta = 0 }, "min-beta"},
		{good, func(c *Config) { c.Momentum = 1 }, "momentum = 1"},
		{good, func(c *Config) { c.Momentum = math.NaN() }, "momentum"},
		{good, func(c *Config) { c.MomentumStart = 0.5 }, "momentum-epochs"},
		{good, func(c *Config) { c.MomentumEpochs = -1 }, "momentum-epochs"},
		{good, func(c *Config) { c.L2 = -0.1 }, "l2"},
		{good, func(c *Config) { c.L1 = math.Inf(1) }, "l1"},
		{good, func(c *Config) { c.LRSchedule = "cosine" }, "lr-schedule"},
		{good, func(c *Config) { c.LRFinal = 0.01 }, "needs lr-schedule linear"},
		{good, func(c *Config) { c.LRSchedule = Linear; c.LRFinal = -1 }, "lr-final"},
		{good, func(c *Config) { c.LRSchedule = Step; c.LRStepFactor = 0.5 }, "lr-step-every"},
		{good, func(c *Config) { c.LRSchedule = Step; c.LRStepEvery = 2 }, "lr-step-factor"},
	}
	d := randomData(1, 20, 30, 0)
	if _, err := New(pt, d); err != nil {
		t.Fatalf("good PT config rejected: %v", err)
	}
	for _, tc := range cases {
		c := tc.base
		tc.edit(&c)
		_, err := New(c, d)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error mentioning %q, got %v", tc.want, err)
		}
	}
}

// checkResume trains cfg uninterrupted, then stopped in the middle of
// epoch 2 and resumed from its checkpoint, and compares the final bits.
func checkResume(t *testing.T, cfg Config, d *Data, name string) {
	t.Helper()
	want := train(t, cfg, d)
	ckpt := filepath.Join(t.TempDir(), "run.ckpt")
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	batches := 0
	tr.afterBatch = func() { // stop in the middle of epoch 2
		if batches++; batches == 14 {
			cancel()
		}
	}
	err = tr.Train(ctx, Options{Checkpoint: ckpt})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Train after cancel: %v", err)
	}
	if tr.Epoch() != 1 || tr.batch != 4 {
		t.Fatalf("stopped at epoch %d batch %d, want 1, 4", tr.Epoch(), tr.batch)
	}
	tr2, err := Resume(ckpt, d, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr2.Train(context.Background(), Options{Checkpoint: ckpt}); err != nil {
		t.Fatal(err)
	}
	if p := paramsEqual(want, tr2.Model()); p != "" {
		t.Fatalf("%s: resumed run differs in %s", name, p)
	}
}

// TestPTSamplesExactDistribution checks that the β = 1 chains of parallel
// tempering sample a small RBM's distribution p(x) ∝ exp(d·x) Π_i (1 +
// exp(b_i + C_i x)), enumerated over the 2⁶ visible states. The model is
// bimodal (strong weights), so that a wrong swap rule shows. With the
// learning rate 0 the model stays fixed; 4000 slots each run 60
// minibatches from its first data row, and each slot's last state is one
// independent sample. A χ² test of the counts (cells of expected count
// below 5 merged) at a false-alarm rate of 10⁻³. A wrong swap rule fails
// it (a flipped or halved exponent, swaps always accepted: χ² 370–6,300
// against a limit of 88), and so does a visible step taken at β = 1 in every
// chain; PT that never swaps passes, since its β = 1 chain alone is PCD-1,
// which samples this small model correctly given 60 steps.
func TestPTSamplesExactDistribution(t *testing.T) {
	const x, h, slots, steps = 6, 3, 4000, 60
	d := randomData(11, 50, x, 0)
	cfg := smallConfig(Dense)
	cfg.Hidden, cfg.Batch, cfg.K, cfg.LR = h, slots, 1, 0
	cfg.Sampler, cfg.Temperatures, cfg.MinBeta = ParallelTempering, 5, 0.15
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	m := tr.Model()
	weights := []float32{3, -3, 2.5, 3, -2, -3, 3, 2.5, 2, -3, 3, -3, 2, 2.5, -3, -3, 3, 3} // X×H
	copy(m.W, weights)
	for i := range m.HiddenBias {
		m.HiddenBias[i] = -float32(i%2) - 1
	}
	for j := range m.VisibleBias {
		m.VisibleBias[j] = -1
	}
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
	counts := make([]float64, 1<<x)
	for c := 0; c < slots; c++ {
		state := 0
		for j, v := range tr.pcd[c*x : (c+1)*x] {
			if v != 0 {
				state |= 1 << j
			}
		}
		counts[state]++
	}
	// Exact probabilities by enumeration, in float64.
	p := make([]float64, 1<<x)
	var z float64
	for s := range p {
		lp := 0.0
		for j := 0; j < x; j++ {
			if s>>j&1 == 1 {
				lp += float64(m.VisibleBias[j])
			}
		}
		for i := 0; i < h; i++ {
			a := float64(m.HiddenBias[i])
			for j := 0; j < x; j++ {
				if s>>j&1 == 1 {
					a += float64(m.c[j*h+i])
				}
			}
			lp += math.Log1p(math.Exp(a))
		}
		p[s] = math.Exp(lp)
		z += p[s]
	}
	chi2, cells := chiSquare(counts, p, z, slots)
	limit := distuv.ChiSquared{K: float64(cells - 1)}.Quantile(1 - 1e-3)
	t.Logf("χ² = %.1f over %d cells, limit %.1f", chi2, cells, limit)
	if chi2 > limit {
		t.Errorf("PT's β = 1 chains do not sample the model: χ² = %.1f > %.1f (%d cells)", chi2, limit, cells)
	}
}

// chiSquare returns Pearson's statistic of counts against the
// probabilities p/z of n samples, merging cells of expected count below 5
// (in increasing order of expectation) into one, and the number of cells.
func chiSquare(counts, p []float64, z float64, n int) (float64, int) {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	var chi2, poolE, poolO float64
	cells := 0
	for _, s := range idx {
		e := p[s] / z * float64(n)
		if poolE+e < 5 || (poolE > 0 && poolE < 5) {
			poolE += e
			poolO += counts[s]
			continue
		}
		chi2 += (counts[s] - e) * (counts[s] - e) / e
		cells++
	}
	if poolE > 0 {
		chi2 += (poolO - poolE) * (poolO - poolE) / poolE
		cells++
	}
	return chi2, cells
}
