package eval

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// Gaussian–Bernoulli models: free energies and NLL of real-valued rows.

// checkRealData validates n rows of X finite real values.
func checkRealData(v []float32, n, X int) error {
	if n < 0 {
		return fmt.Errorf("eval: negative number of rows %d", n)
	}
	if X > 0 && n > math.MaxInt/X {
		return fmt.Errorf("eval: %d rows of %d units is too large", n, X)
	}
	if len(v) != n*X {
		return fmt.Errorf("eval: real-valued data has %d values, want %d rows × %d units = %d", len(v), n, X, n*X)
	}
	for k, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("eval: data row %d unit %d has value %v; want a finite number", k/X, k%X, x)
		}
	}
	return nil
}

// gaussianOnly checks that m is a valid Gaussian model (fn names the caller).
func gaussianOnly(m *Model, fn string) error {
	if err := m.Validate(); err != nil {
		return err
	}
	if !m.Gaussian {
		return fmt.Errorf("eval: %s takes real-valued rows and a model with Gaussian visible units; this model's are binary", fn)
	}
	return nil
}

// precisions returns 1/σ_i² of a Gaussian model in float32 (the scale of
// the visible states in the hidden pre-activation) and in float64.
func precisions(m *Model) ([]float32, []float64) {
	p32, p64 := make([]float32, m.X), make([]float64, m.X)
	for i := range p64 {
		s := m.sigma(i)
		p64[i] = 1 / (s * s)
		p32[i] = float32(p64[i])
	}
	return p32, p64
}

// FreeEnergiesReal returns the free energy of each of the n real-valued
// rows of v (n×X, row-major) under a Gaussian model (see Model):
//
//	F(v) = Σ_i (v_i − b_i)²/(2σ_i²) − Σ_j softplus(c_j + Σ_i C_ij v_i/σ_i²),
//
// so that p(v) = exp(−F(v))/Z is a density. The hidden pre-activations
// are one dense float32 product per block of rows (kernel.Affine of the
// rows scaled by 1/σ²); the quadratic term and the sums are taken in
// float64. Rows are cut into fixed blocks, so the result does not depend
// on the number of workers.
func FreeEnergiesReal(ctx context.Context, m *Model, v []float32, n, workers int) ([]float64, error) {
	if err := gaussianOnly(m, "FreeEnergiesReal"); err != nil {
		return nil, err
	}
	if err := checkRealData(v, n, m.X); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	chunks := (n + rowChunk - 1) / rowChunk
	workers = workerCount(workers, chunks)
	p32, p64 := precisions(m)
	type scratch struct{ s, a []float32 }
	sc := make([]scratch, workers)
	for w := range sc {
		sc[w] = scratch{make([]float32, rowChunk*m.X), make([]float32, rowChunk*m.H)}
	}
	err := parallel(ctx, chunks, workers, func(w, c int) error {
		s := &sc[w]
		lo, hi := c*rowChunk, min(n, (c+1)*rowChunk)
		rows := v[lo*m.X : hi*m.X]
		for k, x := range rows {
			s.s[k] = x * p32[k%m.X]
		}
		kernel.Affine(s.a, m.HiddenBias, s.s, m.C, hi-lo, m.X, m.H)
		for r := lo; r < hi; r++ {
			a := s.a[(r-lo)*m.H : (r-lo+1)*m.H]
			kernel.Softplus(a, a)
			out[r] = quadratic(v[r*m.X:(r+1)*m.X], m.VisibleBias, p64) - sum64(a)
		}
		return nil
	})
	return out, err
}

// quadratic returns Σ_i (v_i − b_i)²·p_i/2 in float64 (p = 1/σ²).
func quadratic(v, b []float32, p []float64) float64 {
	var q float64
	for i, x := range v {
		d := float64(x) - float64(b[i])
		q += d * d * p[i]
	}
	return q / 2
}

// MeanFreeEnergyReal is MeanFreeEnergy for real-valued rows of a Gaussian
// model (FreeEnergiesReal).
func MeanFreeEnergyReal(ctx context.Context, m *Model, v []float32, n, workers int) (float64, error) {
	f, err := FreeEnergiesReal(ctx, m, v, n, workers)
	if err != nil {
		return math.NaN(), err
	}
	return mean(f), nil
}

// AverageNLLReal returns the average negative log-density of the n
// real-valued rows of v under a Gaussian model, mean F(v) + log Z in nats
// per row, for a log Z that is exact (ExactLogZ) or estimated (AIS). It is
// a density, not a probability, so it can be negative, and it depends on
// the scale of the data: rows scaled by s have log-densities lower by
// X·log s.
func AverageNLLReal(ctx context.Context, m *Model, logZ float64, v []float32, n, workers int) (float64, error) {
	mf, err := MeanFreeEnergyReal(ctx, m, v, n, workers)
	if err != nil {
		return math.NaN(), err
	}
	return mf + logZ, nil
}

// ExactNLLReal returns the exact average negative log-density of the n
// real-valued rows of v under a Gaussian model: mean F(v) + log Z with log Z
// from ExactLogZ (at most MaxExactBits hidden units).
func ExactNLLReal(ctx context.Context, m *Model, v []float32, n, workers int) (float64, error) {
	if err := gaussianOnly(m, "ExactNLLReal"); err != nil {
		return math.NaN(), err
	}
	lz, err := ExactLogZ(ctx, m, workers)
	if err != nil {
		return math.NaN(), err
	}
	return AverageNLLReal(ctx, m, lz, v, n, workers)
}

// BaseMean returns the mean of each of the X units over the n real-valued
// rows of v (summed in float64): the visible biases (means) of the
// Gaussian base model that AIS and RAISE start from for a Gaussian model
// (AISConfig.BaseBias).
func BaseMean(v []float32, n, X int) ([]float32, error) {
	if X <= 0 {
		return nil, fmt.Errorf("eval: base mean needs X > 0 units (have %d)", X)
	}
	if n == 0 {
		return nil, errors.New("eval: base mean needs at least one row")
	}
	if err := checkRealData(v, n, X); err != nil {
		return nil, err
	}
	s := make([]float64, X)
	for r := 0; r < n; r++ {
		for i, x := range v[r*X : (r+1)*X] {
			s[i] += float64(x)
		}
	}
	mu := make([]float32, X)
	for i := range mu {
		mu[i] = float32(s[i] / float64(n))
	}
	return mu, nil
}
