package eval

import (
	"context"
	"math"
	"testing"
)

// TestBDMCReverseIsExactInExpectation: the reverse weights ŵ_i = p̂(x_i)·
// exp(F(x_i)) of chains from rows drawn exactly from the model have mean
// 1/Z whatever the schedule, so even on 3 intervals −log mean(ŵ) is log Z
// within its standard error. For a binary model whose hidden layer is
// enumerated, one whose visible layer is, a categorical and a Gaussian
// one, with 4000 rows: |LogZUpper − exact| ≤ 3.66 delta-method standard
// errors of the weights (two-sided, a false-alarm rate of 0.001 for the
// four together), with the weights recomputed here from the same rows and
// chains (SampleExact, RAISE with BDMC's streams) and the upper bound
// checked against them bit for bit; LogZLower is the forward estimate. A
// reverse estimate that averaged log weights instead, or left out the free
// energies, would miss by far more.
func TestBDMCReverseIsExactInExpectation(t *testing.T) {
	ctx := context.Background()
	const n, seed = 4000, 9
	for _, m := range []*Model{randomModel(7, 4, 0.8, 1), randomModel(4, 7, 0.8, 2),
		randomCategoricalModel([]int{3, 2, 2}, 4, 0.8, 3), randomGaussModel(3, 4, 0.8, false, 4)} {
		exact, err := ExactLogZ(ctx, m, 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg := AISConfig{Runs: 50, Betas: UniformSchedule(3), Seed: seed}
		res, err := BDMC(ctx, m, BDMCConfig{Rows: n, AIS: cfg})
		if err != nil {
			t.Fatal(err)
		}
		fwd, err := AIS(ctx, m, cfg)
		if err != nil {
			t.Fatal(err)
		}
		rows, logZ, err := SampleExact(ctx, m, n, seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		rev, err := RAISE(ctx, m, rows, RAISEConfig{Chains: 1, Betas: cfg.Betas, Seed: seed, key: keyReverse})
		if err != nil {
			t.Fatal(err)
		}
		fe, err := FreeEnergies(ctx, m, rows, 0)
		if err != nil {
			t.Fatal(err)
		}
		lw := make([]float64, n)
		for i := range lw {
			lw[i] = rev.LogP[i] + fe[i]
		}
		up := -logMeanExp(lw)
		se := logMeanExpSE(lw)
		t.Logf("%s %d×%d: exact %.4f, reverse %.4f (SE %.4f), forward %.4f", m.Visible.Name(), m.X, m.H, exact, up, se, fwd.LogZ)
		if res.LogZUpper != up || res.LogZLower != fwd.LogZ || res.LogZ != logZ || logZ != exact || res.Gap != up-fwd.LogZ {
			t.Errorf("%s: BDMC %+v; reverse %v, forward %v, exact %v", m.Visible.Name(), res, up, fwd.LogZ, exact)
		}
		if math.Abs(up-exact) > 3.66*se {
			t.Errorf("%s: reverse estimate %.4f, exact %.4f: %.1f standard errors off", m.Visible.Name(), up, exact, math.Abs(up-exact)/se)
		}
		if mf := mean(fe); math.Abs(res.LogPLower-(-mf-up)) > 1e-12 || math.Abs(res.LogPUpper-(-mf-fwd.LogZ)) > 1e-12 {
			t.Errorf("%s: log p bounds %v, %v", m.Visible.Name(), res.LogPLower, res.LogPUpper)
		}
	}
	if _, err := BDMC(ctx, randomModel(4, 3, 1, 1), BDMCConfig{Rows: 0}); err == nil {
		t.Error("0 rows accepted")
	}
	if _, err := BDMC(ctx, randomModel(4, 3, 1, 1), BDMCConfig{Rows: 3, AIS: AISConfig{Hidden: true}}); err == nil {
		t.Error("a hidden-marginal forward AIS accepted")
	}
}
