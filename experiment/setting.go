package experiment

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/ncg-rbm/ncg/data"
)

// Setting is one setting of a run, as the table in settings.go declares it.
type Setting struct {
	Name  string // flag name, and key of Settings and of sweep grid files
	Key   string // its dotted JSON key in a Spec ("engine.hidden")
	Group Group
	Arg   string // name of its value in the docs ("H")
	Usage string
	// Axis is the prefix of its value in the names of a sweep's runs; a
	// setting with an Axis takes a list in a sweep.
	Axis string
	Eval bool // ncgbench eval takes it too
	// Required: zero is not a value a run can use, so a zero in a Spec
	// means the default (Normalize).
	Required bool
	// Default is its value when nothing else decides; PerData overrides it
	// for a named data set, and the first Rule that applies overrides both.
	Default any
	PerData map[string]any
	Rules   []Rule
	// Uses reports whether a run uses it (nil: every run); UsedBy says
	// which runs in words. Normalize zeroes a setting a run does not use.
	Uses   func(Spec) bool
	UsedBy string

	field func(*Spec) any // pointer to its field
}

// Rule is the default of a setting under a method, procedure or sampler.
type Rule struct {
	When    string // in words, for the help ("-set-procedure mocanu")
	Applies func(Spec) bool
	Value   func(Spec) any
}

// Alias is a flag that sets another setting to one value (-pcd is
// -sampler pcd); false leaves the setting as it is.
type Alias struct{ Name, Of, Value string }

// Group is a section of the help and of docs/cli.md.
type Group string

// The groups, in the order of the help.
const (
	DataGroup     Group = "data"
	ModelGroup    Group = "model"
	TrainingGroup Group = "training"
	EvalGroup     Group = "evaluation"
)

// Table returns the settings in the order of the help.
func Table() []Setting {
	out := make([]Setting, len(settings))
	for i, s := range settings {
		out[i] = *s
	}
	return out
}

// Aliases returns the flags that stand for one value of a setting.
func Aliases() []Alias { return slices.Clone(aliases) }

// DataSets returns the named data sets, in the order of the help tables.
func DataSets() []string { return slices.Clone(data.Names) }

// Lookup returns the setting of a name.
func Lookup(name string) (Setting, bool) {
	st := lookup(name)
	if st == nil {
		return Setting{}, false
	}
	return *st, true
}

func lookup(name string) *Setting {
	for _, st := range settings {
		if st.Name == name {
			return st
		}
	}
	return nil
}

// namedData returns the canonical name of a named data set.
func namedData(name string) (string, bool) {
	return data.Canonical(name)
}

// DefaultFor is the setting's default for a run of spec: its first rule
// that applies, else its data set's value, else Default (nil: none).
func (st Setting) DefaultFor(spec Spec) any {
	for _, r := range st.Rules {
		if r.Applies(spec) {
			return r.Value(spec)
		}
	}
	return st.dataDefault(spec)
}

// dataDefault is the default without the rules: the data set's value,
// else Default.
func (st Setting) dataDefault(spec Spec) any {
	if name, ok := namedData(spec.Data); ok {
		if v, ok := st.PerData[name]; ok {
			return v
		}
	}
	return st.Default
}

// Format prints a value of the setting as a flag takes it.
func Format(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case float64:
		return FormatFloat(v)
	}
	return fmt.Sprint(v)
}

// Value is the setting's value in spec, printed as a flag takes it.
func (st Setting) Value(spec Spec) string {
	return Format(reflect.ValueOf(st.field(&spec)).Elem().Interface())
}

// Kind is the kind of the setting's value.
func (st Setting) Kind() reflect.Kind { return reflect.TypeOf(st.field(&Spec{})).Elem().Kind() }

// set parses text into the setting's field of s.
func (st *Setting) set(s *Spec, text string) error {
	f := reflect.ValueOf(st.field(s)).Elem()
	if u, ok := st.field(s).(encoding.TextUnmarshaler); ok { // a type with its own names
		if err := u.UnmarshalText([]byte(text)); err != nil {
			return fmt.Errorf("-%s: %w", st.Name, err)
		}
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(text)
	case reflect.Int:
		v, err := strconv.Atoi(text)
		if err != nil {
			return fmt.Errorf("-%s: %q is not an integer", st.Name, text)
		}
		f.SetInt(int64(v))
	case reflect.Uint64:
		v, err := strconv.ParseUint(text, 10, 64)
		if err != nil {
			return fmt.Errorf("-%s: %q is not a non-negative integer", st.Name, text)
		}
		f.SetUint(v)
	case reflect.Float64:
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("-%s: %q is not a finite number", st.Name, text)
		}
		f.SetFloat(v)
	case reflect.Bool:
		v, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("-%s: %q is not true or false", st.Name, text)
		}
		f.SetBool(v)
	default:
		panic("experiment: setting " + st.Name + " has a field of kind " + f.Kind().String())
	}
	return nil
}

// assign sets the setting's field of s to v, a value of the field's type
// (the table's defaults).
func (st *Setting) assign(s *Spec, v any) {
	if v == nil {
		v = reflect.Zero(reflect.TypeOf(st.field(s)).Elem()).Interface()
	}
	f := reflect.ValueOf(st.field(s)).Elem()
	f.Set(reflect.ValueOf(v).Convert(f.Type()))
}

func (st *Setting) isZero(s *Spec) bool {
	return reflect.ValueOf(st.field(s)).Elem().IsZero()
}

// Check parses text as a value of the setting (a list for a sweep axis
// when list is set), reporting an error that names the flag.
func (st Setting) Check(text string, list bool) error {
	vals := []string{text}
	if list {
		var err error
		if vals, err = st.list(text); err != nil {
			return err
		}
	}
	for _, v := range vals {
		if err := st.set(&Spec{}, v); err != nil {
			return err
		}
	}
	return nil
}

// list splits a comma list of the setting's values (seeds: also ranges).
func (st *Setting) list(text string) ([]string, error) {
	if st.Name == "seed" {
		seeds, err := ParseSeeds(text)
		if err != nil {
			return nil, fmt.Errorf("-seed: %w", err)
		}
		out := make([]string, len(seeds))
		for i, s := range seeds {
			out[i] = strconv.FormatUint(s, 10)
		}
		return out, nil
	}
	items, err := SplitList(text)
	if err != nil {
		return nil, fmt.Errorf("-%s: %w", st.Name, err)
	}
	return items, nil
}
