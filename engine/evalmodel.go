package engine

import (
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/unit"
)

// EvalModel is the view of the model that package eval measures
// (eval.Evaluate, ExactLogZ, AIS, …). It shares the model's slices (no
// copy): evaluate between minibatches only.
func (m *Model) EvalModel() *eval.Model {
	return &eval.Model{H: m.H, X: m.X, C: m.C(), HiddenBias: m.HiddenBias, VisibleBias: m.VisibleBias, Gaussian: m.Visible == unit.Gaussian, Sigma: m.Sigma}
}
