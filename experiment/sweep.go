package experiment

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ncg-rbm/ncg/engine"
)

// Grid is a sweep: every combination of the values of its axes, each
// applied to Base. An empty axis leaves Base's value. The axes expand in
// the order of the fields, the first slowest and the seed fastest; an axis
// of a setting that matters to one method only (MethodOf) is expanded for
// the runs of that method alone.
type Grid struct {
	// Base holds every run's other settings. Its Engine.Method is used
	// when Methods is empty.
	Base Spec
	// Given lists the settings set explicitly in Base. For a named data
	// set, every other setting of DataSettings() takes the data set's
	// default (DefaultsFor) in each run; an axis counts as given for the
	// runs it expands.
	Given map[Setting]bool

	Methods   []engine.Method
	Hidden    []int
	P         []float64
	Density   []float64
	LineWidth []int
	Gamma     []float64
	LRConn    []float64
	Seeds     []uint64

	// Order sets the runs' indices (never a run's result): GridOrder or
	// SeedOrder.
	Order Order
}

// Order is the order of a sweep's runs.
type Order string

// The orders.
const (
	// GridOrder keeps each setting's seeds together, the seed varying
	// fastest. The zero value "" is GridOrder.
	GridOrder Order = "grid"
	// SeedOrder puts every setting's first seed before any setting's
	// second, so that a partial sweep covers every setting.
	SeedOrder Order = "seed"
)

// Point is one run of a sweep: its index in the sweep's order, its name
// (<data>-<method>[-<axis><value>…]-seed<seed>, with every axis of more
// than one value) and its run directory.
type Point struct {
	Index int    `json:"index"`
	Name  string `json:"name"`
	Dir   string `json:"dir"`
	Spec  Spec   `json:"spec"`
}

// axis is one list of a Grid: its setting, the prefix of its value in run
// names, its length, and how to set value i in a Spec and print it.
type axis struct {
	k      Setting
	prefix string
	n      int
	set    func(s *Spec, i int)
	value  func(s *Spec) string
}

func (g *Grid) axes() []axis {
	num := func(k Setting, prefix string, vals []float64, p func(*Spec) *float64) axis {
		return axis{k, prefix, len(vals), func(s *Spec, i int) { *p(s) = vals[i] }, func(s *Spec) string { return FormatFloat(*p(s)) }}
	}
	whole := func(k Setting, prefix string, vals []int, p func(*Spec) *int) axis {
		return axis{k, prefix, len(vals), func(s *Spec, i int) { *p(s) = vals[i] }, func(s *Spec) string { return fmt.Sprint(*p(s)) }}
	}
	return []axis{
		whole(SetHidden, "h", g.Hidden, func(s *Spec) *int { return &s.Engine.Hidden }),
		num(SetP, "p", g.P, func(s *Spec) *float64 { return &s.Engine.P }),
		num(SetDensity, "d", g.Density, func(s *Spec) *float64 { return &s.Engine.Density }),
		whole(SetLineWidth, "v", g.LineWidth, func(s *Spec) *int { return &s.Engine.LineWidth }),
		num(SetGamma, "g", g.Gamma, func(s *Spec) *float64 { return &s.Engine.Gamma }),
		num(SetLRConn, "lrc", g.LRConn, func(s *Spec) *float64 { return &s.Engine.LRConn }),
		{"seed", "seed", len(g.Seeds), func(s *Spec, i int) { s.Engine.Seed = g.Seeds[i] }, func(s *Spec) string { return fmt.Sprint(s.Engine.Seed) }},
	}
}

// Expand returns the grid's runs in its order, each in a subdirectory of
// out named after it, with its settings validated (Spec.Validate). A run
// that fails validation, or two runs with the same settings, give a
// *ConfigError naming the run.
func (g Grid) Expand(out string) ([]Point, error) {
	methods := g.Methods
	if len(methods) == 0 {
		methods = []engine.Method{g.Base.Engine.Method}
	}
	defaults, named := DefaultsFor(g.Base.Data)
	var points []Point
	names := map[string]int{}
	for _, m := range methods {
		var axes []axis // the axes this method expands
		for _, a := range g.axes() {
			if a.n > 0 && appliesTo(a.k, m) {
				axes = append(axes, a)
			}
		}
		idx := make([]int, len(axes))
		for {
			s := g.Base
			s.Engine.Method = m
			for k, a := range axes {
				a.set(&s, idx[k])
			}
			if named {
				defaults.Apply(&s, func(k Setting) bool {
					for _, a := range axes {
						if a.k == k {
							return true
						}
					}
					return g.Given[k]
				})
			}
			name := pointName(s, axes)
			if err := s.Validate(); err != nil {
				return nil, &ConfigError{fmt.Errorf("run %s: %w", name, err)}
			}
			if j, dup := names[name]; dup {
				return nil, &ConfigError{fmt.Errorf("runs %d and %d have the same settings (%s): remove the repeated value", j, len(points), name)}
			}
			names[name] = len(points)
			points = append(points, Point{Index: len(points), Name: name, Dir: filepath.Join(out, name), Spec: s})
			// Next combination, the last axis fastest.
			k := len(axes) - 1
			for ; k >= 0; k-- {
				if idx[k]++; idx[k] < axes[k].n {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
	}
	switch g.Order {
	case "", GridOrder:
	case SeedOrder:
		seedFirst(points, g.Seeds)
	default:
		return nil, &ConfigError{fmt.Errorf("order %q is not one of grid, seed", g.Order)}
	}
	return points, nil
}

// pointName is <data>-<method>[-<axis><value>…]-seed<seed>: the data set,
// the method, every axis of more than one value, and the seed, with the
// values as the run uses them (0.50 and 0.5 give the same name).
func pointName(s Spec, axes []axis) string {
	data := filepath.Base(s.Data)
	if ext := filepath.Ext(data); ext != "" && ext != data {
		data = strings.TrimSuffix(data, ext)
	}
	parts := []string{data, string(s.Engine.Method)}
	for _, a := range axes {
		if a.k != "seed" && a.n > 1 {
			parts = append(parts, a.prefix+a.value(&s))
		}
	}
	parts = append(parts, fmt.Sprintf("seed%d", s.Engine.Seed))
	for k := range parts {
		parts[k] = SafeName(parts[k])
	}
	return strings.Join(parts, "-")
}

// seedFirst reorders points (in grid order) by the position of their seed
// in seeds, keeping the grid order among equal seeds, and renumbers them.
func seedFirst(points []Point, seeds []uint64) {
	pos := map[uint64]int{}
	for _, s := range seeds {
		if _, ok := pos[s]; !ok {
			pos[s] = len(pos)
		}
	}
	seed := func(i int) int { return pos[points[i].Spec.Engine.Seed] }
	sort.SliceStable(points, func(i, j int) bool { return seed(i) < seed(j) })
	for i := range points {
		points[i].Index = i
	}
}

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
	// Run are every run's options. Workers 0 gives each run
	// GOMAXPROCS/Parallel goroutines (at least 1); that changes speed
	// only, never results. Progress lines of concurrent runs are written
	// one at a time.
	Run Options
	// Done, if set, is called as each run ends, one call at a time and
	// never during a write of Run.Progress (so it may write there too),
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
	if ro.Progress != nil {
		ro.Progress = &syncWriter{mu: &mu, w: ro.Progress}
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

// syncWriter serialises the progress lines of concurrent runs.
type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
