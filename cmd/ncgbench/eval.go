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

	"github.com/sbinet/npyio/npz"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/kernel"
)

func init() {
	commands["eval"] = command{"log Z, NLL (exact or AIS) and accuracy of a saved model on a data set", runEval}
}

// evalResult is what eval prints (-json: one object). Metrics not measured
// are null.
type evalResult struct {
	Model         string   `json:"model"`
	Data          string   `json:"data"`
	Set           string   `json:"set"` // the rows measured: test, or train when there is no test set
	Rows          int      `json:"rows"`
	X             int      `json:"x"`
	H             int      `json:"h"`
	LabelUnits    int      `json:"label_units"`
	Likelihood    string   `json:"likelihood"` // exact, ais or none
	LogZ          *float64 `json:"log_z"`
	LogZLo        *float64 `json:"log_z_lo"`
	LogZHi        *float64 `json:"log_z_hi"`
	NLL           *float64 `json:"nll"`
	Accuracy      *float64 `json:"accuracy"`       // the paper's rule
	AccuracyExact *float64 `json:"accuracy_exact"` // argmin of the free energy
	Seconds       float64  `json:"seconds"`
	Seed          uint64   `json:"seed"`
	Runs          int      `json:"runs"`
	Intervals     int      `json:"intervals"`
	// RAISE (-raise N): the NLL of N evenly spaced rows estimated from
	// above in expectation, with its standard error over those rows.
	RaiseNLL    *float64 `json:"raise_nll"`
	RaiseSE     *float64 `json:"raise_se"`
	RaiseRows   int      `json:"raise_rows"`
	RaiseChains int      `json:"raise_chains"`
	// On the same rows: the NLL from log Z (AIS or exact), and the mean
	// RAISE − that NLL with its standard error (paired by row).
	RaiseRowsNLL *float64 `json:"raise_rows_nll"`
	RaiseGap     *float64 `json:"raise_gap"`
	RaiseGapSE   *float64 `json:"raise_gap_se"`
}

