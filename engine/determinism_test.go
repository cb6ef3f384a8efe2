package engine

import (
	"context"
	"runtime"
	"testing"

	"github.com/ncg-rbm/ncg/internal/kerneltier"
)

// Results depend on the seed only: not on the workers, nor on the form
// (dense or compressed rows) the matrices take.

// TestSparseSameResultAnyWorkers: on compressed rows a chain task's block
// follows the workers (sparseBlock: 32, 16 or 8 chains here, so 32, 16
// and 8 lanes), and every lane sums alone, so the parameters are the same
// in every bit for any number of workers, with CD, parallel tempering and
// the SET authors' procedure.
func TestSparseSameResultAnyWorkers(t *testing.T) {
	d := randomData(5, 157, 40, 0) // a last partial batch of 37
	for _, base := range sparseConfigs() {
		for v := 0; v < 3; v++ {
			cfg := base
			cfg.Batch, cfg.Workers = 40, 1
			switch v {
			case 1:
				cfg.Sampler, cfg.Temperatures, cfg.MinBeta = ParallelTempering, 3, 0.4
			case 2:
				if cfg.Method != SET {
					continue
				}
				cfg.SETProcedure, cfg.Momentum, cfg.L2 = Mocanu, 0.5, 1e-3
			}
			ref := train(t, cfg, d)
			for _, w := range []int{2, 3, 8} {
				cfg.Workers = w
				if got := sparseBlock(cfg.Batch, w); got != map[int]int{2: 32, 3: 16, 8: 8}[w] {
					t.Fatalf("sparseBlock(40, %d) = %d", w, got)
				}
				if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
					t.Fatalf("%s sampler %q procedure %q: %s differs between 1 and %d workers", cfg.Method, cfg.Sampler, cfg.SETProcedure, p, w)
				}
			}
		}
	}
}

func TestSameResultAnyWorkers(t *testing.T) {
	d := randomData(5, 157, 40, 0) // a last partial batch of 7
	for _, cfg := range allConfigs() {
		method := cfg.Method
		for _, pcd := range []bool{false, true} {
			cfg.Sampler = pcdSampler(pcd)
			cfg.Workers = 1
			ref := train(t, cfg, d)
			for _, w := range []int{2, 3, 8} {
				cfg.Workers = w
				if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
					t.Fatalf("%s pcd=%v: %s differs between 1 and %d workers", method, pcd, p, w)
				}
			}
			for _, procs := range []int{1, 2, 8} {
				old := runtime.GOMAXPROCS(procs)
				cfg.Workers = 0
				m := train(t, cfg, d)
				runtime.GOMAXPROCS(old)
				if p := paramsEqual(ref, m); p != "" {
					t.Fatalf("%s pcd=%v: %s differs with GOMAXPROCS=%d", method, pcd, p, procs)
				}
			}
			cfg.Workers = 2
			if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
				t.Fatalf("%s: a repeated run differs in %s", method, p)
			}
		}
	}
}

func TestSeedChangesResult(t *testing.T) {
	d := randomData(5, 60, 30, 0)
	cfg := smallConfig(NCG)
	a := train(t, cfg, d)
	cfg.Seed++
	if paramsEqual(a, train(t, cfg, d)) == "" {
		t.Fatal("seeds 1 and 2 gave the same model")
	}
}

// TestSparseMatchesDense trains the sparse configurations on compressed
// rows and on the dense matrices: with the dense form held to fresh sums
// of rows (no fused multiply-add product, no incremental update), every
// parameter is the same in every bit, with and without labels, PCD,
// momentum and weight decay, across SET's rewirings.
func TestSparseMatchesDense(t *testing.T) {
	defer kerneltier.ForceRowSums()()
	incremental = false
	defer func() { incremental = true }()
	for _, classes := range []int{0, 3} {
		d := randomData(9, 157, 40, classes)
		for _, cfg := range sparseConfigs() {
			for v, pcd := range []bool{false, true, false, false} {
				cfg.Sampler, cfg.Epochs, cfg.Workers = pcdSampler(pcd), 3, 2
				if v == 2 { // the Go update, on present connections only
					cfg.Momentum, cfg.L2 = 0.9, 0.01
				}
				if v == 3 {
					cfg.Momentum, cfg.L2 = 0, 0
					cfg.Sampler, cfg.Temperatures, cfg.MinBeta = ParallelTempering, 3, 0.4
				}
				run := func(sparse bool) *Model {
					if !sparse {
						defer formHook("dense")()
					}
					tr, err := New(cfg, d)
					if err != nil {
						t.Fatal(err)
					}
					if (tr.sp != nil) != sparse {
						t.Fatalf("%s: compressed rows %v, want %v", cfg.Method, tr.sp != nil, sparse)
					}
					if err := tr.Train(context.Background(), Options{}); err != nil {
						t.Fatal(err)
					}
					return tr.Model()
				}
				sp, dense := run(true), run(false)
				if p := paramsEqual(dense, sp); p != "" {
					t.Errorf("%s classes=%d pcd=%v μ=%v sampler %q: %s differs between compressed and dense rows", cfg.Method, classes, pcd, cfg.Momentum, cfg.Sampler, p)
				}
			}
		}
	}
	at, above := smallConfig(Random), smallConfig(Random)
	at.Density, above.Density = SparseDensity(), SparseDensity()+0.01
	if !useSparse(at, 40) || useSparse(above, 40) || useSparse(smallConfig(NCG), 40) {
		t.Errorf("a random mask of density %g should train on compressed rows, of %g and NCG on the dense matrices", at.Density, above.Density)
	}
}
