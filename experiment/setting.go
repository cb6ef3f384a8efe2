package experiment

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

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

// Settings are settings given by name (Setting.Name): a value of the
// field's type, or its text as a flag takes it ("0.5", "ncg", "true"). In a
// sweep an axis (Setting.Axis) takes a list: a slice, or a comma list
// ("0.25,0.5"; seeds also "1-25").
type Settings map[string]any

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

// texts returns the given settings as text: one value each, or the list of
// an axis when lists is set. An unknown name, or a list where one value is
// wanted, is an error.
func (g Settings) texts(lists bool) (map[string][]string, error) {
	out := map[string][]string{}
	names := make([]string, 0, len(g))
	for k := range g {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		st := lookup(name)
		isAlias := slices.ContainsFunc(aliases, func(a Alias) bool { return a.Name == name })
		if st == nil && !isAlias {
			return nil, fmt.Errorf("%q is not a run setting", name)
		}
		var vals []string
		rv := reflect.ValueOf(g[name])
		switch {
		case g[name] == nil:
			return nil, fmt.Errorf("-%s: no value", name)
		case rv.Kind() == reflect.Slice:
			for i := range rv.Len() {
				vals = append(vals, Format(rv.Index(i).Interface()))
			}
		default:
			text := Format(g[name])
			if lists && st != nil && st.Axis != "" {
				var err error
				if vals, err = st.list(text); err != nil {
					return nil, err
				}
			} else {
				vals = []string{text}
			}
		}
		if len(vals) != 1 && (!lists || st == nil || st.Axis == "") {
			return nil, fmt.Errorf("-%s takes one value, not a list", name)
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("-%s: empty list", name)
		}
		if st != nil && st.Name == "seed" && rv.Kind() == reflect.Slice { // ranges inside a slice's items
			var all []string
			for _, v := range vals {
				l, err := st.list(v)
				if err != nil {
					return nil, err
				}
				all = append(all, l...)
			}
			vals = all
		}
		out[name] = vals
	}
	return out, nil
}

// Check checks the names and values of the settings given (lists of the
// axes when lists is set), with errors that name the setting.
func (g Settings) Check(lists bool) error {
	texts, err := g.texts(lists)
	if err != nil {
		return err
	}
	for name, vals := range texts {
		for _, v := range vals {
			if st := lookup(name); st != nil {
				if err := st.set(&Spec{}, v); err != nil {
					return err
				}
			} else if _, err := strconv.ParseBool(v); err != nil {
				return fmt.Errorf("-%s: %q is not true or false", name, v)
			}
		}
	}
	return nil
}

// NewSpec returns the Spec of the settings given, every other setting
// taking its default as ncgbench gives it: a rule of the method, procedure
// or sampler, else the data set's value, else the table's. The Spec is
// normalised and validated; a setting given that the run does not use is an
// error (a *ConfigError, naming the flag).
func NewSpec(given Settings) (Spec, error) {
	texts, err := given.texts(false)
	if err != nil {
		return Spec{}, &ConfigError{err}
	}
	one := map[string]string{}
	for k, v := range texts {
		one[k] = v[0]
	}
	s, err := resolve(one)
	if err != nil {
		return Spec{}, &ConfigError{err}
	}
	if err := unused(one, []Spec{s}); err != nil {
		return Spec{}, &ConfigError{err}
	}
	// Validated before Normalize, which would give a zero given for a
	// setting that cannot be zero its default.
	if err := s.Validate(); err != nil {
		return Spec{}, &ConfigError{err}
	}
	return s.Normalize(), nil
}

// resolve fills a Spec from settings given as text and the defaults.
func resolve(given map[string]string) (Spec, error) {
	var s Spec
	given, err := applyAliases(given)
	if err != nil {
		return s, err
	}
	for _, st := range settings {
		if text, ok := given[st.Name]; ok {
			if err := st.set(&s, text); err != nil {
				return s, err
			}
		}
	}
	// Plain defaults first, then the rules, which may read them (the
	// SET authors' decay is a fraction of -lr).
	for _, st := range settings {
		if _, ok := given[st.Name]; !ok {
			st.assign(&s, Setting{Default: st.Default, PerData: st.PerData}.DefaultFor(s))
		}
	}
	for _, st := range settings {
		if _, ok := given[st.Name]; !ok && len(st.Rules) > 0 {
			st.assign(&s, st.DefaultFor(s))
		}
	}
	return s, nil
}

