package experiment

import (
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
)

// EvalModel is the view of an engine model that package eval measures. It
// shares the engine's slices (no copy): evaluate between minibatches only.
func EvalModel(m *engine.Model) *eval.Model {
	return &eval.Model{H: m.H, X: m.X, C: m.C(), HiddenBias: m.HiddenBias, VisibleBias: m.VisibleBias}
}

// plan is the evaluation of the Spec, for a model with labelUnits label
// units (of the training data's classes when classifying).
func (s Spec) plan(workers, labelUnits int) eval.Plan {
	p := eval.Plan{Likelihood: s.Likelihood, AISRuns: s.AISRuns, AISIntervals: s.AISIntervals, AISSeed: s.AISSeed,
		LabelUnits: labelUnits, Workers: workers}
	if s.Classify {
		p.Accuracy, p.TrainAccuracy = eval.PaperRule, true
	}
	return p
}
