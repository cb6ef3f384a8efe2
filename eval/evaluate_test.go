package eval

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/data"
)

// set makes an unlabelled (labels nil) or labelled data set of n rows.
func set(name string, x []uint8, n, d int, labels []int32, classes int) *data.Set {
	return &data.Set{Name: name, N: n, D: d, X: x, Labels: labels, NumClasses: classes}
}

// TestEvaluateExact: the automatic choice on a small model is exact, log Z
// is the brute-force sum over every joint state, and the NLL is of the
// test set when there is one, else of the training set (each from the
// definition of the free energy).
func TestEvaluateExact(t *testing.T) {
	m := randomModel(5, 4, 0.8, 3)
	trainX, testX := someData(m, 7, 1), someData(m, 3, 2)
	wantZ := bruteLogZ(m)
	nll := func(x []uint8, n int) float64 {
		var s float64
		for r := 0; r < n; r++ {
			s += bruteFreeEnergy(m, x[r*m.X:(r+1)*m.X]) + wantZ
		}
		return s / float64(n)
	}
	for _, c := range []struct {
		test    *data.Set
		set     string
		wantNLL float64
	}{{set("test", testX, 3, 5, nil, 0), "test", nll(testX, 3)}, {nil, "train", nll(trainX, 7)}} {
		got, err := Evaluate(context.Background(), m, Sets{Train: set("train", trainX, 7, 5, nil, 0), Test: c.test}, Plan{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got.Likelihood != LikelihoodExact || got.Set != c.set || got.AIS != nil {
			t.Errorf("likelihood %q on %q (AIS %v), want exact on %q", got.Likelihood, got.Set, got.AIS, c.set)
		}
		if math.Abs(got.LogZ-wantZ) > 1e-4 || got.LogZLo != got.LogZ || got.LogZHi != got.LogZ {
			t.Errorf("log Z %v (%v…%v), want %v", got.LogZ, got.LogZLo, got.LogZHi, wantZ)
		}
		if math.Abs(got.NLL-c.wantNLL) > 1e-4 {
			t.Errorf("%s NLL %v, want %v", c.set, got.NLL, c.wantNLL)
		}
		if !math.IsNaN(got.Accuracy) || !math.IsNaN(got.TrainAccuracy) {
			t.Errorf("accuracy %v, %v measured without label units", got.Accuracy, got.TrainAccuracy)
		}
	}
}

// TestEvaluateLabelled: with label units the likelihood is by default not
// measured, and when asked for it is the joint one of the rows with their
// one-hot labels (brute force over every joint state); accuracies are of
// the measured set and, asked for, of the training set, by each rule.
func TestEvaluateLabelled(t *testing.T) {
	const D, L = 3, 3
	m := constructedClassifier()
	train := set("train", []uint8{1, 0, 0, 0, 1, 0}, 2, D, []int32{0, 0}, L)                       // accuracy 1/2
	test := set("test", []uint8{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0}, 4, D, []int32{0, 1, 2, 0}, L) // 3/4
	plan := Plan{LabelUnits: L, Accuracy: PaperRule | FreeEnergyRule, TrainAccuracy: true}
	got, err := Evaluate(context.Background(), m, Sets{Train: train, Test: test}, plan)
	if err != nil {
		t.Fatal(err)
	}
	if got.Likelihood != LikelihoodNone || !math.IsNaN(got.NLL) || !math.IsNaN(got.LogZ) {
		t.Errorf("likelihood %q, NLL %v, log Z %v: want none measured", got.Likelihood, got.NLL, got.LogZ)
	}
	if got.Accuracy != 0.75 || got.AccuracyFreeEnergy != 0.75 || got.TrainAccuracy != 0.5 || got.TrainAccuracyFreeEnergy != 0.5 {
		t.Errorf("accuracies %v %v (test), %v %v (train); want 0.75 and 0.5", got.Accuracy, got.AccuracyFreeEnergy, got.TrainAccuracy, got.TrainAccuracyFreeEnergy)
	}
	plan.Likelihood, plan.Accuracy = LikelihoodExact, 0
	got, err = Evaluate(context.Background(), m, Sets{Train: train, Test: test}, plan)
	if err != nil {
		t.Fatal(err)
	}
	wantZ := bruteLogZ(m)
	var want float64
	for r := 0; r < test.N; r++ {
		row := append(append([]uint8(nil), test.Row(r)...), 0, 0, 0)
		row[D+test.Labels[r]] = 1
		want += (bruteFreeEnergy(m, row) + wantZ) / float64(test.N)
	}
	if math.Abs(got.NLL-want) > 1e-4 {
		t.Errorf("joint NLL %v, want %v", got.NLL, want)
	}
	if !math.IsNaN(got.Accuracy) {
		t.Errorf("accuracy %v measured without a rule", got.Accuracy)
	}
}

// TestEvaluateAIS: the AIS of a plan is AIS on the data's base rate with
// the plan's runs, seed and schedule (DefaultIntervals: the paper's), and
// RAISE's comparison is RAISE's and the free energies' of the same rows.
func TestEvaluateAIS(t *testing.T) {
	m := randomModel(12, 30, 0.3, 5)
	x := someData(m, 40, 6)
	sets := Sets{Train: set("train", x, 40, 12, nil, 0)}
	base, err := DataBaseRate(x, 40, 12)
	if err != nil {
		t.Fatal(err)
	}
	for _, intervals := range []int{300, DefaultIntervals} {
		plan := Plan{Likelihood: LikelihoodAIS, AISRuns: 4, AISIntervals: intervals, AISSeed: 9, RAISERows: 3, RAISEChains: 2, Workers: 2}
		got, err := Evaluate(context.Background(), m, sets, plan)
		if err != nil {
			t.Fatal(err)
		}
		betas := UniformSchedule(intervals)
		if intervals == DefaultIntervals {
			betas = DefaultSchedule()
		}
		want, err := AIS(context.Background(), m, AISConfig{Runs: 4, Betas: betas, Seed: 9, Workers: 1, BaseBias: base})
		if err != nil {
			t.Fatal(err)
		}
		if got.LogZ != want.LogZ || got.LogZLo != want.LogZLo || got.AIS.Intervals != intervals {
			t.Errorf("%d intervals: log Z %v (%v), want AIS's %v (%v)", intervals, got.LogZ, got.LogZLo, want.LogZ, want.LogZLo)
		}
		rows := append(append(append([]uint8(nil), x[0:12]...), x[13*12:14*12]...), x[26*12:27*12]...) // rows 0, 13, 26
		r, err := RAISE(context.Background(), m, binRows(rows, 3, 12), RAISEConfig{Chains: 2, Betas: betas, Seed: 9, BaseBias: base})
		if err != nil {
			t.Fatal(err)
		}
		var rowsNLL float64
		for i := 0; i < 3; i++ {
			rowsNLL += (bruteFreeEnergy(m, rows[i*12:(i+1)*12]) + want.LogZ) / 3
		}
		if got.RAISE == nil || got.RAISE.MeanLogP != r.MeanLogP || math.Abs(got.RAISE.RowsNLL-rowsNLL) > 1e-4 ||
			math.Abs(got.RAISE.Gap-(-r.MeanLogP-rowsNLL)) > 1e-4 {
			t.Errorf("%d intervals: RAISE %+v, want mean log p %v, rows' NLL %v", intervals, got.RAISE, r.MeanLogP, rowsNLL)
		}
	}
}

// TestEvaluateProgress: every phase starts at 0 and its ticks add up to
// its whole work (exact log Z: chunks of states; AIS and RAISE: chain
// intervals) before it ends; Done never passes Total.
func TestEvaluateProgress(t *testing.T) {
	m := randomModel(14, 40, 0.3, 5) // exact: 2^14 states, 4 chunks
	x := someData(m, 30, 6)
	sets := Sets{Train: set("train", x, 30, 14, nil, 0)}
	for _, c := range []struct {
		plan   Plan
		phases map[Phase]int64
	}{
		{Plan{Likelihood: LikelihoodExact, Workers: 2}, map[Phase]int64{PhaseExact: 4, PhaseNLL: 30}},
		{Plan{Likelihood: LikelihoodAIS, AISRuns: 5, AISIntervals: 700, RAISERows: 2, Workers: 2},
			map[Phase]int64{PhaseAIS: 5 * 700, PhaseNLL: 30, PhaseRAISE: 2 * 700}},
	} {
		var seen []Progress
		c.plan.Progress = func(p Progress) { seen = append(seen, p) }
		if _, err := Evaluate(context.Background(), m, sets, c.plan); err != nil {
			t.Fatal(err)
		}
		ended := map[Phase]bool{}
		for k, p := range seen {
			if p.Total != c.phases[p.Phase] || p.Done > p.Total || p.Done < 0 {
				t.Errorf("%s: %d of %d, want at most %d of %d", p.Phase, p.Done, p.Total, c.phases[p.Phase], c.phases[p.Phase])
			}
			if k == 0 || seen[k-1].Phase != p.Phase {
				if p.Done != 0 {
					t.Errorf("%s starts at %d", p.Phase, p.Done)
				}
				continue
			}
			if p.Done < seen[k-1].Done {
				t.Errorf("%s goes back from %d to %d", p.Phase, seen[k-1].Done, p.Done)
			}
			// The last two events are the last tick and the end.
			if (k+1 == len(seen) || seen[k+1].Phase != p.Phase) && p.Phase != PhaseNLL {
				ended[p.Phase] = true
				if seen[k-1].Done != p.Total {
					t.Errorf("%s's ticks add up to %d of %d", p.Phase, seen[k-1].Done, p.Total)
				}
			}
		}
		for ph := range c.phases {
			if !ended[ph] && ph != PhaseNLL {
				t.Errorf("%s never ended (events %v)", ph, seen)
			}
		}
	}
}

// TestEvaluateStops: an evaluation set to run for minutes returns
// context.Canceled within a second or so of the cancellation, and one
// cancelled before it starts returns it at once, whatever its phases.
func TestEvaluateStops(t *testing.T) {
	m := randomModel(784, 100, 0.1, 1)
	x := make([]uint8, 784*4)
	sets := Sets{Train: set("train", x, 4, 784, nil, 0)}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := Evaluate(ctx, m, sets, Plan{Likelihood: LikelihoodAIS, AISRuns: 4, AISIntervals: 2_000_000, Workers: 2})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("AIS: %v after %v, want context.Canceled within 2 s", err, time.Since(start))
	}
	small := randomModel(6, 5, 0.5, 1)
	labelled := set("train", someData(small, 9, 1)[:9*3], 9, 3, []int32{0, 1, 2, 0, 1, 2, 0, 1, 2}, 3)
	for _, plan := range []Plan{{}, {LabelUnits: 3, Accuracy: PaperRule}, {LabelUnits: 3, Accuracy: FreeEnergyRule}, {LabelUnits: 3, Likelihood: LikelihoodExact}} {
		s := Sets{Train: set("train", someData(small, 9, 1), 9, 6, nil, 0)}
		if plan.LabelUnits > 0 {
			s.Train = labelled
		}
		if _, err := Evaluate(ctx, small, s, plan); !errors.Is(err, context.Canceled) {
			t.Errorf("plan %+v, cancelled: %v", plan, err)
		}
	}
}

// TestEvaluateRefuses: plans that cannot apply to the model and data are
// errors, not silent results.
func TestEvaluateRefuses(t *testing.T) {
	m := randomModel(6, 5, 0.5, 1)
	x := someData(m, 4, 1)
	sets := Sets{Train: set("train", x, 4, 6, nil, 0)}
	for _, c := range []struct {
		plan Plan
		want string
	}{
		{Plan{Likelihood: "maybe"}, `likelihood "maybe"`},
		{Plan{Accuracy: PaperRule}, "label units"},
		{Plan{LabelUnits: 2}, "visible units"},
		{Plan{Likelihood: LikelihoodNone, RAISERows: 2}, "RAISE needs a likelihood"},
	} {
		if _, err := Evaluate(context.Background(), m, sets, c.plan); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("plan %+v: %v, want an error about %q", c.plan, err, c.want)
		}
	}
}

