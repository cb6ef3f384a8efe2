package report

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/experiment"
	"github.com/ncg-rbm/ncg/unit"
)

// Stat is the mean and sample standard deviation of N values (NaN values
// are left out). SD is NaN for N < 2, Mean for N = 0.
type Stat struct {
	Mean, SD float64
	N        int
}

// NewStat summarises xs, skipping NaN.
func NewStat(xs []float64) Stat {
	s := Stat{Mean: math.NaN(), SD: math.NaN()}
	var sum float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			s.N++
		}
	}
	if s.N == 0 {
		return s
	}
	s.Mean = sum / float64(s.N)
	if s.N > 1 {
		var ss float64
		for _, x := range xs {
			if !math.IsNaN(x) {
				ss += (x - s.Mean) * (x - s.Mean)
			}
		}
		s.SD = math.Sqrt(ss / float64(s.N-1))
	}
	return s
}

// MarshalJSON writes {"mean", "sd", "n"} with null for NaN.
func (s Stat) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Mean *float64 `json:"mean"`
		SD   *float64 `json:"sd"`
		N    int      `json:"n"`
	}{num(s.Mean), num(s.SD), s.N})
}

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Group is the runs of one configuration: equal specs but for the seed,
// the worker count and the evaluation schedule, none of which changes what
// a run trains.
type Group struct {
	Name string // DataLabel + " " + Model
	Data string // data set (base name of a file)
	// DataLabel is Data, and for Gaussian visible units the data's scaling
	// in brackets: "mnist (unit)", "x.csv (as read)". Tables show it, and
	// figures draw a panel per label: the NLL of a Gaussian run is a
	// density of data so scaled, not comparable with another scaling's or
	// with a binary run's.
	DataLabel string
	// Model is the method, "gaussian" and its σ for Gaussian visible units,
	// and the settings that tell groups apart.
	Model string
	Spec  experiment.Spec // the common spec: seed, workers and eval-every 0
	Runs  []Run

	Finished int // runs with result.json
	Failed   int // unfinished runs stopped by a NaN (failed.json)
	// Tiers are the kernel tiers its runs were trained on, sorted. More
	// than one: runs that differ only in the seed are not comparable bit
	// for bit (a sweep across machines), and the spread of the group's
	// metrics includes the tiers' rounding.
	Tiers []string
	// Final metrics over the finished runs.
	NLL, TestAcc, TrainAcc, Density, InitDensity Stat
	// AISUnbounded counts the finished runs whose final AIS estimate had no
	// lower bound (the weights' mean within 3σ of zero): their log Ẑ is
	// likely too low and their NLL optimistic.
	AISUnbounded int
	// VerdictFired counts the finished runs whose final AIS estimate the
	// checks contradicted (result.json's checks, eval.Verdict): an exact
	// value outside its interval, or another route's estimate well above
	// it. Their NLL is too low, by about the verdict's disagreement.
	VerdictFired int
	// SoFar is set when no run has finished but some have been evaluated:
	// the latest epoch at which every evaluated run has an evaluation. NLL,
	// TestAcc, TrainAcc and Density are then those runs' values at that
	// epoch (long runs, such as SET's 480 epochs, report as they go).
	SoFar           int
	Epochs          int     // epochs of the finished runs (the spec's TotalEpochs)
	SecondsPerEpoch float64 // mean training time of an epoch over all rows of all runs
}

// key is a group's identity: the spec without the seed, the worker count
// and the evaluation schedule. A run trains the same model whatever its
// workers and whenever it is evaluated (TestEvaluationLeavesTrainingAlone
// in experiment), so runs that differ only there are seeds of one
// configuration; their curves have points where each was evaluated.
func key(s experiment.Spec) experiment.Spec {
	s.Engine.Seed = 0
	s.Engine.Workers = 0
	s.EvalEvery = 0
	return s
}

// GroupRuns groups runs by configuration (see key) and names the groups.
// Groups come sorted by data label, model (RBMs, then DBNs, then DBMs),
// method (in engine.Methods' order) and name.
func GroupRuns(runs []Run) []Group {
	index := map[string]int{}
	var groups []Group
	for _, r := range runs {
		k := key(r.Spec)
		b, _ := json.Marshal(k)
		i, ok := index[string(b)]
		if !ok {
			i = len(groups)
			index[string(b)] = i
			groups = append(groups, Group{Spec: k})
		}
		groups[i].Runs = append(groups[i].Runs, r)
	}
	nameGroups(groups)
	for i := range groups {
		groups[i].summarise()
		groups[i].Tiers = groupTiers(groups[i].Runs)
	}
	order := map[engine.Method]int{}
	for i, m := range engine.Methods() {
		order[m] = i
	}
	kinds := map[string]int{}
	for i, k := range experiment.ModelKinds() {
		kinds[string(k)] = i
	}
	sort.SliceStable(groups, func(a, b int) bool {
		ga, gb := &groups[a], &groups[b]
		if ga.DataLabel != gb.DataLabel {
			return ga.DataLabel < gb.DataLabel
		}
		if ga.Spec.Classify != gb.Spec.Classify {
			return !ga.Spec.Classify
		}
		if ka, kb := kinds[ga.kind()], kinds[gb.kind()]; ka != kb {
			return ka < kb
		}
		if oa, ob := order[ga.Spec.Engine.Method], order[gb.Spec.Engine.Method]; oa != ob {
			return oa < ob
		}
		return ga.Name < gb.Name
	})
	return groups
}

