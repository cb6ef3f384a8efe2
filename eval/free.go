package eval

import (
	"context"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// rowChunk is the number of data rows one parallel piece handles.
const rowChunk = 128

// FreeEnergies returns the free energy F of each row of rows, so that
// p(row) = exp(−F(row))/Z: binary rows (rows.X) for binary and categorical
// units, real-valued ones (rows.Real) for Gaussian units (unit.Type.Accepts
// says which), of m.X units each. For binary and categorical units
//
//	F(x) = −dᵀx − Σ_i softplus(b_i + C_i·x),
//
// the hidden pre-activation a sum of the rows of C named by the units on
// (float32); a categorical row must have one unit on in each of the model's
// groups. For Gaussian units
//
//	F(v) = Σ_i (v_i − b_i)²/(2σ_i²) − Σ_j softplus(c_j + Σ_i C_ij v_i/σ_i²),
//
// the hidden pre-activations one dense float32 product per block of rows,
// and p(v) a density. The visible term and the sum over hidden units are
// taken in float64. Rows are cut into fixed blocks, so the result does not
// depend on the number of workers.
func FreeEnergies(ctx context.Context, m *Model, rows *data.Set, workers int) ([]float64, error) {
	u, err := m.units()
	if err != nil {
		return nil, err
	}
	if err := u.checkRows(rows, 0); err != nil {
		return nil, err
	}
	return freeEnergies(ctx, m, u, rows, workers)
}

// freeEnergies is FreeEnergies on checked rows.
func freeEnergies(ctx context.Context, m *Model, u visible, rows *data.Set, workers int) ([]float64, error) {
	n := rows.N
	out := make([]float64, n)
	chunks := (n + rowChunk - 1) / rowChunk
	workers = workerCount(workers, chunks)
	type scratch struct {
		a []float32
		rowScratch
	}
	sc := make([]scratch, workers)
	for w := range sc {
		sc[w].a = make([]float32, rowChunk*m.H)
	}
	err := parallel(ctx, chunks, workers, func(w, c int) error {
		s := &sc[w]
		lo, hi := c*rowChunk, min(n, (c+1)*rowChunk)
		u.hiddenInputs(s.a, rows, lo, hi, &s.rowScratch)
		for r := lo; r < hi; r++ {
			a := s.a[(r-lo)*m.H : (r-lo+1)*m.H]
			kernel.Softplus(a, a)
			out[r] = u.visibleEnergy(rows, r) - sum64(a)
		}
		return nil
	})
	return out, err
}

// MeanFreeEnergy returns the mean of F over the rows (FreeEnergies),
// summed in float64 in row order.
func MeanFreeEnergy(ctx context.Context, m *Model, rows *data.Set, workers int) (float64, error) {
	f, err := FreeEnergies(ctx, m, rows, workers)
	if err != nil {
		return math.NaN(), err
	}
	return mean(f), nil
}

// AverageNLL returns the average negative log-likelihood of the rows under
// the model, mean F + log Z in nats per row, for a log Z that is exact
// (ExactLogZ) or estimated (AIS). The average log-probability is its
// negative. For Gaussian units it is a negative log-density, which can be
// negative and depends on the scale of the data: rows scaled by s have
// log-densities lower by X·log s.
func AverageNLL(ctx context.Context, m *Model, logZ float64, rows *data.Set, workers int) (float64, error) {
	mf, err := MeanFreeEnergy(ctx, m, rows, workers)
	if err != nil {
		return math.NaN(), err
	}
	return mf + logZ, nil
}

// ExactNLL returns the exact average negative log-likelihood of the rows:
// mean F + log Z with log Z from ExactLogZ.
func ExactNLL(ctx context.Context, m *Model, rows *data.Set, workers int) (float64, error) {
	u, err := m.units()
	if err != nil {
		return math.NaN(), err
	}
	if err := u.checkRows(rows, 0); err != nil {
		return math.NaN(), err
	}
	lz, err := ExactLogZ(ctx, m, workers)
	if err != nil {
		return math.NaN(), err
	}
	return AverageNLL(ctx, m, lz, rows, workers)
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
