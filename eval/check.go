package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// An AIS estimate's ±3σ interval measures its variance over runs, not its
// bias: AIS that never reaches a mode of the model gives a tight interval
// around a value that leaves the mode out. CheckAIS looks for such misses
// with estimators that fail differently: AIS along other routes (another
// base model, or the other layer's marginal), and the exact value where
// it is within reach. Every AIS estimate Ẑ is unbiased, so log Ẑ exceeds
// log Z by t nats with probability at most e^−t (Markov), whatever the
// route: a route well above the reported estimate is evidence that the
// reported one missed mass; a route below it is evidence only about
// itself.

// Route is one way of estimating log Z.
type Route string

const (
	// RouteData anneals the visible marginal from the base model fitted
	// to the training rows (FitBase): the paper's AIS, the one Evaluate
	// reports.
	RouteData Route = "data"
	// RouteUniform anneals the visible marginal from the base model of
	// zero biases: binary units each on with probability ½, categorical
	// groups uniform, Gaussian units N(0, σ²) (Plan.UniformBase).
	RouteUniform Route = "uniform"
	// RouteHidden anneals the hidden marginal, the visible layer summed
	// out (AISConfig.Hidden), from free hidden units (b_A = 0).
	RouteHidden Route = "hidden"
	// RouteHiddenData anneals the hidden marginal from independent hidden
	// units with the training rows' mean hidden probabilities
	// (FitHiddenBase).
	RouteHiddenData Route = "hidden-data"
	// RouteExact is ExactLogZ.
	RouteExact Route = "exact"
)

// Estimate is one route's estimate of log Z. Its JSON form
// (MarshalJSON) writes null for a value that is not finite.
type Estimate struct {
	Route Route
	// LogZ and its ±3σ bounds (AISResult's; the exact value: all three
	// equal). LogZLo is −Inf when AIS gave no lower bound.
	LogZ, LogZLo, LogZHi float64
	// ESS is the effective sample size of the route's importance weights
	// (AISResult.ESS) and SE the delta-method standard error of its log Z
	// (AISResult.SE); both NaN for the exact value.
	ESS, SE         float64
	Runs, Intervals int
}

// estimate is res as route's Estimate.
func estimate(route Route, res *AISResult) Estimate {
	return Estimate{Route: route, LogZ: res.LogZ, LogZLo: res.LogZLo, LogZHi: res.LogZHi, ESS: res.ESS, SE: res.SE, Runs: res.Runs, Intervals: res.Intervals}
}

// Verdict says whether an estimate of log Z is contradicted by the
// evidence with it.
type Verdict struct {
	// Fired: the estimate misses the exact value by more than its
	// interval, or a check route's estimate lies above the estimate's
	// upper bound by more than chance allows (judge).
	Fired bool
	// Against is the route that contradicts it ("" when none does).
	Against Route
	// Disagreement is Against's log Z minus the estimate's, in nats
	// (positive: the estimate is that much too low, and its NLL that much
	// too optimistic); NaN when the verdict did not fire.
	Disagreement float64
	// Reason says what the verdict rests on, in words.
	Reason string
}

// MarkovNats caps the margin by which a check route's estimate must
// exceed the reported upper bound for the verdict to fire: log Ẑ ≥ log Z +
// t has probability at most e^−t for an unbiased Ẑ, whatever the
// distribution of its weights, so with t = ln 1000 a false alarm from one
// route is rarer than 1 in 1000 even where its standard error means
// little (few or very unequal weights).
var MarkovNats = math.Log(1000)

// judge returns the verdict on the reported estimate rep given the
// others (check routes, and the exact value when known). With the exact
// value it fires when that lies outside rep's ±3σ interval. Otherwise it
// fires when a check route r's estimate exceeds rep.LogZHi by more than
// min(3·r.SE, MarkovNats): by more than its normal approximation allows,
// or than Markov's inequality allows whatever its weights. A route below
// rep does not fire it: every AIS estimate errs low far more readily than
// high, so it is that route that missed mass.
func judge(rep Estimate, others []Estimate) Verdict {
	for _, o := range others {
		if o.Route != RouteExact {
			continue
		}
		lo := rep.LogZLo
		if math.IsNaN(lo) {
			lo = math.Inf(-1)
		}
		d := o.LogZ - rep.LogZ
		if o.LogZ < lo || o.LogZ > rep.LogZHi || math.IsNaN(rep.LogZHi) {
			return Verdict{Fired: true, Against: RouteExact, Disagreement: d,
				Reason: fmt.Sprintf("the exact log Z %.4f lies outside the estimate's ±3σ interval", o.LogZ)}
		}
		return Verdict{Disagreement: math.NaN(), Reason: fmt.Sprintf("the exact log Z %.4f lies inside the estimate's ±3σ interval", o.LogZ)}
	}
	best := Verdict{Disagreement: math.NaN()}
	checked := 0
	for _, o := range others {
		checked++
		margin := MarkovNats
		if 3*o.SE < margin {
			margin = 3 * o.SE
		}
		if !(o.LogZ-margin > rep.LogZHi) {
			continue
		}
		if d := o.LogZ - rep.LogZ; !best.Fired || d > best.Disagreement {
			best = Verdict{Fired: true, Against: o.Route, Disagreement: d,
				Reason: fmt.Sprintf("route %s's log Z %.4f exceeds the estimate's upper bound %.4f by more than its standard error or Markov's inequality allow", o.Route, o.LogZ, rep.LogZHi)}
		}
	}
	switch {
	case best.Fired:
	case checked == 0:
		best.Reason = "no check ran"
	default:
		best.Reason = "no check route found mass above the estimate's upper bound"
	}
	return best
}

