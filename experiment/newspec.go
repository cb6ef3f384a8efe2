package experiment

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ncg-rbm/ncg/engine"
)

// Settings are settings given by name (Setting.Name): a value of the
// field's type, or its text as a flag takes it ("0.5", "ncg", "true"). In a
// sweep an axis (Setting.Axis) takes a list: a slice, or a comma list
// ("0.25,0.5"; seeds also "1-25").
type Settings map[string]any

// texts returns the given settings as text: one value each, or the list of
// an axis when lists is set. An unknown name, or a list where one value is
// wanted, is an error.
func (g Settings) texts(lists bool) (map[string][]string, error) {
	out := map[string][]string{}
	stacks := lists && g.stacks()
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
		isBool := isAlias || (st != nil && st.Kind() == reflect.Bool)
		switch {
		case g[name] == nil:
			return nil, fmt.Errorf("-%s: no value", name)
		case isBool && rv.Kind() != reflect.Bool && rv.Kind() != reflect.String: // a grid's "centre": 1
			return nil, fmt.Errorf("-%s: %v is not true or false", name, g[name])
		case rv.Kind() == reflect.Slice:
			for i := range rv.Len() {
				vals = append(vals, Format(rv.Index(i).Interface()))
			}
		default:
			text := Format(g[name])
			if lists && st != nil && st.Axis != "" {
				var err error
				if vals, err = st.list(text, stacks); err != nil {
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
				l, err := st.list(v, false)
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

// stacks reports whether the runs of a sweep include deep models (-model
// dbn or dbm, alone or in a list): their -hidden and -method values are
// themselves comma lists, so the sweep's lists of them separate their
// values with ':' ("-hidden 500,1000:500" is two stacks), for every run of
// the sweep.
func (g Settings) stacks() bool {
	v, ok := g["model"]
	if !ok || v == nil {
		return false
	}
	var kinds []string
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		for i := range rv.Len() {
			kinds = append(kinds, Format(rv.Index(i).Interface()))
		}
	} else {
		kinds = strings.Split(Format(v), ",")
	}
	for _, k := range kinds {
		if s := (Spec{Deep: Deep{Kind: engine.StackKind(strings.TrimSpace(k))}}); s.IsDeep() {
			return true
		}
	}
	return false
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
			st.assign(&s, st.dataDefault(s))
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
