package engine

import (
	"context"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"
)

// RunResult is one finished run of a sweep.
type RunResult struct {
	Index   int      // position in the configs given to Sweep
	Config  Config   // the run's configuration
	Records []Record // one per epoch
	Model   *Model   // the trained model (nil on error)
	Err     error
}

// SweepOptions tune a sweep.
type SweepOptions struct {
	// Parallel is the number of runs at once (0: GOMAXPROCS). Each run gets
	// GOMAXPROCS/Parallel workers (at least 1) unless its Config sets
	// Workers; that changes speed only, never results.
	Parallel int
	// RunOptions, if set, gives each run's Options (checkpoint file,
	// epoch callback); OnEpoch set there is called too.
	RunOptions func(index int, cfg Config) Options
}

// Sweep trains every configuration on d with bounded parallelism and
// calls done with each result as it finishes (one call at a time, in order
// of completion). Every run is deterministic, so the results are the same
// whatever Parallel is. A failed run is reported through done and does not
// stop the others; Sweep returns ctx's error if it was cancelled.
func Sweep(ctx context.Context, configs []Config, d *Data, opts SweepOptions, done func(RunResult)) error {
	par := opts.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	par = min(par, max(len(configs), 1))
	perRun := max(1, runtime.GOMAXPROCS(0)/par)
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(par)
	for i, cfg := range configs {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if cfg.Workers == 0 {
				cfg.Workers = perRun
			}
			res := RunResult{Index: i, Config: cfg}
			var ro Options
			if opts.RunOptions != nil {
				ro = opts.RunOptions(i, cfg)
			}
			user := ro.OnEpoch
			ro.OnEpoch = func(r Record) error {
				res.Records = append(res.Records, r)
				if user != nil {
					return user(r)
				}
				return nil
			}
			t, err := New(cfg, d)
			if err == nil {
				err = t.Train(ctx, ro)
			}
			if err == nil {
				res.Model = t.Model()
			}
			res.Err = err
			mu.Lock()
			done(res)
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()
	return ctx.Err()
}
