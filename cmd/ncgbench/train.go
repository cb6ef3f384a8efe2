package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/report"
)

func init() {
	commands["train"] = command{"train a model (no -data: NCG and dense on built-in bars-and-stripes)", runTrain}
}

// runFlags are the flags that define a run (train and sweep share them).
type runFlags struct {
	spec    experiment.Spec
	dataDir string
	workers int
	out     string
	set     map[string]bool // flags given explicitly
}

func (r *runFlags) register(fs *flag.FlagSet) {
	d := engine.DefaultConfig()
	e := &r.spec.Engine
	*e = d
	fs.StringVar(&r.spec.Data, "data", "", "data set: bas, mnist, mushrooms, connect-4, or a file path (none: the bars-and-stripes demo)")
	fs.StringVar(&r.spec.TestData, "test-data", "", "test set `file`, for a file -data")
	fs.StringVar(&r.spec.Format, "format", "", "format of a data file: idx, libsvm or split (default: detected)")
	fs.Uint64Var(&r.spec.DataSeed, "data-seed", 0, "seed of binarisation and data splits")
	fs.StringVar(&r.dataDir, "data-dir", "", "data directory (default $NCG_DATA, else the user cache directory)")
	fs.Func("method", "connectivity method: dense, ncg, line, random, set (default ncg)", func(s string) error {
		e.Method = engine.Method(s)
		return nil
	})
	fs.Float64Var(&e.P, "p", d.P, "NCG: initial connection density p")
	fs.IntVar(&e.V, "v", d.V, "line: visible units per hidden unit")
	fs.Float64Var(&e.Density, "density", d.Density, "random: connection density")
	fs.Float64Var(&e.Epsilon, "epsilon", d.Epsilon, "SET: ε (density ε(X+H)/(XH))")
	fs.Float64Var(&e.Zeta, "zeta", d.Zeta, "SET: fraction ζ rewired after every epoch but the last")
	fs.IntVar(&e.Hidden, "hidden", d.Hidden, "hidden units")
	fs.IntVar(&e.K, "k", d.K, "Gibbs steps of CD-k")
	fs.IntVar(&e.Batch, "batch", d.Batch, "minibatch size")
	fs.Float64Var(&e.LR, "lr", d.LR, "learning rate α of weights and biases")
	fs.Float64Var(&e.LRConn, "lr-conn", d.LRConn, "NCG: learning rate α_A of the connection strength")
	fs.Float64Var(&e.Gamma, "gamma", d.Gamma, "NCG: threshold γ on the connection strength")
	fs.IntVar(&e.Epochs, "epochs", d.Epochs, "epochs")
	fs.Uint64Var(&e.Seed, "seed", d.Seed, "seed of the run (initialisation, order, chains)")
	fs.IntVar(&r.workers, "workers", 0, "goroutines per run (default GOMAXPROCS); never changes results")
	fs.StringVar(&e.Init, "init", d.Init, "weight initialisation: uniform, normal, zero")
	fs.Float64Var(&e.InitScale, "init-scale", d.InitScale, "a of uniform(−a, a) or σ of normal")
	fs.BoolVar(&e.PCD, "pcd", false, "persistent contrastive divergence (same as -sampler pcd)")
	r.registerTraining(fs)
	fs.BoolVar(&r.spec.Classify, "classify", false, "classification mode: one-hot label units, accuracy reported")
	fs.IntVar(&r.spec.EvalEvery, "eval-every", 0, "evaluate every N epochs (0: after the last epoch only)")
	fs.StringVar((*string)(&r.spec.Likelihood), "likelihood", "", "exact, ais or none (default: exact for small models, AIS otherwise; none when classifying)")
	fs.BoolFunc("exact", "same as -likelihood exact", func(string) error { r.spec.Likelihood = "exact"; return nil })
	fs.IntVar(&r.spec.AISRuns, "ais-runs", eval.DefaultRuns, "AIS runs")
	fs.IntVar(&r.spec.AISIntervals, "ais-betas", eval.DefaultIntervals, fmt.Sprintf("AIS intervals (%d: the paper's schedule; other values: uniform β)", eval.DefaultIntervals))
	fs.Uint64Var(&r.spec.AISSeed, "ais-seed", 0, "seed of the AIS chains")
	fs.StringVar(&r.out, "out", "", "run directory (default runs/<data>-<method>-seed<seed>; the demo's two runs go in DIR/bas-ncg-seed<seed> and DIR/bas-dense-seed<seed>)")
}

