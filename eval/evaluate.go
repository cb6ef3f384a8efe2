package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/ncg-rbm/ncg/data"
)

// The paper's evaluation (Salakhutdinov & Murray 2008, as the paper uses
// it): DefaultRuns AIS runs over DefaultSchedule's DefaultIntervals
// intervals from the base-rate model of DataBaseRate (BasePseudoCount).
const (
	// DefaultIntervals is the number of intervals of DefaultSchedule.
	DefaultIntervals = 14500
	// AutoExactBits is the largest smaller layer that LikelihoodAuto
	// measures exactly; larger models get AIS. It sits below MaxExactBits,
	// the hard limit of ExactLogZ, to keep the automatic choice fast.
	AutoExactBits = 20
)

// Schedule returns the AIS schedule of the given number of intervals:
// DefaultSchedule for 0 or DefaultIntervals (returned as nil, which AIS and
// RAISE read as DefaultSchedule), else UniformSchedule(intervals).
func Schedule(intervals int) []float64 {
	if intervals == 0 || intervals == DefaultIntervals {
		return nil
	}
	return UniformSchedule(intervals)
}

// Likelihood is how Evaluate finds log Z, and with it the NLL.
type Likelihood string

const (
	// LikelihoodAuto chooses (Resolve): none for a model with label units,
	// exact when the layer the exact sum enumerates (unit.Type.ExactLayer:
	// the smaller one of a binary model, the hidden one of the others) has
	// at most AutoExactBits units, else AIS.
	LikelihoodAuto  Likelihood = ""
	LikelihoodExact Likelihood = "exact" // ExactLogZ
	LikelihoodAIS   Likelihood = "ais"   // AIS
	LikelihoodNone  Likelihood = "none"  // no log Z, no NLL
)

// Check returns an error for a value that is none of the constants.
func (l Likelihood) Check() error {
	switch l {
	case LikelihoodAuto, LikelihoodExact, LikelihoodAIS, LikelihoodNone:
		return nil
	}
	return fmt.Errorf("likelihood %q is not one of exact, ais, none", string(l))
}

// ResolveModel is Resolve for the model m, whose exact sum enumerates
// n = m.Visible.ExactLayer(m.X, m.H) units: Resolve(n, n, labelUnits). For
// a binary model that is Resolve(m.X, m.H, labelUnits); the exact sum of a
// Gaussian or categorical model runs over the hidden states whatever X is,
// so the automatic choice is exact when H ≤ AutoExactBits.
func (l Likelihood) ResolveModel(m *Model, labelUnits int) Likelihood {
	n := m.Visible.ExactLayer(m.X, m.H)
	return l.Resolve(n, n, labelUnits)
}

// Resolve returns the method used for a binary model of x visible units (of
// which labelUnits are label units) and h hidden units: l itself, or for
// LikelihoodAuto the automatic choice.
func (l Likelihood) Resolve(x, h, labelUnits int) Likelihood {
	switch {
	case l != LikelihoodAuto:
		return l
	case labelUnits > 0:
		return LikelihoodNone
	case min(x, h) <= AutoExactBits:
		return LikelihoodExact
	}
	return LikelihoodAIS
}

// Rule is a way of classifying with label units; Rules combine them.
type Rule uint8

const (
	PaperRule      Rule = 1 << iota // ClassifyPaper
	FreeEnergyRule                  // ClassifyFreeEnergy
)

// Plan is what Evaluate measures and how.
type Plan struct {
	Likelihood Likelihood
	// AIS (and RAISE): runs (0: DefaultRuns), intervals (0: DefaultIntervals;
	// see Schedule) and the seed of the chains.
	AISRuns, AISIntervals int
	AISSeed               uint64
	// UniformBase starts AIS and RAISE from the base model of zero biases
	// (binary units: the uniform model, as the paper's authors' code does;
	// categorical units: a uniform draw in every group; Gaussian units:
	// zero means) instead of the one fitted to the training rows (FitBase).
	// Both are valid; on MNIST the uniform start is far noisier.
	UniformBase bool
	// RAISERows > 0 also estimates the NLL by RAISE on that many
	// evenly spaced rows of the measured set, RAISEChains chains each (0: 1).
	RAISERows, RAISEChains int
	// LabelUnits is the number of one-hot label units that end the model's
	// visible layer (0: none). The likelihood of such a model is the joint
	// one of the rows with their one-hot labels (data.Set.WithOneHotLabels).
	LabelUnits int
	// Accuracy classifies the measured set by these rules (0: none); with
	// TrainAccuracy, the training set too. Both need label units.
	Accuracy      Rule
	TrainAccuracy bool
	// Checks says whether an AIS estimate comes with its checks (CheckAIS,
	// Metrics.Checks): CheckAuto, the zero value, runs them where they
	// cost at most what the reported AIS costs (checkPlan).
	Checks CheckMode
	// GrowIntervals > 0 grows the AIS schedule while the checks' verdict
	// fires: every interval split in two, AIS and its checks run again,
	// up to GrowIntervals intervals (Checks.Intervals lists those run).
	// The estimate reported is the last schedule's. 0: the schedule of
	// AISIntervals alone.
	GrowIntervals int
	// BDMCRows > 0 also runs bidirectional Monte Carlo (BDMC) on that many
	// rows drawn exactly from the model, through the schedule and base of
	// AIS (run for it when the likelihood is exact): the model must be
	// small enough for ExactLogZ.
	BDMCRows int
	// Workers is the number of goroutines (0: GOMAXPROCS); results do not
	// depend on it.
	Workers int
	// Progress, if set, is told each phase's progress, one call at a time
	// (from Evaluate's goroutines: keep it cheap).
	Progress func(Progress)
}

