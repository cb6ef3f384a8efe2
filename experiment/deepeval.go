package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/engine"
	"github.com/ncg-rbm/ncg/eval"
	"github.com/ncg-rbm/ncg/unit"
)

// The evaluation of a deep model (docs/algorithm.md, "Deep models:
// evaluation"): log Z, exact or by AIS, and each measured row's
// variational lower bound on log p(v), a DBM's mean-field bound or a DBN's
// bound through its top RBM (Salakhutdinov & Murray 2008). The NLL it
// reports is minus the rows' mean bound: an upper bound on the NLL with
// the exact log Z, an estimate of that bound with AIS's log Ẑ.

// The effort of a deep model's bound: at most StackSweeps mean-field
// sweeps per row of a DBM (fewer once no mean moves by StackTol: each
// sweep raises the bound), and DBNSamples draws of a DBN's recognition
// chain per row, from streams keyed by the AIS seed.
const (
	StackSweeps = 30
	StackTol    = 1e-6
	DBNSamples  = 10
)

// StackExactUnits is the number of units whose states the exact log Z of
// a deep model sums over, for visible units of type visible and layers of
// sizes (the visible layer first): a DBM's smaller side of its bipartite
// graph, the even layers or the odd ones (ties: the odd; always the odd
// one for Gaussian or categorical visible units), as eval.DBMExactLogZ
// chooses it; a DBN's top RBM's (unit.Type.ExactLayer).
func StackExactUnits(kind engine.StackKind, visible unit.Type, sizes []int) int {
	L := len(sizes) - 1
	if kind == engine.DBN {
		top := unit.Binary
		if L == 1 {
			top = visible
		}
		return top.ExactLayer(sizes[L-1], sizes[L])
	}
	n, _ := eval.DBMExactSide(visible, sizes)
	return n
}

// resolveStack is how the evaluation of a deep model finds log Z: l
// itself, or for eval.LikelihoodAuto exact where the exact sum runs over
// at most eval.AutoExactBits units (StackExactUnits), else AIS.
func resolveStack(l eval.Likelihood, kind engine.StackKind, visible unit.Type, sizes []int) eval.Likelihood {
	if l != eval.LikelihoodAuto {
		return l
	}
	if StackExactUnits(kind, visible, sizes) <= eval.AutoExactBits {
		return eval.LikelihoodExact
	}
	return eval.LikelihoodAIS
}

// ResolveStack is how EvaluateStack finds the log Z of the deep model s
// for the likelihood l: l itself, or for eval.LikelihoodAuto exact where
// the exact sum runs over at most eval.AutoExactBits units, else AIS.
func ResolveStack(l eval.Likelihood, s *engine.Stack) eval.Likelihood {
	return resolveStack(l, s.Kind, s.RBMs[0].Visible, s.Sizes())
}

// checkStackExact refuses an exact log Z that would sum over more than
// 2^eval.MaxExactBits states, naming -likelihood.
func checkStackExact(l eval.Likelihood, kind engine.StackKind, visible unit.Type, sizes []int) error {
	if n := StackExactUnits(kind, visible, sizes); resolveStack(l, kind, visible, sizes) == eval.LikelihoodExact && n > eval.MaxExactBits {
		return fmt.Errorf("likelihood exact: exact log Z of the %s of layers %v sums over the 2^%d states of %d units; the limit is 2^%d: use ais",
			kind, sizes, n, n, eval.MaxExactBits)
	}
	return nil
}

