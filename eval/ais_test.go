package eval

import (
	"context"
	"math"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
)

func TestSchedules(t *testing.T) {
	b := DefaultSchedule()
	if len(b) != 14501 {
		t.Fatalf("default schedule has %d values, want 14501", len(b))
	}
	if b[0] != 0 || b[500] != 0.5 || b[4500] != 0.9 || b[14500] != 1 {
		t.Errorf("knots: %v %v %v %v", b[0], b[500], b[4500], b[14500])
	}
	for _, c := range []struct {
		k    int
		step float64
	}{{1, 1e-3}, {499, 1e-3}, {501, 1e-4}, {4499, 1e-4}, {4501, 1e-5}, {14500, 1e-5}} {
		if d := b[c.k] - b[c.k-1]; math.Abs(d-c.step) > 1e-12 {
			t.Errorf("step %d is %v, want %v", c.k, d, c.step)
		}
	}
	if err := checkSchedule(b); err != nil {
		t.Error(err)
	}
	if u := UniformSchedule(4); len(u) != 5 || u[1] != 0.25 || u[4] != 1 {
		t.Errorf("uniform schedule %v", u)
	}
	if _, err := PiecewiseSchedule([]float64{0, 0.5, 0.4, 1}, []int{1, 1, 1}); err == nil {
		t.Error("decreasing knots accepted")
	}
	if err := checkSchedule([]float64{0, 0.6, 0.5, 1}); err == nil {
		t.Error("decreasing schedule accepted")
	}
}

// uniformData draws n rows from independent Bernoulli(0.5) units.
func someData(m *Model, n int, seed uint64) []uint8 {
	st := kernel.NewStream(seed, 0)
	u := make([]float32, n*m.X)
	st.Uniforms(u)
	x := make([]uint8, len(u))
	for k, v := range u {
		if v < 0.3 {
			x[k] = 1
		}
	}
	return x
}

