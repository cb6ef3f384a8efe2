package experiment

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
)

// TestNaNRecordedAndExplained: a run stopped by NaN (Gaussian units on
// standardised data, lr 10³⁰: the first epoch's steps make the weights
// Inf) is a
// *NumericalError naming what became NaN and the learning rate first among
// the causes; its directory records it (failed.json, state failed) beside
// the metrics of the epochs before, and a run that gets past a failure
// removes the record.
func TestNaNRecordedAndExplained(t *testing.T) {
	t.Chdir(t.TempDir())
	csvRows(t, "x.csv", 20, 0.5)
	spec, err := NewSpec(Settings{"data": "x.csv", "real": "standardise", "visible": "gaussian", "method": "dense", "hidden": 3, "epochs": 3,
		"lr": 1e30, "likelihood": "none"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), spec, "run", Options{Workers: 1, CheckpointEvery: EveryEpoch})
	var ne *NumericalError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "became NaN or Inf; what sets its size, the likeliest first: -lr 1e+30") {
		t.Fatalf("Run: %v, want a NumericalError blaming -lr first", err)
	}
	var engineErr *engine.NumericalError
	if !errors.As(err, &engineErr) {
		t.Error("the error does not wrap the engine's")
	}
	f, ferr := RunDir("run").Failure()
	if ferr != nil || f.Epoch != ne.Epoch || f.Minibatch != ne.Batch || f.Error != err.Error() || RunDir("run").State() != StateFailed {
		t.Errorf("failed.json: %+v, %v, state %s; want the error of epoch %d, minibatch %d, state failed", f, ferr, RunDir("run").State(), ne.Epoch, ne.Batch)
	}
	if rows, err := RunDir("run").Metrics(); ne.Epoch > 1 && (err != nil || len(rows) != ne.Epoch-1) {
		t.Errorf("metrics.csv: %d rows, %v; want the %d epochs before the failure", len(rows), err, ne.Epoch-1)
	}
	// A run that gets past a failure (here: a record written by hand into
	// a run that trains well) removes it.
	good := spec
	good.Engine.LR = 0.01
	if err := os.MkdirAll("good", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := RunDir("good").writeFailure(ne); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), good, "good", Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(RunDir("good").FailurePath()); !errors.Is(err, os.ErrNotExist) || RunDir("good").State() != StateFinished {
		t.Errorf("a finished run kept failed.json (%v), state %s", err, RunDir("good").State())
	}
}

// TestNumericalCauses: the data's magnitude comes first for Gaussian units
// given data far from unit scale (with the remedy), weight decay before
// the learning rate, and a learning rate at most 1 last.
func TestNumericalCauses(t *testing.T) {
	spec, err := NewSpec(Settings{"data": "x.csv", "visible": "gaussian", "init": "normal", "init-scale": 0.01, "l2": 0.001, "lr": 0.05})
	if err != nil {
		t.Fatal(err)
	}
	set := &data.Set{N: 2, D: 2, Real: []float32{3, -2e6, 1, 0}}
	c := spec.numericalCauses(set)
	if len(c) != 4 || !strings.HasPrefix(c[0], "the data reach |x| = 2e+06 as read") || !strings.Contains(c[0], "-real standardise") ||
		!strings.HasPrefix(c[1], "-l2 0.001") || !strings.HasPrefix(c[2], "-init-scale 0.01") || !strings.HasPrefix(c[3], "-lr 0.05") {
		t.Errorf("causes %q", c)
	}
	set.Real = []float32{3, -2, 1, 0} // of unit scale: after the rest
	if c := spec.numericalCauses(set); !strings.HasPrefix(c[0], "-l2") || !strings.HasPrefix(c[1], "the data reach |x| = 3 as read") {
		t.Errorf("causes %q", c)
	}
}
