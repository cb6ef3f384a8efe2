package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/internal/datatest"
	"github.com/ncg-rbm/ncg/unit"
)

// TestResultRecordsChecks: a run's final evaluation checks its AIS
// estimate and result.json records the checks (read back as written);
// the evaluations before it, points of the curves, run none (their
// progress has no checks phase). ais-max-betas grows the final schedule
// only where the verdict fires: it stays quiet on this model, so the
// final estimate is the one of -ais-betas. A growth limit below twice the
// schedule is refused before the run starts, and 0 leaves the run's
// identity (config.json) as it was.
func TestResultRecordsChecks(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Hidden, cfg.Epochs, cfg.Batch = 16, 2, 10
	spec := Spec{Data: "bas", Engine: cfg, EvalEvery: 1, Likelihood: eval.LikelihoodAIS, AISRuns: 8, AISIntervals: 100, AISMaxIntervals: 400}
	dir := filepath.Join(t.TempDir(), "run")
	checksAt := map[int]bool{}
	res, err := Run(context.Background(), spec, dir, Options{Progress: func(e Event) {
		if ev, ok := e.(Evaluating); ok && ev.Phase == eval.PhaseChecks {
			checksAt[ev.Epoch] = true
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if checksAt[1] || !checksAt[2] {
		t.Errorf("checks ran at epochs %v, want the final one (2) alone", checksAt)
	}
	back, err := RunDir(dir).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Result{res, back} {
		c := r.Checks
		if c == nil || len(c.Estimates) != 3 || c.Estimates[0].Route != eval.RouteData || c.Estimates[0].Runs != 8 ||
			c.Estimates[0].LogZ != r.Final.LogZ || c.ExactBits != 16 || len(c.Intervals) != 1 || c.Intervals[0] != 100 || c.Verdict.Fired {
			t.Fatalf("checks %+v (final log Z %v)", c, r.Final.LogZ)
		}
	}
	spec.AISMaxIntervals = 150
	if _, err := Run(context.Background(), spec, filepath.Join(t.TempDir(), "bad"), Options{}); !errors.As(err, new(*ConfigError)) || !strings.Contains(err.Error(), "ais-max-betas") {
		t.Errorf("ais-max-betas 150 for 100 intervals: %v, want a ConfigError naming it", err)
	}
	spec.AISMaxIntervals = 0
	dir = filepath.Join(t.TempDir(), "plain")
	if _, err := Run(context.Background(), spec, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil || strings.Contains(string(b), "ais_max_intervals") {
		t.Errorf("config.json of a run without growth names it (or %v):\n%s", err, b)
	}
}

// TestVerdictQuietOnTrainedModels: the checks of the final AIS estimate
// (the paper's protocol: 100 runs, 14,500 intervals) find no mass above it
// on trained models of the paper's data: MNIST (NCG with the paper's
// settings, one epoch), Mushrooms (binary units with label units, the
// paper's settings, their joint likelihood) and Connect-4 (categorical
// units, two epochs). Each check route lies below the estimate or within
// its interval, so the verdict stays quiet. About a minute of CPU, so not
// with -short.
func TestVerdictQuietOnTrainedModels(t *testing.T) {
	if testing.Short() {
		t.Skip("trains three models on the shared data sets and runs the paper's AIS on each")
	}
	dir := datatest.Dir(t)
	for _, c := range []struct {
		data   string
		edit   func(*Spec)
		routes []eval.Route
	}{
		{"mnist", func(s *Spec) { s.Engine.Epochs = 1 }, []eval.Route{eval.RouteUniform, eval.RouteHidden}},
		{"mushrooms", func(s *Spec) {}, []eval.Route{eval.RouteUniform, eval.RouteHidden}},
		{"connect-4", func(s *Spec) { s.Engine.Visible, s.Engine.Epochs = unit.Categorical, 2 }, []eval.Route{eval.RouteUniform, eval.RouteHidden}},
	} {
		spec, err := NewSpec(Settings{"data": c.data, "likelihood": "ais"})
		if err != nil {
			t.Fatal(err)
		}
		c.edit(&spec)
		res, err := Run(context.Background(), spec, filepath.Join(t.TempDir(), c.data), Options{DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		ch := res.Checks
		if ch == nil || len(ch.Estimates) != 3 || ch.Estimates[1].Route != c.routes[0] || ch.Estimates[2].Route != c.routes[1] {
			t.Fatalf("%s: checks %+v", c.data, ch)
		}
		for _, e := range ch.Estimates {
			t.Logf("%s: %s log Ẑ %.3f [%.3f, %.3f], ESS %.1f of %d", c.data, e.Route, e.LogZ, e.LogZLo, e.LogZHi, e.ESS, e.Runs)
		}
		if ch.Verdict.Fired {
			t.Errorf("%s: the verdict fired on a trained model: %+v", c.data, ch.Verdict)
		}
	}
}