// Phase is a part of an evaluation.
type Phase int

const (
	PhaseExact    Phase = iota + 1 // exact log Z: Done and Total count chunks of 4096 states
	PhaseAIS                       // AIS: chain intervals
	PhaseNLL                       // mean free energy: rows
	PhaseRAISE                     // RAISE: chain intervals
	PhaseAccuracy                  // classification: rows
	PhaseChecks                    // AIS's check routes: chain intervals
	PhaseBDMC                      // BDMC's reverse chains: chain intervals
)

func (p Phase) String() string {
	switch p {
	case PhaseExact:
		return "exact log Z"
	case PhaseAIS:
		return "AIS"
	case PhaseNLL:
		return "NLL"
	case PhaseRAISE:
		return "RAISE"
	case PhaseAccuracy:
		return "accuracy"
	case PhaseChecks:
		return "AIS checks"
	case PhaseBDMC:
		return "BDMC"
	}
	return fmt.Sprintf("Phase(%d)", int(p))
}

// Progress is how far a phase of an evaluation is: Done of Total units.
// Every phase reports Done = 0 when it starts and Done = Total when it ends.
type Progress struct {
	Phase       Phase
	Done, Total int64
}

// Sets are the data an evaluation reads. The measured set is Test, or Train
// when there is no Test; Train also gives AIS its base model (FitBase).
// Their rows are of the model's kind (unit.Type.Accepts): binary rows (X)
// for binary and categorical units, real-valued ones (Real) for Gaussian
// units; categorical rows carry their groups (data.Set.Groups), which with
// the plan's label units must be the model's.
type Sets struct {
	Train, Test *data.Set
}

// Metrics are Evaluate's results; NaN marks a value not measured.
type Metrics struct {
	Likelihood Likelihood // the method used (Resolve)
	Set        string     // the measured set: "test" or "train"
	Rows       int        // its number of rows
	// LogZ and its bounds (exact: all three equal), and the mean NLL of
	// the measured set in nats per row (with label units: the joint NLL;
	// for a Gaussian model the negative log-density of the real-valued
	// rows, which can be negative).
	LogZ, LogZLo, LogZHi, NLL float64
	AIS                       *AISResult // when AIS ran
	// Checks are the evidence with the AIS estimate and its verdict
	// (Plan.Checks; nil: none ran), and BDMC's bounds (Plan.BDMCRows).
	Checks *Checks
	RAISE  *RAISEMetrics
	// Accuracy of the measured set by the paper's rule and by free energy;
	// TrainAccuracy… of the training set (with Plan.TrainAccuracy).
	Accuracy, AccuracyFreeEnergy           float64
	TrainAccuracy, TrainAccuracyFreeEnergy float64
}

// RAISEMetrics compares RAISE with log Z on the same rows.
type RAISEMetrics struct {
	*RAISEResult
	// RowsNLL is the NLL of the RAISE rows from log Z; Gap and GapSE are
	// the mean of RAISE's NLL minus that, row by row, and its standard error.
	RowsNLL, Gap, GapSE float64
}

