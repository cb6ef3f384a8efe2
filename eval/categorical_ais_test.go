package eval

import (
	"context"
	"math"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
)

// softmax64 returns softmax(z) in float64.
func softmax64(z []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	p := make([]float64, len(z))
	var s float64
	for k, v := range z {
		p[k] = math.Exp(v - mx)
		s += p[k]
	}
	for k := range p {
		p[k] /= s
	}
	return p
}

// referenceCategoricalAISRun is one categorical AIS run as the definition
// states it, in float64 loops, drawing the same numbers as AIS from run
// id's stream: one uniform per group (the unit on is the first whose
// cumulative probability exceeds it) and one per hidden unit:
//
//	x ~ p_A; for k = 1..K: log w += log p*_{β_k}(x) − log p*_{β_{k−1}}(x);
//	then, for k < K, h ~ σ(β_k(b + Cx)) and x_g ~ softmax((1−β_k)d_A_g + β_k(d + Cᵀh)_g),
//
// with log p*_β(x) = (1−β)xᵀd_A + βxᵀd + Σ_i softplus(β(b_i + C_i·x)).
func referenceCategoricalAISRun(m *Model, betas []float64, dA []float32, seed, id uint64) float64 {
	X, H, g := m.X, m.H, m.Groups
	st := kernel.NewStream(seed, id)
	x := make([]float64, X)
	draw := func(z []float64) {
		u := make([]float32, g.Len())
		st.Uniforms(u)
		clear(x)
		for k := 0; k < g.Len(); k++ {
			p := softmax64(z[g[k]:g[k+1]])
			c, on := 0.0, len(p)-1
			for j, pj := range p {
				if c += pj; c > float64(u[k]) {
					on = j
					break
				}
			}
			x[g[k]+on] = 1
		}
	}
	hiddenPre := func() []float64 {
		a := make([]float64, H)
		for i := range a {
			a[i] = float64(m.HiddenBias[i])
			for j := 0; j < X; j++ {
				a[i] += float64(m.C[j*H+i]) * x[j]
			}
		}
		return a
	}
	logp := func(beta float64) float64 {
		var v float64
		for j := 0; j < X; j++ {
			v += x[j] * ((1-beta)*float64(dA[j]) + beta*float64(m.VisibleBias[j]))
		}
		for _, a := range hiddenPre() {
			v += softplus64(beta * a)
		}
		return v
	}
	z := make([]float64, X)
	for j := range z {
		z[j] = float64(dA[j])
	}
	draw(z)
	var logw float64
	K := len(betas) - 1
	for k := 1; k <= K; k++ {
		b := float64(float32(betas[k])) // AIS's schedule is float32
		logw += logp(b) - logp(float64(float32(betas[k-1])))
		if k == K {
			break
		}
		u := make([]float32, H)
		st.Uniforms(u)
		h := make([]float64, H)
		for i, a := range hiddenPre() {
			if float64(u[i]) < 1/(1+math.Exp(-b*a)) {
				h[i] = 1
			}
		}
		for j := range z {
			v := float64(m.VisibleBias[j])
			for i := 0; i < H; i++ {
				v += float64(m.C[j*H+i]) * h[i]
			}
			z[j] = (1-b)*float64(dA[j]) + b*v
		}
		draw(z)
	}
	return logw
}

// TestCategoricalAISMatchesDefinition: every run's log weight equals the
// float64 transcription's (same draws), on a schedule with unequal steps,
// coarse (the two-softplus path) and fine (the series), for groups of one
// to five units and more groups than a block of the stream's draws. The
// tolerance, 1e-4, covers AIS's float32 products and softplus.
func TestCategoricalAISMatchesDefinition(t *testing.T) {
	coarse, err := PiecewiseSchedule([]float64{0, 0.3, 0.8, 1}, []int{20, 90, 40})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sizes []int
		H     int
		betas []float64
	}{
		{[]int{3, 2, 4, 1}, 9, coarse},
		{[]int{2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 5, 2}, 20, coarse},
		{[]int{4, 4, 3, 5}, 11, UniformSchedule(1500)},
	} {
		m := randomCategoricalModel(c.sizes, c.H, 0.6, uint64(len(c.sizes)))
		dA := make([]float32, m.X)
		for j := range dA {
			dA[j] = float32(j%5)*0.4 - 1
		}
		const runs, seed = 5, 3
		res, err := AIS(context.Background(), m, AISConfig{Runs: runs, Betas: c.betas, Seed: seed, BaseBias: dA})
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for r := 0; r < runs; r++ {
			want := referenceCategoricalAISRun(m, c.betas, dA, seed, uint64(r))
			got := res.LogWeights[r]
			worst = math.Max(worst, math.Abs(got-want))
			if math.Abs(got-want) > 1e-4 {
				t.Errorf("groups %v H=%d, %d intervals, run %d: log weight %.6f, definition %.6f", c.sizes, c.H, len(c.betas)-1, r, got, want)
			}
		}
		t.Logf("groups %v H=%d, %d intervals: largest |log weight − definition| %.2g", c.sizes, c.H, len(c.betas)-1, worst)
	}
}

