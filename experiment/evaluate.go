package experiment

import (
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/unit"
)

// Units is the type of the run's visible units.
func (s Spec) Units() unit.Type { return s.Engine.Visible }

// plan is the evaluation of the Spec, for a model with labelUnits label
// units (of the training data's classes when classifying). The final
// evaluation, the one result.json records, checks its AIS estimate and
// grows the schedule as AISMaxIntervals says; the others, points of the
// learning curves, report the estimate alone.
func (s Spec) plan(workers, labelUnits int, final bool) eval.Plan {
	p := eval.Plan{Likelihood: s.Likelihood, AISRuns: s.AISRuns, AISIntervals: s.AISIntervals, AISSeed: s.AISSeed,
		LabelUnits: labelUnits, Workers: workers, Checks: eval.CheckOff}
	if final {
		p.Checks, p.GrowIntervals = eval.CheckAuto, s.AISMaxIntervals
	}
	if s.Classify {
		p.Accuracy, p.TrainAccuracy = eval.PaperRule, true
	}
	return p
}