func (g *Group) summarise() {
	var nll, test, train, dens, init []float64
	var secs float64
	var rows int
	for i := range g.Runs {
		r := &g.Runs[i]
		for _, m := range r.Metrics {
			if !math.IsNaN(m.Seconds) {
				secs += m.Seconds
				rows++
			}
		}
		if r.Failure != nil {
			g.Failed++
		}
		if !r.Finished() {
			continue
		}
		g.Finished++
		f := r.Result.Final
		nll = append(nll, f.NLL)
		if !math.IsNaN(f.NLL) && (math.IsNaN(f.LogZLo) || math.IsInf(f.LogZLo, -1)) {
			g.AISUnbounded++
		}
		if c := r.Result.Checks; c != nil && c.Verdict.Fired {
			g.VerdictFired++
		}
		test = append(test, f.TestAcc)
		train = append(train, f.TrainAcc)
		dens = append(dens, f.Density)
		init = append(init, r.Result.InitDensity)
	}
	if g.Finished == 0 {
		nll, test, train, dens = g.soFar()
	}
	g.NLL, g.TestAcc, g.TrainAcc = NewStat(nll), NewStat(test), NewStat(train)
	g.Density, g.InitDensity = NewStat(dens), NewStat(init)
	g.Epochs = g.Spec.TotalEpochs()
	g.SecondsPerEpoch = math.NaN()
	if rows > 0 {
		g.SecondsPerEpoch = secs / float64(rows)
	}
}

// soFar sets SoFar for a group of unfinished runs and returns the values
// of the evaluated runs at that epoch.
func (g *Group) soFar() (nll, test, train, dens []float64) {
	evaluated := func(m experiment.Metrics) bool { return !math.IsNaN(m.NLL) || !math.IsNaN(m.TestAcc) }
	g.SoFar = 0
	for i := range g.Runs {
		last := 0
		for _, m := range g.Runs[i].Metrics {
			if evaluated(m) {
				last = m.Epoch
			}
		}
		if last > 0 && (g.SoFar == 0 || last < g.SoFar) {
			g.SoFar = last
		}
	}
	if g.SoFar == 0 {
		return
	}
	for i := range g.Runs {
		for _, m := range g.Runs[i].Metrics {
			if m.Epoch == g.SoFar && evaluated(m) {
				nll, test, train, dens = append(nll, m.NLL), append(test, m.TestAcc), append(train, m.TrainAcc), append(dens, m.Density)
			}
		}
	}
	return
}

// methodLabel is the method with its connectivity parameter, as in the
// paper's Table 1: "NCG p=0.5 γ=0.5", "line v=392", "random 0.5", "SET ε=11
// ζ=0.3", with the SET procedure when it is not the engine's ("… mocanu").
func methodLabel(c engine.Config) string {
	switch c.Method {
	case engine.Dense:
		return "dense"
	case engine.NCG:
		return fmt.Sprintf("NCG p=%s γ=%s", fnum(c.P), fnum(c.Gamma))
	case engine.Line:
		return fmt.Sprintf("line v=%d", c.LineWidth)
	case engine.Random:
		return fmt.Sprintf("random %s", fnum(c.Density))
	case engine.SET:
		label := fmt.Sprintf("SET ε=%s ζ=%s", fnum(c.Epsilon), fnum(c.Zeta))
		if c.SETProcedure != "" {
			label += " " + string(c.SETProcedure)
		}
		return label
	}
	return string(c.Method)
}

// modelLabel is methodLabel of an RBM's method; for a deep model its kind
// and each weight matrix's method label, bottom first, a method repeated
// above the matrix below once ("DBM NCG p=0.5 γ=0.5 / dense").
func modelLabel(s experiment.Spec) string {
	if !s.IsDeep() {
		return methodLabel(s.Engine)
	}
	var labels []string
	for _, m := range s.Methods() {
		c := s.Engine
		c.Method = m
		if l := methodLabel(c); len(labels) == 0 || labels[len(labels)-1] != l {
			labels = append(labels, l)
		}
	}
	return strings.ToUpper(string(s.Deep.Kind)) + " " + strings.Join(labels, " / ")
}

// Bound reports whether the group's NLL is a bound (a deep model's: the
// variational bound of its rows, an upper bound on the NLL with the exact
// log Z, an estimate of that bound with AIS's log Ẑ).
func (g *Group) Bound() bool { return g.Spec.IsDeep() }

