package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/experiment"
)

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
	// log-determinant of the scaling, Σ log scale; for data used as read
	// (no -real) the NLL itself. Null for a binary model.
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
	// A deep model's: its kind (dbn, dbm) and the units of every layer,
	// the visible layer first (X and H are its bottom RBM's); NLLBound
	// says nll is the rows' variational bound (with an exact log Z, an
	// upper bound on the NLL; with AIS's, an estimate of it).
	Kind     engine.StackKind `json:"kind,omitempty"`
	Sizes    []int            `json:"sizes,omitempty"`
	NLLBound bool             `json:"nll_bound,omitempty"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// newEvalResult is the result of the evaluation mt of m (with L label
// units) on sets, which took took.
func newEvalResult(f *evalFlags, spec experiment.Spec, m *eval.Model, L int, mt *eval.Metrics, sets eval.Sets, took time.Duration) evalResult {
	res := evalResult{Model: f.model, Data: spec.Data, Set: mt.Set, Rows: mt.Rows, X: m.X, H: m.H, LabelUnits: L, Likelihood: mt.Likelihood,
		LogZ: finite(mt.LogZ), LogZLo: finite(mt.LogZLo), LogZHi: finite(mt.LogZHi), NLL: finite(mt.NLL),
		Accuracy: finite(mt.Accuracy), AccuracyFreeEnergy: finite(mt.AccuracyFreeEnergy), Seconds: took.Seconds(), AISBase: f.aisBase,
		Checks: mt.Checks}
	if measured := sets.Test; m.Visible.Continuous() && res.NLL != nil {
		if measured == nil {
			measured = sets.Train
		}
		res.NLLInput = res.NLL // data used as read: their input scale
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
	return res
}

// print writes the result as lines of text.
func (res evalResult) print(stdout io.Writer, mt *eval.Metrics, classified bool) {
	if res.Kind != "" {
		fmt.Fprintf(stdout, "%s: %s of layers %s (visible first)\n", res.Model, res.Kind, layersText(res.Sizes))
	} else {
		fmt.Fprintf(stdout, "%s: X %d (%d label units), H %d\n", res.Model, res.X, res.LabelUnits, res.H)
	}
	fmt.Fprintf(stdout, "data %s, %s set: %d rows\n", res.Data, res.Set, res.Rows)
	switch res.Likelihood {
	case eval.LikelihoodExact:
		fmt.Fprintf(stdout, "log Z %.6f (exact)\n", mt.LogZ)
	case eval.LikelihoodAIS:
		fmt.Fprintf(stdout, "log Z %.4f (AIS, %d runs, %d intervals, seed %d, %s base; ±3σ %.4f…%.4f)\n", mt.LogZ, res.Runs, res.Intervals, res.Seed, res.AISBase, mt.LogZLo, mt.LogZHi)
	}
	if res.Likelihood != eval.LikelihoodNone {
		what := "NLL"
		switch {
		case res.LabelUnits > 0:
			what = "joint NLL (data and label units)"
		case res.NLLBound:
			what = "NLL ≤"
		}
		fmt.Fprintf(stdout, "%s %.6f nats", what, mt.NLL)
		switch {
		case res.NLLBound && res.Likelihood == eval.LikelihoodExact:
			fmt.Fprintf(stdout, " (%s)", boundName(res.Kind))
		case res.NLLBound:
			fmt.Fprintf(stdout, " (%s, an estimate of it with AIS's log Ẑ)", boundName(res.Kind))
		}
		fmt.Fprintln(stdout)
	}
	if res.NLLInput != nil && res.NLLInput != res.NLL {
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
	if classified {
		fmt.Fprintf(stdout, "accuracy %.4f (paper's rule), %.4f (free energy)\n", mt.Accuracy, mt.AccuracyFreeEnergy)
	}
	fmt.Fprintf(stdout, "%.1f s\n", res.Seconds)
}
