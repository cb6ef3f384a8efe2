package experiment

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/unit"
)

// Normalize returns s as a run stores and compares it: the sampler and
// schedule in one spelling (cd and constant as ""), a
// data set's canonical name, every setting a run cannot leave at zero
// (Setting.Required) that is zero set to its default, and every setting
// the run does not use zeroed (and so left out of its JSON). Run,
// Validate's callers and every comparison of run identities go through
// it, so two Specs that train the same model are the same run.
func (s Spec) Normalize() Spec {
	e := &s.Engine
	if e.Sampler == engine.CD {
		e.Sampler = ""
	}
	if e.LRSchedule == "constant" {
		e.LRSchedule = ""
	}
	if u, err := unit.Parse(string(e.Visible)); err == nil {
		e.Visible = u // one spelling: "binary" is ""
	}
	if name, ok := s.DataSet(); ok {
		s.Data = name
	}
	if m, err := s.RealMode(); err == nil {
		s.Real = m // one spelling: "binary" is "", "standardize" "standardise"
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
	s.normalizeDeep()
	return s
}

// DataSet returns the canonical name of the Spec's data set when it is a
// built-in one (named), else its file path. It is the one place that tells
// the two apart.
func (s Spec) DataSet() (name string, named bool) { return namedData(s.Data) }

// RealMode returns the Spec's -real in its one spelling, or an error naming
// the flag. It is the one place that parses it.
func (s Spec) RealMode() (data.RealMode, error) {
	m, err := data.ParseRealMode(string(s.Real))
	if err != nil {
		return m, fmt.Errorf("-real: %w", err)
	}
	return m, nil
}

// RunName is a run's name:
// <data>[-<model>]-<method>[-<axis><value>…]-seed<seed>, with the data
// file's name without its extension, a deep model's kind (dbn, dbm), its
// method (a deep model's list of them, when they differ), and the value
// of each setting in varied (named by Setting.Name, in table order).
func RunName(s Spec, varied ...string) string {
	name := filepath.Base(s.Data)
	if ext := filepath.Ext(name); ext != "" && ext != name {
		name = strings.TrimSuffix(name, ext)
	}
	parts := []string{name}
	if s.IsDeep() {
		parts = append(parts, string(s.Deep.Kind))
	}
	parts = append(parts, lookup("method").Value(s))
	for _, st := range settings {
		if st.Axis != "" && st.Name != "model" && st.Name != "method" && st.Name != "seed" && slices.Contains(varied, st.Name) {
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
	for _, st := range settings {
		if st.Key == key || (st.layersKey != "" && st.layersKey == key) {
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
