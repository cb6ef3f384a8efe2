package data

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// RealMode says whether and how a set's values are made real-valued.
type RealMode string

// Real-valued modes ([Options.Real]).
const (
	// RealNone, the default, binarises grey-level images (MNIST, IDX files)
	// and leaves the values of .npy and CSV files as read.
	RealNone RealMode = ""
	// RealUnit maps values to [0, 1]: grey levels g of images to g/255;
	// the values of .npy and CSV files, per unit, to
	// (x − min)/(max − min) with the training set's minimum and maximum.
	RealUnit RealMode = "unit"
	// RealStandardise maps values, per unit, to (x − μ)/σ with the mean μ
	// and standard deviation σ of the training set.
	RealStandardise RealMode = "standardise"
)

// ParseRealMode returns the mode a flag value names: "" or "binary"
// (RealNone), "unit", "standardise" or "standardize".
func ParseRealMode(s string) (RealMode, error) {
	switch strings.ToLower(s) {
	case "", "binary":
		return RealNone, nil
	case "unit":
		return RealUnit, nil
	case "standardise", "standardize":
		return RealStandardise, nil
	}
	return "", fmt.Errorf("data: unknown real-valued mode %q (want unit or standardise)", s)
}

// Scaling records how the real values of a set were made from the input
// (grey levels, or the numbers of a file): unit j's value is
//
//	value = (input − Offset[j]) / Scale[j]
//
// computed in float64 and rounded once to float32. For [RealStandardise]
// Offset is the training set's mean and Scale its standard deviation; for
// [RealUnit] Offset is 0 and Scale 255 (grey levels), or the training set's
// minimum and max − min (files). A unit whose training values are all equal
// is listed in Constant and gets Offset = that value and Scale = 1, so it is
// exactly 0 on the training set and input − value elsewhere.
//
// A Scaling is shared, read-only, by the sets made with it (training and
// test set, subsets); it is stored as JSON in a run directory so that
// samples and densities can be mapped back to the input scale.
type Scaling struct {
	Mode     RealMode  `json:"mode"`
	Offset   []float64 `json:"offset"`
	Scale    []float64 `json:"scale"`
	Constant []int     `json:"constant,omitempty"`
	// From says which rows the statistics came from.
	From string `json:"from"`
}

// Units is the number of units the scaling covers (0 for nil).
func (c *Scaling) Units() int {
	if c == nil {
		return 0
	}
	return len(c.Scale)
}

// ToInput maps real values back to the input scale: src holds whole rows
// of Units() values (a sample, or many), and dst[k] becomes
// src[k]·Scale[j] + Offset[j] for the unit j of position k, computed in
// float64 (the product rounded before the sum) and rounded to float32.
// dst and src may be the same slice. A nil Scaling (values as read)
// copies. It panics if the lengths differ or are not whole rows.
func (c *Scaling) ToInput(dst, src []float32) {
	if len(dst) != len(src) {
		panic(fmt.Sprintf("data: Scaling.ToInput: len(dst) = %d, len(src) = %d", len(dst), len(src)))
	}
	if c == nil {
		copy(dst, src)
		return
	}
	d := len(c.Scale)
	if d == 0 || len(src)%d != 0 {
		panic(fmt.Sprintf("data: Scaling.ToInput: %d values are not whole rows of %d units", len(src), d))
	}
	for k, v := range src {
		j := k % d
		dst[k] = float32(float64(float64(v)*c.Scale[j]) + c.Offset[j])
	}
}

// LogScale is Σⱼ log Scale[j], the log-determinant of the map from scaled
// values back to the input: a log density of a row in scaled units minus
// LogScale is its log density in input units. It is 0 for nil.
func (c *Scaling) LogScale() float64 {
	if c == nil {
		return 0
	}
	s := 0.0
	for _, v := range c.Scale {
		s += math.Log(v)
	}
	return s
}

// Validate checks that the scaling covers d units with finite offsets,
// positive finite scales and constant units in range.
func (c *Scaling) Validate(d int) error {
	if c.Mode != RealUnit && c.Mode != RealStandardise {
		return fmt.Errorf("scaling mode %q (want unit or standardise)", c.Mode)
	}
	if len(c.Offset) != d || len(c.Scale) != d {
		return fmt.Errorf("scaling of %d offsets and %d scales for %d units", len(c.Offset), len(c.Scale), d)
	}
	for j := range d {
		if !finite(c.Offset[j]) || !finite(c.Scale[j]) || c.Scale[j] <= 0 {
			return fmt.Errorf("scaling of unit %d: offset %v, scale %v", j, c.Offset[j], c.Scale[j])
		}
	}
	for _, j := range c.Constant {
		if j < 0 || j >= d {
			return fmt.Errorf("scaling: constant unit %d not in 0..%d", j, d-1)
		}
	}
	return nil
}

