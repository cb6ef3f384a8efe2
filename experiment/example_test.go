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

// A sweep over methods and seeds on bars-and-stripes: the grid expands to
// named runs with the data set's defaults, and Sweep trains them two at a
// time, each in its directory. Every run is deterministic, so the results
// do not depend on Parallel.
func ExampleSweep() {
	dir, err := os.MkdirTemp("", "ncg-sweep")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	grid := experiment.Grid{Settings: experiment.Settings{
		"data": "bas", "likelihood": "none", "epochs": 20,
		"method": []engine.Method{engine.Dense, engine.NCG}, "seed": "1-2",
	}}
	points, err := grid.Expand(dir)
	if err != nil {
		panic(err)
	}
	for _, o := range experiment.Sweep(context.Background(), points, experiment.SweepOptions{Parallel: 2}) {
		if o.Err != nil {
			panic(o.Err)
		}
		// The exact densities depend on the kernel tier's float rounding;
		// the printed facts do not.
		fmt.Printf("%-18s %s, %d epochs, %d hidden, sparse: %v\n", o.Point.Name, o.Status, o.Result.Final.Epoch,
			o.Point.Spec.Engine.Hidden, o.Result.Final.Density < 0.9)
	}
	// Output:
	// bas-dense-seed1    trained, 20 epochs, 16 hidden, sparse: false
	// bas-dense-seed2    trained, 20 epochs, 16 hidden, sparse: false
	// bas-ncg-seed1      trained, 20 epochs, 16 hidden, sparse: true
	// bas-ncg-seed2      trained, 20 epochs, 16 hidden, sparse: true
}
