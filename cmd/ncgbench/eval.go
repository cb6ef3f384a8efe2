package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

func init() {
	commands["eval"] = command{"log Z, NLL (exact or AIS) and accuracy of a saved model on a data set", runEval}
}

// evalResult is what eval prints (-json: one object). Metrics not measured
// are null.
type evalResult struct {
	Model      string          `json:"model"`
	Data       string          `json:"data"`
	Set        string          `json:"set"` // the rows measured: test, or train when there is no test set
	Rows       int             `json:"rows"`
	X          int             `json:"x"`
	H          int             `json:"h"`
	LabelUnits int             `json:"label_units"`
	Likelihood eval.Likelihood `json:"likelihood"` // exact, ais or none
	LogZ       *float64        `json:"log_z"`
	LogZLo     *float64        `json:"log_z_lo"`
	LogZHi     *float64        `json:"log_z_hi"`
	NLL        *float64        `json:"nll"`
	// NLLInput is a Gaussian model's NLL as the density of the data in
	// their input scale (grey levels, the file's numbers): NLL plus the
	// log-determinant of the scaling, Σ log scale (null without one).
	NLLInput           *float64 `json:"nll_input"`
	Accuracy           *float64 `json:"accuracy"`             // the paper's rule
	AccuracyFreeEnergy *float64 `json:"accuracy_free_energy"` // argmin of the free energy
	Seconds            float64  `json:"seconds"`
	Seed               uint64   `json:"seed"`
	Runs               int      `json:"runs"`
	Intervals          int      `json:"intervals"`
	AISBase            string   `json:"ais_base"` // rate or uniform
	// RAISE (-raise N): the NLL of N evenly spaced rows by reverse AIS,
	// with its standard error over those rows: an estimate from above in
	// expectation for rows drawn from the model, of either sign of error
	// for data rows.
	RaiseNLL    *float64 `json:"raise_nll"`
	RaiseSE     *float64 `json:"raise_se"`
	RaiseRows   int      `json:"raise_rows"`
	RaiseChains int      `json:"raise_chains"`
	// On the same rows: the NLL from log Z (AIS or exact), and the mean
	// RAISE − that NLL with its standard error (paired by row).
	RaiseRowsNLL *float64 `json:"raise_rows_nll"`
	RaiseGap     *float64 `json:"raise_gap"`
	RaiseGapSE   *float64 `json:"raise_gap_se"`
	// Checks: the evidence with an AIS estimate and its verdict, and
	// BDMC's bounds (null: none ran).
	Checks *eval.Checks `json:"checks"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", stderr)
	modelPath := fs.String("model", "", "model: a run `directory` (model.npz, else checkpoint), an .npz from ExportNPZ, or a MATLAB .mat")
	// The data, likelihood and AIS settings of a run, as train's flags;
	// the data ones default to the run's.
	given := experiment.Settings{}
	registerSettings(fs, given, false, func(st experiment.Setting) bool { return st.Eval })
	for _, name := range []string{"data", "test-data", "format", "data-seed"} {
		st, _ := experiment.Lookup(name)
		fs.Lookup(name).Usage = usageWith(st, false, "the run's")
	}
	fs.Lookup("classify").Usage = "accuracy by the paper's rule and by free energy (the model's last L visible units are labels; default: when it has label units)"
	dataDir := dataDirFlag(fs)
	aisBase := fs.String("ais-base", "rate", "AIS (and RAISE) base model: rate (visible biases from the training data's marginals) or uniform (all biases zero, as the paper's authors ran it; valid but far noisier on MNIST)")
	setName := fs.String("set", "", "rows to measure: test or train (default: test, or train when the data has no test set)")
	raiseRows := fs.Int("raise", 0, "also estimate the NLL by reverse AIS (RAISE) on this many evenly spaced rows (0: off); uses -ais-betas and -ais-seed")
	raiseChains := fs.Int("raise-chains", 1, "RAISE chains per row")
	checks := fs.String("checks", "auto", "checks of an AIS estimate by other routes and the exact log Z, and their verdict: auto (where they cost at most the AIS), on or off")
	bdmcRows := fs.Int("bdmc", 0, "also bidirectional Monte Carlo (BDMC) on this many rows drawn exactly from the model, for a model small enough for exact log Z (0: off)")
	var workers int
	workersFlag(fs, &workers, "goroutines (default GOMAXPROCS); never changes results")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	var prof profiling
	prof.register(fs)
	if err := parseFlagsHelp(fs, args, stderr, "ncgbench eval -model PATH [-data NAME] [flags]"); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	// The evaluation's settings: the defaults, the run's data where the
	// model is a run directory, and the flags given.
	spec := experiment.Spec{AISRuns: eval.DefaultRuns, AISIntervals: eval.DefaultIntervals}
	for name, v := range given {
		if err := spec.Set(name, v); err != nil {
			return usageError{err}
		}
	}
	if err := spec.Likelihood.Check(); err != nil {
		return usageError{err}
	}
	likelihood, aisRuns, aisBetas, aisSeed, classify := &spec.Likelihood, &spec.AISRuns, &spec.AISIntervals, &spec.AISSeed, &spec.Classify
	switch {
	case *modelPath == "":
		return usagef("-model is required")
	case *aisRuns < 1 || *aisBetas < 1:
		return usagef("-ais-runs and -ais-betas must be at least 1")
	case *raiseRows < 0 || *raiseChains < 1:
		return usagef("-raise must be at least 0 and -raise-chains at least 1")
	case *bdmcRows < 0:
		return usagef("-bdmc must be at least 0")
	case spec.AISMaxIntervals != 0 && spec.AISMaxIntervals < 2**aisBetas:
		return usagef("-ais-max-betas %d: the schedule grows by doubling its %d intervals; give at least %d", spec.AISMaxIntervals, *aisBetas, 2**aisBetas)
	}
	checkMode := eval.CheckMode(*checks)
	if *checks == "auto" {
		checkMode = eval.CheckAuto
	}
	if err := checkMode.Check(); err != nil || *checks == "" {
		return usagef("-checks %q is not one of auto, on, off", *checks)
	}
	if err := experiment.CheckWorkers(workers); err != nil {
		return err
	}
	// Flags that would be ignored with the likelihood asked for; once the
	// model is read, again with the one -likelihood auto chooses.
	if err := ignoredEvalFlags(set, *likelihood, string(*likelihood), *raiseRows); *likelihood != eval.LikelihoodAuto && err != nil {
		return err
	}
	if *aisBase != "rate" && *aisBase != "uniform" {
		return usagef("-ais-base %q is not one of rate, uniform", *aisBase)
	}
	if *setName != "" && *setName != "test" && *setName != "train" {
		return usagef("-set %q is not one of test, train", *setName)
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}

	// The run's spec gives the data when the model is a run directory.
	st, err := os.Stat(*modelPath)
	if errors.Is(err, os.ErrNotExist) {
		return usagef("-model %s: no such file or directory", *modelPath)
	}
	if err != nil {
		return err
	}
	isRun := st.IsDir()
	runClassify := false
	runDir := *modelPath // the run whose data is the default: the directory, or the model file's
	if !isRun {
		runDir = filepath.Dir(*modelPath)
	}
	if rs, err := experiment.RunDir(runDir).Spec(); err != nil && (isRun || !errors.Is(err, os.ErrNotExist)) {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: not a run directory (no config.json)", *modelPath)
		}
		return err
	} else if err == nil {
		runClassify = rs.Classify
		if !set["data"] {
			spec.Data, spec.TestData, spec.Format = rs.Data, rs.TestData, rs.Format
		}
		if !set["data-seed"] {
			spec.DataSeed = rs.DataSeed
		}
		if !set["real"] {
			spec.Real = rs.Real
		}
	}
	if spec.Data == "" {
		return usagef("-data is required for a model file without a run's config.json beside it")
	}
	progress := prof.progressWriter(stderr)
	train, test, err := experiment.Load(spec, *dataDir)
	if err != nil {
		return err
	}

	var m *eval.Model
	switch {
	case isRun:
		m, err = loadRunModel(*modelPath, train, runClassify, workers)
	case strings.EqualFold(filepath.Ext(*modelPath), ".npz"):
		m, err = loadNPZModel(*modelPath)
	case strings.EqualFold(filepath.Ext(*modelPath), ".mat"):
		m, err = eval.LoadMATModel(*modelPath)
	default:
		return fmt.Errorf("%s: not a run directory, .npz or .mat model", *modelPath)
	}
	if err != nil {
		return err
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("%s: %w", *modelPath, err)
	}
	L := m.X - train.D
	if L < 0 || (L > 0 && (train.Labels == nil || L != train.NumClasses)) {
		return fmt.Errorf("%s has %d visible units; data %s has %d units and %d classes (want %d, or %d with label units)",
			*modelPath, m.X, spec.Data, train.D, train.NumClasses, train.D, train.D+train.NumClasses)
	}
	if *classify && L == 0 {
		return fmt.Errorf("-classify: %s has no label units (%d visible units, as many as the data)", *modelPath, m.X)
	}
	doClassify := *classify || (L > 0 && !set["classify"])

	if resolved := likelihood.Resolve(m.X, m.H, L); resolved != *likelihood {
		how := fmt.Sprintf("%s (what no -likelihood chooses for %s, whose smaller layer has %d units)", resolved, *modelPath, min(m.X, m.H))
		if err := ignoredEvalFlags(set, resolved, how, *raiseRows); err != nil {
			return err
		}
	}
	if warn, err := trainingTierWarning(*modelPath, isRun); err != nil {
		return err
	} else if warn != "" {
		fmt.Fprintf(stderr, "ncgbench eval: warning: %s\n", warn)
	}
	plan := eval.Plan{Likelihood: *likelihood, AISRuns: *aisRuns, AISIntervals: *aisBetas, AISSeed: *aisSeed,
		RAISERows: *raiseRows, RAISEChains: *raiseChains, LabelUnits: L, Workers: workers, UniformBase: *aisBase == "uniform",
		Checks: checkMode, GrowIntervals: spec.AISMaxIntervals, BDMCRows: *bdmcRows}
	if doClassify {
		plan.Accuracy = eval.PaperRule | eval.FreeEnergyRule
	}
	if plan.Likelihood.Resolve(m.X, m.H, L) == eval.LikelihoodNone && (*raiseRows > 0 || *bdmcRows > 0) {
		return usagef("-raise and -bdmc need a likelihood (not -likelihood none)")
	}
	if n := m.Visible.ExactLayer(m.X, m.H); *bdmcRows > 0 && n > eval.MaxExactBits {
		return usagef("-bdmc draws rows exactly from the model, by enumerating 2^%d states of %s; the limit is 2^%d", n, *modelPath, eval.MaxExactBits)
	}
	measured := train.N
	if test != nil && *setName != "train" {
		measured = test.N
	}
	var parts []experiment.MemoryPart
	for _, p := range plan.MemoryParts(m.X, m.H, measured) {
		parts = append(parts, experiment.MemoryPart(p))
	}
	if err := experiment.CheckMemory(fmt.Sprintf("the evaluation of a model of %d × %d units", m.X, m.H), parts); err != nil {
		return err
	}
	if progress != nil {
		plan.Progress = evalProgress(progress, isTerminal(stderr), plan, min(m.X, m.H))
	}
	ctx, cancel := interruptible()
	defer cancel()
	start := time.Now()
	sets := eval.Sets{Train: train, Test: test}
	if *setName == "train" {
		sets.Test = nil // Evaluate measures the training set
	}
	mt, err := eval.Evaluate(ctx, m, sets, plan)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	res := evalResult{Model: *modelPath, Data: spec.Data, Set: mt.Set, Rows: mt.Rows, X: m.X, H: m.H, LabelUnits: L, Likelihood: mt.Likelihood,
		LogZ: finite(mt.LogZ), LogZLo: finite(mt.LogZLo), LogZHi: finite(mt.LogZHi), NLL: finite(mt.NLL),
		Accuracy: finite(mt.Accuracy), AccuracyFreeEnergy: finite(mt.AccuracyFreeEnergy), Seconds: time.Since(start).Seconds(), AISBase: *aisBase,
		Checks: mt.Checks}
	if measured := sets.Test; m.Visible == unit.Gaussian && res.NLL != nil {
		if measured == nil {
			measured = train
		}
		if sc := measured.Scaling; sc != nil {
			res.NLLInput = finite(mt.NLL + sc.LogScale())
		}
	}
	if r := mt.AIS; r != nil {
		res.Seed, res.Runs, res.Intervals = r.Seed, r.Runs, r.Intervals
	}
	if r := mt.RAISE; r != nil {
		res.RaiseNLL, res.RaiseSE = finite(-r.MeanLogP), finite(r.SE)
		res.RaiseRowsNLL, res.RaiseGap, res.RaiseGapSE = finite(r.RowsNLL), finite(r.Gap), finite(r.GapSE)
		res.RaiseRows, res.RaiseChains = r.Rows, r.Chains
		if res.Intervals == 0 {
			res.Seed, res.Intervals = r.Seed, r.Intervals
		}
	}
	if *asJSON {
		return printJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "%s: X %d (%d label units), H %d\n", res.Model, res.X, res.LabelUnits, res.H)
	fmt.Fprintf(stdout, "data %s, %s set: %d rows\n", res.Data, res.Set, res.Rows)
	switch res.Likelihood {
	case eval.LikelihoodExact:
		fmt.Fprintf(stdout, "log Z %.6f (exact)\n", mt.LogZ)
	case eval.LikelihoodAIS:
		fmt.Fprintf(stdout, "log Z %.4f (AIS, %d runs, %d intervals, seed %d, %s base; ±3σ %.4f…%.4f)\n", mt.LogZ, res.Runs, res.Intervals, res.Seed, *aisBase, mt.LogZLo, mt.LogZHi)
	}
	if res.Likelihood != eval.LikelihoodNone {
		what := "NLL"
		if L > 0 {
			what = "joint NLL (data and label units)"
		}
		fmt.Fprintf(stdout, "%s %.6f nats\n", what, mt.NLL)
	}
	if res.NLLInput != nil {
		fmt.Fprintf(stdout, "NLL %.6f nats as the density of the data in their input scale (the scaled data's NLL + Σ log scale)\n", *res.NLLInput)
	}
	printChecks(stdout, "  ", mt.Checks)
	if res.RaiseNLL != nil {
		fmt.Fprintf(stdout, "RAISE NLL %.4f nats on %d evenly spaced rows (%d chains each, %d intervals, seed %d): from above in expectation only for rows drawn from the model (-bdmc)\n",
			*res.RaiseNLL, res.RaiseRows, res.RaiseChains, res.Intervals, res.Seed)
		if res.RaiseGap != nil {
			fmt.Fprintf(stdout, "  the same rows by log Z: NLL %.4f; RAISE − that = %.4f ± %.4f (standard error over rows)\n",
				*res.RaiseRowsNLL, *res.RaiseGap, *res.RaiseGapSE)
		}
	}
	if doClassify {
		fmt.Fprintf(stdout, "accuracy %.4f (paper's rule), %.4f (free energy)\n", mt.Accuracy, mt.AccuracyFreeEnergy)
	}
	fmt.Fprintf(stdout, "%.1f s\n", res.Seconds)
	return nil
}

// loadRunModel reads a run directory's model.npz, or its checkpoint when the
// run has not finished.
func loadRunModel(dir string, train *data.Set, classify bool, workers int) (*eval.Model, error) {
	d, err := engine.FromSet(train, classify)
	if err != nil {
		return nil, err
	}
	m, err := experiment.RunDir(dir).TrainedModel(d, workers)
	if err != nil {
		return nil, err
	}
	return m.EvalModel(), nil
}

// loadNPZModel reads a model file of engine.Model.ExportNPZ's layout. When
// its directory holds a run's config.json, the model must have that run's
// shape (hidden units, label units, NCG's connection strengths): a
// model.npz copied into another run's directory is refused. (The data
// units are checked against the data measured, by the caller.)
func loadNPZModel(path string) (*eval.Model, error) {
	m, err := readNPZ(path)
	if err != nil {
		return nil, err
	}
	rd := experiment.RunDir(filepath.Dir(path))
	rs, err := rd.Spec()
	if errors.Is(err, os.ErrNotExist) {
		return m.EvalModel(), nil
	}
	if err != nil {
		return nil, err
	}
	var diffs []string
	if m.H != rs.Engine.Hidden {
		diffs = append(diffs, fmt.Sprintf("%d hidden units, the run %d", m.H, rs.Engine.Hidden))
	}
	if labels := m.X - m.DataUnits; (labels > 0) != rs.Classify {
		diffs = append(diffs, fmt.Sprintf("%d label units, the run classify = %v", labels, rs.Classify))
	}
	if ncg := rs.Engine.Method == engine.NCG; (m.AP != nil) != ncg {
		diffs = append(diffs, fmt.Sprintf("connection strengths A′: %v, the run's method %s", m.AP != nil, rs.Engine.Method))
	}
	if len(diffs) > 0 {
		return nil, fmt.Errorf("%s is not the model of the run in %s (the model has %s); evaluate a copy outside run directories with -data, or the run's own model",
			path, rd, strings.Join(diffs, "; "))
	}
	return m.EvalModel(), nil
}

// trainingTierWarning returns a warning when the model at path (a run
// directory, or a model file beside a run's config.json) was trained on
// another kernel tier than the one that evaluates it ("" when not, or when
// there is no config.json).
func trainingTierWarning(path string, isRun bool) (string, error) {
	dir := path
	if !isRun {
		dir = filepath.Dir(path)
	}
	meta, err := experiment.RunDir(dir).Meta()
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
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
	return tierWarning(path, other, kernel.Tier(), "is evaluated"), nil
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

// readNPZ reads a model file after checking that its declared shape fits
// in memory: a small file can declare matrices of many gigabytes.
func readNPZ(path string) (*engine.Model, error) {
	x, _, h, err := engine.NPZShape(path)
	if err != nil {
		return nil, err
	}
	if err := experiment.CheckMemory("reading "+path, []experiment.MemoryPart{
		{Setting: "hidden units of " + path, Value: h, Bytes: engine.NPZBytes(x, h), What: fmt.Sprintf("its %d × %d matrices", x, h)},
	}); err != nil {
		return nil, err
	}
	return engine.ReadNPZ(path)
}
