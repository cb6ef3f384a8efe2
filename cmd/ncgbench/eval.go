package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/kernel"
)

func init() {
	commands["eval"] = command{"log Z, NLL (exact or AIS) and accuracy of a saved model on a data set", runEval}
}

// evalFlags are eval's flags.
type evalFlags struct {
	model       string
	given       experiment.Settings // the run settings eval takes, as given
	set         map[string]bool     // the flags given
	dataDir     *string
	aisBase     string
	setName     string
	raiseRows   int
	raiseChains int
	checks      eval.CheckMode
	bdmcRows    int
	workers     int
	asJSON      bool
	prof        profiling
}

func parseEvalFlags(args []string, stderr io.Writer) (*evalFlags, error) {
	f := &evalFlags{given: experiment.Settings{}, set: map[string]bool{}}
	fs := newFlags("eval", stderr)
	fs.StringVar(&f.model, "model", "", "model: a run `directory` (model.npz, else checkpoint), an .npz from ExportNPZ, or a MATLAB .mat")
	// The data, likelihood and AIS settings of a run, as train's flags;
	// the data ones default to the run's.
	registerSettings(fs, f.given, false, func(st experiment.Setting) bool { return st.Eval })
	for _, name := range []string{"data", "test-data", "format", "data-seed", "real"} {
		st, _ := experiment.Lookup(name)
		fs.Lookup(name).Usage = usageWith(st, false, "the run's")
	}
	fs.Lookup("classify").Usage = "accuracy by the paper's rule and by free energy (the model's last L visible units are labels; default: when it has label units)"
	f.dataDir = dataDirFlag(fs)
	fs.StringVar(&f.aisBase, "ais-base", "rate", "AIS (and RAISE) base model: rate (visible biases from the training data's marginals) or uniform (all biases zero, as the paper's authors ran it; valid but far noisier on MNIST)")
	fs.StringVar(&f.setName, "set", "", "rows to measure: test or train (default: test, or train when the data has no test set)")
	fs.IntVar(&f.raiseRows, "raise", 0, "also estimate the NLL from above by reverse AIS (RAISE) on this many evenly spaced rows (0: off); uses -ais-betas and -ais-seed")
	fs.IntVar(&f.raiseChains, "raise-chains", 1, "RAISE chains per row")
	checks := fs.String("checks", "auto", "checks of an AIS estimate by other routes and the exact log Z, and their verdict: auto (where they cost at most the AIS), on or off")
	fs.IntVar(&f.bdmcRows, "bdmc", 0, "also bidirectional Monte Carlo (BDMC) on this many rows drawn exactly from the model, for a model small enough for exact log Z (0: off)")
	workersFlag(fs, &f.workers, "goroutines (default GOMAXPROCS); never changes results")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object on stdout")
	f.prof.register(fs)
	if err := parseFlagsHelp(fs, args, stderr, "ncgbench eval -model PATH [-data NAME] [flags]"); err != nil {
		return nil, err
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	switch {
	case f.model == "":
		return nil, usagef("-model is required")
	case f.raiseRows < 0 || f.raiseChains < 1:
		return nil, usagef("-raise must be at least 0 and -raise-chains at least 1")
	case f.bdmcRows < 0:
		return nil, usagef("-bdmc must be at least 0")
	case f.aisBase != "rate" && f.aisBase != "uniform":
		return nil, usagef("-ais-base %q is not one of rate, uniform", f.aisBase)
	case f.setName != "" && f.setName != "test" && f.setName != "train":
		return nil, usagef("-set %q is not one of test, train", f.setName)
	}
	f.checks = eval.CheckMode(*checks)
	if *checks == "auto" {
		f.checks = eval.CheckAuto
	}
	if err := f.checks.Check(); err != nil || *checks == "" {
		return nil, usagef("-checks %q is not one of auto, on, off", *checks)
	}
	return f, experiment.CheckWorkers(f.workers)
}

// evalSpec is the evaluation's settings: the defaults, the data of the
// model's run (if any), and the flags given.
func (f *evalFlags) evalSpec(at experiment.ModelAt) (experiment.Spec, error) {
	var spec experiment.Spec
	for _, st := range experiment.Table() { // the AIS runs and schedule: the table's defaults
		if st.Eval && st.Required {
			if err := spec.Set(st.Name, st.Default); err != nil {
				return spec, err
			}
		}
	}
	for name, v := range f.given {
		if err := spec.Set(name, v); err != nil {
			return spec, usageError{err}
		}
	}
	if err := spec.Likelihood.Check(); err != nil {
		return spec, usageError{err}
	}
	if spec.AISRuns < 1 || spec.AISIntervals < 1 {
		return spec, usagef("-ais-runs and -ais-betas must be at least 1")
	}
	if spec.AISMaxIntervals != 0 && spec.AISMaxIntervals < 2*spec.AISIntervals {
		return spec, usagef("-ais-max-betas %d: the schedule grows by doubling its %d intervals; give at least %d", spec.AISMaxIntervals, spec.AISIntervals, 2*spec.AISIntervals)
	}
	// Flags that would be ignored with the likelihood asked for; once the
	// model is read, again with the one -likelihood auto chooses.
	if err := ignoredEvalFlags(f.set, spec.Likelihood, string(spec.Likelihood), f.raiseRows); spec.Likelihood != eval.LikelihoodAuto && err != nil {
		return spec, err
	}
	rs, ok, err := at.Spec()
	if err != nil {
		return spec, err
	}
	if ok {
		if !f.set["data"] {
			spec.Data, spec.TestData, spec.Format = rs.Data, rs.TestData, rs.Format
		}
		if !f.set["data-seed"] {
			spec.DataSeed = rs.DataSeed
		}
		if err := sameScaling(spec.Real, rs.Real, f.set["real"], at.Run); err != nil {
			return spec, err
		}
		spec.Real = rs.Real
	}
	if spec.Data == "" {
		return spec, usagef("-data is required for a model file without a run's config.json beside it")
	}
	return spec, nil
}

// sameScaling refuses, as bad usage, a -real given (given) that is not the
// scaling the run in dir was trained with: a model of standardised data
// measures standardised data, and grey levels in [0, 1], binary pixels or
// values as read give a meaningless NLL (millions of nats).
func sameScaling(asked, run data.RealMode, given bool, dir experiment.RunDir) error {
	if !given {
		return nil
	}
	a, err := experiment.Spec{Real: asked}.RealMode()
	if err != nil {
		return usageError{err}
	}
	if r, err := (experiment.Spec{Real: run}).RealMode(); err != nil || a == r {
		return err
	}
	name := func(m data.RealMode) string {
		if m == data.RealNone {
			return "no -real"
		}
		return "-real " + string(m)
	}
	return usagef("-real %s: the run in %s was trained with %s, and its model measures data scaled as it was trained: leave -real out",
		asked, dir, name(run))
}

// load reads the model at at: a run's (its model.npz, else its
// checkpoint's, resumed on the training data), a model file, or a MATLAB
// .mat file.
func (f *evalFlags) load(at experiment.ModelAt, train *data.Set) (*eval.Model, error) {
	ext := strings.ToLower(filepath.Ext(at.Path))
	switch {
	case at.Dir:
		rs, _, err := at.Spec()
		if err != nil {
			return nil, err
		}
		d, err := engine.FromSet(train, rs.Classify)
		if err != nil {
			return nil, err
		}
		m, err := at.Load(d, f.workers)
		if err != nil {
			return nil, err
		}
		return m.EvalModel(), nil
	case ext == ".npz":
		m, err := at.Load(nil, f.workers)
		if err != nil {
			return nil, err
		}
		return m.EvalModel(), nil
	case ext == ".mat":
		return eval.LoadMATModel(at.Path)
	}
	return nil, fmt.Errorf("%s: not a run directory, .npz or .mat model", at.Path)
}

func runEval(args []string, stdout, stderr io.Writer) error {
	f, err := parseEvalFlags(args, stderr)
	if err != nil {
		return err
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}
	at, err := experiment.LocateModel(f.model)
	if err != nil {
		return err
	}
	spec, err := f.evalSpec(at)
	if err != nil {
		return err
	}
	train, test, err := experiment.Load(spec, *f.dataDir)
	if err != nil {
		return err
	}
	if at.Run != "" {
		if err := at.Run.CheckData(spec, train, test); err != nil {
			return err
		}
	}
	if f.setName == "test" && test == nil {
		return usagef("-set test: data %s has no test set (give -test-data, or -set train for the training rows)", spec.Data)
	}
	if at.Stack {
		return f.evalStack(at, spec, train, test, stdout, stderr)
	}
	m, err := f.load(at, train)
	if err != nil {
		return err
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("%s: %w", f.model, err)
	}
	for _, set := range []*data.Set{train, test} {
		if set == nil {
			continue
		}
		if err := m.Visible.Accepts(set); err != nil {
			return usagef("-data %s: %v: %s has %s visible units", spec.Data, err, f.model, m.Visible.Name())
		}
	}
	L := m.X - train.D
	if L < 0 || (L > 0 && (train.Labels == nil || L != train.NumClasses)) {
		return fmt.Errorf("%s has %d visible units; data %s has %d units and %d classes (want %d, or %d with label units)",
			f.model, m.X, spec.Data, train.D, train.NumClasses, train.D, train.D+train.NumClasses)
	}
	for _, set := range []*data.Set{train, test} {
		if set == nil {
			continue
		}
		if err := m.CheckRows(set, L); err != nil { // a categorical model's groups
			return usagef("-data %s: %v (the model %s)", spec.Data, err, f.model)
		}
	}
	if spec.Classify && L == 0 {
		return fmt.Errorf("-classify: %s has no label units (%d visible units, as many as the data)", f.model, m.X)
	}
	plan, err := f.plan(spec, m, L)
	if err != nil {
		return err
	}
	measured := train.N
	if test != nil && f.setName != "train" {
		measured = test.N
	}
	var parts []experiment.MemoryPart
	for _, p := range plan.MemoryParts(m.Visible, m.X, m.H, measured) {
		parts = append(parts, experiment.MemoryPart(p))
	}
	if err := experiment.CheckMemory(fmt.Sprintf("the evaluation of a model of %d × %d units", m.X, m.H), parts); err != nil {
		return err
	}
	if warn, err := trainingTierWarning(at); err != nil {
		return err
	} else if warn != "" {
		fmt.Fprintf(stderr, "ncgbench eval: warning: %s\n", warn)
	}
	if progress := f.prof.progressWriter(stderr); progress != nil {
		plan.Progress = evalProgress(progress, isTerminal(stderr), plan, m.Visible.ExactLayer(m.X, m.H))
	}
	ctx, cancel := interruptible()
	defer cancel()
	start := time.Now()
	sets := eval.Sets{Train: train, Test: test}
	if f.setName == "train" {
		sets.Test = nil // Evaluate measures the training set
	}
	mt, err := eval.Evaluate(ctx, m, sets, plan)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	res := newEvalResult(f, spec, m, L, mt, sets, time.Since(start))
	if f.asJSON {
		return printJSON(stdout, res)
	}
	res.print(stdout, mt, plan.Accuracy != 0)
	return nil
}

// plan is the evaluation of m (with L label units) that spec and the
// flags ask for, refusing flags that would be ignored and an exact log Z
// past its limit.
func (f *evalFlags) plan(spec experiment.Spec, m *eval.Model, L int) (eval.Plan, error) {
	likelihood := &spec.Likelihood
	// Resolve compares the smaller of the two layers it is given with the
	// limit of the automatic choice; the unit type says which layer an
	// exact log Z sums over.
	units := m.Visible
	layer := units.ExactLayer(m.X, m.H)
	resolved := likelihood.Resolve(layer, layer, L)
	if resolved != *likelihood {
		how := fmt.Sprintf("%s (what no -likelihood chooses for %s, whose exact log Z would sum over 2^%d states)", resolved, f.model, layer)
		if err := ignoredEvalFlags(f.set, resolved, how, f.raiseRows); err != nil {
			return eval.Plan{}, err
		}
	}
	if resolved == eval.LikelihoodExact {
		if err := experiment.ExactLimit(units, m.X, m.H); err != nil {
			return eval.Plan{}, usagef("-likelihood exact: %v: give -likelihood ais", err)
		}
	}
	if resolved == eval.LikelihoodNone && (f.raiseRows > 0 || f.bdmcRows > 0) {
		return eval.Plan{}, usagef("-raise and -bdmc need a likelihood (not -likelihood none)")
	}
	if f.bdmcRows > 0 && layer > eval.MaxExactBits {
		return eval.Plan{}, usagef("-bdmc draws rows exactly from the model, by enumerating 2^%d states of %s; the limit is 2^%d", layer, f.model, eval.MaxExactBits)
	}
	plan := eval.Plan{Likelihood: spec.Likelihood, AISRuns: spec.AISRuns, AISIntervals: spec.AISIntervals, AISSeed: spec.AISSeed,
		RAISERows: f.raiseRows, RAISEChains: f.raiseChains, LabelUnits: L, Workers: f.workers, UniformBase: f.aisBase == "uniform",
		Checks: f.checks, GrowIntervals: spec.AISMaxIntervals, BDMCRows: f.bdmcRows}
	if spec.Classify || (L > 0 && !f.set["classify"]) {
		plan.Accuracy = eval.PaperRule | eval.FreeEnergyRule
	}
	return plan, nil
}

// trainingTierWarning returns a warning when the model at at (a run's)
// was trained on another kernel tier than the one that evaluates it (""
// when not, or outside a run).
func trainingTierWarning(at experiment.ModelAt) (string, error) {
	if at.Run == "" {
		return "", nil
	}
	meta, err := at.Run.Meta()
	if err != nil {
		return "", err
	}
	var other []string
	for _, t := range meta.Tiers() {
		if t != kernel.Tier() {
			other = append(other, t)
		}
	}
	if len(other) == 0 {
		return "", nil
	}
	return tierWarning(at.Path, other, kernel.Tier(), "is evaluated"), nil
}

// ignoredEvalFlags refuses the flags given (set) that the likelihood
// (described by how) would leave unused: AIS's without AIS, RAISE's
// without RAISE (which shares the schedule and seed of AIS).
func ignoredEvalFlags(set map[string]bool, likelihood eval.Likelihood, how string, raiseRows int) error {
	noAIS := likelihood == eval.LikelihoodExact || likelihood == eval.LikelihoodNone
	for _, f := range []struct {
		name, why string
		ignored   bool
	}{
		{"ais-runs", "applies to AIS, not to -likelihood " + how, noAIS},
		{"ais-betas", "applies to AIS and RAISE: neither runs with -likelihood " + how + " and no -raise", noAIS && raiseRows == 0},
		{"ais-seed", "applies to AIS and RAISE: neither runs with -likelihood " + how + " and no -raise", noAIS && raiseRows == 0},
		{"raise-chains", "applies to RAISE: give -raise N", raiseRows == 0},
		{"ais-base", "applies to AIS and RAISE: neither runs with -likelihood " + how + " and no -raise", noAIS && raiseRows == 0},
		{"ais-max-betas", "applies to AIS, not to -likelihood " + how, noAIS},
		{"checks", "applies to an AIS estimate, not to -likelihood " + how, noAIS},
	} {
		if f.ignored && set[f.name] {
			return usagef("-%s %s", f.name, f.why)
		}
	}
	return nil
}
