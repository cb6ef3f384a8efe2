package data

import (
	"errors"
	"fmt"
	"strings"
)

// Set is a data set: N examples of D visible units, binary (each 0 or 1)
// or real-valued.
//
// A binary set holds the examples row-major as bytes in X (row i is
// X[i*D:(i+1)*D]); a byte per unit keeps MNIST's 60000×784 training set at
// 47 MB. Real is nil.
//
// A real-valued set holds them row-major as float32 in Real (row i is
// Real[i*D:(i+1)*D], never nil, even for N = 0) and X is nil. Scaling, when
// not nil, says how the values were made from the input (standardisation or
// scaling to [0, 1], fitted on the training set) and maps them back; it is
// nil for a binary set and for values used as read. [Set.Row] and
// [Set.Counts] are for binary sets; [Set.RealRow] for real-valued ones.
//
// Labels, when not
// nil, has N entries in 0..NumClasses−1; ClassNames[k] is the label's name in
// the original file (e.g. "-1", "0", "1" for LIBSVM connect-4).
//
// LabelUnits is the number of trailing one-hot label units in each row (0
// unless the set was made by [Set.WithOneHotLabels]); the data units are then
// the first D−LabelUnits of each row.
//
// Groups, when not nil, says that the data units are categorical attributes
// in one-hot form, one unit on in each group of every row, and Attributes
// names the groups: the built-in Mushrooms and Connect-4 sets have them
// (see [BuiltinGroups]), and so has a .npy or CSV file read with
// [Options.Categorical]. Sets made by Subset, Split and WithOneHotLabels
// keep them (the label units are not in a group).
//
// Source says where the rows came from, in words, including every seed used
// (binarisation, shuffles), so that logs record the data's provenance.
//
// Methods treat a Set as read-only; sets made by Subset, Split and
// WithOneHotLabels own fresh copies of their rows.
type Set struct {
	Name       string
	N, D       int
	X          []uint8
	Real       []float32
	Scaling    *Scaling
	Labels     []int32
	NumClasses int
	ClassNames []string
	LabelUnits int
	// Groups, when not nil, says that the data units are categorical
	// attributes in one-hot form (see [Groups]); a binary set only.
	// Attributes, when not nil, names them: Attributes[g] is group g.
	Groups     Groups
	Attributes []Attribute
	Source     string
}

// Row returns example i of a binary set (a slice of X, not a copy). It
// panics if i is out of range, like a slice index, or if the set is
// real-valued.
func (s *Set) Row(i int) []uint8 {
	if i < 0 || i >= s.N {
		panic(fmt.Sprintf("data: row %d out of range [0,%d) in %s", i, s.N, s.Name))
	}
	if s.Real != nil {
		panic(fmt.Sprintf("data: Row of real-valued set %s (use RealRow)", s.Name))
	}
	return s.X[i*s.D : (i+1)*s.D : (i+1)*s.D]
}

// IsReal reports whether the set is real-valued (Real is not nil).
func (s *Set) IsReal() bool { return s.Real != nil }

// RealRow returns example i of a real-valued set (a slice of Real, not a
// copy). It panics if i is out of range or the set is binary.
func (s *Set) RealRow(i int) []float32 {
	if i < 0 || i >= s.N {
		panic(fmt.Sprintf("data: row %d out of range [0,%d) in %s", i, s.N, s.Name))
	}
	if s.Real == nil {
		panic(fmt.Sprintf("data: RealRow of binary set %s (use Row)", s.Name))
	}
	return s.Real[i*s.D : (i+1)*s.D : (i+1)*s.D]
}

// Label returns the label of example i, or −1 if the set is unlabelled.
func (s *Set) Label(i int) int {
	if s.Labels == nil {
		return -1
	}
	return int(s.Labels[i])
}

// Bytes is the memory held by the rows and labels, in bytes.
func (s *Set) Bytes() int64 {
	return int64(cap(s.X)) + 4*int64(cap(s.Real)) + 4*int64(cap(s.Labels))
}

