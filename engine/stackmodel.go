package engine

import (
	"fmt"

	"github.com/ncg-rbm/ncg/unit"
)

// Stack is a deep model: RBMs[l] joins layer l (0: the visible layer)
// and layer l+1, visible-major as every Model (RBMs[l].X = size of layer
// l, RBMs[l].H = size of layer l+1).
//
// In a DBN each RBM keeps both its biases: RBM l's hidden biases are the
// recognition biases of layer l+1 (q(layer l+1 | layer l), the up pass),
// its visible biases the generative biases of layer l (p(layer l |
// layer l+1), for l below the top RBM). In a DBM a layer has one bias,
// the sum of the two an intermediate layer has in the stack (as
// BoltzmannMachines.jl combines them): layer l's bias is
// RBMs[l−1].HiddenBias + RBMs[l].VisibleBias. When a DBM's pre-training
// ends, the intermediate layer's bias becomes the mean of the two its
// RBMs learned, in RBMs[l−1].HiddenBias, and RBMs[l].VisibleBias stays
// zero, so that every bias has one parameter (foldBiases).
type Stack struct {
	Kind StackKind
	RBMs []*Model
}

// Sizes returns the units of every layer, visible first.
func (s *Stack) Sizes() []int {
	if len(s.RBMs) == 0 {
		return nil
	}
	n := []int{s.RBMs[0].X}
	for _, m := range s.RBMs {
		n = append(n, m.H)
	}
	return n
}

// Bias returns a DBM's bias of layer l (a new slice): the visible
// biases for l = 0, the top RBM's hidden biases for the top layer, and
// the sum of the biases the stack holds for the layer otherwise.
func (s *Stack) Bias(l int) []float32 {
	n := len(s.RBMs)
	switch {
	case l == 0:
		return append([]float32(nil), s.RBMs[0].VisibleBias...)
	case l == n:
		return append([]float32(nil), s.RBMs[n-1].HiddenBias...)
	}
	b := append([]float32(nil), s.RBMs[l-1].HiddenBias...)
	for i, v := range s.RBMs[l].VisibleBias {
		b[i] += v
	}
	return b
}

// Check reports whether the RBMs fit together as a stack: each one's
// visible units are the hidden units of the one below, and every layer
// above the visible one is binary with no label units.
func (s *Stack) Check() error {
	if len(s.RBMs) == 0 {
		return fmt.Errorf("engine: a stack needs at least 1 RBM")
	}
	for l, m := range s.RBMs {
		if l == 0 {
			continue
		}
		below := s.RBMs[l-1]
		if m.X != below.H || m.DataUnits != m.X {
			return fmt.Errorf("engine: RBM %d has %d visible units (%d data units), the layer below it %d hidden units", l+1, m.X, m.DataUnits, below.H)
		}
		if m.Visible != unit.Binary {
			return fmt.Errorf("engine: RBM %d has %s visible units; hidden layers are binary", l+1, m.Visible)
		}
	}
	return nil
}

// Connectivity returns each matrix's connectivity summary.
func (s *Stack) Connectivity() []Connectivity {
	c := make([]Connectivity, len(s.RBMs))
	for l, m := range s.RBMs {
		c[l] = m.Connectivity()
	}
	return c
}
