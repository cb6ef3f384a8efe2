package eval

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// someRealData draws n rows with unit i ~ N(b_i + 0.5, (1.2σ_i)²): data
// near, not at, the model's visible means.
func someRealData(m *Model, n int, seed uint64) []float32 {
	rng := rand.New(rand.NewPCG(seed, 11))
	v := make([]float32, n*m.X)
	for k := range v {
		i := k % m.X
		v[k] = float32(float64(m.VisibleBias[i]) + 0.5 + 1.2*m.sigma(i)*rng.NormFloat64())
	}
	return v
}

// TestGaussiansDistribution: the Box–Muller draws are standard normal. A
// fixed seed, tests built at a false-alarm rate of 0.001 each for a fresh
// seed: Kolmogorov–Smirnov √n·D ≤ 1.9495 against Φ; the mean and the
// variance (z-scores of n = 200,000 draws: sd 1/√n and √(2/n)) within
// 3.29; the correlation of the two draws of a pair and of successive
// pairs (sd 1/√(n/2)) within 3.29. An odd length drops the last sine.
func TestGaussiansDistribution(t *testing.T) {
	const n = 200_000
	st := kernel.NewStream(3, 0)
	z := make([]float32, n)
	buf := make([]uint32, 1001)
	for k := 0; k < n; k += 1000 {
		gaussians(z[k:k+1000], &st, buf)
	}
	var s, ss, pair, next float64
	for k, v := range z {
		x := float64(v)
		s += x
		ss += x * x
		if k%2 == 1 {
			pair += float64(z[k-1]) * x
		} else if k >= 2 {
			next += float64(z[k-2]) * x
		}
	}
	mean := s / n
	if zs := mean * math.Sqrt(n); math.Abs(zs) > 3.29 {
		t.Errorf("mean %.5f: z = %.2f", mean, zs)
	}
	if zs := (ss/n - 1) / math.Sqrt(2.0/n); math.Abs(zs) > 3.29 {
		t.Errorf("second moment %.5f: z = %.2f", ss/n, zs)
	}
	for name, c := range map[string]float64{"within pairs": pair, "between pairs": next} {
		if zs := c / (n / 2) * math.Sqrt(n/2); math.Abs(zs) > 3.29 {
			t.Errorf("correlation %s %.5f: z = %.2f", name, c/(n/2), zs)
		}
	}
	sorted := make([]float64, n)
	for k, v := range z {
		sorted[k] = float64(v)
	}
	sort.Float64s(sorted)
	var d float64
	for k, x := range sorted {
		f := 0.5 * math.Erfc(-x/math.Sqrt2)
		d = math.Max(d, math.Max(math.Abs(f-float64(k)/n), math.Abs(float64(k+1)/n-f)))
	}
	if ks := math.Sqrt(n) * d; ks > 1.9495 {
		t.Errorf("Kolmogorov–Smirnov √n·D = %.3f > 1.9495", ks)
	}
	// Odd length: the same draws, the last sine dropped.
	a, b := kernel.NewStream(5, 1), kernel.NewStream(5, 1)
	odd, even := make([]float32, 7), make([]float32, 8)
	gaussians(odd, &a, buf)
	gaussians(even, &b, buf)
	for k := range odd {
		if odd[k] != even[k] {
			t.Fatalf("draw %d of 7: %v, of 8: %v", k, odd[k], even[k])
		}
	}
}

