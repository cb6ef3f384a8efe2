package eval

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
)

// CheckMode says when Evaluate checks an AIS estimate (Plan.Checks).
type CheckMode string

const (
	// CheckAuto runs each check where it costs at most what the reported
	// AIS costs (Plan.CheckPlan).
	CheckAuto CheckMode = ""
	// CheckOn runs the check routes (at least 2 runs each) and the exact
	// log Z when it is within reach, whatever they cost.
	CheckOn  CheckMode = "on"
	CheckOff CheckMode = "off" // no checks
)

// Check returns an error for a value that is none of the constants.
func (c CheckMode) Check() error {
	switch c {
	case CheckAuto, CheckOn, CheckOff:
		return nil
	}
	return fmt.Errorf("checks %q is not one of auto, on, off", string(c))
}

// minCheckRuns is the fewest runs a check route has: with one, AIS gives
// no interval.
const minCheckRuns = 2

// CheckPlan says which checks Evaluate runs with an AIS of runs runs and
// the given intervals on a model of x visible and h hidden units whose
// exact sum enumerates n of them (unit.Type.ExactLayer). With CheckAuto,
// the check routes run when each gets at least two runs from a quarter of
// the reported ones (runs ≥ 8): a run of any route costs about what a
// reported run costs (the same products and draws per interval), so the
// two take about half the reported AIS's time. The exact log Z runs when n
// ≤ MaxExactBits and its 2^n states, each a pass over the other layer,
// cost no more than runs·intervals·(x + h), a lower bound of the reported
// AIS's work (every interval passes over both layers). Within reach but
// dearer, the exact value is offered (Checks.ExactBits). CheckOn runs both
// where they can run at all; CheckOff neither.
func (p Plan) CheckPlan(runs, intervals, x, h, n int) (routes, exact bool) {
	reach := n <= MaxExactBits
	switch p.Checks {
	case CheckOff:
		return false, false
	case CheckOn:
		return true, reach
	}
	work := float64(runs) * float64(intervals) * float64(x+h)
	other := x + h - n
	return runs/4 >= minCheckRuns, reach && math.Ldexp(float64(other), n) <= work
}

// exactChunks is the number of chunks of an exact sum over 2^n states.
func exactChunks(n int) int64 {
	return 1 << max(n-exactChunkBits, 0)
}

// checkChecks refuses a plan whose checks cannot run.
func (p Plan) checkChecks(m *Model, l Likelihood) error {
	if err := p.Checks.Check(); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	if p.BDMCRows == 0 {
		return nil
	}
	if l == LikelihoodNone {
		return errors.New("eval: BDMC needs a likelihood (not none)")
	}
	if n := m.Visible.ExactLayer(m.X, m.H); n > MaxExactBits {
		return fmt.Errorf("eval: BDMC draws rows exactly from the model, by enumerating 2^%d states of a model of %d visible and %d hidden units; the limit is 2^%d",
			n, m.X, m.H, MaxExactBits)
	}
	return nil
}

// checkedAIS is the reported AIS with its checks.
type checkedAIS struct {
	*AISResult
	checks *Checks
}

// aisChecked runs the reported AIS from base (nil: zero biases) and its
// checks as plan says, growing the schedule *betas (nil: DefaultSchedule)
// while the verdict fires and plan.GrowIntervals allows; *betas is left
// at the schedule of the result.
func aisChecked(ctx context.Context, m *Model, train *data.Set, plan Plan, betas *[]float64, base []float32, rep *reporter) (*checkedAIS, error) {
	runs := plan.AISRuns
	if runs == 0 {
		runs = DefaultRuns
	}
	n := m.Visible.ExactLayer(m.X, m.H)
	b := *betas
	var tried []int
	var exact *Estimate // computed once, whatever the schedule
	for {
		cfg := AISConfig{Runs: runs, Betas: b, Seed: plan.AISSeed, Workers: plan.Workers, BaseBias: base}
		K := DefaultIntervals
		if b != nil {
			K = len(b) - 1
		}
		cfg.tick = rep.phase(PhaseAIS, int64(runs)*int64(K))
		r, err := AIS(ctx, m, cfg)
		if err != nil {
			return nil, err
		}
		rep.end()
		tried = append(tried, r.Intervals)
		out := &checkedAIS{AISResult: r}
		if plan.Checks == CheckOff {
			*betas = b
			return out, nil
		}
		routes, ex := plan.CheckPlan(runs, K, m.X, m.H, n)
		ex = ex || (plan.BDMCRows > 0 && n <= MaxExactBits) // BDMC's rows need the enumeration anyway
		cfg.tick = nil
		cc := CheckConfig{Reported: cfg, Exact: ex && exact == nil, rep: rep}
		if !routes {
			cc.Routes = []Route{}
		}
		ch, err := CheckAIS(ctx, m, train, r, cc)
		if err != nil {
			return nil, err
		}
		if last := ch.Estimates[len(ch.Estimates)-1]; last.Route == RouteExact {
			exact = &last
		} else if exact != nil {
			ch.Estimates = append(ch.Estimates, *exact)
			ch.Verdict = judge(ch.Estimates[0], ch.Estimates[1:])
		}
		if exact == nil && n <= MaxExactBits {
			ch.ExactBits = n
		}
		ch.Intervals = tried
		out.checks = ch
		if !ch.Verdict.Fired || plan.GrowIntervals == 0 || 2*K > plan.GrowIntervals {
			*betas = b
			return out, nil
		}
		if b == nil {
			b = DefaultSchedule()
		}
		b = RefineSchedule(b, 2)
	}
}

// bdmcChecks runs BDMC as plan says and records it in out.Checks: the
// forward AIS is the reported one, or one run for it when log Z is exact.
func bdmcChecks(ctx context.Context, m *Model, out *Metrics, plan Plan, betas []float64, base []float32, rep *reporter) error {
	runs := plan.AISRuns
	if runs == 0 {
		runs = DefaultRuns
	}
	cfg := BDMCConfig{Rows: plan.BDMCRows, AIS: AISConfig{Runs: runs, Betas: betas, Seed: plan.AISSeed, Workers: plan.Workers, BaseBias: base},
		Forward: out.AIS}
	K := int64(DefaultIntervals)
	if betas != nil {
		K = int64(len(betas) - 1)
	}
	if cfg.Forward == nil {
		cfg.AIS.tick = rep.phase(PhaseAIS, int64(runs)*K)
		f, err := AIS(ctx, m, cfg.AIS)
		if err != nil {
			return err
		}
		rep.end()
		cfg.Forward, cfg.AIS.tick = f, nil
	}
	cfg.tick = rep.phase(PhaseBDMC, int64(plan.BDMCRows)*K)
	res, err := BDMC(ctx, m, cfg)
	if err != nil {
		return err
	}
	rep.end()
	z := Estimate{Route: RouteExact, LogZ: res.LogZ, LogZLo: res.LogZ, LogZHi: res.LogZ, ESS: math.NaN()}
	switch {
	case out.Checks != nil:
	case out.AIS != nil: // checks off: BDMC's exact log Z is the one check
		route := RouteData
		if base == nil {
			route = RouteUniform
		}
		rp := estimate(route, out.AIS)
		out.Checks = &Checks{Estimates: []Estimate{rp, z}, Intervals: []int{out.AIS.Intervals}, Verdict: judge(rp, []Estimate{z})}
	default:
		out.Checks = &Checks{Estimates: []Estimate{z}, Intervals: []int{res.Intervals},
			Verdict: Verdict{Disagreement: math.NaN(), Reason: "the reported log Z is exact"}}
	}
	out.Checks.BDMC = res
	return nil
}
