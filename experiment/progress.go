package experiment

import (
	"math"
	"time"

	"github.com/ncg-rbm/ncg/eval"
)

// Event is what Run tells Options.Progress as a run goes: Resumed,
// Minibatch, EpochDone, Evaluating or Finished. Events of one run come in
// order, one at a time; rendering them (and how often) is the caller's
// business. Left, where an event has it, is the estimated time until the
// run is finished, evaluations included; it is negative while unknown.
// Before an evaluation has been timed in this invocation, the evaluations
// ahead are of unknown length: Left then counts the training and the
// evaluation under way, and UnknownEvals says how many evaluations it
// leaves out.
type Event interface{ event() }

// Resumed: the run continues from the checkpoint in Dir at Epoch, on
// kernel tier Tier. EarlierTiers are the tiers of the invocations that
// trained it before (from config.json; empty when it cannot be read): when
// one differs from Tier, the run will not end bit-identical to a run
// trained on one tier, and the caller should say so.
type Resumed struct {
	Dir          string
	Epoch        int
	Tier         string
	EarlierTiers []string
}

// OtherTiers returns the tiers of EarlierTiers other than Tier (none: the
// resumed run stays bit-identical to an uninterrupted one).
func (e Resumed) OtherTiers() []string {
	var other []string
	for _, t := range e.EarlierTiers {
		if t != e.Tier {
			other = append(other, t)
		}
	}
	return other
}

// Minibatch: Done of the Batches minibatches of Epoch (1-based, of Epochs)
// are trained, at PerSecond minibatches a second in this invocation.
type Minibatch struct {
	Dir                          string
	Epoch, Epochs, Done, Batches int
	PerSecond                    float64
	Left                         time.Duration
	UnknownEvals                 int
}

// EpochDone: an epoch is trained, and evaluated when it is due for that
// (Evaluated), except the last, whose evaluation follows (Evaluating, then
// Finished). Metrics.Epoch is its number.
type EpochDone struct {
	Dir          string
	Epochs       int
	Metrics      Metrics
	Evaluated    bool
	Left         time.Duration
	UnknownEvals int
}

// Evaluating: the evaluation after Epoch is in a phase, as far as
// Progress says.
type Evaluating struct {
	Dir   string
	Epoch int
	eval.Progress
	Left         time.Duration
	UnknownEvals int
}

// Finished: the final evaluation is done; Metrics is the last epoch's row.
type Finished struct {
	Dir     string
	Metrics Metrics
}

func (Resumed) event()    {}
func (Minibatch) event()  {}
func (EpochDone) event()  {}
func (Evaluating) event() {}
func (Finished) event()   {}

// clock estimates the time a run has left: the minibatches left at this
// invocation's training speed, plus the evaluations left at the duration of
// the last one, plus what is left of the evaluation under way at the rate
// of its current phase.
type clock struct {
	spec       Spec
	batches    int           // minibatches per epoch (0 until known)
	trained    int           // minibatches trained in this invocation
	training   time.Duration // the time they took
	lastBatch  time.Time
	evalTook   time.Duration // the last full evaluation (0: none yet)
	evalStart  time.Time     // of the evaluation under way
	phaseStart time.Time
}

func newClock(spec Spec) *clock {
	return &clock{spec: spec, lastBatch: time.Now()}
}

// batch records a trained minibatch.
func (c *clock) batch(batches int) {
	now := time.Now()
	c.batches = batches
	c.trained++
	c.training += now.Sub(c.lastBatch)
	c.lastBatch = now
}

// due reports whether the evaluation runs after epoch.
func (c *clock) due(epoch int) bool {
	e := c.spec.EvalEvery
	return epoch == c.spec.TotalEpochs() || (e > 0 && epoch%e == 0)
}

// left estimates the time left after done minibatches of epoch (1-based)
// and, during the evaluation after epoch, what is left of it (inEval < 0:
// not evaluating; else the estimate of the evaluation under way). Before
// an evaluation has been timed, the evaluations ahead are left out and
// counted in unknown; t is negative when nothing is known yet.
func (c *clock) left(epoch, done int, inEval time.Duration) (t time.Duration, unknown int) {
	if c.trained == 0 || c.batches == 0 {
		return -1, 0
	}
	// In float64, and the evaluations counted without a loop: -epochs
	// may be as large as an int.
	epochs := c.spec.TotalEpochs()
	batchesLeft := float64(epochs-epoch)*float64(c.batches) + float64(c.batches-done)
	left := float64(c.training) / float64(c.trained) * batchesLeft
	evals := c.dueAfter(epoch)
	if inEval < 0 && done == c.batches && c.due(epoch) {
		evals++ // trained, not yet evaluating
	}
	if c.measuresNothing() {
		evals = 0 // -likelihood none, no accuracy: an evaluation takes no time
	}
	if inEval >= 0 {
		left += float64(inEval)
	}
	if c.evalTook == 0 {
		return duration(left), evals
	}
	return duration(left + float64(evals)*float64(c.evalTook)), 0
}

// measuresNothing reports whether the run's evaluations measure nothing
// (-likelihood none without -classify), so that none is waited for.
func (c *clock) measuresNothing() bool {
	return c.spec.Likelihood == eval.LikelihoodNone && !c.spec.Classify
}

// dueAfter counts the evaluations due after epoch: every EvalEvery-th
// epoch and the last.
func (c *clock) dueAfter(epoch int) int {
	epochs, e := c.spec.TotalEpochs(), c.spec.EvalEvery
	switch {
	case epoch >= epochs:
		return 0
	case e <= 0:
		return 1
	}
	n := epochs/e - epoch/e // the multiples of e in (epoch, epochs]
	if epochs%e != 0 {
		n++ // the last epoch
	}
	return n
}

// duration converts nanoseconds to a Duration, the longest one where it
// would overflow.
func duration(ns float64) time.Duration {
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// startEval marks the start of an evaluation.
func (c *clock) startEval() { c.evalStart = time.Now() }

// evalProgress estimates what is left of the evaluation under way from the
// progress of its phase: the phase's remaining part at its own rate (the
// phases after AIS or exact log Z are short next to them).
func (c *clock) evalProgress(p eval.Progress) time.Duration {
	now := time.Now()
	if p.Done == 0 {
		c.phaseStart = now
	}
	if p.Done == 0 || p.Total == 0 {
		if c.evalTook > 0 {
			return max(c.evalTook-now.Sub(c.evalStart), 0)
		}
		return -1
	}
	spent := now.Sub(c.phaseStart)
	return time.Duration(float64(spent) / float64(p.Done) * float64(p.Total-p.Done))
}

// endEval records the duration of the evaluation that ends, and restarts
// the training clock (evaluation time is not training time).
func (c *clock) endEval() {
	c.evalTook = time.Since(c.evalStart)
	c.lastBatch = time.Now()
}
