package eval

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestRefineSchedule: every interval split in f, the values of the
// schedule kept exactly; the paper's schedule refined by 2 has the
// paper's shape at half its steps.
func TestRefineSchedule(t *testing.T) {
	d := RefineSchedule(DefaultSchedule(), 2)
	if len(d) != 29001 {
		t.Fatalf("%d values, want 29001", len(d))
	}
	for _, c := range []struct {
		k    int
		want float64
	}{{0, 0}, {1000, 0.5}, {9000, 0.9}, {29000, 1}} {
		if d[c.k] != c.want {
			t.Errorf("value %d = %v, want %v", c.k, d[c.k], c.want)
		}
	}
	for _, c := range []struct {
		k    int
		step float64
	}{{1, 5e-4}, {999, 5e-4}, {1001, 5e-5}, {8999, 5e-5}, {9001, 5e-6}, {29000, 5e-6}} {
		if s := d[c.k] - d[c.k-1]; math.Abs(s-c.step) > 1e-12 {
			t.Errorf("step %d = %v, want %v", c.k, s, c.step)
		}
	}
	if err := checkSchedule(d); err != nil {
		t.Error(err)
	}
	got := RefineSchedule([]float64{0, 0.5, 1}, 3)
	want := []float64{0, 0.5 / 3, 1.0 / 3, 0.5, 0.5 + 0.5/3, 0.5 + 1.0/3, 1}
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-15 {
			t.Errorf("refined by 3: %v, want %v", got, want)
			break
		}
	}
	if u := RefineSchedule(UniformSchedule(7), 1); len(u) != 8 || u[3] != UniformSchedule(7)[3] {
		t.Errorf("refined by 1: %v", u)
	}
}

// TestCheckPlan: which checks run, worked out by hand from the rule: the
// routes with at least 8 runs (two each from a quarter), the exact sum
// when 2^n states × (x + h − n) units cost no more than runs ×
// intervals × (x + h).
func TestCheckPlan(t *testing.T) {
	for _, c := range []struct {
		mode                  CheckMode
		runs, k, x, h, n      int
		wantRoutes, wantExact bool
	}{
		{CheckAuto, 100, 14500, 784, 500, 500, true, false},
		{CheckAuto, 7, 14500, 784, 500, 500, false, false},
		{CheckAuto, 8, 100, 784, 500, 500, true, false},
		// 2^20·784 = 822,083,584 ≤ 100·14500·804 = 1,165,800,000.
		{CheckAuto, 100, 14500, 784, 20, 20, true, true},
		// 2^20·784 > 50·14500·804 = 582,900,000.
		{CheckAuto, 50, 14500, 784, 20, 20, true, false},
		{CheckAuto, 100, 14500, 16, 26, 26, true, false},
		{CheckOn, 1, 1, 16, 25, 25, true, true},
		{CheckOn, 1, 1, 16, 26, 26, true, false},
		{CheckOff, 100, 14500, 16, 10, 10, false, false},
	} {
		r, e := Plan{Checks: c.mode}.CheckPlan(c.runs, c.k, c.x, c.h, c.n)
		if r != c.wantRoutes || e != c.wantExact {
			t.Errorf("%q, %d runs × %d, %d×%d (n %d): routes %v exact %v, want %v %v", c.mode, c.runs, c.k, c.x, c.h, c.n, r, e, c.wantRoutes, c.wantExact)
		}
	}
	if err := CheckMode("maybe").Check(); err == nil {
		t.Error("check mode maybe accepted")
	}
}