// Evaluate measures the model on sets as plan says: log Z and the NLL
// (exact or by AIS, an AIS estimate with its checks and their verdict:
// Plan.Checks, CheckAIS), RAISE, BDMC and classification accuracy. AIS and
// RAISE start from the base model fitted to the training rows (FitBase;
// with Plan.UniformBase, zero biases). A Gaussian model can have no label
// units. Every part is deterministic: the same inputs give the same bits
// whatever the number of workers. When ctx is done it stops within a
// second or so with an error wrapping ctx.Err(). A NaN result is an error.
func Evaluate(ctx context.Context, m *Model, sets Sets, plan Plan) (*Metrics, error) {
	u, err := m.units()
	if err != nil {
		return nil, err
	}
	if err := plan.Likelihood.Check(); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if plan.AISRuns < 0 || plan.AISIntervals < 0 || plan.RAISERows < 0 || plan.RAISEChains < 0 || plan.LabelUnits < 0 ||
		plan.GrowIntervals < 0 || plan.BDMCRows < 0 {
		return nil, fmt.Errorf("eval: negative count in plan %+v", plan)
	}
	train, set := sets.Train, sets.Test
	nan := math.NaN()
	out := &Metrics{Set: "test", LogZ: nan, LogZLo: nan, LogZHi: nan, NLL: nan,
		Accuracy: nan, AccuracyFreeEnergy: nan, TrainAccuracy: nan, TrainAccuracyFreeEnergy: nan}
	if train == nil {
		return nil, errors.New("eval: no training set")
	}
	if set == nil {
		set, out.Set = train, "train"
	}
	out.Rows = set.N
	L := plan.LabelUnits
	if train.D+L != m.X || set.D != train.D {
		return nil, fmt.Errorf("eval: the model has %d visible units; the data has %d (training) and %d (measured) units and the plan %d label units", m.X, train.D, set.D, L)
	}
	if L > 0 || plan.Accuracy != 0 {
		if err := u.labels(L); err != nil {
			return nil, err
		}
	}
	if L > 0 && train.NumClasses != L {
		return nil, fmt.Errorf("eval: %d label units for %d classes", L, train.NumClasses)
	}
	if plan.Accuracy != 0 && L == 0 {
		return nil, errors.New("eval: accuracy needs label units")
	}
	out.Likelihood = plan.Likelihood.ResolveModel(m, L)
	if plan.RAISERows > 0 && out.Likelihood == LikelihoodNone {
		return nil, errors.New("eval: RAISE needs a likelihood (not none)")
	}
	if err := plan.checkChecks(m, out.Likelihood); err != nil {
		return nil, err
	}
	rep := newReporter(plan.Progress)

	// With label units the likelihood is the joint one, of rows with their
	// one-hot labels.
	lTrain, lSet := train, set
	if L > 0 && out.Likelihood != LikelihoodNone {
		if lTrain, err = train.WithOneHotLabels(); err != nil {
			return nil, err
		}
		if lSet, err = set.WithOneHotLabels(); err != nil {
			return nil, err
		}
	}
	if out.Likelihood != LikelihoodNone {
		for _, s := range []*data.Set{lTrain, lSet} {
			if err := u.checkRows(s, 0); err != nil {
				return nil, err
			}
		}
	}
	// AIS and RAISE share the base model (nil: uniform) and the schedule.
	var base []float32
	betas := Schedule(plan.AISIntervals)
	intervals := int64(plan.AISIntervals)
	if intervals == 0 {
		intervals = DefaultIntervals
	}
	if (out.Likelihood == LikelihoodAIS || plan.RAISERows > 0 || plan.BDMCRows > 0) && !plan.UniformBase {
		if base, err = u.fitBase(lTrain); err != nil {
			return nil, err
		}
	}
	var logZ float64
	switch out.Likelihood {
	case LikelihoodExact:
		tick := rep.phase(PhaseExact, exactChunks(m.Visible.ExactLayer(m.X, m.H)))
		z, err := exactLogZ(ctx, m, plan.Workers, tick)
		if err != nil {
			return nil, err
		}
		rep.end()
		logZ = z
		out.LogZ, out.LogZLo, out.LogZHi = z, z, z
	case LikelihoodAIS:
		r, err := aisChecked(ctx, m, lTrain, plan, &betas, base, rep)
		if err != nil {
			return nil, err
		}
		intervals = int64(r.Intervals)
		logZ = r.LogZ
		out.LogZ, out.LogZLo, out.LogZHi, out.AIS, out.Checks = r.LogZ, r.LogZLo, r.LogZHi, r.AISResult, r.checks
	}
	if out.Likelihood != LikelihoodNone {
		rep.phase(PhaseNLL, int64(lSet.N))
		f, err := freeEnergies(ctx, m, u, lSet, plan.Workers)
		if err != nil {
			return nil, err
		}
		rep.end()
		out.NLL = mean(f) + logZ
	}
	if plan.RAISERows > 0 {
		r, err := raiseRows(ctx, m, lSet, logZ, plan, betas, base, rep, intervals)
		if err != nil {
			return nil, err
		}
		out.RAISE = r
	}
	if plan.BDMCRows > 0 {
		if err := bdmcChecks(ctx, m, out, plan, betas, base, rep); err != nil {
			return nil, err
		}
	}
	if plan.Accuracy != 0 {
		var err error
		if out.Accuracy, out.AccuracyFreeEnergy, err = accuracies(ctx, m, set, plan, rep); err != nil {
			return nil, err
		}
		out.TrainAccuracy, out.TrainAccuracyFreeEnergy = nan, nan
		if plan.TrainAccuracy {
			if set == train {
				out.TrainAccuracy, out.TrainAccuracyFreeEnergy = out.Accuracy, out.AccuracyFreeEnergy
			} else if out.TrainAccuracy, out.TrainAccuracyFreeEnergy, err = accuracies(ctx, m, train, plan, rep); err != nil {
				return nil, err
			}
		}
	}
	for _, v := range []struct {
		name    string
		v       float64
		checked bool
	}{{"log Z", out.LogZ, out.Likelihood != LikelihoodNone}, {"NLL", out.NLL, out.Likelihood != LikelihoodNone},
		{"accuracy", out.Accuracy, plan.Accuracy&PaperRule != 0}, {"training accuracy", out.TrainAccuracy, plan.Accuracy&PaperRule != 0 && plan.TrainAccuracy}} {
		if v.checked && math.IsNaN(v.v) {
			return nil, fmt.Errorf("eval: %s is NaN", v.name)
		}
	}
	return out, nil
}

