package engine

import (
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
)

// Data is a training set as the engine consumes it: N rows of D bytes (0
// or 1) for binary and categorical visible units, or N rows of D real
// values for Gaussian ones, and optional labels in 0..Classes−1. With
// Classes > 0 the model gets one visible unit per class after the D data
// units (classification mode), set one-hot from the label.
type Data struct {
	N, D    int
	X       []uint8   // N×D row-major, binary data (nil for real-valued data)
	Real    []float32 // N×D row-major, real-valued data (nil for binary data)
	Labels  []int32   // N labels, or nil
	Classes int       // label units (0: generative mode)
	// Groups, for binary data whose units are one-hot categorical
	// attributes, are their groups (data.Groups; categorical units need
	// them).
	Groups data.Groups
}

// Validate checks the shape and values of d; the error names the row.
func (d *Data) Validate() error {
	if d.N <= 0 || d.D <= 0 {
		return fmt.Errorf("data: %d rows of %d units: need at least one of each", d.N, d.D)
	}
	if d.Real != nil && d.X != nil {
		return fmt.Errorf("data: both binary and real-valued rows")
	}
	if d.Real != nil {
		if len(d.Real) != d.N*d.D {
			return fmt.Errorf("data: %d real values for %d rows of %d units", len(d.Real), d.N, d.D)
		}
		for i, v := range d.Real {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("data: row %d, unit %d has value %v, want a finite number", i/d.D, i%d.D, v)
			}
		}
	}
	if d.Real == nil || d.X != nil {
		if len(d.X) != d.N*d.D {
			return fmt.Errorf("data: %d bytes for %d rows of %d units", len(d.X), d.N, d.D)
		}
	}
	for i, v := range d.X {
		if v > 1 {
			return fmt.Errorf("data: row %d, unit %d has value %d, want 0 or 1", i/d.D, i%d.D, v)
		}
	}
	if d.Groups != nil {
		if d.X == nil {
			return fmt.Errorf("data: categorical groups of real-valued rows")
		}
		if err := d.Groups.Check(d.D); err != nil {
			return err
		}
	}
	if d.Classes < 0 {
		return fmt.Errorf("data: %d classes", d.Classes)
	}
	if d.Classes > 0 {
		if len(d.Labels) != d.N {
			return fmt.Errorf("data: %d labels for %d rows", len(d.Labels), d.N)
		}
		for i, l := range d.Labels {
			if l < 0 || int(l) >= d.Classes {
				return fmt.Errorf("data: row %d has label %d, want 0..%d", i, l, d.Classes-1)
			}
		}
	}
	return nil
}

// checkData checks that d suits the visible units of c (unit.Type.Accepts,
// and what the type itself refuses, such as label units).
func (c Config) checkData(d *Data) error {
	s := &data.Set{Name: "the training data", N: d.N, D: d.D, X: d.X, Real: d.Real, Groups: d.Groups}
	if err := c.Visible.Accepts(s); err != nil {
		return err
	}
	return unitsOf(c.Visible).checkData(d)
}
