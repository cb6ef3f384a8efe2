package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/internal/dirlock"
	"github.com/ncg-rbm/ncg/kernel"
)

func init() {
	commands["sweep"] = command{"train a grid of methods × settings × seeds, in parallel and in shards", runSweep}
}

// listAxes are the run flags that take comma lists in a sweep, in the order
// of expansion: the first varies slowest, the seed fastest.
var listAxes = []string{"method", "hidden", "p", "density", "v", "gamma", "lr-conn", "seed"}

// axisPrefix names an axis in run names. An axis in methodFlags is not
// expanded for the methods it does not matter to.
var axisPrefix = map[string]string{"hidden": "h", "p": "p", "density": "d", "v": "v", "gamma": "g", "lr-conn": "lrc", "seed": "seed"}

// setting is one flag given to every run of a sweep.
type setting struct{ name, value string }

// gridFlags collects what a sweep's flags and grid file say: single settings
// in order, and the lists of the list-valued flags.
type gridFlags struct {
	sets  []setting
	lists map[string][]string
}

// recorder wraps a run flag: it validates the value with the real flag and
// records it, splitting lists for the list-valued flags.
type recorder struct {
	flag.Value
	name string
	g    *gridFlags
}

// String is the wrapped flag's default. The flag package also calls it on
// a zero recorder (to tell whether a default is worth printing in -h), so a
// recorder without a flag reads as "".
func (r *recorder) String() string {
	if r == nil || r.Value == nil {
		return ""
	}
	return r.Value.String()
}

