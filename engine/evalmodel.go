package engine

import (
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/unit"
)

// EvalModel is the view of the model that package eval measures
// (eval.Evaluate, ExactLogZ, AIS, …). It shares the model's slices (no
// copy): evaluate between minibatches only.
func (m *Model) EvalModel() *eval.Model {
	visible := unit.Binary
	if m.Gaussian {
		visible = unit.Gaussian
	}
	return &eval.Model{H: m.H, X: m.X, C: m.C(), HiddenBias: m.HiddenBias, VisibleBias: m.VisibleBias, Visible: visible, Sigma: m.Sigma}
}
