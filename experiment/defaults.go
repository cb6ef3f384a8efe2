package experiment

import (
	"fmt"
	"reflect"

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

// DataSettings returns the settings of DataDefaults in table order.
func DataSettings() []Setting {
	s := make([]Setting, len(dataFields))
	for i, f := range dataFields {
		s[i] = f.k
	}
	return s
}

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

// dataFields are the settings of DataDefaults in table order, each as its
// field in DataDefaults and in a Spec (both *int, *float64 or *bool).
var dataFields = []struct {
	k      Setting
	fields func(d *DataDefaults, s *Spec) (def, run any)
}{
	{SetHidden, func(d *DataDefaults, s *Spec) (any, any) { return &d.Hidden, &s.Engine.Hidden }},
	{SetK, func(d *DataDefaults, s *Spec) (any, any) { return &d.K, &s.Engine.K }},
	{SetBatch, func(d *DataDefaults, s *Spec) (any, any) { return &d.Batch, &s.Engine.Batch }},
	{SetLR, func(d *DataDefaults, s *Spec) (any, any) { return &d.LR, &s.Engine.LR }},
	{SetLRConn, func(d *DataDefaults, s *Spec) (any, any) { return &d.LRConn, &s.Engine.LRConn }},
	{SetEpochs, func(d *DataDefaults, s *Spec) (any, any) { return &d.Epochs, &s.Engine.Epochs }},
	{SetEvalEvery, func(d *DataDefaults, s *Spec) (any, any) { return &d.EvalEvery, &s.EvalEvery }},
	{SetClassify, func(d *DataDefaults, s *Spec) (any, any) { return &d.Classify, &s.Classify }},
	{SetLineWidth, func(d *DataDefaults, s *Spec) (any, any) { return &d.LineWidth, &s.Engine.LineWidth }},
}

// Apply sets in s each setting that given reports false for. The line
// width is set for line runs only: other runs keep theirs, so that their
// run directories stay theirs.
func (d DataDefaults) Apply(s *Spec, given func(Setting) bool) {
	for _, f := range dataFields {
		if given(f.k) || (f.k == SetLineWidth && s.Engine.Method != engine.Line) {
			continue
		}
		switch def, run := f.fields(&d, s); def := def.(type) {
		case *int:
			*run.(*int) = *def
		case *float64:
			*run.(*float64) = *def
		case *bool:
			*run.(*bool) = *def
		}
	}
}

// Value is setting k as a run prints it (the help table's cells).
func (d DataDefaults) Value(k Setting) string {
	for _, f := range dataFields {
		if f.k != k {
			continue
		}
		def, _ := f.fields(&d, &Spec{})
		if v, ok := def.(*float64); ok {
			return FormatFloat(*v)
		}
		return fmt.Sprint(reflect.ValueOf(def).Elem())
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
	SetSETProc Setting = "set-procedure"
)

// methodSettings are the settings that matter to one method only.
var methodSettings = map[Setting]engine.Method{SetP: engine.NCG, SetGamma: engine.NCG, SetLRConn: engine.NCG,
	SetDensity: engine.Random, SetLineWidth: engine.Line, SetEpsilon: engine.SET, SetZeta: engine.SET, SetSETProc: engine.SET}

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