func (r *recorder) IsBoolFlag() bool {
	b, ok := r.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func (r *recorder) Set(s string) error {
	if !isListAxis(r.name) {
		if err := r.Value.Set(s); err != nil {
			return err
		}
		r.g.sets = append(r.g.sets, setting{r.name, s})
		return nil
	}
	var items []string
	if r.name == "seed" {
		seeds, err := experiment.ParseSeeds(s)
		if err != nil {
			return err
		}
		for _, v := range seeds {
			items = append(items, fmt.Sprint(v))
		}
	} else {
		var err error
		if items, err = experiment.SplitList(s); err != nil {
			return err
		}
		for _, it := range items {
			if err := r.Value.Set(it); err != nil {
				return err
			}
		}
	}
	r.g.lists[r.name] = items
	return nil
}

func isListAxis(name string) bool {
	for _, a := range listAxes {
		if a == name {
			return true
		}
	}
	return false
}

// newGridFlagSet registers the run flags on fs, recording into g.
func newGridFlagSet(fs *flag.FlagSet, g *gridFlags) {
	var rf runFlags
	rf.register(fs)
	fs.VisitAll(func(f *flag.Flag) {
		f.Value = &recorder{Value: f.Value, name: f.Name, g: g}
	})
}

// sweepPoint is one run of a sweep.
type sweepPoint struct {
	Index int             `json:"index"`
	Name  string          `json:"name"`
	Dir   string          `json:"dir"`
	Spec  experiment.Spec `json:"spec"`
	rf    runFlags
}

// expandGrid builds every run of the grid in the documented order.
func expandGrid(g *gridFlags, out string) ([]sweepPoint, error) {
	lists := map[string][]string{}
	for k, v := range g.lists {
		lists[k] = v
	}
	methods := lists["method"]
	if methods == nil {
		methods = []string{string(engine.NCG)}
	}
	var points []sweepPoint
	names := map[string]int{}
	for _, m := range methods {
		// The axes this method expands, beside the method itself.
		var axes []string
		for _, a := range listAxes[1:] {
			if lists[a] == nil {
				continue
			}
			if ms := methodFlags[a]; ms != nil && !containsMethod(ms, engine.Method(m)) {
				continue
			}
			axes = append(axes, a)
		}
		idx := make([]int, len(axes))
		for {
			fs := flag.NewFlagSet("sweep run", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			var rf runFlags
			rf.register(fs)
			for _, s := range g.sets {
				if err := fs.Set(s.name, s.value); err != nil {
					return nil, usagef("-%s %s: %v", s.name, s.value, err)
				}
			}
			if err := fs.Set("method", m); err != nil {
				return nil, usageError{err}
			}
			for k, a := range axes {
				if err := fs.Set(a, lists[a][idx[k]]); err != nil {
					return nil, usagef("-%s %s: %v", a, lists[a][idx[k]], err)
				}
			}
			if rf.spec.Data == "" {
				if err := fs.Set("data", "bas"); err != nil {
					return nil, err
				}
			}
			if err := rf.finish(fs); err != nil {
				return nil, fmt.Errorf("run %s: %w", describe(axes, idx, lists, m), err)
			}
			name := runName(&rf, axes, lists)
			if j, dup := names[name]; dup {
				return nil, usagef("runs %d and %d have the same settings (%s): remove the repeated value", j, len(points), name)
			}
			names[name] = len(points)
			points = append(points, sweepPoint{Index: len(points), Name: name, Dir: filepath.Join(out, name), Spec: rf.spec, rf: rf})
			// Next combination, the last axis fastest.
			k := len(axes) - 1
			for ; k >= 0; k-- {
				idx[k]++
				if idx[k] < len(lists[axes[k]]) {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
	}
	return points, nil
}

// inapplicable returns a usage error for a method's flag given to a sweep
// none of whose methods it matters to.
func (g *gridFlags) inapplicable() error {
	set := map[string]bool{}
	for _, s := range g.sets {
		set[s.name] = true
	}
	for name := range g.lists {
		set[name] = true
	}
	methods := []engine.Method{engine.NCG}
	if ms := g.lists["method"]; ms != nil {
		methods = methods[:0]
		for _, m := range ms {
			methods = append(methods, engine.Method(m))
		}
	}
	return inapplicable(set, methods)
}

// shardLockName is the lock file of a sweep's shard in its directory.
func shardLockName(s experiment.Shard) string {
	if s == experiment.All {
		return ".sweep.lock"
	}
	return fmt.Sprintf(".sweep-shard-%d-of-%d.lock", s.Index, s.Count)
}

// seedFirst reorders points (in grid order) by the position of their seed
// in the seed list, keeping the grid order among equal seeds, and renumbers
// them: every setting's first seed comes before any setting's second.
func seedFirst(points []sweepPoint, seeds []string) {
	pos := map[uint64]int{}
	for _, s := range seeds { // single seeds: the recorder expanded ranges
		if v, err := strconv.ParseUint(s, 10, 64); err == nil {
			if _, ok := pos[v]; !ok {
				pos[v] = len(pos)
			}
		}
	}
	seed := func(i int) int { return pos[points[i].Spec.Engine.Seed] }
	sort.SliceStable(points, func(i, j int) bool { return seed(i) < seed(j) })
	for i := range points {
		points[i].Index = i
	}
}

func containsMethod(ms []engine.Method, m engine.Method) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

func describe(axes []string, idx []int, lists map[string][]string, m string) string {
	s := "-method " + m
	for k, a := range axes {
		s += fmt.Sprintf(" -%s %s", a, lists[a][idx[k]])
	}
	return s
}

// runName is <data>-<method>[-<axis><value>…]-seed<seed>: the data set,
// the method, every axis with more than one value, and the seed, with the
// values as the run uses them (0.50 and 0.5 give the same name).
func runName(rf *runFlags, axes []string, lists map[string][]string) string {
	e := rf.spec.Engine
	data := filepath.Base(rf.spec.Data)
	if ext := filepath.Ext(data); ext != "" && ext != data {
		data = strings.TrimSuffix(data, ext)
	}
	parts := []string{data, string(e.Method)}
	for _, a := range axes {
		if a == "seed" || len(lists[a]) < 2 {
			continue
		}
		var v string
		switch a {
		case "hidden":
			v = fmt.Sprint(e.Hidden)
		case "p":
			v = experiment.FormatFloat(e.P)
		case "density":
			v = experiment.FormatFloat(e.Density)
		case "v":
			v = fmt.Sprint(e.V)
		case "gamma":
			v = experiment.FormatFloat(e.Gamma)
		case "lr-conn":
			v = experiment.FormatFloat(e.LRConn)
		}
		parts = append(parts, axisPrefix[a]+v)
	}
	parts = append(parts, fmt.Sprintf("seed%d", e.Seed))
	for k := range parts {
		parts[k] = experiment.SafeName(parts[k])
	}
	return strings.Join(parts, "-")
}

// readGridFile applies a JSON object of run flags to g: {"data": "bas",
// "method": ["ncg", "dense"], "seed": "1-25", "epochs": 50}. Arrays are
// allowed for the list-valued flags only. Errors name the file.
func readGridFile(path string, g *gridFlags) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("%s: not a JSON object of flag settings: %v", path, err)
	}
	fs := flag.NewFlagSet("grid", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	newGridFlagSet(fs, g)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := strings.TrimLeft(k, "-")
		if fs.Lookup(name) == nil || name == "out" || name == "workers" || name == "data-dir" {
			return fmt.Errorf("%s: %q is not a run setting", path, k)
		}
		var vals []any
		raw := obj[k]
		if err := json.Unmarshal(raw, &vals); err != nil {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("%s: %q: %v", path, k, err)
			}
			vals = []any{v}
		} else if !isListAxis(name) {
			return fmt.Errorf("%s: %q takes one value, not a list", path, k)
		}
		strs := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case string:
				strs[i] = v
			case float64:
				strs[i] = experiment.FormatFloat(v)
			case bool:
				strs[i] = fmt.Sprint(v)
			default:
				return fmt.Errorf("%s: %q: value %v is not a string, number or boolean", path, k, v)
			}
		}
		if err := fs.Set(name, strings.Join(strs, ",")); err != nil {
			return fmt.Errorf("%s: %q: %v", path, k, err)
		}
	}
	return nil
}

