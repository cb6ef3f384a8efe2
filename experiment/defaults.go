package experiment

import (
	"fmt"

	"github.com/ncg-rbm/ncg/engine"
)

// Setting names a setting of a Spec that a named data set gives its own
// default. The names are those of ncgbench's flags.
type Setting string

// The settings with a default per data set, in the order of ncgbench's
// help table.
const (
	SetHidden    Setting = "hidden"
	SetK         Setting = "k"
	SetBatch     Setting = "batch"
	SetLR        Setting = "lr"
	SetLRConn    Setting = "lr-conn"
	SetEpochs    Setting = "epochs"
	SetEvalEvery Setting = "eval-every"
	SetClassify  Setting = "classify"
	SetLineWidth Setting = "v"
)

// DataSettings lists the settings of DataDefaults in table order.
var DataSettings = []Setting{SetHidden, SetK, SetBatch, SetLR, SetLRConn, SetEpochs, SetEvalEvery, SetClassify, SetLineWidth}

// DataDefaults are a named data set's settings where they differ from
// engine.DefaultConfig (the paper's MNIST settings): the paper's section 5
// for MNIST, mushrooms and connect-4, ours for bars-and-stripes.
type DataDefaults struct {
	Hidden, K, Batch  int
	LR, LRConn        float64
	Epochs, EvalEvery int
	Classify          bool
	// LineWidth is a line run's visible units per hidden unit: half the
	// visible units, the paper's line density 0.5.
	LineWidth int
}

// namedData are the named data sets in the order of ncgbench's help table.
var namedData = []struct {
	name string
	d    DataDefaults
}{
	{"bas", DataDefaults{Hidden: 16, K: 10, Batch: 10, LR: 0.05, LRConn: 0.25, Epochs: 2000, EvalEvery: 250, LineWidth: 8}},
	{"mnist", DataDefaults{Hidden: 500, K: 10, Batch: 50, LR: 0.1, LRConn: 0.5, Epochs: 10, LineWidth: 392}},
	{"mushrooms", DataDefaults{Hidden: 100, K: 10, Batch: 10, LR: 0.01, LRConn: 0.05, Epochs: 10, Classify: true, LineWidth: 56}},
	{"connect-4", DataDefaults{Hidden: 100, K: 10, Batch: 10, LR: 0.01, LRConn: 0.05, Epochs: 10, Classify: true, LineWidth: 63}},
}

// DataSets returns the names of the named data sets.
func DataSets() []string {
	s := make([]string, len(namedData))
	for i, n := range namedData {
		s[i] = n.name
	}
	return s
}

// DefaultsFor returns the defaults of a named data set ("connect4" is
// connect-4); ok is false for a file.
func DefaultsFor(data string) (d DataDefaults, ok bool) {
	if data == "connect4" {
		data = "connect-4"
	}
	for _, n := range namedData {
		if n.name == data {
			return n.d, true
		}
	}
	return DataDefaults{}, false
}

// FileDefaults are the settings of a file data set: engine.DefaultConfig's
// and a Spec's zero values.
func FileDefaults() DataDefaults {
	c := engine.DefaultConfig()
	return DataDefaults{Hidden: c.Hidden, K: c.K, Batch: c.Batch, LR: c.LR, LRConn: c.LRConn, Epochs: c.Epochs, LineWidth: c.LineWidth}
}

// Apply sets in s each setting that given reports false for. The line
// width is set for line runs only: other runs keep theirs, so that their
// run directories stay theirs.
func (d DataDefaults) Apply(s *Spec, given func(Setting) bool) {
	e := &s.Engine
	for _, k := range DataSettings {
		if given(k) {
			continue
		}
		switch k {
		case SetHidden:
			e.Hidden = d.Hidden
		case SetK:
			e.K = d.K
		case SetBatch:
			e.Batch = d.Batch
		case SetLR:
			e.LR = d.LR
		case SetLRConn:
			e.LRConn = d.LRConn
		case SetEpochs:
			e.Epochs = d.Epochs
		case SetEvalEvery:
			s.EvalEvery = d.EvalEvery
		case SetClassify:
			s.Classify = d.Classify
		case SetLineWidth:
			if e.Method == engine.Line {
				e.LineWidth = d.LineWidth
			}
		}
	}
}

// Value is setting k as a run prints it (the help table's cells).
func (d DataDefaults) Value(k Setting) string {
	switch k {
	case SetHidden:
		return fmt.Sprint(d.Hidden)
	case SetK:
		return fmt.Sprint(d.K)
	case SetBatch:
		return fmt.Sprint(d.Batch)
	case SetLR:
		return FormatFloat(d.LR)
	case SetLRConn:
		return FormatFloat(d.LRConn)
	case SetEpochs:
		return fmt.Sprint(d.Epochs)
	case SetEvalEvery:
		return fmt.Sprint(d.EvalEvery)
	case SetClassify:
		return fmt.Sprint(d.Classify)
	case SetLineWidth:
		return fmt.Sprint(d.LineWidth)
	}
	return ""
}

// Settings that matter to some methods only (besides the line width).
const (
	SetP       Setting = "p"
	SetDensity Setting = "density"
	SetGamma   Setting = "gamma"
	SetEpsilon Setting = "epsilon"
	SetZeta    Setting = "zeta"
)

// methodSettings are the settings that matter to one method only.
var methodSettings = map[Setting]engine.Method{SetP: engine.NCG, SetGamma: engine.NCG, SetLRConn: engine.NCG,
	SetDensity: engine.Random, SetLineWidth: engine.Line, SetEpsilon: engine.SET, SetZeta: engine.SET}

// MethodOf returns the one method setting k matters to; ok is false for a
// setting that matters to every method.
func MethodOf(k Setting) (m engine.Method, ok bool) {
	m, ok = methodSettings[k]
	return m, ok
}

// appliesTo reports whether setting k matters to method m.
func appliesTo(k Setting, m engine.Method) bool {
	only, ok := methodSettings[k]
	return !ok || only == m
}
