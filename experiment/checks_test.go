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
