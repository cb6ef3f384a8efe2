package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
)

// TestRunProgressLines: in a log (not a terminal) a run's progress is a
// line for its first epoch, every evaluated epoch, its last epoch, the
// start of a long evaluation phase and the end, and nothing for the
// minibatches or the epochs in between; on a terminal a minibatch redraws
// the live line in place.
func TestRunProgressLines(t *testing.T) {
	var log bytes.Buffer
	p := runProgressTo(&log, false)
	m := func(epoch int) experiment.Metrics { return experiment.Metrics{Epoch: epoch, Density: 0.5} }
	p(experiment.Minibatch{Dir: "runs/r", Epoch: 1, Epochs: 4, Done: 1, Batches: 2, Left: -1})
	p(experiment.EpochDone{Dir: "runs/r", Epochs: 4, Metrics: m(1), Left: -1})
	p(experiment.EpochDone{Dir: "runs/r", Epochs: 4, Metrics: m(2), Left: time.Minute})
	p(experiment.EpochDone{Dir: "runs/r", Epochs: 4, Metrics: m(3), Evaluated: true, Left: time.Minute})
	p(experiment.EpochDone{Dir: "runs/r", Epochs: 4, Metrics: m(4), Left: 90 * time.Second})
	p(experiment.Evaluating{Dir: "runs/r", Epoch: 4, Progress: eval.Progress{Phase: eval.PhaseAIS, Total: 100}, Left: 90 * time.Second})
	p(experiment.Evaluating{Dir: "runs/r", Epoch: 4, Progress: eval.Progress{Phase: eval.PhaseAIS, Done: 50, Total: 100}, Left: 45 * time.Second})
	p(experiment.Finished{Dir: "runs/r", Metrics: m(4)})
	want := []string{"r epoch 1/4 ", "r epoch 3/4 ", "r epoch 4/4 ", "r epoch 4: AIS 0%  (1m30s left)", "r final "}
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), log.String())
	}
	for k, w := range want {
		if !strings.HasPrefix(lines[k], w) {
			t.Errorf("line %d: %q, want it to start %q", k+1, lines[k], w)
		}
	}
	if !strings.Contains(lines[0], "(? left)") || !strings.Contains(lines[2], "(1m30s left)") {
		t.Errorf("times left: %q, %q", lines[0], lines[2])
	}
	var term bytes.Buffer
	runProgressTo(&term, true)(experiment.Minibatch{Dir: "r", Epoch: 1, Epochs: 4, Done: 1, Batches: 2, PerSecond: 3, Left: 5 * time.Second})
	if got := term.String(); got != "\rr epoch 1/4  minibatch 1/2  3 minibatches/s  5s left   " {
		t.Errorf("terminal minibatch line %q", got)
	}
}

// TestLeftString: a time left reads as a duration, with the evaluations of
// unknown length it leaves out, and "?" while unknown.
func TestLeftString(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		n    int
		want string
	}{
		{-1, 0, "?"}, {-1, 2, "?"}, {90*time.Second + 400*time.Millisecond, 0, "1m30s"},
		{time.Hour, 1, "1h0m0s + 1 evaluation"}, {0, 3, "0s + 3 evaluations"},
	} {
		if got := leftString(tc.d, tc.n); got != tc.want {
			t.Errorf("leftString(%v, %d) = %q, want %q", tc.d, tc.n, got, tc.want)
		}
	}
}