// TestCategoricalAISVsExact: on 10 small categorical models whose log Z is
// known exactly (ExactLogZ, itself checked by enumeration), AIS from the
// base model of one-hot rows (FitBase) has the error its variance allows,
// in the statistical style of TestAISVsExact: Σ (error/s)² over the models,
// s the delta-method standard error of log Ẑ, stays below χ²₁₀'s 0.999
// quantile 29.59 (false-alarm rate 0.001 for a fresh set of seeds), and
// the exact value lies inside the ±3σ bounds for at least 9 of the 10.
// Seeds 1–10, 100 runs × 1000 intervals.
func TestCategoricalAISVsExact(t *testing.T) {
	var chi2 float64
	inside := 0
	for seed := uint64(1); seed <= 10; seed++ {
		sizes := [][]int{{3, 2, 4, 3}, {2, 2, 5, 3, 2}, {4, 4, 4}}[seed%3]
		m := randomCategoricalModel(sizes, 8+int(seed%3)*2, 0.5, seed)
		exact, err := ExactLogZ(context.Background(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		const n = 200
		base, err := FitBase(m, categoricalRows(m, randomOneHot(m.Groups, n, seed), n))
		if err != nil {
			t.Fatal(err)
		}
		res, err := AIS(context.Background(), m, AISConfig{Runs: 100, Betas: UniformSchedule(1000), Seed: seed, BaseBias: base})
		if err != nil {
			t.Fatal(err)
		}
		e := res.LogZ - exact
		se := logMeanExpSE(res.LogWeights)
		chi2 += (e / se) * (e / se)
		if res.LogZLo <= exact && exact <= res.LogZHi {
			inside++
		} else {
			t.Logf("seed %d (groups %v): exact %.4f outside [%.4f, %.4f]", seed, sizes, exact, res.LogZLo, res.LogZHi)
		}
	}
	t.Logf("Σ(error/s)² = %.1f; exact inside ±3σ for %d/10", chi2, inside)
	if chi2 > 29.59 {
		t.Errorf("Σ (error/s)² = %.1f over 10 models exceeds χ²₁₀'s 0.999 quantile 29.59", chi2)
	}
	if inside < 9 {
		t.Errorf("exact log Z inside the ±3σ bounds for %d of 10 models, want ≥ 9", inside)
	}
}

// TestCategoricalAISBase: the base model's log Z_A is Σ_g logsumexp_k d_A_gk
// + H·log 2 (written out for two groups), and on a model with C = 0 and
// d = d_A every run's log weight telescopes to Σ_i softplus(b_i) − H·log 2,
// so log Ẑ is the exact log Z.
func TestCategoricalAISBase(t *testing.T) {
	m := randomCategoricalModel([]int{3, 2}, 4, 1, 2)
	clear(m.C)
	m.VisibleBias = []float32{0.5, -1, 0.25, 2, -0.75}
	res, err := AIS(context.Background(), m, AISConfig{Runs: 3, Betas: UniformSchedule(50), BaseBias: m.VisibleBias})
	if err != nil {
		t.Fatal(err)
	}
	e := math.Exp
	wantA := math.Log(e(0.5)+e(-1)+e(0.25)) + math.Log(e(2)+e(-0.75)) + 4*math.Ln2
	if math.Abs(res.LogZBase-wantA) > 1e-6 {
		t.Errorf("log Z_A = %.7f, want %.7f", res.LogZBase, wantA)
	}
	exact, err := ExactLogZ(context.Background(), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.LogZ-exact) > 1e-5 {
		t.Errorf("log Ẑ = %.7f, exact %.7f", res.LogZ, exact)
	}
	if _, err := AIS(context.Background(), m, AISConfig{BaseBias: []float32{0, 0}}); err == nil {
		t.Error("2 base biases for 5 units: no error")
	}
}

// categoricalAnnealed enumerates q(x) = (p_A T_1 ⋯ T_K)(x), the law of AIS's
// forward chain after its last transition, over the one-hot states of a
// small categorical model (states in oneHotStates's order).
func categoricalAnnealed(m *Model, dA []float32, betas []float64) []float64 {
	X, H, g := m.X, m.H, m.Groups
	x, n := oneHotStates(g)
	sig := func(z float64) float64 { return 1 / (1 + math.Exp(-z)) }
	// prob returns the probability of state s under independent groups of
	// logits z.
	prob := func(z []float64, s int) float64 {
		p := 1.0
		for k := 0; k < g.Len(); k++ {
			pg := softmax64(z[g[k]:g[k+1]])
			for j := g[k]; j < g[k+1]; j++ {
				if x[s*X+j] == 1 {
					p *= pg[j-g[k]]
				}
			}
		}
		return p
	}
	z := make([]float64, X)
	for j := range z {
		z[j] = float64(dA[j])
	}
	q := make([]float64, n)
	for s := range q {
		q[s] = prob(z, s)
	}
	for k := 1; k < len(betas); k++ {
		b := betas[k]
		next := make([]float64, n)
		for s, ps := range q {
			for hs := 0; hs < 1<<H; hs++ {
				ph := ps
				for i := 0; i < H; i++ {
					a := float64(m.HiddenBias[i])
					for j := 0; j < X; j++ {
						a += float64(x[s*X+j]) * float64(m.C[j*H+i])
					}
					pi := sig(b * a)
					if hs>>i&1 == 0 {
						pi = 1 - pi
					}
					ph *= pi
				}
				for j := range z {
					v := float64(m.VisibleBias[j])
					for i := 0; i < H; i++ {
						v += float64(hs>>i&1) * float64(m.C[j*H+i])
					}
					z[j] = (1-b)*float64(dA[j]) + b*v
				}
				for t := range next {
					next[t] += ph * prob(z, t)
				}
			}
		}
		q = next
	}
	return q
}

// TestCategoricalRAISEIsUnbiasedForTheAnnealedModel: the mean of many
// chains' p̂(x) is q(x), the probability that AIS's forward chain ends at
// x, computed by enumeration on a model of groups of 3 and 2 units and 3
// hidden units with a 5-interval schedule.
func TestCategoricalRAISEIsUnbiasedForTheAnnealedModel(t *testing.T) {
	m := randomCategoricalModel([]int{3, 2}, 3, 0.8, 7)
	dA := []float32{0.3, -0.5, 1, -1.2, 0.4}
	betas := []float64{0, 0.1, 0.3, 0.6, 0.8, 1}
	q := categoricalAnnealed(m, dA, betas)
	var total float64
	for _, v := range q {
		total += v
	}
	if math.Abs(total-1) > 1e-9 {
		t.Fatalf("annealed marginal sums to %v", total)
	}
	x, _ := oneHotStates(m.Groups)
	const chains = 40000
	for _, s := range []int{0, 2, 4, 5} {
		row := categoricalRows(m, x[s*m.X:(s+1)*m.X], 1)
		res, err := RAISE(context.Background(), m, row, RAISEConfig{Chains: chains, Betas: betas, BaseBias: dA, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		// p̂ has a heavy right tail (its mean is q, its median below):
		// with seeds 3, 4 and 5 the mean of 40,000 chains was within 1.4%
		// of q(x) for every state; allow 3%.
		if got := math.Exp(res.LogP[0]); math.Abs(got/q[s]-1) > 0.03 {
			t.Errorf("x = %v: mean p̂ = %.5f, q(x) = %.5f", x[s*m.X:(s+1)*m.X], got, q[s])
		}
	}
}

// TestCategoricalRAISEMatchesExactNLL: on a categorical model with a fine
// schedule RAISE's NLL is within 0.05 nats of the exact one, bit-identical
// for any number of workers.
func TestCategoricalRAISEMatchesExactNLL(t *testing.T) {
	ctx := context.Background()
	m := randomCategoricalModel([]int{3, 2, 4, 3}, 8, 0.8, 11)
	const n = 40
	rows := categoricalRows(m, randomOneHot(m.Groups, n, 5), n)
	exact, err := ExactNLL(ctx, m, rows, 0)
	if err != nil {
		t.Fatal(err)
	}
	base, err := FitBase(m, rows)
	if err != nil {
		t.Fatal(err)
	}
	var first *RAISEResult
	for _, w := range []int{1, 3} {
		res, err := RAISE(ctx, m, rows, RAISEConfig{Chains: 4, Betas: UniformSchedule(2000), Seed: 1, Workers: w, BaseBias: base})
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
	checkRowsLogP(t, m, logZ, rows, first)
}

// TestEvaluateCategoricalAIS: the AIS of a plan on a categorical model is
// AIS from FitBase of the training rows (zero biases with UniformBase),
// bit-identical for 1 and 3 workers, and RAISE's comparison is RAISE's and
// the free energies' of the same evenly spaced rows.
func TestEvaluateCategoricalAIS(t *testing.T) {
	ctx := context.Background()
	m := randomCategoricalModel([]int{3, 2, 4, 3, 2}, 30, 0.2, 5)
	const n = 40
	train := categoricalRows(m, randomOneHot(m.Groups, n, 6), n)
	base, err := FitBase(m, train)
	if err != nil {
		t.Fatal(err)
	}
	for _, uniform := range []bool{false, true} {
		plan := Plan{Likelihood: LikelihoodAuto, AISRuns: 4, AISIntervals: 300, AISSeed: 9, RAISERows: 3, RAISEChains: 2, UniformBase: uniform}
		var got *Metrics
		for _, w := range []int{1, 3} {
			plan.Workers = w
			g, err := Evaluate(ctx, m, Sets{Train: train}, plan)
			if err != nil {
				t.Fatal(err)
			}
			if got != nil && (g.LogZ != got.LogZ || g.NLL != got.NLL || g.RAISE.MeanLogP != got.RAISE.MeanLogP) {
				t.Errorf("uniform %v: 3 workers give log Z %v, NLL %v, RAISE %v; 1 worker %v, %v, %v", uniform, g.LogZ, g.NLL, g.RAISE.MeanLogP, got.LogZ, got.NLL, got.RAISE.MeanLogP)
			}
			got = g
		}
		b := base
		if uniform {
			b = nil
		}
		want, err := AIS(ctx, m, AISConfig{Runs: 4, Betas: UniformSchedule(300), Seed: 9, BaseBias: b})
		if err != nil {
			t.Fatal(err)
		}
		if got.Likelihood != LikelihoodAIS || got.LogZ != want.LogZ || got.LogZLo != want.LogZLo {
			t.Errorf("uniform %v: %q log Z %v (%v), want AIS's %v (%v)", uniform, got.Likelihood, got.LogZ, got.LogZLo, want.LogZ, want.LogZLo)
		}
		rows := train.Subset([]int{0, 13, 26})
		r, err := RAISE(ctx, m, rows, RAISEConfig{Chains: 2, Betas: UniformSchedule(300), Seed: 9, BaseBias: b})
		if err != nil {
			t.Fatal(err)
		}
		f, err := FreeEnergies(ctx, m, rows, 1)
		if err != nil {
			t.Fatal(err)
		}
		rowsNLL := (f[0] + f[1] + f[2] + 3*want.LogZ) / 3
		if got.RAISE == nil || got.RAISE.MeanLogP != r.MeanLogP || math.Abs(got.RAISE.RowsNLL-rowsNLL) > 1e-9 {
			t.Errorf("uniform %v: RAISE %+v, want mean log p %v, rows' NLL %v", uniform, got.RAISE, r.MeanLogP, rowsNLL)
		}
	}
	// A set whose rows break a group is refused before any work.
	bad := categoricalRows(m, make([]uint8, m.X), 1)
	if _, err := Evaluate(ctx, m, Sets{Train: bad}, Plan{Likelihood: LikelihoodAIS}); err == nil {
		t.Error("a row with no unit on: no error")
	}
}
