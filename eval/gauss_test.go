package eval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/unit"
)

// randomGaussModel returns a Gaussian–Bernoulli model with weights ~
// N(0, scale²), biases ~ N(0, 1/4) and σ_i uniform in [0.5, 1.5] (nil
// Sigma when unitSigma).
func randomGaussModel(X, H int, scale float64, unitSigma bool, seed uint64) *Model {
	m := randomModel(X, H, scale, seed)
	m.Visible = unit.Gaussian
	if !unitSigma {
		rng := rand.New(rand.NewPCG(seed, 7))
		m.Sigma = make([]float32, X)
		for i := range m.Sigma {
			m.Sigma[i] = float32(0.5 + rng.Float64())
		}
	}
	return m
}

func TestValidateGaussian(t *testing.T) {
	m := randomGaussModel(3, 2, 1, false, 1)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*Model)
		want string
	}{
		{func(m *Model) { m.Sigma = m.Sigma[:2] }, "Sigma have length 2"},
		{func(m *Model) { m.Sigma[1] = 0 }, "Sigma[1]"},
		{func(m *Model) { m.Sigma[2] = -1 }, "Sigma[2]"},
		{func(m *Model) { m.Sigma[0] = float32(math.Inf(1)) }, "Sigma[0]"},
		{func(m *Model) { m.Sigma[0] = float32(math.NaN()) }, "Sigma[0]"},
		{func(m *Model) { m.Visible = unit.Binary }, "binary visible units"},
		{func(m *Model) { m.Visible = unit.Categorical }, "Sigma but categorical"},
		{func(m *Model) { m.Groups = data.Groups{0, 3} }, "Groups but Gaussian"},
		{func(m *Model) { m.Visible = "softmax" }, `visible "softmax"`},
	} {
		bad := *m
		bad.Sigma = append([]float32(nil), m.Sigma...)
		c.edit(&bad)
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error about %q, got %v", c.want, err)
		}
	}
	// A Gaussian model refuses binary rows, and classification.
	ctx := context.Background()
	x := binRows([]uint8{0, 1, 1}, 1, 3)
	if _, err := FreeEnergies(ctx, m, x, 1); err == nil || !strings.Contains(err.Error(), "real-valued rows") {
		t.Errorf("FreeEnergies of binary rows on a Gaussian model: %v", err)
	}
	if _, err := RAISE(ctx, m, x, RAISEConfig{}); err == nil || !strings.Contains(err.Error(), "real-valued rows") {
		t.Errorf("RAISE of binary rows on a Gaussian model: %v", err)
	}
	if _, err := ClassifyPaper(ctx, m, labelledRows([]uint8{0, 1}, 1, 2, []int{0}, 1), 1); err == nil || !strings.Contains(err.Error(), "binary or categorical") {
		t.Errorf("ClassifyPaper on a Gaussian model: %v", err)
	}
}

// gaussEnergy returns −E(v, h) of a Gaussian model from its definition
// (Model), in float64, for a bit-coded hidden state.
func gaussEnergy(m *Model, v []float64, hs int) float64 {
	var e float64
	for j := 0; j < m.H; j++ {
		if hs>>j&1 == 1 {
			e += float64(m.HiddenBias[j])
		}
	}
	for i := 0; i < m.X; i++ {
		s2 := m.sigma(i) * m.sigma(i)
		d := v[i] - float64(m.VisibleBias[i])
		e -= d * d / (2 * s2)
		for j := 0; j < m.H; j++ {
			if hs>>j&1 == 1 {
				e += v[i] / s2 * float64(m.C[i*m.H+j])
			}
		}
	}
	return e
}

// gaussMarginal is log Σ_h exp(−E(v, h)) = −F(v) by enumeration.
func gaussMarginal(m *Model, v []float64) float64 {
	t := make([]float64, 1<<m.H)
	for hs := range t {
		t[hs] = gaussEnergy(m, v, hs)
	}
	return logSumExp(t)
}

