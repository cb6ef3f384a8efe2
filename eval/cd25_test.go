package eval

import (
	"context"
	"testing"
	"time"
)

// cd25AIS runs AIS on the published CD-25 model with the base rate of the
// binarised MNIST training images (pseudo-count 0.025·N) and returns the
// estimate and the average test log-probability.
func cd25AIS(t *testing.T, runs int, betas []float64, seed uint64, check bool) (*AISResult, float64) {
	t.Helper()
	m := loadCD25(t)
	train, test := loadMNIST(t)
	dA, err := DataBaseRate(train.x, train.n, train.X)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	cfg := AISConfig{Runs: runs, Betas: betas, Seed: seed, BaseBias: dA}
	res, err := AIS(context.Background(), m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(t0)
	// With check, the checks (a quarter of the runs on each of the binary
	// routes) find no mass above the estimate: their AIS from the uniform
	// model and of the hidden marginal miss some of what the base-rate AIS
	// finds, as Salakhutdinov & Murray's uniform start does, and lie below.
	if check {
		ch, err := CheckAIS(context.Background(), m, binRows(train.x, train.n, train.X), res, CheckConfig{Reported: cfg})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ch.Estimates[1:] {
			t.Logf("check %s: log Ẑ = %.3f [%.3f, %.3f], ESS %.1f of %d", e.Route, e.LogZ, e.LogZLo, e.LogZHi, e.ESS, e.Runs)
		}
		if ch.Verdict.Fired {
			t.Errorf("the verdict fired on the CD-25 model: %+v", ch.Verdict)
		}
	}
	nll, err := AverageNLL(context.Background(), m, res.LogZ, binRows(test.x, test.n, test.X), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d runs × %d intervals, seed %d: log Ẑ = %.3f [%.3f, %.3f] (log Z_A = %.3f), test log-probability %.3f, AIS %.2fs",
		runs, res.Intervals, seed, res.LogZ, res.LogZLo, res.LogZHi, res.LogZBase, -nll, el.Seconds())
	return res, -nll
}

// TestAISCD25 is the published check (Salakhutdinov & Murray 2008): the full schedule with 100
// runs gives log Ẑ ≈ 451.0 (450.6–451.5) and a test log-probability near
// −86.3, and the checks of the estimate leave its verdict quiet. It takes ~10–20 CPU-seconds with the AVX2 kernels and several
// minutes with the generic ones: skipped with -short.
func TestAISCD25(t *testing.T) {
	if testing.Short() {
		t.Skip("full AIS schedule on the CD-25 model skipped with -short (TestAISCD25Reduced runs a shorter one)")
	}
	res, lp := cd25AIS(t, DefaultRuns, DefaultSchedule(), 1, true)
	if res.LogZ < 450.6 || res.LogZ > 451.5 {
		t.Errorf("log Ẑ = %.3f, want 450.6–451.5", res.LogZ)
	}
	if lp < -86.8 || lp > -85.6 {
		t.Errorf("test log-probability %.3f, want −86.8 to −85.6", lp)
	}
}

// TestAISCD25Reduced always runs: the full schedule with 20 runs (a fifth
// of the work). Fewer runs widen the spread of log Ẑ: over seeds 1–6 it gave
// 450.90–451.57 (the published value is ≈ 451.0, the reported ±3σ bounds
// about ±0.6). The band is 450.0–452.0, about ±3.5 times the spread seen
// across seeds; the test log-probability moves with log Ẑ one for one
// (mean F is fixed), hence −87.1 to −85.1. A 1450-interval schedule would
// be too short: with 20 runs it spreads over 448.6–452.5.
func TestAISCD25Reduced(t *testing.T) {
	res, lp := cd25AIS(t, 20, DefaultSchedule(), 1, false)
	if res.LogZ < 450.0 || res.LogZ > 452.0 {
		t.Errorf("log Ẑ = %.3f, want 450.0–452.0", res.LogZ)
	}
	if lp < -87.1 || lp > -85.1 {
		t.Errorf("test log-probability %.3f, want −87.1 to −85.1", lp)
	}
}
