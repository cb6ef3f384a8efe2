package experiment

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Status is how a run of a sweep ended.
type Status string

// The statuses.
const (
	Trained     Status = "trained"
	Skipped     Status = "skipped" // found finished in its directory
	Failed      Status = "failed"
	Interrupted Status = "interrupted" // its context was cancelled; its checkpoint is kept
	NotStarted  Status = "not started" // the context was cancelled first
)

// Outcome is one run of a sweep.
type Outcome struct {
	Point   Point
	Status  Status
	Result  *Result // trained or skipped runs only
	Err     error   // failed or interrupted runs only
	Seconds float64 // wall time of the run
}

// SweepOptions tune Sweep.
type SweepOptions struct {
	// Parallel is the number of runs at once (0: GOMAXPROCS).
	Parallel int
	// Run holds the options of every run. Workers 0 gives each run
	// GOMAXPROCS/Parallel goroutines (at least 1); that changes speed
	// only, never results. The progress events of concurrent runs are
	// delivered one at a time.
	Run Options
	// Done, if set, is called as each run ends, one call at a time and
	// never during a call of Run.Progress (so both may write to one place),
	// with the number of runs ended so far.
	Done func(o Outcome, ended int)
}

// PerRun returns the goroutines each of n runs gets.
func (o SweepOptions) PerRun(n int) int {
	if o.Run.Workers != 0 {
		return o.Run.Workers
	}
	return max(1, runtime.GOMAXPROCS(0)/min(o.parallel(), max(n, 1)))
}

func (o SweepOptions) parallel() int {
	if o.Parallel <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return o.Parallel
}

// Sweep runs the points, at most Parallel at once, each in its directory
// with Run (so an interrupted sweep resumes, and finished runs are
// skipped), and returns their outcomes in the order of points. Every run
// is deterministic: the results do not depend on Parallel or Workers. A
// failed run does not stop the others; once ctx is cancelled no run
// starts, and the running ones stop at their next checkpoint.
func Sweep(ctx context.Context, points []Point, opts SweepOptions) []Outcome {
	ro := opts.Run
	ro.Workers = opts.PerRun(len(points))
	var mu sync.Mutex // serialises Done and the runs' progress lines
	if f := ro.Progress; f != nil {
		ro.Progress = func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			f(e)
		}
	}
	out := make([]Outcome, len(points))
	sem := make(chan struct{}, opts.parallel())
	var wg sync.WaitGroup
	ended := 0
	for k, p := range points {
		out[k] = Outcome{Point: p, Status: NotStarted}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		if ctx.Err() != nil {
			<-sem
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			start := time.Now()
			res, err := Run(ctx, p.Spec, p.Dir, ro)
			o := Outcome{Point: p, Result: res, Err: err, Seconds: time.Since(start).Seconds()}
			switch {
			case err != nil && ctx.Err() != nil:
				o.Status, o.Result = Interrupted, nil
			case err != nil:
				o.Status, o.Result = Failed, nil
			case res.Skipped:
				o.Status = Skipped
			default:
				o.Status = Trained
			}
			mu.Lock()
			defer mu.Unlock()
			out[k] = o
			ended++
			if opts.Done != nil {
				opts.Done(o, ended)
			}
		}()
	}
	wg.Wait()
	return out
}
