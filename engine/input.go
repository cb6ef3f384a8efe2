package engine

import (
	"errors"
	"fmt"
	"math"
)

// Data is a training set as the engine consumes it: N rows of D bytes (0
// or 1) for binary visible units, or N rows of D real values for Gaussian
// ones, and optional labels in 0..Classes−1. With Classes > 0 the model
// gets one visible unit per class after the D data units (classification
// mode, binary models only), set one-hot from the label.
type Data struct {
	N, D    int
	X       []uint8   // N×D row-major, binary data (nil for real-valued data)
	Real    []float32 // N×D row-major, real-valued data (nil for binary data)
	Labels  []int32   // N labels, or nil
	Classes int       // label units (0: generative mode)
}

// Validate checks the shape and values of d; the error names the row.
func (d *Data) Validate() error {
	if d.N <= 0 || d.D <= 0 {
		return fmt.Errorf("data: %d rows of %d units: need at least one of each", d.N, d.D)
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

// checkData checks that d suits the visible units of c: Gaussian units
// train on d.Real and have no label units; binary units train on d.X.
func (c Config) checkData(d *Data) error {
	if c.Visible == Gaussian {
		if d.Real == nil {
			return errors.New("visible gaussian needs real-valued data (Data.Real)")
		}
		if d.Classes > 0 {
			return errors.New("visible gaussian trains generative models only (no label units)")
		}
		return nil
	}
	if d.X == nil {
		return errors.New("binary visible units need binary data (Data.X); real-valued data need visible gaussian")
	}
	return nil
}