// EvaluateStack measures the deep model s on sets as plan says: its
// Likelihood (exact, AIS or none; auto as resolveStack chooses), AIS's
// runs, intervals (eval.Schedule), seed and base (fitted to the training
// rows, or with UniformBase zero biases), and its Workers; it takes no
// label units, accuracy, checks, RAISE or BDMC. The NLL is minus the
// measured rows' mean bound (see above). A DBM's AIS starts from
// eval.FitDBMBase; a DBN's top RBM's from eval.FitBase of the states of its
// visible layer drawn upward from the training rows (Stack.UpData). The
// result does not depend on the number of workers; a NaN is an error.
func EvaluateStack(ctx context.Context, s *engine.Stack, sets eval.Sets, plan eval.Plan) (*eval.Metrics, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if plan.LabelUnits != 0 || plan.Accuracy != 0 || plan.RAISERows != 0 || plan.BDMCRows != 0 || plan.GrowIntervals != 0 {
		return nil, errors.New("experiment: a deep model's evaluation takes no labels, accuracy, RAISE, BDMC or growing schedule")
	}
	train, set, name := sets.Train, sets.Test, "test"
	if train == nil {
		return nil, errors.New("experiment: no training set")
	}
	if set == nil {
		set, name = train, "train"
	}
	n := math.NaN()
	out := &eval.Metrics{Set: name, Rows: set.N, LogZ: n, LogZLo: n, LogZHi: n, NLL: n,
		Accuracy: n, AccuracyFreeEnergy: n, TrainAccuracy: n, TrainAccuracyFreeEnergy: n}
	sizes, visible := s.Sizes(), s.RBMs[0].Visible
	if err := checkStackExact(plan.Likelihood, s.Kind, visible, sizes); err != nil {
		return nil, &ConfigError{err}
	}
	out.Likelihood = resolveStack(plan.Likelihood, s.Kind, visible, sizes)
	if out.Likelihood == eval.LikelihoodNone {
		return out, nil
	}
	ais := eval.AISConfig{Runs: plan.AISRuns, Betas: eval.Schedule(plan.AISIntervals), Seed: plan.AISSeed, Workers: plan.Workers}
	var bound float64
	switch s.Kind {
	case engine.DBM:
		d := s.EvalDBM()
		mf := eval.MeanFieldConfig{Iterations: StackSweeps, Tol: StackTol, Workers: plan.Workers}
		if out.Likelihood == eval.LikelihoodExact {
			logZ, err := eval.DBMExactLogZ(ctx, d, plan.Workers)
			if err != nil {
				return nil, err
			}
			out.LogZ, out.LogZLo, out.LogZHi = logZ, logZ, logZ
		} else {
			var base [][]float32
			if !plan.UniformBase {
				var err error
				if base, err = eval.FitDBMBase(ctx, d, train, mf); err != nil {
					return nil, err
				}
			}
			res, err := eval.DBMAIS(ctx, d, eval.DBMAISConfig{Runs: ais.Runs, Betas: ais.Betas, Seed: ais.Seed, Workers: ais.Workers, Base: base})
			if err != nil {
				return nil, err
			}
			out.AIS, out.LogZ, out.LogZLo, out.LogZHi = res, res.LogZ, res.LogZLo, res.LogZHi
		}
		b, err := eval.DBMMeanField(ctx, d, set, out.LogZ, mf)
		if err != nil {
			return nil, err
		}
		bound = b.Mean
	case engine.DBN:
		dbn := s.EvalDBN()
		top := dbn.Layers[len(dbn.Layers)-1]
		if out.Likelihood == eval.LikelihoodExact {
			logZ, err := eval.ExactLogZ(ctx, top, plan.Workers)
			if err != nil {
				return nil, err
			}
			out.LogZ, out.LogZLo, out.LogZHi = logZ, logZ, logZ
		} else {
			if !plan.UniformBase {
				rows, err := topRows(ctx, s, train, plan)
				if err != nil {
					return nil, err
				}
				if ais.BaseBias, err = eval.FitBase(top, rows); err != nil {
					return nil, err
				}
			}
			res, err := eval.AIS(ctx, top, ais)
			if err != nil {
				return nil, err
			}
			out.AIS, out.LogZ, out.LogZLo, out.LogZHi = res, res.LogZ, res.LogZLo, res.LogZHi
		}
		b, err := eval.DBNBound(ctx, dbn, set, out.LogZ, eval.DBNBoundConfig{Samples: DBNSamples, Seed: plan.AISSeed, Workers: plan.Workers})
		if err != nil {
			return nil, err
		}
		bound = b.Mean
	default:
		return nil, fmt.Errorf("experiment: a stack of kind %q", s.Kind)
	}
	out.NLL = -bound
	if math.IsNaN(out.NLL) || math.IsNaN(out.LogZ) {
		return nil, fmt.Errorf("experiment: the evaluation of the %s gave NaN (log Z %v, bound %v)", s.Kind, out.LogZ, bound)
	}
	return out, nil
}

// topRows are the rows of a DBN's top RBM's visible layer: the training
// rows for a DBN of one RBM, else their states drawn upward (Stack.UpData,
// from the AIS seed).
func topRows(ctx context.Context, s *engine.Stack, train *data.Set, plan eval.Plan) (*data.Set, error) {
	L := len(s.RBMs)
	if L == 1 {
		return train, nil
	}
	d, err := engine.FromSet(train, false)
	if err != nil {
		return nil, err
	}
	up, err := s.UpData(ctx, d, L-1, plan.AISSeed, plan.Workers)
	if err != nil {
		return nil, err
	}
	return &data.Set{Name: fmt.Sprintf("layer %d of %s", L-1, train.Name), N: up.N, D: up.D, X: up.X}, nil
}