// registerTraining adds the flags of the sampler, momentum, weight decay
// and learning-rate schedule. Their defaults leave a run as it was: an
// unset option stays out of config.json.
func (r *runFlags) registerTraining(fs *flag.FlagSet) {
	e := &r.spec.Engine
	fs.Func("sampler", "negative phase: cd (CD-k), pcd (persistent CD-k) or pt (parallel tempering: -temperatures chains per slot, k rounds of a Gibbs step each and neighbour swaps) (default cd)", func(s string) error {
		switch engine.Sampler(s) {
		case engine.CD, engine.PersistentCD: // stored as the pcd flag, as -pcd does
			e.Sampler, e.PCD = "", engine.Sampler(s) == engine.PersistentCD
		case engine.ParallelTempering:
			e.Sampler, e.PCD = engine.ParallelTempering, false
		default:
			return fmt.Errorf("%q is not one of cd, pcd, pt", s)
		}
		return nil
	})
	fs.IntVar(&e.Temperatures, "temperatures", engine.DefaultTemperatures, "pt: chains per minibatch slot M (β from 1 down to -min-beta, geometric)")
	fs.Float64Var(&e.MinBeta, "min-beta", engine.DefaultMinBeta, "pt: the lowest inverse temperature β_{M−1}")
	fs.Float64Var(&e.Momentum, "momentum", 0, "momentum μ of weights and biases (not of NCG's A′)")
	fs.Float64Var(&e.MomentumStart, "momentum-start", 0, "momentum during the first -momentum-epochs epochs")
	fs.IntVar(&e.MomentumEpochs, "momentum-epochs", 0, "epochs at -momentum-start before -momentum")
	fs.Float64Var(&e.L2, "l2", 0, "L2 weight decay λ₂ of W (not the biases)")
	fs.Float64Var(&e.L1, "l1", 0, "L1 weight decay λ₁ of W (not the biases)")
	fs.Func("lr-schedule", "schedule of -lr: constant, linear (to -lr-final at the last epoch) or step (× -lr-step-factor every -lr-step-every epochs) (default constant)", func(s string) error {
		switch engine.Schedule(s) {
		case engine.Constant:
			e.LRSchedule = "" // the default's spelling, so the two are one configuration
		case engine.Linear, engine.Step:
			e.LRSchedule = engine.Schedule(s)
		default:
			return fmt.Errorf("%q is not one of constant, linear, step", s)
		}
		return nil
	})
	fs.Float64Var(&e.LRFinal, "lr-final", 0, "linear schedule: α at the last epoch")
	fs.IntVar(&e.LRStepEvery, "lr-step-every", 0, "step schedule: epochs between steps")
	fs.Float64Var(&e.LRStepFactor, "lr-step-factor", 0, "step schedule: factor of α at each step")
}

// finishTraining drops the PT settings of a run of another sampler (their
// flag defaults), and rejects them when given explicitly.
func (r *runFlags) finishTraining() error {
	e := &r.spec.Engine
	if e.Sampler == engine.ParallelTempering {
		return nil
	}
	for _, f := range []string{"temperatures", "min-beta"} {
		if r.set[f] {
			return usagef("-%s needs -sampler pt", f)
		}
	}
	e.Temperatures, e.MinBeta = 0, 0
	return nil
}

// perDataFlags are the run flags whose default depends on the data set, in
// the order of the help table.
var perDataFlags = []string{"hidden", "k", "batch", "lr", "lr-conn", "epochs", "eval-every", "classify", "v"}

// dataSets are the named data sets, in the order of the help table.
var dataSets = []string{"bas", "mnist", "mushrooms", "connect-4"}