// Checks are the evidence that comes with an AIS estimate of log Z. Its
// JSON form has snake_case keys (checksjson.go).
type Checks struct {
	// Estimates: the reported estimate first, then each check route's,
	// then the exact value when it was computed (RouteExact).
	Estimates []Estimate `json:"estimates"`
	// ExactBits > 0 says that the exact log Z is within reach (2^ExactBits
	// states, at most MaxExactBits) but was not computed: ExactLogZ, or
	// ncgbench's -likelihood exact, gives it.
	ExactBits int     `json:"exact_bits,omitempty"`
	Verdict   Verdict `json:"verdict"`
	// Intervals lists the intervals of each schedule the estimate was
	// made with, in order: one entry, unless Plan.GrowIntervals grew the
	// schedule while the verdict fired.
	Intervals []int `json:"intervals"`
	// BDMC is bidirectional Monte Carlo on rows drawn from the model
	// (Plan.BDMCRows; nil: not run).
	BDMC *BDMCResult `json:"bdmc,omitempty"`
}

// CheckConfig configures CheckAIS.
type CheckConfig struct {
	// Reported is the configuration of the AIS whose result is checked:
	// the check routes take its schedule, seed and workers (each route
	// draws from streams of its own), and its base model names its route
	// (BaseBias nil: RouteUniform, else RouteData).
	Reported AISConfig
	// Runs is the number of runs of each check route (≤ 0: a quarter of
	// the reported runs, at least 2).
	Runs int
	// Routes are the check routes (nil: the unit type's, CheckRoutes).
	Routes []Route
	// Exact also computes the exact log Z, when the model is small enough
	// (unit.Type.ExactLayer ≤ MaxExactBits); the verdict then rests on it.
	Exact bool

	rep *reporter // Evaluate's progress (nil: none)
}

// CheckRoutes returns the check routes of m's unit type for an estimate
// of the given route, two that differ from it in base model or marginal:
// for binary and categorical units RouteUniform (a broad base: every
// visible state equally likely) and RouteHidden (the other marginal, from
// a broad base); for Gaussian units, whose visible base shares the
// model's σ, so that zero means sit as close to standardised data as the
// data's own do, RouteHidden (whose visible layer, drawn with variance
// σ²/β, is broad early on) and RouteHiddenData. When the reported route
// is one of them, RouteData takes its place.
func CheckRoutes(m *Model, reported Route) ([]Route, error) {
	u, err := m.units()
	if err != nil {
		return nil, err
	}
	var out []Route
	for _, r := range append(u.checkRoutes(), RouteData) {
		if r != reported && len(out) < 2 {
			out = append(out, r)
		}
	}
	return out, nil
}

// routeKey offsets the stream ids of check route k (1, 2, …) from the
// reported AIS's and from each other.
func routeKey(k int) uint64 { return uint64(k+4) << 40 }

