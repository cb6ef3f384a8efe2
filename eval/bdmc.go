package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// keyReverse offsets the ids of BDMC's reverse chains from those of the
// forward runs (chain i draws from kernel.NewStream(seed, keyReverse + i)).
const keyReverse = 2 << 40

// BDMCConfig configures bidirectional Monte Carlo.
type BDMCConfig struct {
	// Rows is the number of rows drawn exactly from the model (≥ 1), each
	// the start of one reverse chain.
	Rows int
	// AIS is the forward AIS whose bias BDMC measures: the reverse chains
	// walk its schedule and base model backwards, with its seed (the rows
	// and the chains draw from streams of their own) and workers.
	AIS AISConfig
	// Forward is the result of AIS with the configuration AIS (nil: BDMC
	// runs it).
	Forward *AISResult

	tick func(intervals int64) // the reverse chains' progress
}

// BDMCResult sandwiches log Z between a forward and a reverse AIS.
type BDMCResult struct {
	// Rows drawn exactly from the model (SampleExact), one reverse chain
	// each; Intervals and Seed are the schedule's and the seed's.
	Rows, Intervals int
	Seed            uint64
	// LogZLower is the forward AIS estimate of log Z, a stochastic lower
	// bound; LogZUpper the reverse one, a stochastic upper bound. Each
	// errs the other way by t nats with probability at most e^−t.
	LogZLower, LogZUpper float64
	// Gap is LogZUpper − LogZLower: in expectation at least the forward
	// estimate's bias for this model and schedule (log Z − E log Ẑ), and
	// the width of the sandwich.
	Gap float64
	// LogPLower and LogPUpper bound the mean log-probability (for
	// Gaussian units, log-density) of the rows: −mean F − LogZUpper and
	// −mean F − LogZLower.
	LogPLower, LogPUpper float64
	// LogZ is the exact log Z that drawing the rows computes on the way.
	LogZ float64
}

// BDMC is bidirectional Monte Carlo (Grosse, Ghahramani & Adams,
// "Sandwiching the marginal likelihood using bidirectional Monte Carlo",
// 2015) for the partition function: the forward AIS (cfg.AIS) gives
// log Ẑ, below log Z in expectation; rows x_i drawn exactly from the
// model (SampleExact: the layer the exact sum enumerates from its
// marginal, then the other given it, so the model must be small enough
// for ExactLogZ) start reverse chains, RAISE's, through the same
// distributions backwards. With p̂ RAISE's estimate, unbiased for the law
// q of the forward chain's end, and p(x) = exp(−F(x))/Z, the weight
// ŵ_i = p̂(x_i)·exp(F(x_i)) of a chain from an exact sample has
// E[ŵ_i] = Σ_x p(x)·q(x)·exp(F(x)) = 1/Z exactly, whatever q is, so
//
//	log Z_upper = −log mean_i(p̂(x_i)·exp(F(x_i)))
//
// is above log Z in expectation (Jensen), and P(log Z_upper < log Z − t)
// ≤ e^−t (Markov). The gap between the two bounds is at least, in
// expectation, the forward estimate's bias: it says how far AIS with this
// schedule and base model can be off for this model, which an AIS
// estimate's own ±3σ interval (its variance) cannot. The same bounds hold
// for the mean log-probability of the rows.
func BDMC(ctx context.Context, m *Model, cfg BDMCConfig) (*BDMCResult, error) {
	if cfg.Rows < 1 {
		return nil, fmt.Errorf("eval: BDMC needs at least one row (have %d)", cfg.Rows)
	}
	if cfg.AIS.Hidden {
		return nil, errors.New("eval: BDMC reverses the visible-marginal AIS (AISConfig.Hidden is not set)")
	}
	fwd := cfg.Forward
	if fwd == nil {
		var err error
		if fwd, err = AIS(ctx, m, cfg.AIS); err != nil {
			return nil, err
		}
	}
	rows, logZ, err := SampleExact(ctx, m, cfg.Rows, cfg.AIS.Seed, cfg.AIS.Workers)
	if err != nil {
		return nil, fmt.Errorf("eval: BDMC draws its rows exactly from the model: %w", err)
	}
	rc := RAISEConfig{Chains: 1, Betas: cfg.AIS.Betas, Seed: cfg.AIS.Seed, Workers: cfg.AIS.Workers, BaseBias: cfg.AIS.BaseBias,
		key: keyReverse, tick: cfg.tick}
	rev, err := RAISE(ctx, m, rows, rc)
	if err != nil {
		return nil, err
	}
	fe, err := FreeEnergies(ctx, m, rows, cfg.AIS.Workers)
	if err != nil {
		return nil, err
	}
	lw := make([]float64, len(fe))
	for i, f := range fe {
		lw[i] = rev.LogP[i] + f
	}
	res := &BDMCResult{Rows: cfg.Rows, Intervals: rev.Intervals, Seed: cfg.AIS.Seed, LogZLower: fwd.LogZ, LogZUpper: -logMeanExp(lw), LogZ: logZ}
	res.Gap = res.LogZUpper - res.LogZLower
	mf := mean(fe)
	res.LogPLower, res.LogPUpper = -mf-res.LogZUpper, -mf-res.LogZLower
	if math.IsNaN(res.Gap) {
		return nil, errors.New("eval: BDMC bounds are NaN")
	}
	return res, nil
}