// raiseRows runs RAISE on plan.RAISERows evenly spaced rows of set and
// compares it with the NLL of the same rows from logZ.
func raiseRows(ctx context.Context, m *Model, set *data.Set, logZ float64, plan Plan, betas []float64, base []float32, rep *reporter, intervals int64) (*RAISEMetrics, error) {
	k := min(plan.RAISERows, set.N)
	idx := make([]int, k)
	for i := range idx {
		idx[i] = i * set.N / k
	}
	rows := set.Subset(idx)
	chains := max(plan.RAISEChains, 1)
	cfg := RAISEConfig{Chains: chains, Betas: betas, Seed: plan.AISSeed, Workers: plan.Workers, BaseBias: base}
	cfg.tick = rep.phase(PhaseRAISE, int64(k*chains)*intervals)
	r, err := RAISE(ctx, m, rows, cfg)
	if err != nil {
		return nil, err
	}
	rep.end()
	fe, err := FreeEnergies(ctx, m, rows, plan.Workers)
	if err != nil {
		return nil, err
	}
	out := &RAISEMetrics{RAISEResult: r}
	gaps := make([]float64, k)
	for i, f := range fe {
		out.RowsNLL += (f + logZ) / float64(k)
		gaps[i] = -r.LogP[i] - (f + logZ)
	}
	out.Gap, out.GapSE = meanSE(gaps)
	return out, nil
}

// meanSE returns the mean of v and its standard error (NaN for fewer than
// two values).
func meanSE(v []float64) (mean, se float64) {
	for _, x := range v {
		mean += x / float64(len(v))
	}
	if len(v) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1) / float64(len(v)))
}

// accuracies classifies the rows of s by the plan's rules (NaN for a rule
// not asked for).
func accuracies(ctx context.Context, m *Model, s *data.Set, plan Plan, rep *reporter) (paper, free float64, err error) {
	paper, free = math.NaN(), math.NaN()
	rep.phase(PhaseAccuracy, int64(s.N))
	if plan.Accuracy&PaperRule != 0 {
		c, err := ClassifyPaper(ctx, m, s, plan.Workers)
		if err != nil {
			return paper, free, err
		}
		paper = c.Accuracy
	}
	if plan.Accuracy&FreeEnergyRule != 0 {
		c, err := ClassifyFreeEnergy(ctx, m, s, plan.Workers)
		if err != nil {
			return paper, free, err
		}
		free = c.Accuracy
	}
	rep.end()
	return paper, free, nil
}

// reporter serialises the progress calls of one evaluation.
type reporter struct {
	fn   func(Progress)
	mu   sync.Mutex
	cur  Progress
	tick func(int64)
}

func newReporter(fn func(Progress)) *reporter {
	r := &reporter{fn: fn}
	r.tick = func(n int64) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.cur.Done += n
		r.fn(r.cur)
	}
	return r
}

// phase reports the start of a phase of total units and returns the
// function that adds to its progress (nil when nobody listens).
func (r *reporter) phase(p Phase, total int64) func(int64) {
	if r.fn == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur = Progress{Phase: p, Total: total}
	r.fn(r.cur)
	return r.tick
}

// end reports the end of the current phase.
func (r *reporter) end() {
	if r.fn == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur.Done = r.cur.Total
	r.fn(r.cur)
}