// TestLikelihoodResolve: the automatic choice, and the paper's schedule
// named by its number of intervals.
func TestLikelihoodResolve(t *testing.T) {
	for _, c := range []struct {
		l          Likelihood
		x, h, lab  int
		want       Likelihood
		intervals  int
		defaultSch bool
	}{
		{LikelihoodAuto, 784, 20, 0, LikelihoodExact, 0, true},
		{LikelihoodAuto, 784, 21, 0, LikelihoodAIS, DefaultIntervals, true},
		{LikelihoodAuto, 21, 500, 0, LikelihoodAIS, 1000, false},
		{LikelihoodAuto, 16, 8, 2, LikelihoodNone, 1, false},
		{LikelihoodExact, 784, 500, 0, LikelihoodExact, 14499, false},
		{LikelihoodAIS, 4, 4, 0, LikelihoodAIS, 14501, false},
	} {
		if got := c.l.Resolve(c.x, c.h, c.lab); got != c.want {
			t.Errorf("%q.Resolve(%d, %d, %d) = %q, want %q", c.l, c.x, c.h, c.lab, got, c.want)
		}
		if got := Schedule(c.intervals); (got == nil) != c.defaultSch || (got != nil && len(got) != c.intervals+1) {
			t.Errorf("Schedule(%d) has %d values (nil: %v)", c.intervals, len(got), got == nil)
		}
	}
	if n := len(DefaultSchedule()) - 1; n != DefaultIntervals {
		t.Errorf("DefaultSchedule has %d intervals, DefaultIntervals says %d", n, DefaultIntervals)
	}
}