// syncWriter serialises the progress lines of concurrent runs.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// sweepEntry is one run in the summary and in -json.
type sweepEntry struct {
	Index  int    `json:"index"`
	Name   string `json:"name"`
	Status string `json:"status"` // trained, skipped (finished earlier), failed, interrupted, not started
	Error  string `json:"error,omitempty"`
	*experiment.Result
}

func runSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sweep", stderr)
	cmdGrid := &gridFlags{lists: map[string][]string{}}
	newGridFlagSet(fs, cmdGrid)
	var out string
	of := fs.Lookup("out")
	of.Value = stringValue{&out}
	of.Usage = "sweep `directory`: each run in a subdirectory named from its settings"
	of.DefValue = "runs/sweep"
	out = of.DefValue
	var workers int
	wf := fs.Lookup("workers")
	wf.Value = intValue{&workers}
	wf.Usage = "goroutines per run (default GOMAXPROCS/parallel); never changes results"
	var dataDir string
	df := fs.Lookup("data-dir")
	df.Value = stringValue{&dataDir}
	var prof profiling
	prof.register(fs)
	gridFile := fs.String("grid", "", "JSON `file` of run settings, e.g. {\"method\": [\"ncg\", \"dense\"], \"seed\": \"1-25\"}; flags given override it")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at once")
	shardFlag := fs.String("shard", "", "run shard `i/n` only: the runs whose index % n == i (0-based)")
	shards := fs.Int("shards", 0, "number of shards, with the index from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX")
	order := fs.String("order", "grid", "run `order`: grid (each setting's seeds together, the seed varying fastest) or seed (every setting's first seed before any second seed, so a partial sweep covers every setting); it sets the run indices -shard splits by, never a run's result")
	dryRun := fs.Bool("dry-run", false, "list this shard's runs without training")
	ckptEvery := checkpointEveryFlag(fs)
	asJSON := fs.Bool("json", false, "print one JSON array of results (with -dry-run: of runs)")
	if err := parseFlagsHelp(fs, args, stderr, "ncgbench sweep [flags]: train every combination of the list-valued flags\n(-method, -hidden, -p, -density, -v, -gamma, -lr-conn, -seed take comma lists; -seed also a-b)", dataDefaultsHelp); err != nil {
		return err
	}
	if *parallel < 1 {
		return usagef("-parallel %d: want at least 1", *parallel)
	}
	if workers < 0 {
		return usagef("-workers %d is negative", workers)
	}
	if *ckptEvery < 0 {
		return usagef("-checkpoint-every %v is negative", *ckptEvery)
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}
	shard := experiment.All
	switch {
	case *shardFlag != "":
		s, err := experiment.ParseShard(*shardFlag)
		if err != nil {
			return usageError{err}
		}
		if *shards != 0 && *shards != s.Count {
			return usagef("-shard %s and -shards %d disagree", *shardFlag, *shards)
		}
		shard = s
	default:
		if *shards < 0 {
			return usagef("-shards %d is negative", *shards)
		}
		s, ok, err := experiment.ShardFromEnv(nil, *shards)
		if err != nil {
			return usageError{err}
		}
		if ok {
			shard = s
		} else if *shards > 1 {
			return usagef("-shards needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX in the environment (or use -shard i/n)")
		}
	}

	g := &gridFlags{lists: map[string][]string{}}
	if *gridFile != "" {
		if err := readGridFile(*gridFile, g); err != nil {
			return err
		}
	}
	g.sets = append(g.sets, cmdGrid.sets...)
	for k, v := range cmdGrid.lists {
		g.lists[k] = v
	}
	if err := g.inapplicable(); err != nil {
		return err
	}
	points, err := expandGrid(g, out)
	if err != nil {
		return err
	}
	switch *order {
	case "grid":
	case "seed":
		seedFirst(points, g.lists["seed"])
	default:
		return usagef("-order %q: want grid or seed", *order)
	}
	var mine []sweepPoint
	for _, p := range points {
		if shard.Has(p.Index) {
			mine = append(mine, p)
		}
	}
	if *dryRun {
		return printDryRun(stdout, points, mine, shard, *asJSON)
	}
	// Settings that cannot work with their data are refused before any run
	// trains.
	specs := make([]experiment.Spec, len(mine))
	for i, p := range mine {
		specs[i] = p.Spec
	}
	problems, err := experiment.CheckAll(specs, dataDir)
	if err != nil {
		return err
	}
	for i, e := range problems {
		if e != nil {
			return usagef("run %s: %s", mine[i].Name, oneLine(e))
		}
	}
	// One process per shard of a sweep: shards of one sweep share the
	// directory (each run in it has its own lock besides).
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	lock, err := dirlock.Acquire(out, shardLockName(shard))
	if err != nil {
		return err
	}
	defer lock.Unlock()
	ctx, cancel := interruptible()
	defer cancel()
	entries := runPoints(ctx, mine, points, shard, *parallel, workers, *ckptEvery, dataDir, prof.progressWriter(stderr))
	if *asJSON {
		if err := printJSON(stdout, entries); err != nil {
			return err
		}
	} else {
		printSweepTable(stdout, entries)
	}
	var failed, stopped int
	for _, e := range entries {
		switch e.Status {
		case "failed":
			failed++
		case "interrupted", "not started":
			stopped++
		}
	}
	if ctx.Err() != nil && stopped > 0 {
		return fmt.Errorf("%w: %d runs unfinished under %s; run the same command again to resume them (finished runs are skipped)", errInterrupted, stopped, out)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d runs failed", failed, len(entries))
	}
	return nil
}