// describe is the scaling for Set.Source.
func (c *Scaling) describe() string {
	var b strings.Builder
	switch {
	case c.Mode == RealStandardise:
		fmt.Fprintf(&b, "standardised per unit, (x − mean)/sd with the mean and sd of %s", c.From)
	case c.From == "":
		b.WriteString("grey levels scaled to [0, 1] (level/255)")
	default:
		fmt.Fprintf(&b, "scaled per unit to [0, 1], (x − min)/(max − min) with the min and max of %s", c.From)
	}
	if n := len(c.Constant); n > 0 {
		fmt.Fprintf(&b, "; %d units constant there (offset that value, scale 1)", n)
	}
	return b.String()
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// fitScaling computes the scaling of mode from the n×d input values x
// (row-major): every sum is a float64 accumulation over the rows in order
// 0..n−1, the mean is sum/n and the standard deviation is
// sqrt(Σ (x − mean)² / n) (each square rounded to float64 before it is
// added), the population value as NumPy's std computes it. grey says x are
// grey levels, which RealUnit divides by 255 rather than by the range.
func fitScaling[T uint8 | float64](x []T, n, d int, mode RealMode, grey bool, from string) (*Scaling, error) {
	c := &Scaling{Mode: mode, Offset: make([]float64, d), Scale: make([]float64, d)}
	if mode == RealUnit && grey {
		for j := range d {
			c.Scale[j] = 255
		}
		return c, nil
	}
	if mode != RealUnit && mode != RealStandardise {
		return nil, fmt.Errorf("data: unknown real-valued mode %q (want unit or standardise)", mode)
	}
	if n == 0 {
		return nil, errors.New("data: " + from + ": no rows to compute a scaling from")
	}
	c.From = from
	lo, hi := make([]float64, d), make([]float64, d)
	for j := range d {
		lo[j], hi[j] = float64(x[j]), float64(x[j])
	}
	sum := make([]float64, d)
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			f := float64(v)
			sum[j] += f
			lo[j], hi[j] = min(lo[j], f), max(hi[j], f)
		}
	}
	constant := make([]bool, d)
	for j := range d {
		if lo[j] == hi[j] {
			constant[j] = true
			c.Constant = append(c.Constant, j)
			c.Offset[j], c.Scale[j] = lo[j], 1
		}
	}
	if mode == RealUnit {
		for j := range d {
			if !constant[j] {
				c.Offset[j], c.Scale[j] = lo[j], hi[j]-lo[j]
			}
		}
	} else {
		ss := make([]float64, d)
		for j := range d {
			sum[j] /= float64(n)
		}
		for i := range n {
			for j, v := range x[i*d : (i+1)*d] {
				e := float64(v) - sum[j]
				ss[j] += float64(e * e)
			}
		}
		for j := range d {
			if !constant[j] {
				c.Offset[j], c.Scale[j] = sum[j], math.Sqrt(ss[j]/float64(n))
			}
		}
	}
	for j := range d {
		if !finite(c.Offset[j]) || !finite(c.Scale[j]) || c.Scale[j] <= 0 {
			return nil, fmt.Errorf("data: %s: unit %d: values too large to scale (offset %v, scale %v)", from, j, c.Offset[j], c.Scale[j])
		}
	}
	return c, nil
}

// applyScaling returns the n×d real values of x: float32((x − Offset[j]) /
// Scale[j]), or float32(x) for a nil scaling. A value that does not fit a
// float32 is an error naming its row and unit (0-based) in name.
func applyScaling[T uint8 | float64](x []T, d int, c *Scaling, name string) ([]float32, error) {
	out := make([]float32, len(x))
	for k, v := range x {
		f := float64(v)
		if c != nil {
			j := k % d
			f = (f - c.Offset[j]) / c.Scale[j]
		}
		out[k] = float32(f)
		if math.IsInf(float64(out[k]), 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("%s: row %d unit %d: value %v is out of float32 range once scaled", name, k/d, k%d, float64(v))
		}
	}
	return out, nil
}
