package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ncg-rbm/ncg/experiment"
)

// fmtStat writes "mean ± sd" with prec decimals ("mean" alone for one
// value, "—" for none), the values multiplied by scale.
func fmtStat(s Stat, prec int, scale float64) string {
	switch {
	case s.N == 0:
		return "—"
	case s.N == 1 || math.IsNaN(s.SD):
		return strconv.FormatFloat(s.Mean*scale, 'f', prec, 64)
	}
	return strconv.FormatFloat(s.Mean*scale, 'f', prec, 64) + " ± " + strconv.FormatFloat(s.SD*scale, 'f', prec, 64)
}

func runsCell(g *Group) string {
	s := strconv.Itoa(g.Finished)
	if u := len(g.Runs) - g.Finished; u > 0 && g.Failed > 0 {
		s += fmt.Sprintf(" (+%d unfinished, %d of them stopped by NaN)", u, g.Failed)
	} else if u > 0 {
		s += fmt.Sprintf(" (+%d unfinished)", u)
	}
	if g.SoFar > 0 {
		s += fmt.Sprintf(", values at epoch %d", g.SoFar)
	}
	return s
}

// WriteMarkdown writes the table of groups in the layout of the paper's
// Table 1: one row per configuration, mean ± sample sd over the finished
// runs of the final NLL, test accuracy (%) and density (while no run of a
// row has finished, the values so far: see Group.SoFar). The NLL of a
// group of Gaussian visible units, a negative log density, is marked §;
// † counts the runs whose AIS had no lower bound, ‖ those whose checks'
// verdict fired.
func WriteMarkdown(w io.Writer, groups []Group) error {
	var b strings.Builder
	b.WriteString("| data | model | epochs | runs | NLL | test acc. % | density | initial density | time/epoch |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	unbounded, fired, mixed, density, bound := false, false, false, false, false
	for i := range groups {
		g := &groups[i]
		runs := runsCell(g)
		if len(g.Tiers) > 1 {
			runs += " ‡"
			mixed = true
		}
		spe := fmtSeconds(g.SecondsPerEpoch)
		nll := fmtStat(g.NLL, 2, 1)
		if g.Bound() && g.NLL.N > 0 {
			nll = "≤ " + nll
			bound = true
		}
		if g.AISUnbounded > 0 {
			nll += fmt.Sprintf(" † (%d of %d)", g.AISUnbounded, g.Finished)
			unbounded = true
		}
		if g.VerdictFired > 0 {
			nll += fmt.Sprintf(" ‖ (%d of %d)", g.VerdictFired, g.Finished)
			fired = true
		}
		if g.Continuous() && g.NLL.N > 0 {
			nll += " §"
			density = true
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n",
			mdEscape(g.DataLabel), mdEscape(g.Model), g.Epochs, runs,
			nll, fmtStat(g.TestAcc, 2, 100), fmtStat(g.Density, 3, 1), fmtStat(g.InitDensity, 3, 1), spe)
	}
	if unbounded {
		b.WriteString("\n† In these runs AIS gave no lower bound on log Ẑ (the mean of the importance weights is\n" +
			"within 3σ of zero): log Ẑ is probably too low and the NLL optimistic. Check with more\n" +
			"intervals or runs (`ncgbench eval -ais-betas N -ais-runs M`).\n")
	}
	if fired {
		b.WriteString("\n‖ In these runs the checks of the final AIS estimate contradicted it: the exact log Z lay\n" +
			"outside its ±3σ interval, or AIS along another route found mass well above it. The NLL is\n" +
			"too low by about the verdict's disagreement (result.json's checks). Evaluate with a longer\n" +
			"schedule (`ncgbench eval -ais-max-betas N`), or exactly where the model is small enough.\n")
	}
	if bound {
		b.WriteString("\n≤ Deep models (DBN, DBM): the NLL is the mean over rows of minus the variational lower\n" +
			"bound on log p(v), a DBM's mean-field bound or a DBN's bound through its top RBM: with the\n" +
			"exact log Z an upper bound on the NLL, with AIS's log Ẑ an estimate of that bound (CSV column\n" +
			"and JSON field `nll_bound`).\n")
	}
	if density {
		b.WriteString("\n§ Gaussian visible units: the NLL is a negative log density of the data as scaled\n" +
			"(the scaling beside the data set's name), in nats per example. It can be negative, and\n" +
			"it compares only with runs of the same data and scaling, not with a binary model's NLL.\n")
	}
	if mixed {
		b.WriteString("\n‡ These runs were trained on different kernel tiers (" + strings.Join(MixedTiers(groups), "; ") + "): tiers round\n" +
			"differently, so their spread includes the tiers' rounding besides the seeds'.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MixedTiers describes the groups whose runs were trained on more than one
// kernel tier: "NAME: avx2, avx512" each (none: every group is on one tier).
func MixedTiers(groups []Group) []string {
	var out []string
	for _, g := range groups {
		if len(g.Tiers) > 1 {
			out = append(out, g.Name+": "+strings.Join(g.Tiers, ", "))
		}
	}
	return out
}

// fmtSeconds writes a duration with 3 significant digits in s, ms or µs.
func fmtSeconds(s float64) string {
	switch {
	case math.IsNaN(s):
		return "—"
	case s >= 1:
		return strconv.FormatFloat(s, 'g', 3, 64) + " s"
	case s >= 1e-3:
		return strconv.FormatFloat(s*1e3, 'g', 3, 64) + " ms"
	}
	return strconv.FormatFloat(s*1e6, 'g', 3, 64) + " µs"
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// CSVColumns are the columns of WriteCSV. Empty cells mark values not
// measured (or an sd of a single run). visible is binary, categorical or gaussian (whose
// nll is a negative log density of the data scaled as real says: unit,
// standardise, or empty for values as read). nll_ais_unbounded and
// nll_verdict_fired count the finished runs whose final AIS had no lower
// bound, and whose checks' verdict fired. kind is rbm, dbn or dbm, and
// nll_bound true where nll is a deep model's bound (Group.Bound).
var CSVColumns = []string{"data", "model", "method", "epochs", "runs", "unfinished",
	"nll_mean", "nll_sd", "test_acc_mean", "test_acc_sd", "train_acc_mean", "train_acc_sd",
	"density_mean", "density_sd", "initial_density_mean", "initial_density_sd", "seconds_per_epoch",
	"nll_ais_unbounded", "values_at_epoch", "visible", "real", "nll_verdict_fired", "kind", "nll_bound"}

// visible is the group's visible units for CSV and JSON: binary,
// gaussian or categorical.
func (g *Group) visible() string { return g.Spec.Engine.Visible.Name() }

// kind is the group's model for CSV and JSON: rbm, dbn or dbm.
func (g *Group) kind() string {
	if g.Spec.IsDeep() {
		return string(g.Spec.Deep.Kind)
	}
	return string(experiment.RBM)
}

// method is the group's method for CSV and JSON: a deep model's one per
// weight matrix, comma-separated, where they differ.
func (g *Group) method() string {
	st, _ := experiment.Lookup("method")
	return st.Value(g.Spec)
}

// WriteCSV writes the table of groups as CSV (accuracies as fractions).
func WriteCSV(w io.Writer, groups []Group) error {
	cw := csv.NewWriter(w)
	cw.Write(CSVColumns)
	f := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 8, 64)
	}
	for i := range groups {
		g := &groups[i]
		row := []string{g.Data, g.Model, g.method(), strconv.Itoa(g.Epochs),
			strconv.Itoa(g.Finished), strconv.Itoa(len(g.Runs) - g.Finished)}
		for _, s := range []Stat{g.NLL, g.TestAcc, g.TrainAcc, g.Density, g.InitDensity} {
			row = append(row, f(s.Mean), f(s.SD))
		}
		soFar := ""
		if g.SoFar > 0 {
			soFar = strconv.Itoa(g.SoFar)
		}
		row = append(row, f(g.SecondsPerEpoch), strconv.Itoa(g.AISUnbounded), soFar, g.visible(), string(g.Spec.Real), strconv.Itoa(g.VerdictFired),
			g.kind(), strconv.FormatBool(g.Bound()))
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// TableRow is one group of the table as JSON.
type TableRow struct {
	Name            string   `json:"name"`
	Data            string   `json:"data"`
	Model           string   `json:"model"`
	Method          string   `json:"method"`
	Kind            string   `json:"kind"`      // rbm, dbn or dbm
	NLLBound        bool     `json:"nll_bound"` // nll is a deep model's bound (Group.Bound)
	Epochs          int      `json:"epochs"`
	Runs            int      `json:"runs"`
	Unfinished      int      `json:"unfinished"`
	Failed          int      `json:"failed"` // unfinished runs stopped by NaN
	NLL             Stat     `json:"nll"`
	TestAcc         Stat     `json:"test_acc"`
	TrainAcc        Stat     `json:"train_acc"`
	Density         Stat     `json:"density"`
	InitDensity     Stat     `json:"initial_density"`
	SecondsPerEpoch *float64 `json:"seconds_per_epoch"`
	AISUnbounded    int      `json:"nll_ais_unbounded"`         // runs whose AIS had no lower bound
	VerdictFired    int      `json:"nll_verdict_fired"`         // runs whose AIS estimate its checks contradicted
	ValuesAtEpoch   int      `json:"values_at_epoch,omitempty"` // no run finished: the values at this epoch
	Visible         string   `json:"visible"`                   // binary, categorical, or gaussian: nll is a negative log density
	Real            string   `json:"real,omitempty"`            // the data's scaling: unit, standardise, or none
	Dirs            []string `json:"dirs"`
}

// Table returns the groups as rows for JSON.
func Table(groups []Group) []TableRow {
	out := make([]TableRow, 0, len(groups))
	for i := range groups {
		g := &groups[i]
		r := TableRow{Name: g.Name, Data: g.Data, Model: g.Model, Method: g.method(), Epochs: g.Epochs, Kind: g.kind(), NLLBound: g.Bound(),
			Runs: g.Finished, Unfinished: len(g.Runs) - g.Finished, Failed: g.Failed, NLL: g.NLL, TestAcc: g.TestAcc, TrainAcc: g.TrainAcc,
			Density: g.Density, InitDensity: g.InitDensity, SecondsPerEpoch: num(g.SecondsPerEpoch),
			AISUnbounded: g.AISUnbounded, VerdictFired: g.VerdictFired, ValuesAtEpoch: g.SoFar, Visible: g.visible(), Real: string(g.Spec.Real)}
		for _, run := range g.Runs {
			r.Dirs = append(r.Dirs, run.Dir)
		}
		out = append(out, r)
	}
	return out
}