// quadratureLogZ integrates Σ_h exp(−E(v, h)) over v numerically for X = 1
// or 2: the trapezoid rule on a grid of spacing σ_min/step covering every
// conditional mean b + Ch ± 14σ_max. The integrand is a sum of Gaussians,
// for which the trapezoid rule's error at spacing ≤ σ/8 is far below
// 1e-12 relative (it falls like exp(−2π²σ²/spacing²)), and the tails cut
// off beyond 14σ weigh less than 1e-40.
func quadratureLogZ(m *Model, step int) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	smin, smax := math.Inf(1), 0.0
	for i := 0; i < m.X; i++ {
		smin, smax = math.Min(smin, m.sigma(i)), math.Max(smax, m.sigma(i))
		for hs := 0; hs < 1<<m.H; hs++ {
			mu := float64(m.VisibleBias[i])
			for j := 0; j < m.H; j++ {
				if hs>>j&1 == 1 {
					mu += float64(m.C[i*m.H+j])
				}
			}
			lo, hi = math.Min(lo, mu), math.Max(hi, mu)
		}
	}
	lo, hi = lo-14*smax, hi+14*smax
	dv := smin / float64(step)
	n := int(math.Ceil((hi-lo)/dv)) + 1
	var terms []float64
	v := make([]float64, m.X)
	if m.X == 1 {
		for a := 0; a < n; a++ {
			v[0] = lo + float64(a)*dv
			terms = append(terms, gaussMarginal(m, v))
		}
		return logSumExp(terms) + math.Log(dv)
	}
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			v[0], v[1] = lo+float64(a)*dv, lo+float64(b)*dv
			terms = append(terms, gaussMarginal(m, v))
		}
	}
	return logSumExp(terms) + 2*math.Log(dv)
}

// TestGaussExactLogZQuadrature: ExactLogZ of Gaussian models with one and
// two visible units equals the numerical integral of Σ_h exp(−E(v, h)),
// for unit and per-unit σ and any number of workers.
func TestGaussExactLogZQuadrature(t *testing.T) {
	for _, c := range []struct {
		X, H  int
		unit  bool
		scale float64
	}{{1, 1, true, 1}, {1, 3, false, 1.5}, {1, 5, false, 0.7}, {2, 2, true, 1}, {2, 3, false, 1}} {
		for seed := uint64(1); seed <= 2; seed++ {
			m := randomGaussModel(c.X, c.H, c.scale, c.unit, seed)
			step := 8
			if c.X == 1 {
				step = 32
			}
			want := quadratureLogZ(m, step)
			for _, w := range []int{1, 2} {
				got, err := ExactLogZ(context.Background(), m, w)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
					t.Errorf("X=%d H=%d σ=%v seed %d workers %d: log Z = %.12f, quadrature %.12f", c.X, c.H, m.Sigma, seed, w, got, want)
				}
			}
		}
	}
}

// TestGaussFreeEnergies: F(v) of real-valued rows is −log Σ_h exp(−E(v, h))
// from the energy, for rows of several scales, unit and per-unit σ; the
// density exp(−F(v) − log Z) of a one-unit model integrates to 1; and the
// exact NLL is mean F + log Z.
func TestGaussFreeEnergies(t *testing.T) {
	ctx := context.Background()
	for _, unit := range []bool{true, false} {
		m := randomGaussModel(9, 6, 0.8, unit, 3)
		rng := rand.New(rand.NewPCG(4, 4))
		const n = 300 // three blocks of rows, the last partial
		v := make([]float32, n*m.X)
		for k := range v {
			v[k] = float32(rng.NormFloat64() * float64(1+k%3))
		}
		f, err := FreeEnergies(ctx, m, realRows(v, n, m.X), 2)
		if err != nil {
			t.Fatal(err)
		}
		lz := 0.0
		if lz, err = ExactLogZ(ctx, m, 1); err != nil {
			t.Fatal(err)
		}
		var nll float64
		for r := 0; r < n; r++ {
			row := make([]float64, m.X)
			for i := range row {
				row[i] = float64(v[r*m.X+i])
			}
			want := -gaussMarginal(m, row)
			if math.Abs(f[r]-want) > 1e-5*math.Max(1, math.Abs(want)) {
				t.Errorf("σ unit %v, row %d: F = %.7f, want %.7f", unit, r, f[r], want)
			}
			nll += (want + lz) / n
		}
		got, err := ExactNLL(ctx, m, realRows(v, n, m.X), 3)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-nll) > 1e-5 {
			t.Errorf("σ unit %v: ExactNLL = %.7f, want %.7f", unit, got, nll)
		}
	}
	// ∫ exp(−F(v) − log Z) dv = 1 on a one-unit model, F from FreeEnergies.
	m := randomGaussModel(1, 4, 1.2, false, 5)
	lz, err := ExactLogZ(ctx, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	const lo, hi, dv = -30.0, 30.0, 1.0 / 256
	var grid []float32
	for x := lo; x <= hi; x += dv {
		grid = append(grid, float32(x))
	}
	f, err := FreeEnergies(ctx, m, realRows(grid, len(grid), 1), 0)
	if err != nil {
		t.Fatal(err)
	}
	var mass float64
	for k, x := range grid {
		w := float64(x) - float64(grid[max(k-1, 0)]) // the float32 grid's spacing
		mass += math.Exp(-f[k]-lz) * w
	}
	if math.Abs(mass-1) > 1e-4 {
		t.Errorf("the density integrates to %.7f", mass)
	}
}