// runPoints trains the runs with at most par at once and returns their
// entries in sweep order.
func runPoints(ctx context.Context, mine, all []sweepPoint, shard experiment.Shard, par, workers int, ckptEvery time.Duration, dataDir string, progressW io.Writer) []sweepEntry {
	if workers == 0 {
		workers = max(1, runtime.GOMAXPROCS(0)/min(par, max(len(mine), 1)))
	}
	var prog io.Writer
	if progressW != nil {
		prog = &syncWriter{w: progressW}
	}
	runEvents := runProgressTo(prog, false)
	say := func(format string, args ...any) {
		if prog != nil {
			fmt.Fprintf(prog, format, args...)
		}
	}
	say("sweep: %d runs, shard %s has %d; %d at once, %d workers each\n", len(all), shard, len(mine), par, workers)
	entries := make([]sweepEntry, len(mine))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for k, p := range mine {
		entries[k] = sweepEntry{Index: p.Index, Name: p.Name, Status: "not started"}
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
			res, err := experiment.Run(ctx, p.Spec, p.Dir, experiment.Options{DataDir: dataDir, Workers: workers,
				Progress: runEvents, Version: version(), CheckpointEvery: ckptEvery})
			e := &entries[k]
			mu.Lock()
			defer mu.Unlock()
			done++
			switch {
			case err != nil && ctx.Err() != nil:
				e.Status = "interrupted"
				e.Error = err.Error()
				say("[%d/%d] %s interrupted (checkpoint kept)\n", done, len(mine), p.Name)
				return
			case err != nil:
				e.Status = "failed"
				e.Error = err.Error()
				say("[%d/%d] %s failed: %v\n", done, len(mine), p.Name, err)
				return
			}
			e.Result = res
			e.Status = "trained"
			if res.Skipped {
				e.Status = "skipped"
				say("[%d/%d] %s finished earlier, skipped\n", done, len(mine), p.Name)
			} else {
				say("[%d/%d] %s done in %.1fs: %s\n", done, len(mine), p.Name, time.Since(start).Seconds(), finalSummary(res.Final))
			}
		}()
	}
	wg.Wait()
	return entries
}

