package eval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ncg-rbm/ncg/unit"
)

// Deep models: stacks of RBMs (docs/algorithm.md, "Deep models:
// evaluation"). Layer 0 is the visible layer; Layers[l] joins layer l and
// layer l+1, visible-major as every Model (Layers[l].X = the size of layer
// l, Layers[l].H = the size of layer l+1), so a stack of L RBMs has L
// hidden layers, all binary. Only Layers[0] may have visible units of
// another type (Model.Visible); the models of the layers above have
// binary visible units.

// DBM is the view of a deep Boltzmann machine (Salakhutdinov & Hinton,
// AISTATS 2009): one undirected model whose energy, with binary layers
// h^0 = x, h^1, …, h^L, is
//
//	E(h) = −Σ_l b^lᵀh^l − Σ_{l<L} h^lᵀ C^l h^{l+1},
//
// C^l = Layers[l].C, and for a visible layer of Gaussian or categorical
// units its own terms as in Model. A layer has one bias: layer 0's is
// Layers[0].VisibleBias, the top layer's Layers[L−1].HiddenBias, and an
// intermediate layer l's the sum Layers[l−1].HiddenBias +
// Layers[l].VisibleBias (the convention of BoltzmannMachines.jl, whose
// combinedbiases adds the two biases a stack holds for a layer), taken in
// float64.
type DBM struct{ Layers []*Model }

// DBN is the view of a deep belief network (Hinton, Osindero & Teh 2006):
// the top RBM, Layers[L−1], is an undirected model of layers L−1 and L;
// below it each RBM l gives the directed p(layer l | layer l+1) from its
// visible biases (its generative biases) and, for inference, the
// recognition q(layer l+1 | layer l) from its hidden biases. Every RBM
// keeps both its biases.
type DBN struct{ Layers []*Model }

// Validate checks every RBM (Model.Validate) and that they form a stack:
// each one's visible units are the hidden units of the one below, and the
// layers above the visible one are binary.
func (d *DBM) Validate() error {
	if d == nil {
		return errors.New("eval: nil DBM")
	}
	return validateStack("DBM", d.Layers)
}

// Validate checks every RBM (Model.Validate) and that they form a stack,
// as DBM.Validate does.
func (n *DBN) Validate() error {
	if n == nil {
		return errors.New("eval: nil DBN")
	}
	return validateStack("DBN", n.Layers)
}

// validateStack checks the RBMs of a deep model; the errors name the RBM,
// counted from 1 at the bottom.
func validateStack(kind string, layers []*Model) error {
	if len(layers) == 0 {
		return fmt.Errorf("eval: a %s needs at least 1 RBM", kind)
	}
	for l, m := range layers {
		if m == nil {
			return fmt.Errorf("eval: %s RBM %d of %d is nil", kind, l+1, len(layers))
		}
		if _, err := m.units(); err != nil {
			return fmt.Errorf("eval: %s RBM %d of %d: %s", kind, l+1, len(layers), strings.TrimPrefix(err.Error(), "eval: "))
		}
		if l == 0 {
			continue
		}
		if m.Visible != unit.Binary {
			return fmt.Errorf("eval: %s RBM %d of %d has %s visible units; the hidden layers of a deep model are binary", kind, l+1, len(layers), m.Visible)
		}
		if below := layers[l-1]; m.X != below.H {
			return fmt.Errorf("eval: %s RBM %d of %d has %d visible units, but RBM %d below it has %d hidden units", kind, l+1, len(layers), m.X, l, below.H)
		}
	}
	return nil
}

// stackSizes returns the units of every layer, visible first.
func stackSizes(layers []*Model) []int {
	n := []int{layers[0].X}
	for _, m := range layers {
		n = append(n, m.H)
	}
	return n
}

// biases returns the bias of every layer of the DBM, in float64 (see DBM).
func (d *DBM) biases() [][]float64 {
	L := len(d.Layers)
	b := make([][]float64, L+1)
	b[0] = widen(d.Layers[0].VisibleBias)
	for l := 1; l <= L; l++ {
		b[l] = widen(d.Layers[l-1].HiddenBias)
		if l < L {
			for i, v := range d.Layers[l].VisibleBias {
				b[l][i] += float64(v)
			}
		}
	}
	return b
}

// narrow returns v in float32.
func narrow(v []float64) []float32 {
	w := make([]float32, len(v))
	for i, x := range v {
		w[i] = float32(x)
	}
	return w
}

// bottom returns the view of the bottom RBM with hidden biases hb: the
// visible layer's unit type, its parameters and C⁰, as the per-type code
// of evaluation takes them.
func bottom(m *Model, hb []float32) *Model {
	return &Model{H: m.H, X: m.X, C: m.C, HiddenBias: hb, VisibleBias: m.VisibleBias,
		Visible: m.Visible, Sigma: m.Sigma, Groups: m.Groups}
}
