package eval

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// Classification is the outcome of classifying labelled data.
type Classification struct {
	// Accuracy is the fraction of rows whose prediction equals the label.
	Accuracy float64
	// Pred holds the predicted class of each row.
	Pred []int
}

// labelled checks the inputs of the classifiers: n rows of D = X − L data
// units in x and n labels in [0, L).
func labelled(m *Model, x []uint8, n, L int, labels []int) (D int, err error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if m.Gaussian {
		return 0, errors.New("eval: classification with label units needs a binary model (this one has Gaussian visible units)")
	}
	if L < 1 || L >= m.X {
		return 0, fmt.Errorf("eval: %d label units for a model with %d visible units; want 1 ≤ L < X", L, m.X)
	}
	D = m.X - L
	if err := checkData(x, n, D); err != nil {
		return 0, err
	}
	if len(labels) != n {
		return 0, fmt.Errorf("eval: %d labels for %d rows", len(labels), n)
	}
	for r, y := range labels {
		if y < 0 || y >= L {
			return 0, fmt.Errorf("eval: row %d has label %d; want 0 ≤ label < %d", r, y, L)
		}
	}
	return D, nil
}

func argmax(v []float32) int {
	best := 0
	for k, x := range v {
		if x > v[best] {
			best = k
		}
	}
	return best
}

// ClassifyPaper classifies with the paper's rule. The model's last L
// visible units are one-hot label units; x holds n rows of the first D =
// X − L (data) units. With the label units set to 0.5, ĥ = σ(b + C x)
// (probabilities, not samples); each label unit scores σ(d_j + C_·j·ĥ) and
// the largest wins (ties: the lowest class). labels[r] ∈ [0, L) is row r's
// class.
func ClassifyPaper(ctx context.Context, m *Model, x []uint8, n, L int, labels []int, workers int) (*Classification, error) {
	D, err := labelled(m, x, n, L, labels)
	if err != nil {
		return nil, err
	}
	H := m.H
	// base = b + 0.5·Σ label rows of C.
	base := make([]float32, H)
	copy(base, m.HiddenBias)
	for y := 0; y < L; y++ {
		kernel.Axpy(base, 0.5, m.C[(D+y)*H:(D+y+1)*H])
	}
	// lt = the label rows transposed, H×L, for Affine.
	lt := make([]float32, H*L)
	kernel.Transpose(lt, m.C[D*H:], L, H)
	res := &Classification{Pred: make([]int, n)}
	chunks := (n + rowChunk - 1) / rowChunk
	workers = workerCount(workers, chunks)
	type scratch struct {
		a, out []float32
		idx    []int32
	}
	sc := make([]scratch, workers)
	for w := range sc {
		sc[w] = scratch{make([]float32, H), make([]float32, L), make([]int32, D)}
	}
	err = parallel(ctx, chunks, workers, func(w, c int) error {
		s := &sc[w]
		for r := c * rowChunk; r < min(n, (c+1)*rowChunk); r++ {
			act := activeIndices(s.idx, x[r*D:(r+1)*D])
			copy(s.a, base)
			kernel.SumRows(s.a, m.C, H, act, H)
			kernel.Sigmoid(s.a, s.a)
			kernel.Affine(s.out, m.VisibleBias[D:], s.a, lt, 1, H, L)
			// σ is increasing: the largest pre-activation has the largest σ.
			res.Pred[r] = argmax(s.out)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Accuracy = accuracy(res.Pred, labels)
	return res, nil
}

// ClassifyFreeEnergy classifies with p(y|x) ∝ exp(−F(x, y)): for each class the
// free energy of the data row with that one-hot label, and the smallest
// wins (ties: the lowest class). Inputs as for ClassifyPaper.
func ClassifyFreeEnergy(ctx context.Context, m *Model, x []uint8, n, L int, labels []int, workers int) (*Classification, error) {
	D, err := labelled(m, x, n, L, labels)
	if err != nil {
		return nil, err
	}
	H := m.H
	res := &Classification{Pred: make([]int, n)}
	chunks := (n + rowChunk - 1) / rowChunk
	workers = workerCount(workers, chunks)
	type scratch struct {
		a, t []float32
		idx  []int32
	}
	sc := make([]scratch, workers)
	for w := range sc {
		sc[w] = scratch{make([]float32, H), make([]float32, H), make([]int32, D)}
	}
	err = parallel(ctx, chunks, workers, func(w, c int) error {
		s := &sc[w]
		for r := c * rowChunk; r < min(n, (c+1)*rowChunk); r++ {
			act := activeIndices(s.idx, x[r*D:(r+1)*D])
			copy(s.a, m.HiddenBias)
			kernel.SumRows(s.a, m.C, H, act, H)
			// −F(x, y) = dᵀx + d_y + Σ_i softplus(a_i + C_{D+y,i}); dᵀx is common.
			best, bestV := 0, math.Inf(-1)
			for y := 0; y < L; y++ {
				copy(s.t, s.a)
				kernel.Axpy(s.t, 1, m.C[(D+y)*H:(D+y+1)*H])
				kernel.Softplus(s.t, s.t)
				v := float64(m.VisibleBias[D+y]) + sum64(s.t)
				if v > bestV {
					best, bestV = y, v
				}
			}
			res.Pred[r] = best
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Accuracy = accuracy(res.Pred, labels)
	return res, nil
}

func accuracy(pred, labels []int) float64 {
	if len(pred) == 0 {
		return math.NaN()
	}
	ok := 0
	for r, p := range pred {
		if p == labels[r] {
			ok++
		}
	}
	return float64(ok) / float64(len(pred))
}