// TestGaussAISVsExact: AIS on Gaussian models whose log Z is known exactly
// (ExactLogZ, itself checked against quadrature), in the statistical style
// of TestAISVsExact: over 10 models Σ (error/s)², with s the delta-method
// standard error of log Ẑ, must stay below χ²₁₀'s 0.999 quantile 29.59 for
// 20 runs × 200 intervals and 100 runs × 2000; the exact value lies inside
// the ±3σ bounds for at least 9 of the 10; the error shrinks with the
// longer runs. The base model's means come from rows near the model's
// (BaseMean); half the models have per-unit σ. Observed: Σ (error/s)² =
// 6.5 and 3.2, exact inside for 10/10.
func TestGaussAISVsExact(t *testing.T) {
	type cfg struct{ runs, k int }
	small, large := cfg{20, 200}, cfg{100, 2000}
	var errSmall, errLarge float64
	chi2 := map[cfg]float64{}
	inside, models := 0, 0
	for seed := uint64(1); seed <= 10; seed++ {
		X, H := 12+int(seed%3)*4, 8+int(seed%3)*2
		m := randomGaussModel(X, H, 0.4, seed%2 == 0, seed)
		exact, err := ExactLogZ(context.Background(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		const n = 200
		mA, err := BaseMean(someRealData(m, n, seed), n, X)
		if err != nil {
			t.Fatal(err)
		}
		models++
		for _, c := range []cfg{small, large} {
			res, err := AIS(context.Background(), m, AISConfig{Runs: c.runs, Betas: UniformSchedule(c.k), Seed: seed, BaseBias: mA})
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
			if res.Runs != c.runs || res.Intervals != c.k || len(res.LogWeights) != c.runs {
				t.Errorf("result records runs %d intervals %d weights %d", res.Runs, res.Intervals, len(res.LogWeights))
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

// TestGaussAISDeterminism: the same seed gives bit-identical log weights
// for 1, 2 and 3 workers; runs advanced in blocks of 1, 3 or all give the
// same bits (with and without the incremental visible products); another
// seed gives different weights.
func TestGaussAISDeterminism(t *testing.T) {
	m := randomGaussModel(37, 23, 0.2, false, 5)
	mA := make([]float32, m.X)
	for i := range mA {
		mA[i] = float32(i%5) - 2
	}
	run := func(workers int, seed uint64) *AISResult {
		res, err := AIS(context.Background(), m, AISConfig{Runs: 13, Betas: UniformSchedule(300), Seed: seed, Workers: workers, BaseBias: mA})
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
	}
	if other := run(2, 43); other.LogWeights[0] == ref.LogWeights[0] {
		t.Error("seeds 42 and 43 gave the same first log weight")
	}
	for _, inc := range []bool{true, false} {
		incremental = inc
		u, err := m.units()
		if err != nil {
			t.Fatal(err)
		}
		r, _, err := newAISRunner(m, u, UniformSchedule(200), mA, 11)
		if err != nil {
			t.Fatal(err)
		}
		const runs = 7
		var want []float64
		for _, size := range []int{1, 3, runs} {
			b := r.newBlock(size)
			got := make([]float64, runs)
			for first := 0; first < runs; first += size {
				r.runBlock(b, first, got[first:min(first+size, runs)])
			}
			if want == nil {
				want = got
				continue
			}
			for i := range want {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("incremental=%v blocks of %d: run %d log weight %v, blocks of 1: %v", inc, size, i, got[i], want[i])
				}
			}
		}
	}
	incremental = true
}

// gaussAnnealed returns q(v), the density at v of AIS's forward chain after
// its last transition, for a Gaussian model with one visible unit, base
// mean mA and schedule betas. Each transition draws h given v, then v from
// a Gaussian given h, so q after step k is the mixture Σ_h w_h·N(μ_k(h), σ²)
// with μ_k(h) = (1−β_k)m_A + β_k(b + Ch) and w_h the probability of h under
// the previous density, integrated here on a grid (trapezoid, spacing σ/64
// over ±14σ around every component).
func gaussAnnealed(m *Model, mA float64, betas []float64, v float64) float64 {
	H := m.H
	s := m.sigma(0)
	sig := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	norm := func(x, mu float64) float64 {
		return math.Exp(-(x-mu)*(x-mu)/(2*s*s)) / (math.Sqrt(2*math.Pi) * s)
	}
	means, weights := []float64{mA}, []float64{1}
	for k := 1; k < len(betas); k++ {
		b := betas[k]
		density := func(x float64) float64 {
			var d float64
			for c, mu := range means {
				d += weights[c] * norm(x, mu)
			}
			return d
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, mu := range means {
			lo, hi = math.Min(lo, mu-14*s), math.Max(hi, mu+14*s)
		}
		dx := s / 64
		w := make([]float64, 1<<H)
		for x := lo; x <= hi; x += dx {
			qx := density(x) * dx
			for hs := range w {
				p := qx
				for j := 0; j < H; j++ {
					pj := sig(b * (float64(m.HiddenBias[j]) + float64(m.C[j])*x/(s*s)))
					if hs>>j&1 == 0 {
						pj = 1 - pj
					}
					p *= pj
				}
				w[hs] += p
			}
		}
		next := make([]float64, 1<<H)
		for hs := range next {
			mu := float64(m.VisibleBias[0])
			for j := 0; j < H; j++ {
				if hs>>j&1 == 1 {
					mu += float64(m.C[j])
				}
			}
			next[hs] = (1-b)*mA + b*mu
		}
		means, weights = next, w
	}
	var q float64
	for c, mu := range means {
		q += weights[c] * norm(v, mu)
	}
	return q
}

// TestGaussRAISEIsUnbiasedForTheAnnealedModel: the mean of many chains'
// p̂(v) is q(v), the density of AIS's forward chain at v, computed by
// integration on a one-unit, two-hidden-unit model with a 5-interval
// schedule.
func TestGaussRAISEIsUnbiasedForTheAnnealedModel(t *testing.T) {
	// Weights large enough for the hidden states to move the visible mean
	// by several σ: q is far from the base density.
	m := &Model{X: 1, H: 2, C: []float32{2, -1.5}, HiddenBias: []float32{-0.5, 0.8}, VisibleBias: []float32{0.3},
		Visible: unit.Gaussian, Sigma: []float32{0.8}}
	mA := float32(0.4)
	betas := []float64{0, 0.1, 0.3, 0.6, 0.8, 1}
	const chains = 40000
	for _, v := range []float32{-2, -0.5, 0.3, 1.7, 3} {
		q := gaussAnnealed(m, float64(mA), betas, float64(v))
		res, err := RAISE(context.Background(), m, realRows([]float32{v}, 1, 1), RAISEConfig{Chains: chains, Betas: betas, BaseBias: []float32{mA}, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		// The chains' relative spread is below 1 here, so 40,000 of them
		// give the mean to about 0.5%; allow 3%.
		if got := math.Exp(res.LogP[0]); math.Abs(got/q-1) > 0.03 {
			t.Errorf("v = %v: mean p̂ = %.5f, q(v) = %.5f", v, got, q)
		}
	}
}

// TestGaussRAISEMatchesExactNLL: on a 12×8 Gaussian model with a fine
// schedule RAISE's NLL is within 0.05 nats of the exact one, bit-identical
// for any number of workers.
func TestGaussRAISEMatchesExactNLL(t *testing.T) {
	ctx := context.Background()
	m := randomGaussModel(12, 8, 0.4, false, 11)
	const n = 40
	v := someRealData(m, n, 5)
	exact, err := ExactNLL(ctx, m, realRows(v, n, m.X), 0)
	if err != nil {
		t.Fatal(err)
	}
	mA, err := BaseMean(v, n, m.X)
	if err != nil {
		t.Fatal(err)
	}
	var first *RAISEResult
	for _, w := range []int{1, 3} {
		res, err := RAISE(ctx, m, realRows(v, n, m.X), RAISEConfig{Chains: 4, Betas: UniformSchedule(2000), Seed: 1, Workers: w, BaseBias: mA})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
		} else if res.MeanLogP != first.MeanLogP {
			t.Fatalf("workers %d: mean log p %v, with 1 worker %v", w, res.MeanLogP, first.MeanLogP)
		}
	}
	nll := -first.MeanLogP
	t.Logf("exact NLL %.4f, RAISE %.4f ± %.4f", exact, nll, first.SE)
	if math.Abs(nll-exact) > 0.05 {
		t.Errorf("RAISE NLL %.4f, exact %.4f", nll, exact)
	}
	logZ, err := ExactLogZ(ctx, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkRowsLogP(t, m, logZ, realRows(v, n, m.X), first)
	if _, err := RAISE(ctx, m, realRows(v[:5], 1, m.X), RAISEConfig{}); err == nil {
		t.Error("a short row: no error")
	}
	if _, err := RAISE(ctx, randomModel(12, 8, 1, 1), realRows(v, n, m.X), RAISEConfig{}); err == nil {
		t.Error("a binary model: no error")
	}
}

// referenceGaussAISRun is one Gaussian AIS run as the definition states
// it, in float64 loops (the states stored in float32, as AIS stores them),
// drawing the same numbers from run id's stream as AIS: Box–Muller pairs
// from two uint32 draws each for v, one uniform per hidden unit for h:
//
//	v ~ N(m_A, σ²); for k = 1..K: log w += log p*_{β_k}(v) − log p*_{β_{k−1}}(v);
//	then, for k < K, h ~ σ(β_k a(v)) and v ~ N((1−β_k)m_A + β_k(b + Ch), σ²),
//
// with log p*_β(v) = −(1−β)Σ_i (v_i − m_i)²/(2σ_i²) − βΣ_i (v_i − b_i)²/(2σ_i²)
// + Σ_j softplus(β·a_j(v)) and a_j(v) = c_j + Σ_i C_ij v_i/σ_i².
func referenceGaussAISRun(m *Model, betas []float64, mA []float32, seed, id uint64) float64 {
	X, H := m.X, m.H
	st := kernel.NewStream(seed, id)
	normal := func(mean []float64) []float64 {
		n := 2 * ((X + 1) / 2)
		u := make([]uint32, n)
		st.Uint32s(u)
		v := make([]float64, X)
		for i := range v {
			p := i &^ 1
			r := math.Sqrt(-2 * math.Log((float64(u[p])+0.5)/4294967296))
			th := 2 * math.Pi * (float64(u[p+1]) + 0.5) / 4294967296
			z := r * math.Cos(th)
			if i%2 == 1 {
				z = r * math.Sin(th)
			}
			v[i] = float64(float32(mean[i] + m.sigma(i)*z))
		}
		return v
	}
	hiddenPre := func(v []float64) []float64 {
		a := make([]float64, H)
		for j := range a {
			a[j] = float64(m.HiddenBias[j])
			for i := 0; i < X; i++ {
				a[j] += float64(m.C[i*H+j]) * v[i] / (m.sigma(i) * m.sigma(i))
			}
		}
		return a
	}
	logp := func(beta float64, v []float64) float64 {
		var lp float64
		for i := 0; i < X; i++ {
			s2 := m.sigma(i) * m.sigma(i)
			da, db := v[i]-float64(mA[i]), v[i]-float64(m.VisibleBias[i])
			lp -= (1-beta)*da*da/(2*s2) + beta*db*db/(2*s2)
		}
		for _, a := range hiddenPre(v) {
			lp += softplus64(beta * a)
		}
		return lp
	}
	mean := make([]float64, X)
	for i := range mean {
		mean[i] = float64(mA[i])
	}
	v := normal(mean)
	var logw float64
	K := len(betas) - 1
	for k := 1; k <= K; k++ {
		b := float64(float32(betas[k])) // AIS's schedule is float32
		logw += logp(b, v) - logp(float64(float32(betas[k-1])), v)
		if k == K {
			break
		}
		u := make([]float32, H)
		st.Uniforms(u)
		h := make([]float64, H)
		for j, a := range hiddenPre(v) {
			if float64(u[j]) < 1/(1+math.Exp(-b*a)) {
				h[j] = 1
			}
		}
		for i := range mean {
			mu := float64(m.VisibleBias[i])
			for j := 0; j < H; j++ {
				mu += float64(m.C[i*H+j]) * h[j]
			}
			mean[i] = (1-b)*float64(mA[i]) + b*mu
		}
		v = normal(mean)
	}
	return logw
}

// TestGaussAISMatchesDefinition: every run's log weight equals the float64
// transcription's (same draws), on a schedule with unequal steps, coarse
// (the two-softplus path) and fine (the series). The tolerance, 1e-4,
// covers AIS's float32 products, means and softplus (observed: 1.3e-5,
// 3.1e-5 and 3.1e-7).
func TestGaussAISMatchesDefinition(t *testing.T) {
	coarse, err := PiecewiseSchedule([]float64{0, 0.3, 0.8, 1}, []int{20, 90, 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		X, H  int
		betas []float64
	}{{13, 9, coarse}, {30, 20, coarse}, {21, 11, UniformSchedule(1500)}} {
		m := randomGaussModel(c.X, c.H, 0.4, false, uint64(c.X))
		mA := make([]float32, c.X)
		for i := range mA {
			mA[i] = float32(i%5)*0.4 - 1
		}
		const runs, seed = 5, 3
		res, err := AIS(context.Background(), m, AISConfig{Runs: runs, Betas: c.betas, Seed: seed, BaseBias: mA})
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for r := 0; r < runs; r++ {
			want := referenceGaussAISRun(m, c.betas, mA, seed, uint64(r))
			got := res.LogWeights[r]
			worst = math.Max(worst, math.Abs(got-want))
			if math.Abs(got-want) > 1e-4 {
				t.Errorf("X=%d H=%d, %d intervals, run %d: log weight %.6f, definition %.6f", c.X, c.H, len(c.betas)-1, r, got, want)
			}
		}
		t.Logf("X=%d H=%d, %d intervals: largest |log weight − definition| %.2g", c.X, c.H, len(c.betas)-1, worst)
	}
}