// TestEvaluateChecks: Evaluate's AIS comes with the checks CheckPlan
// chooses, whose first estimate is the reported one (bits and all), and
// none with CheckOff; an exact sum within reach but dearer than the AIS
// is offered. The reported figures do not depend on the checks.
func TestEvaluateChecks(t *testing.T) {
	m := randomModel(30, 16, 0.4, 2) // exact over 2^16 states
	x := someData(m, 200, 3)
	sets := Sets{Train: set("train", x[:150*30], 150, 30, nil, 0), Test: set("test", x[150*30:], 50, 30, nil, 0)}
	eval := func(p Plan) *Metrics {
		p.Likelihood, p.AISIntervals, p.AISSeed, p.Workers = LikelihoodAIS, 200, 3, 2
		mt, err := Evaluate(context.Background(), m, sets, p)
		if err != nil {
			t.Fatal(err)
		}
		return mt
	}
	off := eval(Plan{AISRuns: 8, Checks: CheckOff})
	if off.Checks != nil {
		t.Errorf("checks off: %+v", off.Checks)
	}
	// 8 runs: two routes of 2 runs; 2^16·30 = 1,966,080 > 8·200·46 = 73,600:
	// the exact sum is offered.
	auto := eval(Plan{AISRuns: 8})
	ch := auto.Checks
	if ch == nil || len(ch.Estimates) != 3 || ch.ExactBits != 16 || len(ch.Intervals) != 1 || ch.Intervals[0] != 200 {
		t.Fatalf("8 runs: checks %+v", ch)
	}
	if r := ch.Estimates[0]; r.Route != RouteData || r.LogZ != auto.LogZ || r.LogZLo != auto.LogZLo || r.LogZHi != auto.LogZHi || r.ESS != auto.AIS.ESS || r.Runs != 8 {
		t.Errorf("reported estimate %+v, metrics log Z %v [%v, %v]", r, auto.LogZ, auto.LogZLo, auto.LogZHi)
	}
	if r := ch.Estimates[1]; r.Route != RouteUniform || r.Runs != 2 || r.Intervals != 200 {
		t.Errorf("first check %+v", r)
	}
	if auto.LogZ != off.LogZ || auto.NLL != off.NLL {
		t.Errorf("the checks moved the reported figures: log Z %v / %v, NLL %v / %v", auto.LogZ, off.LogZ, auto.NLL, off.NLL)
	}
	// 7 runs: no routes; the exact sum is still offered.
	few := eval(Plan{AISRuns: 7})
	if few.Checks == nil || len(few.Checks.Estimates) != 1 || few.Checks.ExactBits != 16 || few.Checks.Verdict.Fired {
		t.Errorf("7 runs: checks %+v", few.Checks)
	}
	// Checks on: the exact sum too, and the verdict rests on it.
	on := eval(Plan{AISRuns: 8, Checks: CheckOn})
	ch = on.Checks
	exact, err := ExactLogZ(context.Background(), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if last := ch.Estimates[len(ch.Estimates)-1]; len(ch.Estimates) != 4 || last.Route != RouteExact || last.LogZ != exact || ch.ExactBits != 0 {
		t.Errorf("checks on: %+v", ch)
	}
	if inside := on.LogZLo <= exact && exact <= on.LogZHi; ch.Verdict.Fired == inside || !strings.Contains(ch.Verdict.Reason, "exact") {
		t.Errorf("exact %v, estimate [%v, %v]: verdict %+v", exact, on.LogZLo, on.LogZHi, ch.Verdict)
	}
	if _, err := Evaluate(context.Background(), m, sets, Plan{Checks: "sometimes"}); err == nil {
		t.Error("checks sometimes accepted")
	}
}

// TestEvaluateGrowsSchedule: on gaussFar's Gaussian model (the mass far
// from the data), the verdict fires at 100 intervals and Plan.GrowIntervals
// = 400 makes Evaluate run 100, 200 and 400 intervals and report the last
// one's estimate: bit for bit AIS with the schedule refined by 2 twice. On
// a mild model the verdict stays quiet and the schedule as it was.
func TestEvaluateGrowsSchedule(t *testing.T) {
	far := gaussFar(16, 18, 6, 0.3)
	train := realRows(make([]float32, 16*20), 20, 16)
	for k := range train.Real {
		train.Real[k] = float32(k%7) / 6
	}
	plan := Plan{Likelihood: LikelihoodAIS, AISRuns: 16, AISIntervals: 100, AISSeed: 2, GrowIntervals: 400}
	mt, err := Evaluate(context.Background(), far, Sets{Train: train}, plan)
	if err != nil {
		t.Fatal(err)
	}
	ch := mt.Checks
	if len(ch.Intervals) != 3 || ch.Intervals[0] != 100 || ch.Intervals[1] != 200 || ch.Intervals[2] != 400 || mt.AIS.Intervals != 400 || !ch.Verdict.Fired {
		t.Fatalf("intervals %v, reported %d, verdict %+v", ch.Intervals, mt.AIS.Intervals, ch.Verdict)
	}
	base, err := FitBase(far, train)
	if err != nil {
		t.Fatal(err)
	}
	want, err := AIS(context.Background(), far, AISConfig{Runs: 16, Betas: RefineSchedule(RefineSchedule(UniformSchedule(100), 2), 2), Seed: 2, BaseBias: base})
	if err != nil {
		t.Fatal(err)
	}
	if mt.LogZ != want.LogZ {
		t.Errorf("reported log Z %v, AIS at 400 intervals %v", mt.LogZ, want.LogZ)
	}
	mild := randomGaussModel(10, 30, 0.2, false, 1)
	v := someRealData(mild, 40, 2)
	mt, err = Evaluate(context.Background(), mild, Sets{Train: realRows(v, 40, 10)}, plan)
	if err != nil {
		t.Fatal(err)
	}
	if ch := mt.Checks; ch.Verdict.Fired || len(ch.Intervals) != 1 || mt.AIS.Intervals != 100 {
		t.Errorf("mild model: intervals %v, verdict %+v", ch.Intervals, ch.Verdict)
	}
}

// TestEvaluateBDMC: Plan.BDMCRows adds BDMC to the checks: with exact log Z
// (AIS run for it, the exact value reported), and with AIS (the reported
// estimate its lower bound, the exact value its rows computed among the
// checks). A model too large to draw rows from exactly, or no likelihood,
// is refused before anything runs.
func TestEvaluateBDMC(t *testing.T) {
	m := randomCategoricalModel([]int{3, 2, 4}, 8, 0.6, 4)
	x := randomOneHot(m.Groups, 60, 5)
	sets := Sets{Train: categoricalRows(m, x, 60)}
	for _, l := range []Likelihood{LikelihoodExact, LikelihoodAIS} {
		mt, err := Evaluate(context.Background(), m, sets, Plan{Likelihood: l, AISRuns: 8, AISIntervals: 300, BDMCRows: 40})
		if err != nil {
			t.Fatal(err)
		}
		exact, err := ExactLogZ(context.Background(), m, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := mt.Checks.BDMC
		if b == nil || b.Rows != 40 || b.Intervals != 300 || b.LogZ != exact || math.Abs(b.LogZLower-exact) > 0.2 || math.Abs(b.LogZUpper-exact) > 0.2 {
			t.Fatalf("%s: BDMC %+v, exact %v", l, b, exact)
		}
		if l == LikelihoodAIS && (b.LogZLower != mt.LogZ || mt.Checks.Estimates[len(mt.Checks.Estimates)-1].Route != RouteExact) {
			t.Errorf("AIS: BDMC's lower bound %v, reported %v; estimates %+v", b.LogZLower, mt.LogZ, mt.Checks.Estimates)
		}
		if l == LikelihoodExact && (mt.LogZ != exact || mt.Checks.Estimates[0].Route != RouteExact || mt.Checks.Verdict.Fired) {
			t.Errorf("exact: log Z %v, checks %+v", mt.LogZ, mt.Checks)
		}
	}
	if _, err := Evaluate(context.Background(), randomGaussModel(4, 26, 0.1, true, 1), Sets{Train: realRows(make([]float32, 8), 2, 4)},
		Plan{BDMCRows: 5, AISRuns: 2, AISIntervals: 10}); err == nil || !strings.Contains(err.Error(), "BDMC") {
		t.Errorf("a model of 2^26 hidden states: %v", err)
	}
	if _, err := Evaluate(context.Background(), m, sets, Plan{Likelihood: LikelihoodNone, BDMCRows: 5}); err == nil {
		t.Error("BDMC without a likelihood accepted")
	}
}

// TestEvaluateChecksProgress: the checks report their own phase, whose
// ticks add up to its total: two routes of 2 runs × 50 intervals.
func TestEvaluateChecksProgress(t *testing.T) {
	m := randomModel(40, 30, 0.3, 5)
	x := someData(m, 30, 6)
	var seen []Progress
	plan := Plan{Likelihood: LikelihoodAIS, AISRuns: 8, AISIntervals: 50, BDMCRows: 0, Progress: func(p Progress) { seen = append(seen, p) }}
	if _, err := Evaluate(context.Background(), m, Sets{Train: set("train", x, 30, 40, nil, 0)}, plan); err != nil {
		t.Fatal(err)
	}
	var last Progress
	for _, p := range seen {
		if p.Phase == PhaseChecks {
			last = p
		}
	}
	if last.Total != 2*2*50 || last.Done != last.Total {
		t.Errorf("checks' progress ends at %d of %d, want 200 of 200 (events %v)", last.Done, last.Total, seen)
	}
	if PhaseChecks.String() != "AIS checks" || PhaseBDMC.String() != "BDMC" {
		t.Errorf("phase names %q, %q", PhaseChecks, PhaseBDMC)
	}
}