// Validate checks the set's invariants: for a binary set len(X) = N·D,
// every unit 0 or 1 and no Scaling; for a real-valued set X empty,
// len(Real) = N·D, every value finite, label units (if any) 0 or 1 and a
// Scaling (if any) valid for the D − LabelUnits data units; labels (when
// present) N of them in 0..NumClasses−1, ClassNames (when present)
// NumClasses of them.
func (s *Set) Validate() error {
	if s.N < 0 || s.D < 0 {
		return fmt.Errorf("data: %s: negative size %d×%d", s.Name, s.N, s.D)
	}
	if err := s.validateUnits(); err != nil {
		return err
	}
	if s.Labels != nil {
		if len(s.Labels) != s.N {
			return fmt.Errorf("data: %s: %d labels for %d rows", s.Name, len(s.Labels), s.N)
		}
		for i, l := range s.Labels {
			if l < 0 || int(l) >= s.NumClasses {
				return fmt.Errorf("data: %s: row %d label %d not in 0..%d", s.Name, i, l, s.NumClasses-1)
			}
		}
	}
	if s.ClassNames != nil && len(s.ClassNames) != s.NumClasses {
		return fmt.Errorf("data: %s: %d class names for %d classes", s.Name, len(s.ClassNames), s.NumClasses)
	}
	if s.Groups != nil {
		if s.Real != nil {
			return fmt.Errorf("data: %s: a real-valued set with categorical groups", s.Name)
		}
		if err := s.Groups.Check(s.D - s.LabelUnits); err != nil {
			return fmt.Errorf("data: %s: %w", s.Name, err)
		}
		if err := s.Groups.checkRows(s.X, s.N, s.D, s.Attributes); err != nil {
			return fmt.Errorf("data: %s: %w", s.Name, err)
		}
	}
	if s.Attributes != nil {
		if err := checkAttributes(s.Attributes, s.Groups); err != nil {
			return fmt.Errorf("data: %s: %w", s.Name, err)
		}
	}
	return nil
}

func (s *Set) validateUnits() error {
	if s.LabelUnits < 0 || s.LabelUnits > s.D {
		return fmt.Errorf("data: %s: %d label units in rows of %d", s.Name, s.LabelUnits, s.D)
	}
	if s.Real == nil {
		if len(s.X) != s.N*s.D {
			return fmt.Errorf("data: %s: len(X) = %d, want N·D = %d·%d", s.Name, len(s.X), s.N, s.D)
		}
		for i, v := range s.X {
			if v > 1 {
				return fmt.Errorf("data: %s: row %d unit %d is %d, want 0 or 1", s.Name, i/s.D, i%s.D, v)
			}
		}
		if s.Scaling != nil {
			return fmt.Errorf("data: %s: a binary set with a scaling", s.Name)
		}
		return nil
	}
	if len(s.X) != 0 {
		return fmt.Errorf("data: %s: both binary (%d bytes) and real values", s.Name, len(s.X))
	}
	if len(s.Real) != s.N*s.D {
		return fmt.Errorf("data: %s: len(Real) = %d, want N·D = %d·%d", s.Name, len(s.Real), s.N, s.D)
	}
	first := s.D - s.LabelUnits
	for i, v := range s.Real {
		if j := i % s.D; !finite(float64(v)) || (j >= first && v != 0 && v != 1) {
			return fmt.Errorf("data: %s: row %d unit %d is %v, want a finite value (0 or 1 for a label unit)", s.Name, i/s.D, j, v)
		}
	}
	if s.Scaling != nil {
		if err := s.Scaling.Validate(first); err != nil {
			return fmt.Errorf("data: %s: %w", s.Name, err)
		}
	}
	return nil
}

