package experiment_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
)

// One run end to end in a run directory. A second call with the same Spec
// finds the run finished and returns its result without training.
func ExampleRun() {
	dir, err := os.MkdirTemp("", "ncg-run")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	spec := experiment.Spec{Data: "bas", Engine: engine.DefaultConfig(), AISRuns: 100, AISIntervals: 14500}
	e := &spec.Engine
	e.Hidden, e.Batch, e.LR, e.LRConn, e.Epochs = 16, 10, 0.05, 0.25, 50
	spec.EvalEvery = 25 // exact NLL at epochs 25 and 50 (16 hidden units: exact, not AIS)

	res, err := experiment.Run(context.Background(), spec, dir, experiment.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("finished epoch", res.Final.Epoch, "with an NLL:", res.Final.NLL > 0)
	entries, err := os.ReadDir(dir)
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		fmt.Println(e.Name())
	}
	rows, err := experiment.ReadMetrics(filepath.Join(dir, "metrics.csv"))
	if err != nil {
		panic(err)
	}
	fmt.Println(len(rows), "rows of metrics")
	again, err := experiment.Run(context.Background(), spec, dir, experiment.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("second call trained again:", !again.Skipped)
	// Output:
	// finished epoch 50 with an NLL: true
	// checkpoint
	// config.json
	// lock
	// metrics.csv
	// model.npz
	// result.json
	// 50 rows of metrics
	// second call trained again: false
}