// TestGaussExactLogZWorkers: 2^16 hidden states (16 chunks, with
// refreshes) give bit-identical results for any number of workers, a
// hidden layer above MaxExactBits is refused whatever X is, and the sum
// agrees with the same model's sum at a refresh every step (u recomputed
// from scratch) to float64 rounding.
func TestGaussExactLogZWorkers(t *testing.T) {
	ctx := context.Background()
	m := randomGaussModel(30, 16, 0.2, false, 7)
	ref, err := ExactLogZ(ctx, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 0} {
		if got, _ := ExactLogZ(ctx, m, w); math.Float64bits(got) != math.Float64bits(ref) {
			t.Errorf("workers %d: %v, workers 1: %v", w, got, ref)
		}
	}
	// The same sum term by term, each from its definition (no Gray code).
	terms := make([]float64, 1<<m.H)
	for hs := range terms {
		var e float64
		for j := 0; j < m.H; j++ {
			if hs>>j&1 == 1 {
				e += float64(m.HiddenBias[j])
			}
		}
		for i := 0; i < m.X; i++ {
			s := m.sigma(i)
			mu := float64(m.VisibleBias[i])
			for j := 0; j < m.H; j++ {
				if hs>>j&1 == 1 {
					mu += float64(m.C[i*m.H+j])
				}
			}
			b := float64(m.VisibleBias[i])
			e += (mu*mu-b*b)/(2*s*s) + 0.5*math.Log(2*math.Pi*s*s)
		}
		terms[hs] = e
	}
	if want := logSumExp(terms); math.Abs(ref-want) > 1e-10*math.Abs(want) {
		t.Errorf("log Z %.12f, term by term %.12f", ref, want)
	}
	big := randomGaussModel(3, 26, 0.1, true, 1)
	if _, err := ExactLogZ(ctx, big, 1); err == nil || !strings.Contains(err.Error(), "2^26") {
		t.Errorf("26 hidden units: %v", err)
	}
}

func TestGaussRealDataChecks(t *testing.T) {
	ctx := context.Background()
	m := randomGaussModel(3, 2, 1, true, 1)
	if _, err := FreeEnergies(ctx, m, realRows([]float32{1, 2}, 1, 3), 1); err == nil || !strings.Contains(err.Error(), "2 values") {
		t.Errorf("short row: %v", err)
	}
	if _, err := FreeEnergies(ctx, m, realRows([]float32{1, float32(math.NaN()), 0}, 1, 3), 1); err == nil || !strings.Contains(err.Error(), "unit 1") {
		t.Errorf("NaN value: %v", err)
	}
	if _, err := FreeEnergies(ctx, randomModel(3, 2, 1, 1), realRows([]float32{1, 0, 0}, 1, 3), 1); err == nil || !strings.Contains(err.Error(), "binary rows") {
		t.Errorf("binary model: %v", err)
	}
	mu, err := BaseMean([]float32{1, -2, 3, 4, 0, 6}, 2, 3)
	if err != nil || mu[0] != 2.5 || mu[1] != -1 || mu[2] != 4.5 {
		t.Errorf("base mean %v, %v; want [2.5 -1 4.5]", mu, err)
	}
	if _, err := BaseMean(nil, 0, 3); err == nil {
		t.Error("base mean of no rows: no error")
	}
}

// realSet is a data set of the n real-valued rows of d units in v.
func realSet(name string, v []float32, n, d int) *data.Set {
	return &data.Set{Name: name, N: n, D: d, Real: v}
}