// CheckAIS checks the AIS estimate rep of m, made with cfg.Reported, by
// the check routes and, with cfg.Exact, the exact log Z; train gives the
// base models fitted to data (RouteData, RouteHiddenData). It returns
// every estimate and the verdict (judge). The routes cost AIS runs of
// their own: with the default quarter of the reported runs each, and a
// run of any route costing about what a reported run costs, the two
// together take about half the reported AIS's time.
func CheckAIS(ctx context.Context, m *Model, train *data.Set, rep *AISResult, cfg CheckConfig) (*Checks, error) {
	u, err := m.units()
	if err != nil {
		return nil, err
	}
	reported := RouteData
	if cfg.Reported.BaseBias == nil {
		reported = RouteUniform
	}
	routes := cfg.Routes
	if routes == nil {
		if routes, err = CheckRoutes(m, reported); err != nil {
			return nil, err
		}
	}
	runs := cfg.Runs
	if runs <= 0 {
		runs = max(rep.Runs/4, 2)
	}
	out := &Checks{Estimates: []Estimate{estimate(reported, rep)}, Intervals: []int{rep.Intervals}}
	var tick func(int64)
	if cfg.rep != nil && len(routes) > 0 {
		tick = cfg.rep.phase(PhaseChecks, int64(len(routes)*runs*rep.Intervals))
	}
	for k, r := range routes {
		ac := AISConfig{Runs: runs, Betas: cfg.Reported.Betas, Seed: cfg.Reported.Seed, Workers: cfg.Reported.Workers,
			key: routeKey(k + 1), tick: tick}
		switch r {
		case RouteData, RouteHiddenData:
			if train == nil {
				return nil, fmt.Errorf("eval: check route %s needs the training rows", r)
			}
			if err := u.checkRows(train, 0); err != nil {
				return nil, err
			}
			if r == RouteData {
				ac.BaseBias, err = u.fitBase(train)
			} else {
				ac.Hidden = true
				ac.BaseBias, err = fitHiddenBase(ctx, m, u, train, cfg.Reported.Workers)
			}
			if err != nil {
				return nil, err
			}
		case RouteUniform:
		case RouteHidden:
			ac.Hidden = true
		default:
			return nil, fmt.Errorf("eval: %q is not a check route (%s, %s, %s or %s)", r, RouteData, RouteUniform, RouteHidden, RouteHiddenData)
		}
		res, err := AIS(ctx, m, ac)
		if err != nil {
			return nil, err
		}
		out.Estimates = append(out.Estimates, estimate(r, res))
	}
	if cfg.rep != nil && len(routes) > 0 {
		cfg.rep.end()
	}
	if n := m.Visible.ExactLayer(m.X, m.H); cfg.Exact && n <= MaxExactBits {
		var tick func(int64)
		if cfg.rep != nil {
			tick = cfg.rep.phase(PhaseExact, exactChunks(n))
		}
		z, err := exactLogZ(ctx, m, cfg.Reported.Workers, tick)
		if err != nil {
			return nil, err
		}
		if cfg.rep != nil {
			cfg.rep.end()
		}
		out.Estimates = append(out.Estimates, Estimate{Route: RouteExact, LogZ: z, LogZLo: z, LogZHi: z, ESS: math.NaN()})
	}
	out.Verdict = judge(out.Estimates[0], out.Estimates[1:])
	return out, nil
}

// FitHiddenBase returns the hidden biases of RouteHiddenData's base model:
// logit(p_i) with p_i the mean over the training rows of P(h_i = 1 | row),
// smoothed as DataBaseRate smooths (BasePseudoCount·N ones and zeros added).
func FitHiddenBase(ctx context.Context, m *Model, train *data.Set, workers int) ([]float32, error) {
	u, err := m.units()
	if err != nil {
		return nil, err
	}
	if err := u.checkRows(train, 0); err != nil {
		return nil, err
	}
	return fitHiddenBase(ctx, m, u, train, workers)
}

func fitHiddenBase(ctx context.Context, m *Model, u visible, train *data.Set, workers int) ([]float32, error) {
	n, H := train.N, m.H
	if n == 0 {
		return nil, fmt.Errorf("eval: the hidden base model needs at least one training row")
	}
	chunks := (n + rowChunk - 1) / rowChunk
	part := make([][]float64, chunks) // each chunk's sums, added in chunk order
	workers = workerCount(workers, chunks)
	type scratch struct {
		a, p []float32
		rowScratch
	}
	sc := make([]scratch, workers)
	for w := range sc {
		sc[w].a, sc[w].p = make([]float32, rowChunk*H), make([]float32, rowChunk*H)
	}
	err := parallel(ctx, chunks, workers, func(w, c int) error {
		s := &sc[w]
		lo, hi := c*rowChunk, min(n, (c+1)*rowChunk)
		u.hiddenInputs(s.a, train, lo, hi, &s.rowScratch)
		kernel.Sigmoid(s.p[:(hi-lo)*H], s.a[:(hi-lo)*H])
		sum := make([]float64, H)
		for r := 0; r < hi-lo; r++ {
			for i, p := range s.p[r*H : (r+1)*H] {
				sum[i] += float64(p)
			}
		}
		part[c] = sum
		return nil
	})
	if err != nil {
		return nil, err
	}
	alpha := BasePseudoCount * float64(n)
	bA := make([]float32, H)
	for i := range bA {
		var s float64
		for _, p := range part {
			s += p[i]
		}
		q := (s + alpha) / (float64(n) + 2*alpha)
		bA[i] = float32(math.Log(q) - math.Log1p(-q))
	}
	return bA, nil
}
