package experiment

import (
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
)

// EvalModel is the view of an engine model that package eval measures. It
// shares the engine's slices (no copy): evaluate between minibatches only.
func EvalModel(m *engine.Model) *eval.Model {
	return &eval.Model{H: m.H, X: m.X, C: m.C, B: m.B, D: m.V}
}
