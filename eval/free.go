package eval

import (
	"context"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// rowChunk is the number of data rows one parallel piece handles.
const rowChunk = 128

// FreeEnergies returns F(x) = −dᵀx − Σ_i softplus(b_i + C_i·x) for each of
// the n binary rows of x (n×X, row-major, values 0 or 1). The hidden
// pre-activation is a sum of the rows of C named by the active visible units
// (float32); the sum over hidden units is taken in float64.
func FreeEnergies(ctx context.Context, m *Model, x []uint8, n, workers int) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := m.binaryOnly("FreeEnergies", "FreeEnergiesReal"); err != nil {
		return nil, err
	}
	if err := checkData(x, n, m.X); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	chunks := (n + rowChunk - 1) / rowChunk
	workers = workerCount(workers, chunks)
	type scratch struct {
		a   []float32
		idx []int32
	}
	sc := make([]scratch, workers)
	for w := range sc {
		sc[w] = scratch{make([]float32, m.H), make([]int32, m.X)}
	}
	err := parallel(ctx, chunks, workers, func(w, c int) error {
		s := &sc[w]
		for r := c * rowChunk; r < min(n, (c+1)*rowChunk); r++ {
			out[r] = freeEnergy(m, x[r*m.X:(r+1)*m.X], s.a, s.idx)
		}
		return nil
	})
	return out, err
}

// freeEnergy computes F(x) for one binary row using scratch a (H) and idx (X).
func freeEnergy(m *Model, row []uint8, a []float32, idx []int32) float64 {
	act := activeIndices(idx, row)
	copy(a, m.HiddenBias)
	kernel.SumRows(a, m.C, m.H, act, m.H)
	kernel.Softplus(a, a)
	var dx float64
	for _, j := range act {
		dx += float64(m.VisibleBias[j])
	}
	return -dx - sum64(a)
}

// MeanFreeEnergy returns the mean of F(x) over the n rows of x, summed in
// float64 in row order.
func MeanFreeEnergy(ctx context.Context, m *Model, x []uint8, n, workers int) (float64, error) {
	f, err := FreeEnergies(ctx, m, x, n, workers)
	if err != nil {
		return math.NaN(), err
	}
	return mean(f), nil
}

// AverageNLL returns the average negative log-likelihood of the n rows of x
// under the model, mean F(x) + log Z, for a log Z that is exact (ExactLogZ)
// or estimated (AIS). The average log-probability is its negative.
func AverageNLL(ctx context.Context, m *Model, logZ float64, x []uint8, n, workers int) (float64, error) {
	mf, err := MeanFreeEnergy(ctx, m, x, n, workers)
	if err != nil {
		return math.NaN(), err
	}
	return mf + logZ, nil
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
