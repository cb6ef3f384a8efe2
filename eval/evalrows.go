package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/ncg-rbm/ncg/data"
)

// evalRows are the n rows of d units an evaluation reads: binary (x) for a
// binary model, real-valued (v) for a Gaussian one.
type evalRows struct {
	n, d int
	x    []uint8
	v    []float32
}

// rowsOf returns the rows of s that m reads: s.X, or real (s's real-valued
// rows, named what for errors) for a Gaussian model.
func rowsOf(m *Model, s *data.Set, real []float32, what string) (evalRows, error) {
	if !m.Gaussian {
		return evalRows{n: s.N, d: s.D, x: s.X}, nil
	}
	if real == nil {
		return evalRows{}, fmt.Errorf("eval: a model with Gaussian visible units needs real-valued rows (Sets.%s)", what)
	}
	if len(real) != s.N*s.D {
		return evalRows{}, fmt.Errorf("eval: Sets.%s has %d values for %d rows × %d units", what, len(real), s.N, s.D)
	}
	return evalRows{n: s.N, d: s.D, v: real}, nil
}

// pick returns the rows named by idx, in that order.
func (r evalRows) pick(idx []int) evalRows {
	out := evalRows{n: len(idx), d: r.d}
	for _, j := range idx {
		if r.v != nil {
			out.v = append(out.v, r.v[j*r.d:(j+1)*r.d]...)
		} else {
			out.x = append(out.x, r.x[j*r.d:(j+1)*r.d]...)
		}
	}
	return out
}

// base returns the AIS base model fitted to the rows: DataBaseRate, or
// BaseMean for real-valued rows.
func (r evalRows) base() ([]float32, error) {
	if r.v != nil {
		return BaseMean(r.v, r.n, r.d)
	}
	return DataBaseRate(r.x, r.n, r.d)
}

// averageNLL is AverageNLL or AverageNLLReal.
func (r evalRows) averageNLL(ctx context.Context, m *Model, logZ float64, workers int) (float64, error) {
	if r.v != nil {
		return AverageNLLReal(ctx, m, logZ, r.v, r.n, workers)
	}
	return AverageNLL(ctx, m, logZ, r.x, r.n, workers)
}

// freeEnergies is FreeEnergies or FreeEnergiesReal.
func (r evalRows) freeEnergies(ctx context.Context, m *Model, workers int) ([]float64, error) {
	if r.v != nil {
		return FreeEnergiesReal(ctx, m, r.v, r.n, workers)
	}
	return FreeEnergies(ctx, m, r.x, r.n, workers)
}

// raise is RAISE or RAISEReal.
func (r evalRows) raise(ctx context.Context, m *Model, cfg RAISEConfig) (*RAISEResult, error) {
	if r.v != nil {
		return RAISEReal(ctx, m, r.v, r.n, cfg)
	}
	return RAISE(ctx, m, r.x, r.n, cfg)
}

// errGaussianLabels: label units are binary; a Gaussian model has none.
var errGaussianLabels = errors.New("eval: label units (and accuracy) need a binary model; this one has Gaussian visible units")