// dataDefaults are the paper's settings per named data set (the paper's
// section 5; bars-and-stripes is ours), used where the flag is not given.
// The line width v (for line runs) is half the visible units: the paper's
// line density 0.5.
// A file data set takes the flags' own defaults (engine.DefaultConfig).
var dataDefaults = map[string]map[string]string{
	"bas":       {"hidden": "16", "k": "10", "batch": "10", "lr": "0.05", "lr-conn": "0.25", "epochs": "2000", "eval-every": "250", "classify": "false", "v": "8"},
	"mnist":     {"hidden": "500", "k": "10", "batch": "50", "lr": "0.1", "lr-conn": "0.5", "epochs": "10", "eval-every": "0", "classify": "false", "v": "392"},
	"mushrooms": {"hidden": "100", "k": "10", "batch": "10", "lr": "0.01", "lr-conn": "0.05", "epochs": "10", "eval-every": "0", "classify": "true", "v": "56"},
	"connect-4": {"hidden": "100", "k": "10", "batch": "10", "lr": "0.01", "lr-conn": "0.05", "epochs": "10", "eval-every": "0", "classify": "true", "v": "63"},
}

// dataDefaultsHelp rewrites the help of the per-data-set flags of fs to
// point at a table, and returns that table: the default of each such flag
// for each named data set and for a data file, read from dataDefaults and
// from the flags' own defaults, so that -h says what a run will use.
func dataDefaultsHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  data set")
	for _, name := range perDataFlags {
		fmt.Fprintf(tw, "\t-%s", name)
	}
	fmt.Fprintln(tw)
	rows := append(append([]string(nil), dataSets...), "a file")
	for _, set := range rows {
		fmt.Fprintf(tw, "  %s", set)
		for _, name := range perDataFlags {
			v, ok := dataDefaults[set][name]
			if !ok {
				v = fs.Lookup(name).DefValue
			}
			fmt.Fprintf(tw, "\t%s", v)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, name := range perDataFlags {
		f := fs.Lookup(name)
		f.Usage += " (default: per data set, see the table below)"
		f.DefValue = zeroString(f.Value)
	}
	return "\nDefaults per data set (the paper's settings, ours for bas; a flag given\noverrides them; no -data trains bas; -v applies to line runs):\n" + b.String()
}

// zeroString is what the zero value of v's type prints, which the flag
// package reads as "no default to show".
func zeroString(v flag.Value) string {
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Pointer {
		return reflect.Zero(t).Interface().(flag.Value).String()
	}
	return reflect.New(t.Elem()).Interface().(flag.Value).String()
}

// finish applies the per-data defaults and the line width default, then
// validates what can be validated without the data.
func (r *runFlags) finish(fs *flag.FlagSet) error {
	r.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { r.set[f.Name] = true })
	name := r.spec.Data
	if name == "connect4" {
		name = "connect-4"
	}
	for k, v := range dataDefaults[name] {
		// v is set for line runs only: other runs keep the flag's default
		// in their Spec, so that their run directories stay theirs.
		if !r.set[k] && (k != "v" || r.spec.Engine.Method == engine.Line) {
			if err := fs.Set(k, v); err != nil {
				return err
			}
		}
	}
	if err := r.finishTraining(); err != nil {
		return err
	}
	if err := r.spec.Validate(); err != nil {
		return usageError{flagErr(err)}
	}
	if r.workers < 0 {
		return usagef("-workers %d is negative", r.workers)
	}
	if r.spec.AISRuns < 1 || r.spec.AISIntervals < 1 {
		return usagef("-ais-runs and -ais-betas must be at least 1")
	}
	if _, named := dataDefaults[name]; named {
		for _, f := range []string{"format", "test-data"} {
			if r.set[f] {
				return usagef("-%s applies to a data file, not to the named data set %s", f, name)
			}
		}
	}
	if r.spec.Likelihood == "exact" || r.spec.Likelihood == "none" {
		for _, f := range []string{"ais-runs", "ais-betas", "ais-seed"} {
			if r.set[f] {
				return usagef("-%s applies to AIS, not to -likelihood %s", f, r.spec.Likelihood)
			}
		}
	}
	return nil
}

// methodFlags are the run flags that matter to some methods only.
var methodFlags = map[string][]engine.Method{"p": {engine.NCG}, "gamma": {engine.NCG}, "lr-conn": {engine.NCG},
	"density": {engine.Random}, "v": {engine.Line}, "epsilon": {engine.SET}, "zeta": {engine.SET}}

// inapplicable returns a usage error for a flag in set that matters to
// none of methods.
func inapplicable(set map[string]bool, methods []engine.Method) error {
	names := make([]string, 0, len(methodFlags))
	for f := range methodFlags {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		if !set[f] {
			continue
		}
		applies := false
		for _, m := range methods {
			applies = applies || containsMethod(methodFlags[f], m)
		}
		if !applies {
			return usagef("-%s applies to -method %s only, not to %s", f, methodFlags[f][0], joinMethods(methods))
		}
	}
	return nil
}