// TestEvaluateGaussianExact: on a two-unit Gaussian model the automatic
// choice is exact, log Z is the quadrature of Σ_h exp(−E), and the NLL is
// that of the test rows (or, without them, the training rows) from the
// enumerated energy: a mean negative log-density, here below zero.
func TestEvaluateGaussianExact(t *testing.T) {
	// A narrow density (σ ≪ 1, weights moving the mean by less than σ):
	// log-densities above 0.
	m := randomGaussModel(2, 3, 0.02, false, 4)
	m.Sigma = []float32{0.05, 0.08}
	trainV, testV := someRealData(m, 7, 1), someRealData(m, 3, 2)
	for k := range trainV {
		trainV[k] = m.VisibleBias[k%2] + (trainV[k]-m.VisibleBias[k%2])*0.01
	}
	for k := range testV {
		testV[k] = m.VisibleBias[k%2] + (testV[k]-m.VisibleBias[k%2])*0.01
	}
	wantZ := quadratureLogZ(m, 8)
	nll := func(v []float32, n int) float64 {
		var s float64
		for r := 0; r < n; r++ {
			s += (-gaussMarginal(m, []float64{float64(v[2*r]), float64(v[2*r+1])}) + wantZ) / float64(n)
		}
		return s
	}
	train := realSet("train", trainV, 7, 2)
	for _, c := range []struct {
		sets    Sets
		set     string
		wantNLL float64
	}{
		{Sets{Train: train, Test: realSet("test", testV, 3, 2)}, "test", nll(testV, 3)},
		{Sets{Train: train}, "train", nll(trainV, 7)},
	} {
		got, err := Evaluate(context.Background(), m, c.sets, Plan{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got.Likelihood != LikelihoodExact || got.Set != c.set || got.AIS != nil {
			t.Errorf("likelihood %q on %q, want exact on %q", got.Likelihood, got.Set, c.set)
		}
		if math.Abs(got.LogZ-wantZ) > 1e-6 {
			t.Errorf("log Z %v, quadrature %v", got.LogZ, wantZ)
		}
		if math.Abs(got.NLL-c.wantNLL) > 1e-4 || !(got.NLL < 0) {
			t.Errorf("%s NLL %v, want %v (negative)", c.set, got.NLL, c.wantNLL)
		}
	}
}

// TestEvaluateGaussianAIS: the AIS of a plan on a Gaussian model is AIS
// from the Gaussian base model of the training rows' means (zero means
// with UniformBase), and RAISE's comparison is RAISE's and the free
// energies' of the same evenly spaced rows.
func TestEvaluateGaussianAIS(t *testing.T) {
	ctx := context.Background()
	m := randomGaussModel(12, 30, 0.2, false, 5)
	v := someRealData(m, 40, 6)
	sets := Sets{Train: realSet("train", v, 40, 12)}
	mean, err := BaseMean(v, 40, 12)
	if err != nil {
		t.Fatal(err)
	}
	for _, uniform := range []bool{false, true} {
		plan := Plan{Likelihood: LikelihoodAuto, AISRuns: 4, AISIntervals: 300, AISSeed: 9, RAISERows: 3, RAISEChains: 2, Workers: 2, UniformBase: uniform}
		got, err := Evaluate(ctx, m, sets, plan)
		if err != nil {
			t.Fatal(err)
		}
		base := mean
		if uniform {
			base = nil
		}
		want, err := AIS(ctx, m, AISConfig{Runs: 4, Betas: UniformSchedule(300), Seed: 9, Workers: 1, BaseBias: base})
		if err != nil {
			t.Fatal(err)
		}
		if got.Likelihood != LikelihoodAIS || got.LogZ != want.LogZ || got.LogZLo != want.LogZLo {
			t.Errorf("uniform %v: %q log Z %v (%v), want AIS's %v (%v)", uniform, got.Likelihood, got.LogZ, got.LogZLo, want.LogZ, want.LogZLo)
		}
		f, err := FreeEnergies(ctx, m, realRows(v, 40, 12), 1)
		if err != nil {
			t.Fatal(err)
		}
		if wantNLL := mean64(f) + want.LogZ; math.Abs(got.NLL-wantNLL) > 1e-9 {
			t.Errorf("uniform %v: NLL %v, want %v", uniform, got.NLL, wantNLL)
		}
		rows := append(append(append([]float32(nil), v[0:12]...), v[13*12:14*12]...), v[26*12:27*12]...) // rows 0, 13, 26
		r, err := RAISE(ctx, m, realRows(rows, 3, 12), RAISEConfig{Chains: 2, Betas: UniformSchedule(300), Seed: 9, BaseBias: base})
		if err != nil {
			t.Fatal(err)
		}
		rowsNLL := (f[0] + f[13] + f[26] + 3*want.LogZ) / 3
		if got.RAISE == nil || got.RAISE.MeanLogP != r.MeanLogP || math.Abs(got.RAISE.RowsNLL-rowsNLL) > 1e-9 {
			t.Errorf("uniform %v: RAISE %+v, want mean log p %v, rows' NLL %v", uniform, got.RAISE, r.MeanLogP, rowsNLL)
		}
	}
}

func mean64(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// TestEvaluateGaussianRefuses: a Gaussian model needs real-valued rows of
// the sets' shapes and no label units; the automatic choice enumerates its
// hidden layer whatever X is.
func TestEvaluateGaussianRefuses(t *testing.T) {
	m := randomGaussModel(4, 3, 0.5, true, 1)
	v := someRealData(m, 5, 1)
	train := realSet("train", v, 5, 4)
	binary := set("train", make([]uint8, 20), 5, 4, nil, 0)
	for _, c := range []struct {
		sets Sets
		plan Plan
		want string
	}{
		{Sets{Train: binary}, Plan{}, "real-valued rows"},
		{Sets{Train: realSet("train", v[:8], 5, 4)}, Plan{}, "8 values"},
		{Sets{Train: train, Test: set("test", make([]uint8, 8), 2, 4, nil, 0)}, Plan{}, "real-valued rows"},
		{Sets{Train: realSet("train", v[:15], 5, 3)}, Plan{LabelUnits: 1}, "binary or categorical"},
	} {
		if _, err := Evaluate(context.Background(), m, c.sets, c.plan); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("sets %+v plan %+v: %v, want an error about %q", c.sets, c.plan, err, c.want)
		}
	}
	for _, c := range []struct {
		X, H int
		want Likelihood
	}{{784, 20, LikelihoodExact}, {784, 21, LikelihoodAIS}, {5, 30, LikelihoodAIS}} {
		g := &Model{X: c.X, H: c.H, Visible: unit.Gaussian}
		if got := LikelihoodAuto.ResolveModel(g, 0); got != c.want {
			t.Errorf("Gaussian %d×%d: %q, want %q", c.X, c.H, got, c.want)
		}
	}
	if got := LikelihoodAuto.ResolveModel(&Model{X: 5, H: 30}, 0); got != LikelihoodExact {
		t.Errorf("binary 5×30: %q, want exact", got)
	}
}

// TestEvaluateGaussianProgressAndStop: a Gaussian model's exact phase
// counts chunks of hidden states (2^14 states: 4 chunks, though X = 3),
// and its AIS and RAISE stop within a second or so of a cancellation.
func TestEvaluateGaussianProgressAndStop(t *testing.T) {
	m := randomGaussModel(3, 14, 0.3, true, 2)
	v := someRealData(m, 6, 1)
	var last Progress
	plan := Plan{Likelihood: LikelihoodExact, Progress: func(p Progress) {
		if p.Phase == PhaseExact {
			last = p
		}
	}}
	if _, err := Evaluate(context.Background(), m, Sets{Train: realSet("train", v, 6, 3)}, plan); err != nil {
		t.Fatal(err)
	}
	if last.Total != 4 || last.Done != 4 {
		t.Errorf("exact phase ended at %d of %d, want 4 of 4", last.Done, last.Total)
	}
	// AIS and RAISE tick chain intervals: each phase starts at 0, and its
	// ticks add up to its work before it ends (the last two events).
	events := map[Phase][]Progress{}
	plan = Plan{Likelihood: LikelihoodAIS, AISRuns: 5, AISIntervals: 700, RAISERows: 2, Workers: 2,
		Progress: func(p Progress) { events[p.Phase] = append(events[p.Phase], p) }}
	if _, err := Evaluate(context.Background(), m, Sets{Train: realSet("train", v, 6, 3)}, plan); err != nil {
		t.Fatal(err)
	}
	for ph, want := range map[Phase]int64{PhaseAIS: 5 * 700, PhaseRAISE: 2 * 700} {
		e := events[ph]
		if len(e) < 3 || e[0].Done != 0 || e[len(e)-2].Done != want || e[len(e)-1].Total != want {
			t.Errorf("%s: events %v, want ticks from 0 up to %d", ph, e, want)
		}
	}
	big := randomGaussModel(784, 100, 0.05, true, 1)
	bv := someRealData(big, 4, 1)
	sets := Sets{Train: realSet("train", bv, 4, 784)}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := Evaluate(ctx, big, sets, Plan{Likelihood: LikelihoodAIS, AISRuns: 4, AISIntervals: 2_000_000, Workers: 2})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("AIS: %v after %v, want context.Canceled within 2 s", err, time.Since(start))
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start = time.Now()
	_, err = RAISE(ctx, big, realRows(bv, 4, 784), RAISEConfig{Betas: UniformSchedule(2_000_000), Workers: 2})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("RAISE: %v after %v, want context.Canceled within 2 s", err, time.Since(start))
	}
}