// meanSE returns the mean of v and its standard error.
func meanSE(v []float64) (mean, se float64) {
	for _, x := range v {
		mean += x / float64(len(v))
	}
	if len(v) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1) / float64(len(v)))
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", stderr)
	var spec experiment.Spec
	modelPath := fs.String("model", "", "model: a run `directory` (model.npz, else checkpoint), an .npz from ExportNPZ, or a MATLAB .mat")
	fs.StringVar(&spec.Data, "data", "", "data set: bas, mnist, mushrooms, connect-4, or a file path (default: the run's)")
	fs.StringVar(&spec.TestData, "test-data", "", "test set `file`, for a file -data")
	fs.StringVar(&spec.Format, "format", "", "format of a data file: idx, libsvm or split (default: detected)")
	fs.Uint64Var(&spec.DataSeed, "data-seed", 0, "seed of binarisation and data splits (default: the run's)")
	dataDir := fs.String("data-dir", "", "data directory (default $NCG_DATA, else the user cache directory)")
	likelihood := fs.String("likelihood", "", "exact, ais or none (default: exact when the smaller layer has ≤ 20 units, else AIS; none for a classifier)")
	fs.BoolFunc("exact", "same as -likelihood exact", func(string) error { *likelihood = "exact"; return nil })
	fs.BoolFunc("ais", "same as -likelihood ais", func(string) error { *likelihood = "ais"; return nil })
	aisRuns := fs.Int("ais-runs", 100, "AIS runs")
	aisBetas := fs.Int("ais-betas", 14500, "AIS intervals (14500: the paper's schedule; other values: uniform β)")
	aisSeed := fs.Uint64("ais-seed", 0, "seed of the AIS chains")
	raiseRows := fs.Int("raise", 0, "also estimate the NLL from above by reverse AIS (RAISE) on this many evenly spaced rows (0: off); uses -ais-betas and -ais-seed")
	raiseChains := fs.Int("raise-chains", 1, "RAISE chains per row")
	workers := fs.Int("workers", 0, "goroutines (default GOMAXPROCS); never changes results")
	classify := fs.Bool("classify", false, "accuracy by the paper's rule and by free energy (the model's last L visible units are labels)")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	var prof profiling
	prof.register(fs)
	if err := parseFlagsHelp(fs, args, stderr, "ncgbench eval -model PATH [-data NAME] [flags]"); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch {
	case *modelPath == "":
		return usagef("-model is required")
	case *aisRuns < 1 || *aisBetas < 1:
		return usagef("-ais-runs and -ais-betas must be at least 1")
	case *raiseRows < 0 || *raiseChains < 1:
		return usagef("-raise must be at least 0 and -raise-chains at least 1")
	case *workers < 0:
		return usagef("-workers %d is negative", *workers)
	}
	switch *likelihood {
	case "", "exact", "ais", "none":
	default:
		return usagef("-likelihood %q is not one of exact, ais, none", *likelihood)
	}
	// Flags that would be ignored: AIS's without AIS, RAISE's without RAISE
	// (which shares the schedule and seed of AIS).
	noAIS := *likelihood == "exact" || *likelihood == "none"
	for _, f := range []struct {
		name, why string
		ignored   bool
	}{
		{"ais-runs", "applies to AIS, not to -likelihood " + *likelihood, noAIS},
		{"ais-betas", "applies to AIS and RAISE: neither runs with -likelihood " + *likelihood + " and no -raise", noAIS && *raiseRows == 0},
		{"ais-seed", "applies to AIS and RAISE: neither runs with -likelihood " + *likelihood + " and no -raise", noAIS && *raiseRows == 0},
		{"raise-chains", "applies to RAISE: give -raise N", *raiseRows == 0},
	} {
		if f.ignored && set[f.name] {
			return usagef("-%s %s", f.name, f.why)
		}
	}
	if err := kernel.Init(); err != nil {
		return usageError{err}
	}

	// The run's spec gives the data when the model is a run directory.
	st, err := os.Stat(*modelPath)
	if err != nil {
		return err
	}
	isRun := st.IsDir()
	runClassify := false
	if isRun {
		rs, err := experiment.ReadSpec(*modelPath)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("%s: not a run directory (no config.json)", *modelPath)
			}
			return err
		}
		runClassify = rs.Classify
		if !set["data"] {
			spec.Data, spec.TestData, spec.Format = rs.Data, rs.TestData, rs.Format
		}
		if !set["data-seed"] {
			spec.DataSeed = rs.DataSeed
		}
	}
	if spec.Data == "" {
		return usagef("-data is required for a model file")
	}
	progress := prof.progressWriter(stderr)
	say := func(format string, a ...any) {
		if progress != nil {
			fmt.Fprintf(progress, format, a...)
		}
	}
	train, test, err := experiment.Load(spec, *dataDir)
	if err != nil {
		return err
	}

	var m *eval.Model
	switch {
	case isRun:
		m, err = loadRunModel(*modelPath, train, runClassify, *workers)
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

	res := evalResult{Model: *modelPath, Data: spec.Data, X: m.X, H: m.H, LabelUnits: L, Likelihood: *likelihood}
	evalSet := test
	res.Set = "test"
	if test == nil {
		evalSet, res.Set = train, "train"
	}
	res.Rows = evalSet.N
	if res.Likelihood == "" {
		switch {
		case L > 0:
			res.Likelihood = "none"
		case min(m.X, m.H) <= experiment.ExactLimit:
			res.Likelihood = "exact"
		default:
			res.Likelihood = "ais"
		}
	}
	nan := math.NaN()
	logZ, lo, hi, nll, acc, accExact := nan, nan, nan, nan, nan, nan

	ctx, cancel := interruptible()
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- func() error {
			// With label units the likelihood is the joint one, of rows with
			// their one-hot labels.
			lTrain, lSet := train, evalSet
			if L > 0 && res.Likelihood != "none" {
				var err error
				if lTrain, err = train.WithOneHotLabels(); err != nil {
					return err
				}
				if lSet, err = evalSet.WithOneHotLabels(); err != nil {
					return err
				}
			}
			// AIS and RAISE share the base-rate model and the schedule.
			var base []float32
			var betas []float64
			if res.Likelihood == "ais" || *raiseRows > 0 {
				var err error
				if base, err = eval.DataBaseRate(lTrain.X, lTrain.N, lTrain.D); err != nil {
					return err
				}
				if *aisBetas != 14500 {
					betas = eval.UniformSchedule(*aisBetas)
				}
			}
			switch res.Likelihood {
			case "exact":
				say("exact log Z over 2^%d states…\n", min(m.X, m.H))
				z, err := eval.ExactLogZContext(ctx, m, *workers)
				if err != nil {
					return err
				}
				logZ, lo, hi = z, z, z
			case "ais":
				say("AIS: %d runs, %d intervals, seed %d…\n", *aisRuns, *aisBetas, *aisSeed)
				r, err := eval.AISContext(ctx, m, eval.AISConfig{Runs: *aisRuns, Betas: betas, Seed: *aisSeed, Workers: *workers, BaseBias: base})
				if err != nil {
					return err
				}
				logZ, lo, hi = r.LogZ, r.LogZLo, r.LogZHi
				res.Seed, res.Runs, res.Intervals = r.Seed, r.Runs, r.Intervals
			}
			if res.Likelihood != "none" {
				var err error
				if nll, err = eval.AverageNLL(m, logZ, lSet.X, lSet.N, *workers); err != nil {
					return err
				}
			}
			if *raiseRows > 0 {
				if res.Likelihood == "none" {
					return usagef("-raise needs a likelihood (not -likelihood none)")
				}
				k := min(*raiseRows, lSet.N)
				rows := make([]uint8, 0, k*lSet.D)
				for i := 0; i < k; i++ {
					j := i * lSet.N / k
					rows = append(rows, lSet.X[j*lSet.D:(j+1)*lSet.D]...)
				}
				say("RAISE: %d rows, %d chains each, %d intervals, seed %d…\n", k, *raiseChains, *aisBetas, *aisSeed)
				r, err := eval.RAISEContext(ctx, m, rows, k, eval.RAISEConfig{Chains: *raiseChains, Betas: betas, Seed: *aisSeed, Workers: *workers, BaseBias: base})
				if err != nil {
					return err
				}
				res.RaiseNLL, res.RaiseSE = finite(-r.MeanLogP), finite(r.SE)
				// The same rows' NLL from log Z, and the paired difference.
				fe, err := eval.FreeEnergies(m, rows, k, *workers)
				if err != nil {
					return err
				}
				gaps := make([]float64, k)
				var rowsNLL float64
				for i, f := range fe {
					rowsNLL += (f + logZ) / float64(k)
					gaps[i] = -r.LogP[i] - (f + logZ)
				}
				g, se := meanSE(gaps)
				res.RaiseRowsNLL, res.RaiseGap, res.RaiseGapSE = finite(rowsNLL), finite(g), finite(se)
				res.RaiseRows, res.RaiseChains = r.Rows, r.Chains
				if res.Intervals == 0 {
					res.Seed, res.Intervals = r.Seed, r.Intervals
				}
			}
			if doClassify {
				labels := make([]int, evalSet.N)
				for i, l := range evalSet.Labels {
					labels[i] = int(l)
				}
				c, err := eval.ClassifyPaper(m, evalSet.X, evalSet.N, L, labels, *workers)
				if err != nil {
					return err
				}
				acc = c.Accuracy
				if c, err = eval.ClassifyExact(m, evalSet.X, evalSet.N, L, labels, *workers); err != nil {
					return err
				}
				accExact = c.Accuracy
			}
			return nil
		}()
	}()
	select {
	case err := <-done:
		if err != nil {
			return err
		}
	case <-ctx.Done():
		return errInterrupted
	}
	res.Seconds = time.Since(start).Seconds()
	res.LogZ, res.LogZLo, res.LogZHi, res.NLL = finite(logZ), finite(lo), finite(hi), finite(nll)
	res.Accuracy, res.AccuracyExact = finite(acc), finite(accExact)
	if *asJSON {
		return printJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "%s: X %d (%d label units), H %d\n", res.Model, res.X, res.LabelUnits, res.H)
	fmt.Fprintf(stdout, "data %s, %s set: %d rows\n", res.Data, res.Set, res.Rows)
	switch res.Likelihood {
	case "exact":
		fmt.Fprintf(stdout, "log Z %.6f (exact)\n", logZ)
	case "ais":
		fmt.Fprintf(stdout, "log Z %.4f (AIS, %d runs, %d intervals, seed %d; ±3σ %.4f…%.4f)\n", logZ, res.Runs, res.Intervals, res.Seed, lo, hi)
	}
	if res.Likelihood != "none" {
		what := "NLL"
		if L > 0 {
			what = "joint NLL (data and label units)"
		}
		fmt.Fprintf(stdout, "%s %.6f nats\n", what, nll)
	}
	if res.RaiseNLL != nil {
		fmt.Fprintf(stdout, "RAISE NLL %.4f nats on %d evenly spaced rows (%d chains each, %d intervals, seed %d): an estimate from above, as AIS's is from below\n",
			*res.RaiseNLL, res.RaiseRows, res.RaiseChains, res.Intervals, res.Seed)
		if res.RaiseGap != nil {
			fmt.Fprintf(stdout, "  the same rows by log Z: NLL %.4f; RAISE − that = %.4f ± %.4f (standard error over rows)\n",
				*res.RaiseRowsNLL, *res.RaiseGap, *res.RaiseGapSE)
		}
	}
	if doClassify {
		fmt.Fprintf(stdout, "accuracy %.4f (paper's rule), %.4f (free energy)\n", acc, accExact)
	}
	fmt.Fprintf(stdout, "%.1f s\n", res.Seconds)
	return nil
}