func joinMethods(ms []engine.Method) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// flagErr turns the engine's validation wording into flag names.
func flagErr(err error) error {
	return errors.New(oneLine(err))
}

func (r *runFlags) dir() string {
	if r.out != "" {
		return r.out
	}
	return filepath.Join("runs", r.name())
}

// name is a run's default directory name: <data>-<method>-seed<seed>.
func (r *runFlags) name() string {
	return fmt.Sprintf("%s-%s-seed%d", filepath.Base(r.spec.Data), r.spec.Engine.Method, r.spec.Engine.Seed)
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("train", stderr)
	var rf runFlags
	var prof profiling
	rf.register(fs)
	prof.register(fs)
	asJSON := fs.Bool("json", false, "print the result as one JSON object on stdout")
	ckptEvery := checkpointEveryFlag(fs)
	if err := parseFlagsHelp(fs, args, stderr, "ncgbench train [flags]: one run (no -data: NCG and a dense RBM on bars-and-stripes)", dataDefaultsHelp); err != nil {
		return err
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}
	demo := rf.spec.Data == ""
	if demo {
		rf.spec.Data = "bas"
	}
	if err := rf.finish(fs); err != nil {
		return err
	}
	if *ckptEvery < 0 {
		return usagef("-checkpoint-every %v is negative", *ckptEvery)
	}
	methods := []engine.Method{rf.spec.Engine.Method}
	if demo && !rf.set["method"] {
		methods = append(methods, engine.Dense)
	}
	if err := inapplicable(rf.set, methods); err != nil {
		return err
	}
	ctx, cancel := interruptible()
	defer cancel()
	var results []*experiment.Result
	specs := []runFlags{rf}
	if demo && !rf.set["method"] {
		// The demo: NCG beside a dense RBM, each with the exact NLL.
		dense := rf
		dense.spec.Engine.Method = engine.Dense
		specs = append(specs, dense)
		if rf.out != "" { // two runs: one directory each, inside -out
			for i := range specs {
				specs[i].out = filepath.Join(rf.out, specs[i].name())
			}
		}
	}
	for _, r := range specs {
		res, err := experiment.Run(ctx, r.spec, r.dir(), experiment.Options{DataDir: r.dataDir, Workers: r.workers,
			Progress: runProgressTo(prof.progressWriter(stderr), isTerminal(stderr)), Version: version(), CheckpointEvery: *ckptEvery})
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w: checkpoint in %s; run the same command again to resume", errInterrupted, r.dir())
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
	if *asJSON {
		if len(results) == 1 {
			return printJSON(stdout, results[0])
		}
		return printJSON(stdout, results)
	}
	for _, res := range results {
		printResult(stdout, res)
	}
	return nil
}

func printResult(w io.Writer, r *experiment.Result) {
	f := r.Final
	note := ""
	if r.Skipped {
		note = " (finished earlier; delete the directory or change -out to train again)"
	}
	fmt.Fprintf(w, "%s: %s on %s, seed %d, %d epochs%s\n", r.Dir, r.Spec.Engine.Method, r.Spec.Data, r.Spec.Engine.Seed, f.Epoch, note)
	if !math.IsNaN(f.NLL) {
		fmt.Fprintf(w, "  NLL %.4f nats (log Z %.4f", f.NLL, f.LogZ)
		if f.LogZLo != f.LogZHi {
			fmt.Fprintf(w, ", ±3σ %.4f…%.4f", f.LogZLo, f.LogZHi)
		}
		fmt.Fprintln(w, ")")
	}
	if !math.IsNaN(f.TestAcc) || !math.IsNaN(f.TrainAcc) {
		fmt.Fprintf(w, "  accuracy: train %.4f, test %.4f\n", f.TrainAcc, f.TestAcc)
	}
	fmt.Fprintf(w, "  density %.4f (start %.4f), hidden degree min/mean/max %d/%.1f/%d, %.1f s\n",
		f.Density, r.InitDensity, f.DegreeMin, f.DegreeMean, f.DegreeMax, r.TotalSeconds)
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