// Subset returns a new set holding copies of rows idx (in that order, repeats
// allowed) and their labels. It panics if an index is out of range.
func (s *Set) Subset(idx []int) *Set {
	t := s.empty(len(idx))
	for k, i := range idx {
		if s.Real != nil {
			copy(t.Real[k*s.D:], s.RealRow(i))
		} else {
			copy(t.X[k*s.D:], s.Row(i))
		}
		if s.Labels != nil {
			t.Labels[k] = s.Labels[i]
		}
	}
	t.Source = fmt.Sprintf("%d selected rows of [%s]", len(idx), s.Source)
	return t
}

// empty returns a set like s with n zero rows.
func (s *Set) empty(n int) *Set {
	t := &Set{Name: s.Name, N: n, D: s.D, X: make([]uint8, n*s.D),
		NumClasses: s.NumClasses, LabelUnits: s.LabelUnits, Groups: s.Groups, Attributes: s.Attributes,
		Source: s.Source}
	if s.Real != nil {
		t.X, t.Real, t.Scaling = nil, make([]float32, n*s.D), s.Scaling
	}
	if s.ClassNames != nil {
		t.ClassNames = append([]string(nil), s.ClassNames...)
	}
	if s.Labels != nil {
		t.Labels = make([]int32, n)
	}
	return t
}

