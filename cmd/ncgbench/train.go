package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/report"
)

func init() {
	commands["train"] = command{"train a model (no -data: NCG and dense on built-in bars-and-stripes)", runTrain}
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("train", stderr)
	var rf runFlags
	var prof profiling
	rf.register(fs)
	fs.Lookup("data").Usage = strings.Replace(fs.Lookup("data").Usage, " (default bas)", " (none, and no -method: the demo, NCG and a dense RBM on bas)", 1)
	prof.register(fs)
	asJSON := fs.Bool("json", false, "print the results as a JSON array on stdout: one run's result, or the demo's two")
	ckptEvery := checkpointEveryFlag(fs)
	if err := parseFlagsHelp(fs, args, stderr, "ncgbench train [flags]: one run (no -data: NCG and a dense RBM on bars-and-stripes)", dataDefaultsHelp); err != nil {
		return err
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}
	if err := rf.finish(fs); err != nil {
		return err
	}
	if *ckptEvery < 0 {
		return usagef("-checkpoint-every %v is negative", *ckptEvery)
	}
	// The runs and their directories: one run in -out, or the demo's NCG
	// beside a dense RBM, each in a directory named after it.
	var runs []experiment.Point
	if rf.has("data") || rf.has("method") {
		spec, err := experiment.NewSpec(rf.given)
		if err != nil {
			return err
		}
		runs = []experiment.Point{{Spec: spec, Dir: rf.runDir(spec)}}
	} else {
		g := experiment.Grid{Settings: experiment.Settings{"method": []engine.Method{engine.NCG, engine.Dense}}}
		for k, v := range rf.given {
			g.Settings[k] = v
		}
		out := rf.out
		if out == "" {
			out = "runs"
		}
		var err error
		if runs, err = g.Expand(out); err != nil {
			return err
		}
	}
	ctx, cancel := interruptible()
	defer cancel()
	var results []*experiment.Result
	for _, r := range runs {
		res, err := experiment.Run(ctx, r.Spec, r.Dir, experiment.Options{DataDir: *rf.dataDir, Workers: rf.workers,
			Progress: withWarnings("train", stderr, runProgressTo(prof.progressWriter(stderr), isTerminal(stderr))), Version: version(), CheckpointEvery: checkpointEvery(*ckptEvery)})
		if err != nil {
			if ctx.Err() != nil {
				return interruptedRun(r.Dir)
			}
			return err
		}
		results = append(results, res)
		if err := plotRun(ctx, res.Dir); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w: the run in %s is finished; only its figures are missing", errInterrupted, res.Dir)
			}
			return err
		}
	}
	if *asJSON { // an array, of one run or the demo's two, as sweep's
		return printJSON(stdout, results)
	}
	for _, res := range results {
		printResult(stdout, res)
	}
	return nil
}

// interruptedRun is the error of a run in dir stopped by Ctrl-C: it names
// the checkpoint to resume from, or says that nothing was saved when the
// run was stopped before its first checkpoint.
func interruptedRun(dir string) error {
	switch experiment.RunDir(dir).State() {
	case experiment.StateResumes, experiment.StateFailed:
		return fmt.Errorf("%w: checkpoint in %s; run the same command again to resume", errInterrupted, dir)
	case experiment.StateFinished:
		return fmt.Errorf("%w: the run in %s is finished", errInterrupted, dir)
	}
	return fmt.Errorf("%w before the first checkpoint of the run in %s: nothing to resume; run the same command again to start it", errInterrupted, dir)
}

func printResult(w io.Writer, r *experiment.Result) {
	f := r.Final
	note := ""
	if r.Skipped {
		note = " (finished earlier; delete the directory or change -out to train again)"
	}
	fmt.Fprintf(w, "%s: %s on %s, seed %d, %d epochs%s\n", r.Dir, modelName(r.Spec), r.Spec.Data, r.Spec.Engine.Seed, f.Epoch, note)
	if !math.IsNaN(f.NLL) {
		switch {
		case !r.Spec.IsDeep():
			fmt.Fprintf(w, "  NLL %.4f nats (log Z %.4f", f.NLL, f.LogZ)
		case f.LogZLo == f.LogZHi:
			fmt.Fprintf(w, "  NLL ≤ %.4f nats (%s; log Z %.4f", f.NLL, boundName(r.Spec.Deep.Kind), f.LogZ)
		default:
			fmt.Fprintf(w, "  NLL ≤ %.4f nats (%s, an estimate of it with AIS's log Ẑ %.4f", f.NLL, boundName(r.Spec.Deep.Kind), f.LogZ)
		}
		if f.LogZLo != f.LogZHi {
			fmt.Fprintf(w, ", ±3σ %.4f…%.4f", f.LogZLo, f.LogZHi)
		}
		fmt.Fprintln(w, ")")
		printChecks(w, "    ", r.Checks)
	}
	if !math.IsNaN(f.TestAcc) || !math.IsNaN(f.TrainAcc) {
		fmt.Fprintf(w, "  accuracy: train %.4f, test %.4f\n", f.TrainAcc, f.TestAcc)
	}
	fmt.Fprintf(w, "  density %.4f (start %.4f), hidden degree min/mean/max %d/%.1f/%d, %.1f s\n",
		f.Density, r.InitDensity, f.DegreeMin, f.DegreeMean, f.DegreeMax, r.TotalSeconds)
}

// modelName names the model of a run: its method, or a deep model's kind,
// layers and methods ("dbm 500,1000 ncg,dense").
func modelName(s experiment.Spec) string {
	method, _ := experiment.Lookup("method")
	if !s.IsDeep() {
		return method.Value(s)
	}
	hidden, _ := experiment.Lookup("hidden")
	return fmt.Sprintf("%s %s %s", s.Deep.Kind, hidden.Value(s), method.Value(s))
}

// boundName names the bound on the NLL a deep model's evaluation gives.
func boundName(k engine.StackKind) string {
	if k == engine.DBN {
		return "the DBN's variational bound"
	}
	return "the mean-field bound"
}

// plotRun draws the learning curve, degree and density figures of one run
// into its directory.
func plotRun(ctx context.Context, dir string) error {
	runs, _, err := report.Collect(ctx, dir)
	if err != nil {
		return err
	}
	_, err = report.Write(ctx, dir, report.GroupRuns(runs), []string{"png"})
	return err
}
