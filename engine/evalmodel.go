package engine

import "github.com/ncg-rbm/ncg/eval"

// EvalModel is the view of the model that package eval measures
// (eval.Evaluate, ExactLogZ, AIS, …). It shares the model's slices (no
// copy): evaluate between minibatches only.
func (m *Model) EvalModel() *eval.Model {
	return &eval.Model{H: m.H, X: m.X, C: m.C(), HiddenBias: m.HiddenBias, VisibleBias: m.VisibleBias,
		Visible: m.Visible, Sigma: m.Sigma, Groups: m.Groups}
}