// WithOneHotLabels returns a copy of s whose rows have NumClasses more units:
// after the D data units, unit D+k is 1 exactly when the label is k. The
// result has D+NumClasses units, LabelUnits = NumClasses and keeps Labels
// (and Scaling, which covers the data units). A real-valued set gets label
// units of value 0 or 1 in Real. It fails if s is unlabelled or already has
// label units.
func (s *Set) WithOneHotLabels() (*Set, error) {
	if s.Labels == nil || s.NumClasses <= 0 {
		return nil, fmt.Errorf("data: %s: no labels to append", s.Name)
	}
	if s.LabelUnits != 0 {
		return nil, fmt.Errorf("data: %s: already has %d label units", s.Name, s.LabelUnits)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	L := s.NumClasses
	w := s.D + L
	if s.Real != nil {
		return s.withOneHotLabelsReal(), nil
	}
	t := &Set{Name: s.Name, N: s.N, D: w, X: make([]uint8, s.N*w),
		Labels: append([]int32(nil), s.Labels...), NumClasses: L, LabelUnits: L,
		ClassNames: append([]string(nil), s.ClassNames...), Groups: s.Groups, Attributes: s.Attributes,
		Source: fmt.Sprintf("%s; with %d one-hot label units appended", s.Source, L)}
	if s.ClassNames == nil {
		t.ClassNames = nil
	}
	for i := 0; i < s.N; i++ {
		row := t.X[i*w : (i+1)*w]
		copy(row, s.X[i*s.D:(i+1)*s.D])
		row[s.D+int(s.Labels[i])] = 1
	}
	return t, nil
}

func (s *Set) withOneHotLabelsReal() *Set {
	L := s.NumClasses
	w := s.D + L
	t := &Set{Name: s.Name, N: s.N, D: w, Real: make([]float32, s.N*w), Scaling: s.Scaling,
		Labels: append([]int32(nil), s.Labels...), NumClasses: L, LabelUnits: L,
		Source: fmt.Sprintf("%s; with %d one-hot label units appended", s.Source, L)}
	if s.ClassNames != nil {
		t.ClassNames = append([]string(nil), s.ClassNames...)
	}
	for i := 0; i < s.N; i++ {
		row := t.Real[i*w : (i+1)*w]
		copy(row, s.Real[i*s.D:(i+1)*s.D])
		row[s.D+int(s.Labels[i])] = 1
	}
	return t
}

// Counts returns, for every unit of a binary set, the number of rows in
// which it is 1. It panics for a real-valued set (see [Set.Sums]).
func (s *Set) Counts() []int {
	if s.Real != nil {
		panic(fmt.Sprintf("data: Counts of real-valued set %s (use Sums)", s.Name))
	}
	c := make([]int, s.D)
	for i := 0; i < s.N; i++ {
		for j, v := range s.X[i*s.D : (i+1)*s.D] {
			c[j] += int(v)
		}
	}
	return c
}

// Sums returns, for every unit, the sum of its values over the rows,
// accumulated in float64 in row order (the count of ones for a binary set).
func (s *Set) Sums() []float64 {
	m := make([]float64, s.D)
	for i := 0; i < s.N; i++ {
		if s.Real != nil {
			for j, v := range s.Real[i*s.D : (i+1)*s.D] {
				m[j] += float64(v)
			}
			continue
		}
		for j, v := range s.X[i*s.D : (i+1)*s.D] {
			m[j] += float64(v)
		}
	}
	return m
}

// Marginals returns every unit's mean with symmetric pseudo-count
// smoothing: (count + pseudo) / (N + 2·pseudo). With pseudo > 0 every value
// is strictly inside (0, 1), as the base-rate model of AIS needs; with
// pseudo = 0 it is the plain mean (0 for every unit when N = 0).
func (s *Set) Marginals(pseudo float64) []float64 {
	return s.SmoothedMarginals(pseudo, pseudo)
}

// SmoothedMarginals returns every unit's smoothed mean
// (count + a) / (N + a + b): a pseudo-ones and b pseudo-zeros, i.e. the
// posterior mean under a Beta(a, b) prior. Salakhutdinov & Murray's (2008)
// base-rate model is SmoothedMarginals(5·B, 0) with B minibatches of 100.
// When N + a + b is 0 every value is 0. For a real-valued set the count is
// the unit's sum ([Set.Sums]), so that with a = b = 0 it is the mean.
func (s *Set) SmoothedMarginals(a, b float64) []float64 {
	var c []float64
	if s.Real != nil {
		c = s.Sums()
	} else {
		for _, v := range s.Counts() {
			c = append(c, float64(v))
		}
	}
	m := make([]float64, s.D)
	den := float64(s.N) + a + b
	if den == 0 {
		return m
	}
	for j, v := range c {
		m[j] = (v + a) / den
	}
	return m
}

// Density is the fraction of units that are 1 over the whole set (0 when
// the set is empty); for a real-valued set, the mean value (accumulated in
// float64 in order).
func (s *Set) Density() float64 {
	if s.Real != nil {
		if len(s.Real) == 0 {
			return 0
		}
		t := 0.0
		for _, v := range s.Real {
			t += float64(v)
		}
		return t / float64(len(s.Real))
	}
	if len(s.X) == 0 {
		return 0
	}
	n := 0
	for _, v := range s.X {
		n += int(v)
	}
	return float64(n) / float64(len(s.X))
}

// ClassCounts returns the number of rows of each class (nil if unlabelled).
func (s *Set) ClassCounts() []int {
	if s.Labels == nil {
		return nil
	}
	c := make([]int, s.NumClasses)
	for _, l := range s.Labels {
		if l >= 0 && int(l) < len(c) {
			c[l]++
		}
	}
	return c
}

// String is a one-line summary: name, size, density, classes and source.
func (s *Set) String() string {
	var b strings.Builder
	if s.Real != nil {
		fmt.Fprintf(&b, "%s: %d×%d real-valued, mean %.4f", s.Name, s.N, s.D, s.Density())
	} else {
		fmt.Fprintf(&b, "%s: %d×%d, density %.4f", s.Name, s.N, s.D, s.Density())
	}
	if s.Labels != nil {
		fmt.Fprintf(&b, ", %d classes %v", s.NumClasses, s.ClassCounts())
	}
	if s.LabelUnits > 0 {
		fmt.Fprintf(&b, ", last %d units one-hot labels", s.LabelUnits)
	}
	if s.Groups != nil {
		fmt.Fprintf(&b, ", %s", s.Groups.Describe())
	}
	fmt.Fprintf(&b, " (%s)", s.Source)
	return b.String()
}

var errEmpty = errors.New("empty input")
