package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/internal/dirlock"
	"github.com/ncg-rbm/ncg/kernel"
)

func init() {
	commands["sweep"] = command{"train a grid of methods × settings × seeds, in parallel and in shards", runSweep}
}

// sweepEntry is one run in the summary and in -json.
type sweepEntry struct {
	Index  int               `json:"index"`
	Name   string            `json:"name"`
	Status experiment.Status `json:"status"`
	Error  string            `json:"error,omitempty"`
	*experiment.Result
}

func runSweep(args []string, stdout, stderr io.Writer) error {
	s, fs, err := parseSweepFlags(args, stderr)
	if err != nil {
		return err
	}
	if *s.parallel < 1 {
		return usagef("-parallel %d: want at least 1", *s.parallel)
	}
	if *s.every < 0 {
		return usagef("-checkpoint-every %v is negative", *s.every)
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}
	shard, err := s.shardOf()
	if err != nil {
		return err
	}
	if err := s.run.finish(fs); err != nil {
		return err
	}
	grid := experiment.Grid{Settings: s.run.given}
	switch experiment.Order(*s.order) {
	case experiment.GridOrder, experiment.SeedOrder:
		grid.Order = experiment.Order(*s.order)
	default:
		return usagef("-order %q: want grid or seed", *s.order)
	}
	out := s.run.out
	points, err := grid.Expand(out)
	if err != nil {
		return err
	}
	var mine []experiment.Point
	for _, p := range points {
		if shard.Has(p.Index) {
			mine = append(mine, p)
		}
	}
	// Settings that cannot work with their data are refused before any run
	// trains (and by -dry-run, which lists what would train), in every
	// shard (they are the same command line), and so is data whose rows
	// differ from those any run of the sweep recorded (a shard started
	// after a data file changed). A dry run on a machine without the data
	// sets lists the runs all the same, saying which checks it could not
	// make.
	if err := checkAll(points, *s.run.dataDir, *s.parallel); err != nil {
		if !*s.dryRun || exitCode(err) == 2 {
			return err
		}
		fmt.Fprintf(stderr, "ncgbench sweep: warning: the checks that need the data were not made: %v\n", oneLine(err))
	}
	if *s.dryRun {
		return printDryRun(stdout, points, mine, shard, *s.asJSON)
	}
	// One process per shard of a sweep: shards of one sweep share the
	// directory (each run in it has its own lock besides).
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	lock, err := dirlock.Acquire(out, shardLockName(shard))
	if err != nil {
		return shardInUse(err, out, shard)
	}
	defer lock.Unlock()
	ctx, cancel := interruptible()
	defer cancel()
	progress := s.prof.progressWriter(stderr)
	say := func(format string, args ...any) {
		if progress != nil {
			fmt.Fprintf(progress, format, args...)
		}
	}
	opts := experiment.SweepOptions{Parallel: *s.parallel, Run: experiment.Options{DataDir: *s.run.dataDir, Workers: s.run.workers,
		Progress: withWarnings("sweep", stderr, runProgressTo(progress, false)), Version: version(), CheckpointEvery: checkpointEvery(*s.every)}}
	opts.Done = func(o experiment.Outcome, ended int) {
		prefix := fmt.Sprintf("[%d/%d] %s", ended, len(mine), o.Point.Name)
		switch o.Status {
		case experiment.Interrupted:
			say("%s interrupted (checkpoint kept)\n", prefix)
		case experiment.Failed:
			say("%s failed: %v\n", prefix, o.Err)
		case experiment.Skipped:
			say("%s finished earlier, skipped\n", prefix)
		default:
			say("%s done in %.1fs: %s\n", prefix, o.Seconds, finalSummary(o.Result.Final))
		}
	}
	say("sweep: %d runs, shard %s has %d; %d at once, %d workers each\n", len(points), shard, len(mine), *s.parallel, opts.PerRun(len(mine)))
	outcomes := experiment.Sweep(ctx, mine, opts)
	entries := make([]sweepEntry, len(outcomes))
	var failed, stopped int
	for i, o := range outcomes {
		entries[i] = sweepEntry{Index: o.Point.Index, Name: o.Point.Name, Status: o.Status, Result: o.Result}
		if o.Err != nil {
			entries[i].Error = o.Err.Error()
		}
		switch o.Status {
		case experiment.Failed:
			failed++
		case experiment.Interrupted, experiment.NotStarted:
			stopped++
		}
	}
	if *s.asJSON {
		if err := printJSON(stdout, entries); err != nil {
			return err
		}
	} else {
		printSweepTable(stdout, entries)
	}
	if ctx.Err() != nil && stopped > 0 {
		return fmt.Errorf("%w: %d runs unfinished under %s; run the same command again to resume them (finished runs are skipped)", errInterrupted, stopped, out)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d runs failed", failed, len(entries))
	}
	return nil
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

func printDryRun(w io.Writer, all, mine []experiment.Point, shard experiment.Shard, asJSON bool) error {
	if asJSON {
		if mine == nil {
			mine = []experiment.Point{}
		}
		return printJSON(w, mine)
	}
	fmt.Fprintf(w, "%d runs in the sweep; shard %s has %d:\n", len(all), shard, len(mine))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\trun\tdirectory\tstate")
	for _, p := range mine {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", p.Index, p.Name, p.Dir, experiment.RunDir(p.Dir).State())
	}
	return tw.Flush()
}

// checkAll refuses, as bad usage naming the run, a setting that cannot
// work with its data before any of the runs trains, and -parallel runs
// that cannot train at once in memory.
func checkAll(runs []experiment.Point, dataDir string, parallel int) error {
	problems, err := experiment.CheckSweep(runs, dataDir, parallel)
	if err != nil {
		return err
	}
	for i, e := range problems {
		if e != nil {
			if len(runs) == 1 {
				return usageError{errors.New(oneLine(e))}
			}
			return usagef("run %s: %s", runs[i].Name, oneLine(e))
		}
	}
	return nil
}

// shardInUse says which shard of which sweep is already running when the
// shard's lock is held: two array tasks given the same index.
func shardInUse(err error, out string, shard experiment.Shard) error {
	var inUse *dirlock.InUseError
	if !errors.As(err, &inUse) {
		return err
	}
	if shard == experiment.All {
		return fmt.Errorf("the sweep in %s is already running: %w", out, err)
	}
	return fmt.Errorf("shard %s of the sweep in %s is already running: %w", shard, out, err)
}
