package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
)

// runFlags are the flags that define a run, shared by train and sweep.
// They fill spec; in a sweep (grid set) the list-valued flags fill the
// grid's axes instead.
type runFlags struct {
	spec    experiment.Spec
	grid    *experiment.Grid
	dataDir string
	workers int
	out     string
	set     map[string]bool // flags given explicitly
}

// listFlags are the flags that take comma lists in a sweep (-seed also
// ranges a-b).
var listFlags = []string{"method", "hidden", "p", "density", "v", "gamma", "lr-conn", "seed"}

func isListFlag(name string) bool {
	for _, a := range listFlags {
		if a == name {
			return true
		}
	}
	return false
}

func (r *runFlags) register(fs *flag.FlagSet) {
	d := engine.DefaultConfig()
	e := &r.spec.Engine
	*e = d
	g := r.grid
	ints := func(p *int, list *[]int, name string, usage string) {
		if r.grid == nil {
			fs.IntVar(p, name, *p, usage)
			return
		}
		fs.Var(&listValue[int]{list, fmt.Sprint(*p), eachItem(parseInt)}, name, usage)
	}
	floats := func(p *float64, list *[]float64, name string, usage string) {
		if r.grid == nil {
			fs.Float64Var(p, name, *p, usage)
			return
		}
		fs.Var(&listValue[float64]{list, experiment.FormatFloat(*p), eachItem(parseFloat)}, name, usage)
	}
	if r.grid == nil {
		g = &experiment.Grid{} // a lone run has no lists
		fs.Func("method", "connectivity method: dense, ncg, line, random, set (default ncg)", func(s string) error {
			e.Method = engine.Method(s)
			return nil
		})
		fs.Uint64Var(&e.Seed, "seed", d.Seed, "seed of the run (initialisation, order, chains)")
	} else {
		fs.Var(&listValue[engine.Method]{&g.Methods, "", eachItem(parseMethod)}, "method", "connectivity methods: dense, ncg, line, random, set (default ncg)")
		fs.Var(&listValue[uint64]{&g.Seeds, fmt.Sprint(d.Seed), experiment.ParseSeeds}, "seed", "seeds of the runs (initialisation, order, chains): a list of seeds and ranges a-b")
	}
	fs.StringVar(&r.spec.Data, "data", "", "data set: bas, mnist, mushrooms, connect-4, or a file path (none: the bars-and-stripes demo)")
	fs.StringVar(&r.spec.TestData, "test-data", "", "test set `file`, for a file -data")
	fs.StringVar(&r.spec.Format, "format", "", "format of a data file: idx, libsvm or split (default: detected)")
	fs.Uint64Var(&r.spec.DataSeed, "data-seed", 0, "seed of binarisation and data splits")
	fs.StringVar(&r.dataDir, "data-dir", "", "data directory (default $NCG_DATA, else the user cache directory)")
	floats(&e.P, &g.P, "p", "NCG: initial connection density p")
	ints(&e.LineWidth, &g.LineWidth, "v", "line: visible units per hidden unit")
	floats(&e.Density, &g.Density, "density", "random: connection density")
	fs.Float64Var(&e.Epsilon, "epsilon", d.Epsilon, "SET: ε (density ε(X+H)/(XH))")
	fs.Float64Var(&e.Zeta, "zeta", d.Zeta, "SET: fraction ζ rewired after every epoch but the last")
	fs.Func("set-procedure", fmt.Sprintf("SET: mocanu trains as the SET authors' code does (mean-field reconstructions, sampled statistics, biases decayed, N(0, σ²) regrowth, a last pruning without regrowth) with their settings where not given: -k %d -init normal -init-scale %v -l2 %v/lr (default: this engine's SET)", engine.MocanuK, engine.MocanuInitScale, engine.MocanuDecay), func(s string) error {
		if engine.SETProcedure(s) != engine.Mocanu {
			return fmt.Errorf("%q is not mocanu", s)
		}
		e.SETProcedure = engine.Mocanu
		return nil
	})
	ints(&e.Hidden, &g.Hidden, "hidden", "hidden units")
	fs.IntVar(&e.K, "k", d.K, "Gibbs steps of CD-k")
	fs.IntVar(&e.Batch, "batch", d.Batch, "minibatch size")
	fs.Float64Var(&e.LR, "lr", d.LR, "learning rate α of weights and biases")
	floats(&e.LRConn, &g.LRConn, "lr-conn", "NCG: learning rate α_A of the connection strength")
	floats(&e.Gamma, &g.Gamma, "gamma", "NCG: threshold γ on the connection strength")
	fs.IntVar(&e.Epochs, "epochs", d.Epochs, "epochs")
	fs.IntVar(&r.workers, "workers", 0, "goroutines per run (default GOMAXPROCS); never changes results")
	fs.Var(initValue{&e.Init}, "init", "`name` of the weight initialisation: uniform, normal, zero")
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

// dataDefaultsHelp rewrites the help of the per-data-set flags of fs to
// point at a table, and returns that table: the default of each such flag
// for each named data set and for a data file (experiment.DefaultsFor and
// experiment.FileDefaults), so that -h says what a run will use.
func dataDefaultsHelp(fs *flag.FlagSet) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "  data set")
	for _, k := range experiment.DataSettings() {
		fmt.Fprintf(tw, "\t-%s", k)
	}
	fmt.Fprintln(tw)
	row := func(name string, d experiment.DataDefaults) {
		fmt.Fprintf(tw, "  %s", name)
		for _, k := range experiment.DataSettings() {
			fmt.Fprintf(tw, "\t%s", d.Value(k))
		}
		fmt.Fprintln(tw)
	}
	for _, set := range experiment.DataSets() {
		d, _ := experiment.DefaultsFor(set)
		row(set, d)
	}
	row("a file", experiment.FileDefaults())
	tw.Flush()
	for _, k := range experiment.DataSettings() {
		f := fs.Lookup(string(k))
		f.Usage += " (default: per data set, see the table below)"
		f.DefValue = zeroString(f.Value)
	}
	return "\nDefaults per data set (the paper's settings, ours for bas; a flag given\noverrides them; no -data trains bas; -v applies to line runs):\n" + b.String()
}

