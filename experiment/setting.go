package experiment

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
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
	// layers, for a setting a deep model takes per hidden layer (-hidden)
	// or per weight matrix (-method), points to the slice of its values
	// for layers 2, 3, …, field holding layer 1's; layersKey is the
	// slice's dotted JSON key. Its text is then a comma list, and a sweep
	// of deep models separates its values with ':' (Settings).
	layers    func(*Spec) any
	layersKey string
}

// Layered reports whether the setting takes a value per layer of a deep
// model, as a comma list (-hidden, -method).
func (st Setting) Layered() bool { return st.layers != nil }

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
	DeepGroup     Group = "deep"
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
	case []any: // a grid file's list inside a list: a deep model's stack
		items := make([]string, len(v))
		for i, it := range v {
			items[i] = Format(it)
		}
		return strings.Join(items, ",")
	}
	return fmt.Sprint(v)
}

// Value is the setting's value in spec, printed as a flag takes it (a
// layered setting's: its values, comma-separated).
func (st Setting) Value(spec Spec) string {
	v := Format(reflect.ValueOf(st.field(&spec)).Elem().Interface())
	if st.layers != nil {
		up := reflect.ValueOf(st.layers(&spec)).Elem()
		for i := range up.Len() {
			v += "," + Format(up.Index(i).Interface())
		}
	}
	return v
}

// Kind is the kind of the setting's value.
func (st Setting) Kind() reflect.Kind { return reflect.TypeOf(st.field(&Spec{})).Elem().Kind() }

// set parses text into the setting's field of s (a layered setting's
// comma list: its first value into the field, the others into its
// layers).
func (st *Setting) set(s *Spec, text string) error {
	f := reflect.ValueOf(st.field(s)).Elem()
	if st.layers == nil {
		return st.parse(f, text)
	}
	items, err := SplitList(text)
	if err != nil {
		return fmt.Errorf("-%s: %w", st.Name, err)
	}
	if len(items) > engine.MaxStackLayers { // before a slice of that length is made
		return fmt.Errorf("-%s: %d values, at most %d (one per layer of a deep model)", st.Name, len(items), engine.MaxStackLayers)
	}
	if err := st.parse(f, items[0]); err != nil {
		return err
	}
	up := reflect.ValueOf(st.layers(s)).Elem()
	up.SetZero()
	if len(items) > 1 {
		up.Set(reflect.MakeSlice(up.Type(), len(items)-1, len(items)-1))
		for i, it := range items[1:] {
			if err := st.parse(up.Index(i), it); err != nil {
				return err
			}
		}
	}
	return nil
}

// parse parses text into f, a value of the setting's type.
func (st *Setting) parse(f reflect.Value, text string) error {
	if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok { // a type with its own names
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
// (the table's defaults); a layered setting's layers keep theirs.
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
// when list is set), reporting an error that names the flag. A layered
// setting's list may be of either form a sweep takes (Settings): its
// values separated by ':', each a comma list.
func (st Setting) Check(text string, list bool) error {
	vals := []string{text}
	if list {
		var err error
		if vals, err = st.list(text, st.layers != nil); err != nil {
			return err
		}
	}
	for _, v := range vals {
		if list && st.layers != nil { // each value alone: an RBM sweep's comma list may be long
			items, err := SplitList(v)
			if err != nil {
				return fmt.Errorf("-%s: %w", st.Name, err)
			}
			for _, it := range items {
				if err := st.parse(reflect.New(reflect.TypeOf(st.field(&Spec{})).Elem()).Elem(), it); err != nil {
					return err
				}
			}
			continue
		}
		if err := st.set(&Spec{}, v); err != nil {
			return err
		}
	}
	return nil
}

// list splits a comma list of the setting's values (seeds: also ranges),
// or, for a layered setting in a sweep of deep models (stacks), a list of
// comma lists separated by ':'.
func (st *Setting) list(text string, stacks bool) ([]string, error) {
	if stacks && st.layers != nil {
		items, err := splitOn(text, ":")
		if err != nil {
			return nil, fmt.Errorf("-%s: %w", st.Name, err)
		}
		return items, nil
	}
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
