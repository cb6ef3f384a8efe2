package engine_test

import (
	"context"
	"fmt"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
)

// A sweep over methods and seeds on 4×4 bars and stripes. Each run is
// deterministic, so the results do not depend on Parallel; they arrive in
// order of completion and are collected by index here.
func ExampleSweep() {
	bas, err := data.BarsAndStripes(4)
	if err != nil {
		panic(err)
	}
	d, err := engine.FromSet(bas, false)
	if err != nil {
		panic(err)
	}
	var configs []engine.Config
	for _, m := range []engine.Method{engine.Dense, engine.NCG} {
		for seed := uint64(1); seed <= 2; seed++ {
			c := engine.DefaultConfig()
			c.Method, c.Seed = m, seed
			c.Hidden, c.Batch, c.LR, c.LRConn, c.Epochs = 16, 10, 0.05, 0.25, 20
			configs = append(configs, c)
		}
	}
	final := make([]engine.Record, len(configs))
	err = engine.Sweep(context.Background(), configs, d, engine.SweepOptions{Parallel: 2}, func(r engine.RunResult) {
		if r.Err != nil {
			panic(r.Err)
		}
		final[r.Index] = r.Records[len(r.Records)-1]
	})
	if err != nil {
		panic(err)
	}
	// The exact densities depend on the kernel tier's float rounding; the
	// printed facts do not.
	for i, c := range configs {
		r := final[i]
		fmt.Printf("%-5s seed %d: %d epochs, sparse: %v\n", c.Method, c.Seed, r.Epoch, r.Density < 0.9)
	}
	// Output:
	// dense seed 1: 20 epochs, sparse: false
	// dense seed 2: 20 epochs, sparse: false
	// ncg   seed 1: 20 epochs, sparse: true
	// ncg   seed 2: 20 epochs, sparse: true
}
