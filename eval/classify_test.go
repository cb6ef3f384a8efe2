package eval

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/data"
)

// constructedClassifier has 3 data units, 3 label units and 3 hidden
// units: hidden unit k links data unit k and label k, so that a row with
// data unit k on is of class k.
func constructedClassifier() *Model {
	const D, L, H = 3, 3, 3
	m := &Model{H: H, X: D + L, C: make([]float32, (D+L)*H), HiddenBias: make([]float32, H), VisibleBias: make([]float32, D+L)}
	for k := 0; k < 3; k++ {
		m.C[k*H+k] = 5
		m.C[(D+k)*H+k] = 5
		m.HiddenBias[k] = -5
	}
	return m
}

// TestClassifyConstructed: hidden unit k links data unit k and label k, so
// the active data unit names the class under both rules.
func TestClassifyConstructed(t *testing.T) {
	const L = 3
	m := constructedClassifier()
	x := []uint8{1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0}
	labels := []int{0, 1, 2, 0} // the last row is wrong on purpose
	for name, f := range map[string]func(context.Context, *Model, *data.Set, int) (*Classification, error){
		"paper": ClassifyPaper, "free energy": ClassifyFreeEnergy,
	} {
		res, err := f(context.Background(), m, labelledRows(x, 4, 3, labels, L), 2)
		if err != nil {
			t.Fatal(err)
		}
		want := []int{0, 1, 2, 1}
		for r := range want {
			if res.Pred[r] != want[r] {
				t.Errorf("%s: row %d predicted %d, want %d", name, r, res.Pred[r], want[r])
			}
		}
		if res.Accuracy != 0.75 {
			t.Errorf("%s: accuracy %v, want 0.75", name, res.Accuracy)
		}
	}
	if _, err := ClassifyPaper(context.Background(), m, labelledRows(x, 4, 3, []int{0, 1, 3, 0}, 4), 1); err == nil || !strings.Contains(err.Error(), "label 3") {
		t.Errorf("bad label: %v", err)
	}
	if _, err := ClassifyFreeEnergy(context.Background(), m, labelledRows(nil, 0, 6, nil, 3), 1); err == nil {
		t.Error("L = 0 accepted")
	}
}

// TestClassifyBruteForce compares both rules with float64 computations from
// their definitions on every data vector of a random model.
func TestClassifyBruteForce(t *testing.T) {
	const D, L, H = 6, 3, 5
	for seed := uint64(1); seed <= 4; seed++ {
		m := randomModel(D+L, H, 1.5, seed)
		n := 1 << D
		x := make([]uint8, n*D)
		labels := make([]int, n)
		for r := 0; r < n; r++ {
			for j := 0; j < D; j++ {
				x[r*D+j] = uint8(r >> j & 1)
			}
			labels[r] = r % L
		}
		rows := labelledRows(x, n, D, labels, L)
		paper, err := ClassifyPaper(context.Background(), m, rows, 3)
		if err != nil {
			t.Fatal(err)
		}
		free, err := ClassifyFreeEnergy(context.Background(), m, rows, 2)
		if err != nil {
			t.Fatal(err)
		}
		okP, okE := 0, 0
		for r := 0; r < n; r++ {
			row := x[r*D : (r+1)*D]
			// Exact: p(y|x) ∝ exp(−F(x, y)), the hidden units summed out.
			full := make([]uint8, D+L)
			copy(full, row)
			var negF [L]float64
			for y := 0; y < L; y++ {
				clear(full[D:])
				full[D+y] = 1
				negF[y] = -bruteFreeEnergy(m, full)
			}
			// Paper: label units at 0.5, mean-field hidden, label scores.
			var score [L]float64
			for y := 0; y < L; y++ {
				score[y] = float64(m.VisibleBias[D+y])
			}
			for i := 0; i < H; i++ {
				a := float64(m.HiddenBias[i])
				for j := 0; j < D; j++ {
					a += float64(row[j]) * float64(m.C[j*H+i])
				}
				for y := 0; y < L; y++ {
					a += 0.5 * float64(m.C[(D+y)*H+i])
				}
				hi := 1 / (1 + math.Exp(-a))
				for y := 0; y < L; y++ {
					score[y] += float64(m.C[(D+y)*H+i]) * hi
				}
			}
			if p := free.Pred[r]; negF[p] < maxOf(negF[:])-1e-5 {
				t.Errorf("seed %d row %d: free-energy rule picked %d, −F = %v", seed, r, p, negF)
			}
			if p := paper.Pred[r]; score[p] < maxOf(score[:])-1e-5 {
				t.Errorf("seed %d row %d: paper rule picked %d, scores %v", seed, r, p, score)
			}
			if free.Pred[r] == labels[r] {
				okE++
			}
			if paper.Pred[r] == labels[r] {
				okP++
			}
		}
		if free.Accuracy != float64(okE)/float64(n) || paper.Accuracy != float64(okP)/float64(n) {
			t.Errorf("seed %d: accuracies %v %v, want %v %v", seed, free.Accuracy, paper.Accuracy, float64(okE)/float64(n), float64(okP)/float64(n))
		}
	}
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