func fnum(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// inLabels are the settings that a group's name shows by other means than
// settings: the method and its own parameters (methodLabel), the visible
// units (visibleLabel), and the seed and the evaluation schedule, which
// groups leave out (key).
var inLabels = map[string]bool{
	"method": true, "p": true, "gamma": true, "v": true, "density": true, "epsilon": true, "zeta": true,
	"set-procedure": true, "visible": true, "learn-sigma": true, "seed": true, "eval-every": true, "model": true,
}

// settingLabels are the short names groups show some settings by (every
// other by its flag name), and emptyLabels the words of settings whose
// empty value means a default.
var (
	settingLabels = map[string]string{"hidden": "H", "lr": "α", "init-scale": "scale", "lr-conn": "α_A", "test-data": "test",
		"momentum": "μ", "momentum-start": "μ_start", "momentum-epochs": "μ_epochs", "l2": "L2", "l1": "L1",
		"lr-schedule": "schedule", "lr-final": "α_final", "lr-step-every": "step_every", "lr-step-factor": "step_factor"}
	emptyLabels = map[string]string{"sampler": "cd", "lr-schedule": "constant", "likelihood": "auto", "format": "detected", "test-data": "none", "real": "binary"}
)

// settings flattens the settings of a spec that may tell groups apart, in
// the order of experiment.Table: every setting the run uses but those
// inLabels shows by other means, as its label and its value. A setting
// added to the table is here without an edit.
func settings(s experiment.Spec) [][2]string {
	var kv [][2]string
	for _, st := range experiment.Table() {
		if inLabels[st.Name] || (st.Uses != nil && !st.Uses(s)) {
			continue
		}
		label, v := st.Name, st.Value(s)
		if l, ok := settingLabels[st.Name]; ok {
			label = l
		}
		if v == "" {
			v = emptyLabels[st.Name]
		}
		if st.Name == "centre" {
			label, v = "centring", map[string]string{"false": "uncentred", "true": "centred"}[v]
		}
		kv = append(kv, [2]string{label, v})
	}
	return kv
}

// Continuous reports whether the group's runs have real-valued visible
// units, whose NLL is a negative log density.
func (g *Group) Continuous() bool { return g.Spec.Engine.Visible.Continuous() }

// visibleLabel names the visible units' type ("" for binary), with a
// learned σ.
func visibleLabel(c engine.Config) string {
	switch {
	case c.Visible == unit.Binary:
		return ""
	case c.LearnSigma:
		return c.Visible.Name() + " learned σ"
	case c.Visible.Continuous():
		return c.Visible.Name() + " σ=1"
	}
	return c.Visible.Name()
}

// dataLabel is a group's DataLabel.
func dataLabel(s experiment.Spec) string {
	d := filepath.Base(s.Data)
	if !s.Engine.Visible.Continuous() {
		return d
	}
	if s.Real == data.RealNone {
		return d + " (as read)"
	}
	return d + " (" + string(s.Real) + ")"
}

// nameGroups names each group by data label, method label and visible
// units, then adds every setting whose value differs between groups of the
// same data label (so two groups never share a name unless their specs
// only differ in settings no name shows).
func nameGroups(groups []Group) {
	type sig struct{ data, key string }
	values := map[sig]map[string]bool{}
	for i := range groups {
		g := &groups[i]
		g.Data, g.DataLabel = filepath.Base(g.Spec.Data), dataLabel(g.Spec)
		for _, kv := range settings(g.Spec) {
			s := sig{g.DataLabel, kv[0]}
			if values[s] == nil {
				values[s] = map[string]bool{}
			}
			values[s][kv[1]] = true
		}
	}
	for i := range groups {
		g := &groups[i]
		parts := []string{modelLabel(g.Spec)}
		if v := visibleLabel(g.Spec.Engine); v != "" {
			parts = append(parts, v)
		}
		for _, kv := range settings(g.Spec) {
			if len(values[sig{g.DataLabel, kv[0]}]) > 1 {
				switch {
				case kv[0] == "centring":
					parts = append(parts, kv[1])
				case kv[1] == "true":
					parts = append(parts, kv[0])
				case kv[1] == "false":
					parts = append(parts, "no "+kv[0])
				default:
					parts = append(parts, kv[0]+"="+kv[1])
				}
			}
		}
		g.Model = strings.Join(parts, " ")
		g.Name = g.DataLabel + " " + g.Model
	}
}

// groupTiers returns the kernel tiers of runs, each once, sorted.
func groupTiers(runs []Run) []string {
	var tiers []string
	for _, r := range runs {
		for _, t := range r.Tiers {
			if !slices.Contains(tiers, t) {
				tiers = append(tiers, t)
			}
		}
	}
	slices.Sort(tiers)
	return tiers
}
