package eval

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// Classification is the outcome of classifying labelled data.
type Classification struct {
	// Accuracy is the fraction of rows whose prediction equals the label.
	Accuracy float64
	// Pred holds the predicted class of each row.
	Pred []int
}

// labelled checks the inputs of the classifiers: rows of the model's data
// units, the model's last L = X − rows.D visible units being its label
// units, and a label in [0, L) for every row.
func labelled(m *Model, rows *data.Set) (labels []int, err error) {
	u, err := m.units()
	if err != nil {
		return nil, err
	}
	if rows == nil {
		return nil, errors.New("eval: no rows to classify")
	}
	L := m.X - rows.D
	if L < 1 || rows.D < 1 {
		return nil, fmt.Errorf("eval: %d label units for a model with %d visible units (rows of %d data units); want 1 ≤ L < X", L, m.X, rows.D)
	}
	if err := u.labels(L); err != nil {
		return nil, err
	}
	if err := u.checkRows(rows, L); err != nil {
		return nil, err
	}
	if len(rows.Labels) != rows.N {
		return nil, fmt.Errorf("eval: %s has %d labels for %d rows", rows.Name, len(rows.Labels), rows.N)
	}
	labels = make([]int, rows.N)
	for r, y := range rows.Labels {
		if y < 0 || int(y) >= L {
			return nil, fmt.Errorf("eval: %s: row %d has label %d; want 0 ≤ label < %d", rows.Name, r, y, L)
		}
		labels[r] = int(y)
	}
	return labels, nil
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

// ClassifyPaper classifies the rows with the paper's rule. The model's
// last L visible units are one-hot label units (of a categorical model:
// its last group); rows holds the D = X − L data units and the labels
// (rows.Labels, each in [0, L)); the model's units are binary or
// categorical. With the label units set to 0.5, ĥ = σ(b + C x)
// (probabilities, not samples); each label unit scores σ(d_j + C_·j·ĥ) and
// the largest wins (ties: the lowest class). For a categorical model the
// label group's softmax of the same inputs has the same largest unit.
func ClassifyPaper(ctx context.Context, m *Model, rows *data.Set, workers int) (*Classification, error) {
	labels, err := labelled(m, rows)
	if err != nil {
		return nil, err
	}
	H, D, n, x := m.H, rows.D, rows.N, rows.X
	L := m.X - D
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

// ClassifyFreeEnergy classifies the rows with p(y|x) ∝ exp(−F(x, y)): for
// each class the free energy of the data row with that one-hot label, and
// the smallest wins (ties: the lowest class). Inputs as for ClassifyPaper.
func ClassifyFreeEnergy(ctx context.Context, m *Model, rows *data.Set, workers int) (*Classification, error) {
	labels, err := labelled(m, rows)
	if err != nil {
		return nil, err
	}
	H, D, n, x := m.H, rows.D, rows.N, rows.X
	L := m.X - D
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