func finalSummary(f experiment.Metrics) string {
	var s []string
	if !math.IsNaN(f.NLL) {
		s = append(s, fmt.Sprintf("nll %.4f", f.NLL))
	}
	if !math.IsNaN(f.TestAcc) {
		s = append(s, fmt.Sprintf("test acc %.4f", f.TestAcc))
	}
	s = append(s, fmt.Sprintf("density %.3f", f.Density))
	return strings.Join(s, ", ")
}

func fmtMetric(v float64, format string) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

func printSweepTable(w io.Writer, entries []sweepEntry) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\trun\tstatus\tepochs\tnll\ttrain acc\ttest acc\tdensity\tseconds")
	for _, e := range entries {
		if e.Result == nil {
			fmt.Fprintf(tw, "%d\t%s\t%s\t-\t-\t-\t-\t-\t-\n", e.Index, e.Name, e.Status)
			continue
		}
		f := e.Final
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%s\t%.4f\t%.1f\n", e.Index, e.Name, e.Status, f.Epoch,
			fmtMetric(f.NLL, "%.4f"), fmtMetric(f.TrainAcc, "%.4f"), fmtMetric(f.TestAcc, "%.4f"), f.Density, e.TotalSeconds)
	}
	tw.Flush()
}

func printDryRun(w io.Writer, all, mine []sweepPoint, shard experiment.Shard, asJSON bool) error {
	if asJSON {
		if mine == nil {
			mine = []sweepPoint{}
		}
		return printJSON(w, mine)
	}
	fmt.Fprintf(w, "%d runs in the sweep; shard %s has %d:\n", len(all), shard, len(mine))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\trun\tdirectory\tstate")
	for _, p := range mine {
		state := "new"
		if _, err := os.Stat(filepath.Join(p.Dir, "result.json")); err == nil {
			state = "finished"
		} else if _, err := os.Stat(filepath.Join(p.Dir, "checkpoint")); err == nil {
			state = "resumes"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", p.Index, p.Name, p.Dir, state)
	}
	return tw.Flush()
}

// stringValue and intValue replace run flags whose meaning a sweep changes.
type stringValue struct{ p *string }

func (v stringValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}
func (v stringValue) Set(s string) error { *v.p = s; return nil }

type intValue struct{ p *int }

func (v intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return fmt.Sprint(*v.p)
}
func (v intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("parse error")
	}
	*v.p = n
	return nil
}

// parseFlagsHelp is parseFlags that prints the flags for -h. Each extra
// function may rewrite the flags' help and returns text printed after them.
func parseFlagsHelp(fs *flag.FlagSet, args []string, stderr io.Writer, synopsis string, extra ...func(*flag.FlagSet) string) error {
	err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stderr, "Usage: %s\n", synopsis)
		var after []string
		for _, e := range extra {
			after = append(after, e(fs))
		}
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintf(stderr, "\nFlags:\n")
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		for _, a := range after {
			fmt.Fprint(stderr, a)
		}
	}
	return err
}
