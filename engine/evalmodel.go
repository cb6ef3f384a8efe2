package engine

import "github.com/ncg-rbm/ncg/eval"

// EvalModel is the view of the model that package eval measures
// (eval.Evaluate, ExactLogZ, AIS, …). It shares the model's slices (no
// copy): evaluate between minibatches only.
func (m *Model) EvalModel() *eval.Model {
	return &eval.Model{H: m.H, X: m.X, C: m.C(), HiddenBias: m.HiddenBias, VisibleBias: m.VisibleBias,
		Visible: m.Visible, Sigma: m.Sigma, Groups: m.Groups}
}

// EvalDBM is the view of a DBM that package eval measures (eval.DBM: the
// RBMs' views, an intermediate layer's bias the sum of the two the stack
// holds, as Stack.Bias). It shares the models' slices.
func (s *Stack) EvalDBM() *eval.DBM {
	d := &eval.DBM{}
	for _, m := range s.RBMs {
		d.Layers = append(d.Layers, m.EvalModel())
	}
	return d
}

// EvalDBN is the view of a DBN that package eval measures (eval.DBN: the
// RBMs' views, each with its own biases). It shares the models' slices.
func (s *Stack) EvalDBN() *eval.DBN {
	d := &eval.DBN{}
	for _, m := range s.RBMs {
		d.Layers = append(d.Layers, m.EvalModel())
	}
	return d
}