// applyAliases turns aliases into the settings they stand for; an alias
// that contradicts its setting given beside it is an error.
func applyAliases(given map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range given {
		out[k] = v
	}
	for _, a := range aliases {
		text, ok := given[a.Name]
		if !ok {
			continue
		}
		delete(out, a.Name)
		on, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("-%s: %q is not true or false", a.Name, text)
		}
		other, both := given[a.Of]
		switch {
		case both && on && other != a.Value, both && !on && other == a.Value:
			return nil, fmt.Errorf("-%s=%v and -%s %s contradict each other: give one", a.Name, on, a.Of, other)
		case on:
			out[a.Of] = a.Value
		}
	}
	return out, nil
}

// unused returns an error for a setting given that none of the runs uses.
func unused(given map[string]string, runs []Spec) error {
	for _, st := range settings {
		if _, ok := given[st.Name]; !ok || st.Uses == nil {
			continue
		}
		if !slices.ContainsFunc(runs, st.Uses) {
			return fmt.Errorf("-%s applies to %s only", st.Name, st.UsedBy)
		}
	}
	for _, a := range aliases {
		if _, ok := given[a.Name]; !ok {
			continue
		}
		if st := lookup(a.Of); st.Uses != nil && !slices.ContainsFunc(runs, st.Uses) {
			return fmt.Errorf("-%s applies to %s only", a.Name, st.UsedBy)
		}
	}
	return nil
}

// Set sets one setting of s by name to a value given as Settings take it.
func (s *Spec) Set(name string, value any) error {
	texts, err := Settings{name: value}.texts(false)
	if err != nil {
		return err
	}
	given, err := applyAliases(map[string]string{name: texts[name][0]})
	if err != nil {
		return err
	}
	for k, v := range given {
		if err := lookup(k).set(s, v); err != nil {
			return err
		}
	}
	return nil
}

// Normalize returns s as a run stores and compares it: the sampler and
// schedule in one spelling (pcd as the pcd flag, cd and constant as ""), a
// data set's canonical name, every setting a run cannot leave at zero
// (Setting.Required) that is zero set to its default, and every setting
// the run does not use zeroed (and so left out of its JSON). Run,
// Validate's callers and every comparison of run identities go through
// it, so two Specs that train the same model are the same run.
func (s Spec) Normalize() Spec {
	e := &s.Engine
	switch e.Sampler {
	case "cd":
		e.Sampler = ""
	case "pcd":
		e.Sampler, e.PCD = "", true
	}
	if e.LRSchedule == "constant" {
		e.LRSchedule = ""
	}
	if name, ok := namedData(s.Data); ok {
		s.Data = name
	}
	for _, st := range settings {
		if st.Required && st.isZero(&s) {
			st.assign(&s, st.DefaultFor(s))
		}
	}
	for _, st := range settings {
		if st.Uses != nil && !st.Uses(s) {
			st.assign(&s, nil)
		}
	}
	if e.Sampler == "pt" {
		e.PCD = false
	}
	return s
}

// RunName is a run's name: <data>-<method>[-<axis><value>…]-seed<seed>,
// with the data file's name without its extension, and the value of each
// setting in varied (named by Setting.Name, in table order).
func RunName(s Spec, varied ...string) string {
	name := filepath.Base(s.Data)
	if ext := filepath.Ext(name); ext != "" && ext != name {
		name = strings.TrimSuffix(name, ext)
	}
	parts := []string{name, string(s.Engine.Method)}
	for _, st := range settings {
		if st.Axis != "" && st.Name != "method" && st.Name != "seed" && slices.Contains(varied, st.Name) {
			parts = append(parts, st.Axis+st.Value(s))
		}
	}
	parts = append(parts, fmt.Sprintf("seed%d", s.Engine.Seed))
	for k := range parts {
		parts[k] = SafeName(parts[k])
	}
	return strings.Join(parts, "-")
}

// keyName is the flag name of a dotted JSON key of a Spec, for messages.
func keyName(key string) string {
	if key == "engine.pcd" {
		return "-sampler (pcd)"
	}
	for _, st := range settings {
		if st.Key == key {
			return "-" + st.Name
		}
	}
	return key
}

// identity is the JSON of the normalised Spec, which checkpoints carry and
// resumes compare. It fails only for a value JSON cannot hold (NaN, ±Inf)
// in a setting Validate does not check.
func (s Spec) identity() (json.RawMessage, error) {
	b, err := json.Marshal(s.Normalize())
	if err != nil {
		return nil, fmt.Errorf("run settings: %w", err)
	}
	return b, nil
}

// normalIdentity reads a stored identity (a checkpoint's, a config.json's
// or result.json's spec, of any version) and returns it normalised.
func normalIdentity(stored json.RawMessage) (json.RawMessage, error) {
	var s Spec
	if err := json.Unmarshal(stored, &s); err != nil {
		return nil, err
	}
	return s.identity()
}
