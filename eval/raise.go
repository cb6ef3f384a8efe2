package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/data"
	"github.com/ncg-rbm/ncg/kernel"
)

// RAISEConfig configures RAISE. The schedule, base model and seed mean what
// they mean for AIS.
type RAISEConfig struct {
	// Chains is the number of reverse chains per test row (≤ 0: 1).
	Chains int
	// Betas is the schedule, as AISConfig.Betas (nil: DefaultSchedule).
	Betas []float64
	// Seed keys the streams: chain c of row i draws from
	// kernel.NewStream(Seed, i·Chains + c).
	Seed uint64
	// Workers as AISConfig.Workers; the result does not depend on it.
	Workers int
	// BaseBias as AISConfig.BaseBias.
	BaseBias []float32

	key  uint64                // as AISConfig's
	tick func(intervals int64) // as AISConfig's
}

// RAISEResult is a RAISE estimate of the mean log-probability of test rows.
type RAISEResult struct {
	// MeanLogP is the mean over rows of log p̂(x), with p̂(x) the mean of
	// the row's chain estimates; NLL = −MeanLogP. SE is the standard error
	// of that mean over rows.
	MeanLogP, SE float64
	// LogP holds each row's log p̂(x).
	LogP      []float64
	Rows      int
	Chains    int
	Intervals int
	Seed      uint64
}

// RAISE estimates the log-probabilities of the rows of the model by
// reverse annealed importance sampling (Burda, Grosse & Salakhutdinov,
// AISTATS 2015): every row of rows (pass rows.Subset(idx) to measure some
// of a larger set), of the kind FreeEnergies takes. The distributions are
// those of AIS (see AIS, per unit type), from the base model cfg.BaseBias.
//
// A chain starts at the row, x_K = x, and walks the schedule backwards:
// for k = K … 1 it draws x_{k−1} from the Gibbs transition at β_k (the same
// as AIS's, which is reversible with respect to p*_{β_k}). Its estimate is
//
//	p̂(x) = p_A(x_0) · Π_k p*_{β_k}(x_k) / p*_{β_k}(x_{k−1})
//
// whose expectation is exactly q(x), the probability (for Gaussian units,
// the density) that AIS's forward chain ends at x
// (TestRAISEIsUnbiasedForTheAnnealedModel checks this by enumeration on a
// small model). log p̂ is below log q in expectation (Jensen), so the NLL
// from RAISE errs high where q is the model, and on average over rows
// drawn from the model (E_p log q ≤ E_p log p, which BDMC uses); on data
// rows of a model whose mass AIS misses, q can give the rows more than the
// model does, and RAISE's NLL errs low as AIS's does. For Gaussian units
// MeanLogP is a mean log-density.
//
// Chain c of row i draws from kernel.NewStream(Seed, i·Chains + c); the
// chains run in lockstep blocks as AIS's runs do, each chain's arithmetic
// independent of its block, so the result is bit-identical for any number
// of workers.
//
// When ctx is done it stops early, with an error wrapping ctx.Err(): every
// chain looks every stopEvery intervals.
func RAISE(ctx context.Context, m *Model, rows *data.Set, cfg RAISEConfig) (*RAISEResult, error) {
	u, err := m.units()
	if err != nil {
		return nil, err
	}
	if err := u.checkRows(rows, 0); err != nil {
		return nil, err
	}
	n := rows.N
	if n == 0 {
		return nil, fmt.Errorf("eval: RAISE needs at least one test row")
	}
	chains := max(cfg.Chains, 1)
	r, _, err := newAISRunner(m, u, cfg.Betas, cfg.BaseBias, cfg.Seed)
	if err != nil {
		return nil, err
	}
	r.done, r.tick, r.key = ctx.Done(), cfg.tick, cfg.key
	logp, err := runInBlocks(ctx, n*chains, cfg.Workers, r.newBlock, func(b *chainBlock, first int, logp []float64) {
		r.reverseBlock(b, first, logp, rows, chains)
	}, r.stopErr)
	if err != nil {
		return nil, err
	}
	return raiseResult(logp, n, chains, len(r.beta)-1, cfg.Seed)
}

// reverseBlock runs RAISE chains first … first+len(logp)−1 (chain i of row
// i/chains) in lockstep and writes their log p̂: step by step from β_K
// down, each chain's log p*_{β_k} at its state and hidden draw, the visible
// products of all chains, each chain's visible draw, the hidden inputs of
// all chains, and each chain's log p*_{β_k} at its new state.
func (r *aisRunner) reverseBlock(b *chainBlock, first int, logp []float64, rows *data.Set, chains int) {
	m, u := r.m, r.u
	H, n := m.H, len(logp)
	for i := 0; i < n; i++ {
		b.st[i] = kernel.NewStream(r.seed, r.key+uint64(first+i))
		u.load(b, i, rows, (first+i)/chains)
	}
	b.vp.reset()
	if b.hp != nil {
		b.hp.reset()
	}
	u.hiddenChains(b, n)
	for i := 0; i < n; i++ {
		logp[i] = u.raiseStart(b, i)
	}
	K := len(r.beta) - 1
	for k := K; k >= 1; k-- {
		if k%stopEvery == 0 {
			r.advance(n * stopEvery)
			if r.stopped() {
				return
			}
		}
		bk := r.beta[k]
		for i := 0; i < n; i++ {
			// h ~ σ(β_k a(x_k)).
			clear(b.s1)
			kernel.Axpy(b.s1, bk, b.a[i*H:(i+1)*H])
			kernel.SigmoidBernoulli(b.prob[:H], b.h[i*H:(i+1)*H], b.s1, &b.st[i])
			logp[i] = u.raiseUp(b, i, bk, logp[i])
		}
		// x_{k−1} from the transition at β_k.
		b.vp.update(b.v, r.vbias, r.ct, r.xs, n, b.h)
		for i := 0; i < n; i++ {
			u.draw(b, i, bk)
		}
		u.hiddenChains(b, n)
		for i := 0; i < n; i++ {
			logp[i] = u.raiseDown(b, i, bk, logp[i])
		}
	}
	r.advance(n * (K % stopEvery))
	for i := 0; i < n; i++ {
		logp[i] = u.raiseEnd(b, i, logp[i])
	}
}

// raiseResult combines the chains' log p̂ (n rows × chains, row-major) into
// each row's log-mean and their mean and standard error.
func raiseResult(logp []float64, n, chains, intervals int, seed uint64) (*RAISEResult, error) {
	res := &RAISEResult{LogP: make([]float64, n), Rows: n, Chains: chains, Intervals: intervals, Seed: seed}
	for i := range res.LogP {
		res.LogP[i] = logMeanExp(logp[i*chains : (i+1)*chains])
		if math.IsNaN(res.LogP[i]) || math.IsInf(res.LogP[i], 0) {
			return nil, fmt.Errorf("eval: RAISE estimate of test row %d is %v", i, res.LogP[i])
		}
	}
	res.MeanLogP = mean(res.LogP)
	if n > 1 {
		var ss float64
		for _, v := range res.LogP {
			ss += (v - res.MeanLogP) * (v - res.MeanLogP)
		}
		res.SE = math.Sqrt(ss / float64(n-1) / float64(n))
	}
	return res, nil
}

// logMeanExp is log(mean(exp(v))).
func logMeanExp(v []float64) float64 {
	return logSumExp(v) - math.Log(float64(len(v)))
}