// finish records the flags given, applies the data set's defaults to a
// lone run, and validates what can be validated without the data (a
// sweep's runs are validated as the grid expands).
func (r *runFlags) finish(fs *flag.FlagSet) error {
	r.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { r.set[f.Name] = true })
	defaults, named := experiment.DefaultsFor(r.spec.Data)
	if r.grid == nil && named {
		defaults.Apply(&r.spec, func(k experiment.Setting) bool { return r.set[string(k)] })
	}
	if err := r.finishTraining(); err != nil {
		return err
	}
	lr := r.spec.Engine.LR
	if r.grid != nil && named && !r.set["lr"] {
		lr = defaults.LR // a sweep's points get the data set's defaults later
	}
	r.setProcedureDefaults(lr)
	if r.grid == nil {
		if err := r.spec.Validate(); err != nil {
			return usageError{flagErr(err)}
		}
	} else {
		r.grid.Base = r.spec
		r.grid.Given = map[experiment.Setting]bool{}
		for name := range r.set {
			if !isListFlag(name) {
				r.grid.Given[experiment.Setting(name)] = true
			}
		}
	}
	if r.workers < 0 {
		return usagef("-workers %d is negative", r.workers)
	}
	if r.spec.AISRuns < 1 || r.spec.AISIntervals < 1 {
		return usagef("-ais-runs and -ais-betas must be at least 1")
	}
	if named {
		for _, f := range []string{"format", "test-data"} {
			if r.set[f] {
				return usagef("-%s applies to a data file, not to the named data set %s", f, r.spec.Data)
			}
		}
	}
	if r.spec.Likelihood == eval.LikelihoodExact || r.spec.Likelihood == eval.LikelihoodNone {
		for _, f := range []string{"ais-runs", "ais-betas", "ais-seed"} {
			if r.set[f] {
				return usagef("-%s applies to AIS, not to -likelihood %s", f, r.spec.Likelihood)
			}
		}
	}
	return nil
}

// setProcedureDefaults gives a run of the SET authors' procedure their
// settings where the flags do not; lr is the run's learning rate.
func (r *runFlags) setProcedureDefaults(lr float64) {
	e := &r.spec.Engine
	if e.SETProcedure != engine.Mocanu {
		return
	}
	if !r.set["k"] {
		e.K = engine.MocanuK
	}
	if !r.set["init"] {
		e.Init = engine.Normal
	}
	if !r.set["init-scale"] {
		e.InitScale = engine.MocanuInitScale
	}
	if !r.set["l2"] && lr > 0 {
		e.L2 = engine.MocanuDecay / lr
	}
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

// inapplicable returns a usage error for a flag given (in r.set) that
// matters to none of the runs' methods.
func (r *runFlags) inapplicable(methods []engine.Method) error {
	names := make([]string, 0, len(r.set))
	for f := range r.set {
		names = append(names, f)
	}
	sort.Strings(names)
	for _, f := range names {
		only, ok := experiment.MethodOf(experiment.Setting(f))
		if ok && !slices.Contains(methods, only) {
			return usagef("-%s applies to -method %s only, not to %s", f, only, joinMethods(methods))
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