// loadRunModel reads a run directory's model.npz, or its checkpoint when the
// run has not finished.
func loadRunModel(dir string, train *data.Set, classify bool, workers int) (*eval.Model, error) {
	p := filepath.Join(dir, "model.npz")
	if _, err := os.Stat(p); err == nil {
		return loadNPZModel(p)
	}
	ck := filepath.Join(dir, "checkpoint")
	if _, err := os.Stat(ck); err != nil {
		return nil, fmt.Errorf("%s: no model.npz or checkpoint", dir)
	}
	d, err := engine.FromSet(train, classify)
	if err != nil {
		return nil, err
	}
	tr, err := engine.Resume(ck, d, workers)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ck, err)
	}
	em := tr.Model()
	return &eval.Model{H: em.H, X: em.X, C: em.C(), B: em.HiddenBias, D: em.VisibleBias}, nil
}

// loadNPZModel reads what engine.Model.ExportNPZ writes: C (or W and A),
// H×X float64; b (H) and d (X) float32; shape [X, D, H].
func loadNPZModel(path string) (*eval.Model, error) {
	f, err := npz.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	defer f.Close()
	bad := func(err error) error { return fmt.Errorf("%s: %v", path, err) }
	var shape []int64
	if err := f.Read("shape", &shape); err != nil {
		return nil, bad(err)
	}
	if len(shape) != 3 || shape[0] < 1 || shape[2] < 1 || shape[0]*shape[2] > 1<<31 {
		return nil, fmt.Errorf("%s: shape %v is not [X, D, H]", path, shape)
	}
	X, H := int(shape[0]), int(shape[2])
	var c []float64
	if err := f.Read("C", &c); err != nil {
		var w, a []float64
		if err2 := f.Read("W", &w); err2 != nil {
			return nil, bad(err)
		}
		if err2 := f.Read("A", &a); err2 != nil || len(a) != len(w) {
			return nil, bad(err)
		}
		c = w
		for k := range c {
			c[k] *= a[k]
		}
	}
	m := &eval.Model{H: H, X: X, C: make([]float32, X*H)}
	if len(c) != X*H {
		return nil, fmt.Errorf("%s: C has %d values, want H×X = %d", path, len(c), X*H)
	}
	for i := 0; i < H; i++ { // paper orientation H×X → visible-major X×H
		for j := 0; j < X; j++ {
			m.C[j*H+i] = float32(c[i*X+j])
		}
	}
	if err := f.Read("b", &m.B); err != nil {
		return nil, bad(err)
	}
	if err := f.Read("d", &m.D); err != nil {
		return nil, bad(err)
	}
	if len(m.B) != H || len(m.D) != X {
		return nil, fmt.Errorf("%s: b has %d values and d %d, want H = %d and X = %d", path, len(m.B), len(m.D), H, X)
	}
	return m, nil
}
