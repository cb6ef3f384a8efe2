// Package unit names the types of visible units an RBM can have (binary,
// Gaussian, categorical) and owns what is the same for a type in every
// package: its name in configurations and files, which data it accepts,
// and which layer an exact log Z enumerates.
//
// What a type does in training and in evaluation lives with the package
// that does it: package engine and package eval each hold one
// implementation per type, chosen from the Type in one place. This package
// does no arithmetic and knows nothing of models.
package unit

import (
	"fmt"
	"strings"

	"github.com/ncg-rbm/ncg/data"
)

// Type is a type of visible units. The zero value is Binary, so that a
// configuration that names none (in Go or in JSON) means binary units.
type Type string

// The unit types.
const (
	// Binary units, v ∈ {0, 1}: the paper's RBM.
	Binary Type = ""
	// Gaussian units, real-valued: v | h ~ N(d + Cᵀh, σ²) per unit (d the visible biases), σ fixed
	// at 1 or learned, in the parameterisation of Cho, Ilin & Raiko (2011).
	Gaussian Type = "gaussian"
	// Categorical units: the data units form groups, each a categorical
	// attribute in one-hot form (data.Groups), and each group's units are
	// drawn together from the softmax of their inputs, so that exactly one
	// is on.
	Categorical Type = "categorical"
)

// Types returns every type, in the order help and documentation list them.
func Types() []Type { return []Type{Binary, Gaussian, Categorical} }

// Name returns the type's name: "binary", "gaussian" or "categorical".
func (t Type) Name() string {
	if t == Binary {
		return "binary"
	}
	return string(t)
}

// Continuous reports whether the units are real-valued, so that a
// model's NLL is a negative log density (it depends on the data's scale
// and can be negative) rather than of a probability.
func (t Type) Continuous() bool { return t == Gaussian }

// Parse returns the type named s ("binary" or "" for Binary).
func Parse(s string) (Type, error) {
	if s == "binary" {
		return Binary, nil
	}
	t := Type(s)
	return t, t.Check()
}

// UnmarshalText sets t to the type named by text (Parse), so that
// "binary" in a flag or a JSON file is Binary.
func (t *Type) UnmarshalText(text []byte) error {
	u, err := Parse(string(text))
	if err != nil {
		return err
	}
	*t = u
	return nil
}

// Check returns an error for a value that names no type.
func (t Type) Check() error {
	for _, k := range Types() {
		if t == k {
			return nil
		}
	}
	names := make([]string, 0, 3)
	for _, k := range Types() {
		names = append(names, k.Name())
	}
	return fmt.Errorf("visible %q is not one of %s", string(t), strings.Join(names, ", "))
}

// Accepts returns nil when the rows of s suit units of type t, or an error
// that says why not: binary units read binary rows, Gaussian units
// real-valued ones, and categorical units binary rows whose data units are
// categorical groups (s.Groups), one unit on in each group of every row.
// This is the one place that says which data suits which unit type. When
// the rows are of the wrong kind, the error is a *MismatchError naming the
// type that suits them.
func (t Type) Accepts(s *data.Set) error {
	if err := t.Check(); err != nil {
		return err
	}
	switch {
	case t == Gaussian && !s.IsReal():
		return &MismatchError{Data: s.Name, Type: t, Suits: Binary, Why: "is binary; gaussian units need real-valued rows"}
	case t != Gaussian && s.IsReal():
		return &MismatchError{Data: s.Name, Type: t, Suits: Gaussian, Why: "is real-valued; " + t.Name() + " units need binary rows"}
	case t != Categorical:
		return nil
	case s.Groups == nil:
		return &MismatchError{Data: s.Name, Type: t, Suits: Binary, Why: "has no categorical groups; categorical units need them"}
	}
	if err := s.Groups.Check(s.D - s.LabelUnits); err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	if err := s.Groups.CheckRows(s.X, s.N, s.D); err != nil {
		return fmt.Errorf("%s: %w", s.Name, err)
	}
	return nil
}

// MismatchError is Accepts' error for rows of the wrong kind for a type.
type MismatchError struct {
	Data  string // the data set's name
	Type  Type   // the type that refused them
	Suits Type   // a type that takes them
	Why   string // what is wrong, after the data's name
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s %s (%s units model these rows)", e.Data, e.Why, e.Suits.Name())
}

// ExactLayer returns the number of units whose joint states an exact log Z
// sums over, for a model of x visible and h hidden units of type t: the
// smaller layer for binary units (the other is summed analytically), the
// hidden layer for Gaussian units (the visible ones are integrated
// analytically whatever x is) and for categorical ones (each group is
// summed analytically given h). The cost is 2^ExactLayer states.
func (t Type) ExactLayer(x, h int) int {
	if t == Binary {
		return min(x, h)
	}
	return h
}
