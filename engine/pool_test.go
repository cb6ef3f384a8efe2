package engine

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestPoolRunsEveryTaskOnce: every task of every phase runs exactly once,
// whether the helpers are still spinning when a phase starts (no gap) or
// have gone to sleep (gaps longer than spinFor), and close ends them.
func TestPoolRunsEveryTaskOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		before := runtime.NumGoroutine()
		p := newPool(workers)
		for phase, gap := range []time.Duration{0, 0, 3 * spinFor, 0, 10 * spinFor, 3 * spinFor} {
			time.Sleep(gap)
			tasks := 1 + phase*7
			counts := make([]atomic.Int32, tasks)
			var busy atomic.Int64
			start := time.Now()
			p.run(tasks, func(k int) {
				counts[k].Add(1)
				time.Sleep(time.Microsecond) // let the other goroutines take some
			}, &busy)
			wall := time.Since(start)
			// Every task sleeps at least 1 µs inside some goroutine's busy
			// time, and no goroutine is busy longer than the phase.
			if b := time.Duration(busy.Load()); b < time.Duration(tasks)*time.Microsecond || b > time.Duration(workers)*wall {
				t.Fatalf("workers %d, phase %d: busy %v for %d tasks of ≥ 1 µs in %v", workers, phase, b, tasks, wall)
			}
			for k := range counts {
				if c := counts[k].Load(); c != 1 {
					t.Fatalf("workers %d, phase %d: task %d ran %d times", workers, phase, k, c)
				}
			}
		}
		p.close()
		deadline := time.Now().Add(2 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("workers %d: %d goroutines after close, %d before the pool", workers, n, before)
		}
	}
}

// TestPoolWorkerIndex: runWorkers runs every task once and tells each the
// worker running it: a valid index, never held by two tasks at once (the
// guarantee their scratch relies on).
func TestPoolWorkerIndex(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		p := newPool(workers)
		const tasks = 60
		counts := make([]atomic.Int32, tasks)
		inUse := make([]atomic.Int32, workers)
		var bad atomic.Int32
		p.runWorkers(tasks, func(k, w int) {
			counts[k].Add(1)
			if w < 0 || w >= workers {
				bad.Add(1)
				return
			}
			if inUse[w].Add(1) != 1 {
				bad.Add(1)
			}
			time.Sleep(50 * time.Microsecond)
			inUse[w].Add(-1)
		})
		p.close()
		if bad.Load() != 0 {
			t.Fatalf("workers %d: %d tasks saw an invalid or shared worker index", workers, bad.Load())
		}
		for k := range counts {
			if c := counts[k].Load(); c != 1 {
				t.Fatalf("workers %d: task %d ran %d times", workers, k, c)
			}
		}
	}
}

// TestStepAfterTrain: Train closes its pool and leaves none behind, so a
// Step after Train starts a fresh one (on the closed pool, whose helpers
// have gone, it would wait for them forever).
func TestStepAfterTrain(t *testing.T) {
	d := randomData(3, 40, 20, 0)
	cfg := smallConfig(NCG)
	cfg.Workers, cfg.Epochs = 3, 1
	tr, err := New(cfg, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Train(context.Background(), Options{}); err != nil {
		t.Fatal(err)
	}
	stepped := make(chan error, 1)
	go func() {
		_, err := tr.Step([]int32{0, 1, 2, 3})
		tr.Close()
		stepped <- err
	}()
	select {
	case err := <-stepped:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Step after Train did not return in 20 s")
	}
}