// TestAISVsExact: on small models whose log Z is known exactly, the error
// of log Ẑ is what the estimator's variance allows, the exact value lies
// inside the ±3σ bounds for nearly every seed, and the error shrinks as the
// runs and intervals grow.
//
// The tolerance: log Ẑ = log Z_A + log mean(w) has, by the delta method,
// standard error s = sd(w)/(mean(w)·√R) over R runs (its bias, −s²/2, is
// far smaller). Over the 10 models the errors scaled by their s are then
// close to independent standard normals, so Σ (error/s)² follows χ² with
// 10 degrees of freedom: the test fails above its 0.999 quantile, 29.59
// (false-alarm rate 0.001 for a fresh set of seeds). Observed: 6.6 for 20
// runs × 200 intervals, 4.0 for 100 runs × 2000.
func TestAISVsExact(t *testing.T) {
	type cfg struct{ runs, k int }
	small, large := cfg{20, 200}, cfg{100, 2000}
	var errSmall, errLarge float64
	chi2 := map[cfg]float64{}
	inside, models := 0, 0
	for seed := uint64(1); seed <= 10; seed++ {
		X, H := 12+int(seed%3)*4, 8+int(seed%3)*2 // 12..20 visible, 8..12 hidden
		m := randomModel(X, H, 0.5, seed)
		exact, err := ExactLogZ(context.Background(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 200
		dA, err := BaseRate(someData(m, n, seed), n, X, 1)
		if err != nil {
			t.Fatal(err)
		}
		models++
		for _, c := range []cfg{small, large} {
			res, err := AIS(context.Background(), m, AISConfig{Runs: c.runs, Betas: UniformSchedule(c.k), Seed: seed, BaseBias: dA})
			if err != nil {
				t.Fatal(err)
			}
			e := res.LogZ - exact
			se := logMeanExpSE(res.LogWeights)
			chi2[c] += (e / se) * (e / se)
			if c == small {
				errSmall += math.Abs(e)
			} else {
				errLarge += math.Abs(e)
				if res.LogZLo <= exact && exact <= res.LogZHi {
					inside++
				} else {
					t.Logf("seed %d (X=%d H=%d): exact %.4f outside [%.4f, %.4f]", seed, X, H, exact, res.LogZLo, res.LogZHi)
				}
			}
			if res.Runs != c.runs || res.Intervals != c.k || len(res.LogWeights) != c.runs || res.Seed != seed {
				t.Errorf("result records runs %d intervals %d weights %d seed %d", res.Runs, res.Intervals, len(res.LogWeights), res.Seed)
			}
		}
	}
	t.Logf("mean |error|: %.4f (20 runs, 200 intervals), %.4f (100 runs, 2000 intervals); Σ(error/s)²: %.1f, %.1f; exact inside ±3σ for %d/%d",
		errSmall/float64(models), errLarge/float64(models), chi2[small], chi2[large], inside, models)
	for _, c := range []cfg{small, large} {
		if chi2[c] > 29.59 {
			t.Errorf("%d runs × %d intervals: Σ (error/s)² = %.1f over %d models exceeds χ²₁₀'s 0.999 quantile 29.59", c.runs, c.k, chi2[c], models)
		}
	}
	if inside < 9 {
		t.Errorf("exact log Z inside the ±3σ bounds for %d of %d models, want ≥ 9", inside, models)
	}
	if !(errLarge < errSmall) {
		t.Errorf("error did not shrink: %.4f → %.4f", errSmall, errLarge)
	}
}

// logMeanExpSE is the delta-method standard error of log mean(exp(lw)):
// sd(w)/(mean(w)·√n), with the sample standard deviation (n−1).
func logMeanExpSE(lw []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range lw {
		mx = math.Max(mx, v)
	}
	n := float64(len(lw))
	var s, ss float64
	for _, v := range lw {
		s += math.Exp(v - mx)
	}
	mu := s / n
	for _, v := range lw {
		e := math.Exp(v-mx) - mu
		ss += e * e
	}
	return math.Sqrt(ss/(n-1)) / (mu * math.Sqrt(n))
}

// TestAISDeterminism: the same seed gives bit-identical log weights for 1,
// 2 and 3 workers; another seed gives different ones.
func TestAISDeterminism(t *testing.T) {
	m := randomModel(30, 20, 0.3, 5)
	base := make([]float32, m.X)
	for j := range base {
		base[j] = -0.5
	}
	run := func(workers int, seed uint64) *AISResult {
		res, err := AIS(context.Background(), m, AISConfig{Runs: 13, Betas: UniformSchedule(300), Seed: seed, Workers: workers, BaseBias: base})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	ref := run(1, 42)
	for _, w := range []int{2, 3} {
		got := run(w, 42)
		for r := range ref.LogWeights {
			if math.Float64bits(got.LogWeights[r]) != math.Float64bits(ref.LogWeights[r]) {
				t.Fatalf("workers %d: run %d log weight %v, workers 1: %v", w, r, got.LogWeights[r], ref.LogWeights[r])
			}
		}
		if got.LogZ != ref.LogZ || got.LogZLo != ref.LogZLo || got.LogZHi != ref.LogZHi {
			t.Errorf("workers %d: estimate differs", w)
		}
	}
	if other := run(2, 43); other.LogWeights[0] == ref.LogWeights[0] {
		t.Error("seeds 42 and 43 gave the same first log weight")
	}
}

// TestAISIncrementalMatchesFresh: the incremental products change only
// rounding, not the estimate.
func TestAISIncrementalMatchesFresh(t *testing.T) {
	m := randomModel(60, 40, 0.3, 9)
	cfg := AISConfig{Runs: 8, Betas: UniformSchedule(500), Seed: 1}
	a, err := AIS(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	incremental = false
	defer func() { incremental = true }()
	b, err := AIS(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.LogZ-b.LogZ) > 0.05 {
		t.Errorf("incremental %.5f, fresh %.5f", a.LogZ, b.LogZ)
	}
}

func TestAISEstimateBounds(t *testing.T) {
	// Weights 1, 1, 1, 5: mean 2, sample std 2, 3σ/√4 = 3 > mean.
	lw := []float64{0, 0, 0, math.Log(5)}
	est, lo, hi := aisEstimate(lw, 10)
	if math.Abs(est-(10+math.Log(2))) > 1e-12 || !math.IsInf(lo, -1) || math.Abs(hi-(10+math.Log(5))) > 1e-12 {
		t.Errorf("est %v lo %v hi %v", est, lo, hi)
	}
	// Huge log weights do not overflow.
	est, lo, hi = aisEstimate([]float64{1000, 1000.1, 999.9}, 0)
	if math.IsInf(est, 0) || !(lo < est && est < hi) {
		t.Errorf("est %v lo %v hi %v", est, lo, hi)
	}
}

func TestBaseRate(t *testing.T) {
	x := []uint8{1, 0, 1, 0, 1, 1} // 3 rows × 2 units
	d, err := BaseRate(x, 3, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	// unit 0: (3+1)/(3+2) = 0.8; unit 1: (1+1)/5 = 0.4.
	if math.Abs(float64(d[0])-math.Log(0.8/0.2)) > 1e-6 || math.Abs(float64(d[1])-math.Log(0.4/0.6)) > 1e-6 {
		t.Errorf("base rate %v", d)
	}
	if _, err := BaseRate(x, 3, 2, 0); err == nil {
		t.Error("zero pseudo-count accepted")
	}
}

// TestAISTaylorMatchesSoftplus: the series for the weights' softplus
// differences agrees with two softplus passes (same chains, so the log
// weights differ only by the rounding of the softplus differences), and
// the fallback is taken when a step is too coarse for the series.
func TestAISTaylorMatchesSoftplus(t *testing.T) {
	m := randomModel(40, 30, 0.5, 11)
	for _, k := range []int{50, 3000} { // Δβ·|a| above, then below aisTaylorMax
		cfg := AISConfig{Runs: 6, Betas: UniformSchedule(k), Seed: 2}
		a, err := AIS(context.Background(), m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		taylorWeights = false
		b, err := AIS(context.Background(), m, cfg)
		taylorWeights = true
		if err != nil {
			t.Fatal(err)
		}
		for r := range a.LogWeights {
			if d := math.Abs(a.LogWeights[r] - b.LogWeights[r]); d > 1e-4 {
				t.Errorf("%d intervals, run %d: series %.7f, softplus %.7f", k, r, a.LogWeights[r], b.LogWeights[r])
			}
		}
	}
	// Direct check of the series against float64 softplus.
	a := []float32{-25, -3, -0.5, 0, 0.25, 2, 7, 25}
	for _, db := range []float64{1e-5, 1e-4, 1e-3} {
		bk := 0.7
		p := make([]float32, len(a))
		var want float64
		for i, v := range a {
			z := bk * float64(v)
			p[i] = float32(1 / (1 + math.Exp(-z)))
			want += softplus64(z) - softplus64(z-db*float64(v))
		}
		got, ok := softplusDiffTaylor(db, a, p)
		if !ok {
			t.Fatalf("db %g: series refused |Δz| ≤ %g", db, db*25)
		}
		if math.Abs(got-want) > 1e-7*math.Max(1, math.Abs(want))+1e-9 {
			t.Errorf("db %g: series %.12g, float64 softplus %.12g", db, got, want)
		}
	}
	if _, ok := softplusDiffTaylor(0.01, []float32{3}, []float32{0.9}); ok {
		t.Error("series accepted |Δz| = 0.03 > aisTaylorMax")
	}
}

// TestAISLockstepMatchesRuns: runs advanced in lockstep blocks (runBlock,
// what AIS does) give exactly the log weights of the one-run-at-a-time
// reference (run), for blocks of any size and offset, with and without the
// incremental products, with a base-rate model, on shapes with vector tails
// and on the MNIST shape.
func TestAISLockstepMatchesRuns(t *testing.T) {
	cases := []struct {
		X, H, runs, intervals int
	}{{37, 23, 7, 300}, {60, 40, 9, 200}, {784, 500, 5, 60}}
	for _, c := range cases {
		m := randomModel(c.X, c.H, 0.3, uint64(c.X))
		dA := make([]float32, c.X)
		for j := range dA {
			dA[j] = float32(j%7) - 3
		}
		for _, inc := range []bool{true, false} {
			incremental = inc
			u, err := m.units()
			if err != nil {
				t.Fatal(err)
			}
			r, _, err := newAISRunner(m, u, UniformSchedule(c.intervals), dA, 11)
			if err != nil {
				t.Fatal(err)
			}
			s := newAISScratch(c.H, c.X)
			want := make([]float64, c.runs)
			for i := range want {
				want[i] = r.run(s, uint64(i))
			}
			for _, size := range []int{1, 3, c.runs} {
				b := r.newBlock(size)
				got := make([]float64, c.runs)
				for first := 0; first < c.runs; first += size {
					r.runBlock(b, first, got[first:min(first+size, c.runs)])
				}
				for i := range want {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("X=%d H=%d incremental=%v blocks of %d: run %d log weight %v, one at a time %v", c.X, c.H, inc, size, i, got[i], want[i])
					}
				}
			}
		}
	}
	incremental = true
}

// aisScratch is the scratch of one run of the reference run.
type aisScratch struct {
	x, h       []float32 // binary states
	idxX, idxH []int32   // their active units
	a          []float32 // b + Cx (H)
	v          []float32 // (d − d_A) + Cᵀh (X)
	s1         []float32 // β_k·a (H)
	sp         []float32 // scratch for softplusDiff (2H)
	pre, prob  []float32 // visible pre-activation and probabilities (X; prob also H)
	hp, vp     binProduct
}

func newAISScratch(H, X int) *aisScratch {
	return &aisScratch{
		x: make([]float32, X), h: make([]float32, H),
		idxX: make([]int32, X), idxH: make([]int32, H),
		a: make([]float32, H), v: make([]float32, X),
		s1: make([]float32, H), sp: make([]float32, 2*H),
		pre: make([]float32, X), prob: make([]float32, max(H, X)),
		hp: newBinProduct(X, H), vp: newBinProduct(H, X),
	}
}

// run is one binary AIS run on its own, with binProduct's one-run
// products: the reference TestAISLockstepMatchesRuns holds runBlock to.
func (r *aisRunner) run(s *aisScratch, id uint64) float64 {
	m := r.m
	u := r.u.(*binaryUnits)
	H, X := m.H, m.X
	st := kernel.NewStream(r.seed, id)
	// x ~ p_A.
	kernel.SigmoidBernoulli(s.prob[:X], s.x, u.dA, &st)
	s.hp.reset()
	s.vp.reset()
	var logw float64
	K := len(r.beta) - 1
	for k := 1; k <= K; k++ {
		actX := s.idxX[:s.hp.update(s.a, m.HiddenBias, u.c, H, u.hs, s.x, s.idxX)]
		var xd float64
		for _, j := range actX {
			xd += u.dd[j]
		}
		dsp := r.hiddenStep(k, s.a, s.h, &st, s.s1, s.prob, s.sp)
		logw += (float64(r.beta[k])-float64(r.beta[k-1]))*xd + dsp
		if k == K {
			break
		}
		s.vp.update(s.v, u.dd32, r.ct, X, r.xs, s.h, s.idxH)
		copy(s.pre, u.dA)
		kernel.Axpy(s.pre, r.beta[k], s.v)
		kernel.SigmoidBernoulli(s.prob[:X], s.x, s.pre, &st)
	}
	return logw
}

// binProduct keeps out = bias + Σ_{j∈act} rows[j] for one binary state
// whose active set changes a little from call to call, by the rules of
// blockProduct: when fewer units changed than are active, it adds the rows
// of the units switched on and subtracts the sum of the rows of those
// switched off (kernel.FlipRows); otherwise, and after aisRefresh
// incremental updates in a row, it recomputes from scratch
// (kernel.SumRows). It is the one-run reference of the lockstep products.
type binProduct struct {
	old     []float32 // the state out was computed for
	valid   bool
	since   int
	on, off []int32
	tmp     []float32 // the sum of the rows switched off
}

func newBinProduct(n, outLen int) binProduct {
	return binProduct{old: make([]float32, n), on: make([]int32, n), off: make([]int32, n), tmp: make([]float32, outLen)}
}

func (p *binProduct) reset() { p.valid = false }

// update brings out (n) up to date for the binary state s, writes the
// active units of s to act and returns their number; row j of pos starts at
// j·stride.
func (p *binProduct) update(out, bias, pos []float32, n, stride int, s []float32, act []int32) int {
	ones, non, noff := kernel.Changes(act, p.on, p.off, p.old, s)
	if incrementalPays(p.valid, p.since, ones, non, noff) {
		kernel.FlipRows(out, pos, stride, p.on[:non], p.off[:noff], p.tmp, n)
		p.since++
		return ones
	}
	copy(out, bias)
	kernel.SumRows(out, pos, stride, act[:ones], n)
	p.since = 0
	p.valid = true
	return ones
}
