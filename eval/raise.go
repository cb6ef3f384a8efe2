package eval

import (
	"context"
	"fmt"
	"math"

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

// RAISE estimates the log-probabilities of n rows of the model by reverse
// annealed importance sampling (Burda, Grosse & Salakhutdinov, AISTATS
// 2015). x holds exactly those n rows, row-major, m.X bytes each: pass
// set.X[:n*set.D] to measure the first n rows of a larger set. The
// distributions are those of AIS: p*_β(x) =
// exp((1−β)xᵀd_A + βxᵀd) · Π_i (1 + exp(β(b_i + C_i·x))).
//
// A chain starts at the test row x_K = x and walks the schedule backwards:
// for k = K … 1 it draws x_{k−1} from the Gibbs transition at β_k (the same
// as AIS's, which is reversible with respect to p*_{β_k}). Its estimate is
//
//	p̂(x) = p_A(x_0) · Π_k p*_{β_k}(x_k) / p*_{β_k}(x_{k−1})
//
// whose expectation is exactly q(x), the probability that AIS's forward
// chain ends at x (TestRAISEIsUnbiasedForTheAnnealedModel checks this
// by enumeration on a small model). q tends to the model as the schedule
// gets finer, and log p̂ is below log q in expectation (Jensen), so the
// NLL from RAISE errs high where AIS's errs low: Burda et al. found the two
// bracket the true value. Each row's chains are independent, spread over
// the workers, so the result is bit-identical for any number of workers.
//
// When ctx is done it stops early, with an error wrapping ctx.Err(): every
// chain looks every stopEvery intervals.
func RAISE(ctx context.Context, m *Model, x []uint8, n int, cfg RAISEConfig) (*RAISEResult, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := m.binaryOnly("RAISE", "RAISEReal"); err != nil {
		return nil, err
	}
	if err := checkData(x, n, m.X); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("eval: RAISE needs at least one test row")
	}
	chains := max(cfg.Chains, 1)
	r, logZA, err := newAISRunner(m, cfg.Betas, cfg.BaseBias, cfg.Seed)
	if err != nil {
		return nil, err
	}
	r.done, r.tick = ctx.Done(), cfg.tick
	// log p_A(x) = Σ_j x_j d_A_j − softplus(d_A_j); the softplus sum is
	// log Z_A without the hidden units' H·log 2.
	spA := logZA - float64(m.H)*math.Ln2
	logp := make([]float64, n*chains)
	workers := workerCount(cfg.Workers, n*chains)
	sc := newAISScratches(workers, m.H, m.X)
	err = parallel(ctx, n*chains, workers, func(w, i int) error {
		row := x[i/chains*m.X : (i/chains+1)*m.X]
		logp[i] = r.reverse(sc[w], row, uint64(i)) - spA
		return r.stopErr(ctx)
	})
	if err != nil {
		return nil, err
	}
	return raiseResult(logp, n, chains, len(r.beta)-1, cfg.Seed)
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

// reverse runs one RAISE chain from the test row and returns
// log p̂(x) + Σ_j softplus(d_A_j). With a(x) = b + Cx, SP_k(x) =
// Σ_i softplus(β_k a_i(x)) and the base-rate terms telescoped:
//
//	log p̂ = xᵀd_A − Σ_j softplus(d_A_j)
//	        + Σ_k β_k (x_k − x_{k−1})ᵀ(d − d_A) + SP_k(x_k) − SP_k(x_{k−1}).
func (r *aisRunner) reverse(s *aisScratch, row []uint8, id uint64) float64 {
	m := r.m
	H, X := m.H, m.X
	st := kernel.NewStream(r.seed, id)
	for j, v := range row {
		s.x[j] = float32(v)
	}
	s.hp.reset()
	s.vp.reset()
	act := s.idxX[:s.hp.update(s.a, m.HiddenBias, r.c, H, r.hs, s.x, s.idxX)]
	var logp, xdd float64
	for _, j := range act {
		logp += float64(r.dA[j])
		xdd += r.dd[j]
	}
	for k := len(r.beta) - 1; k >= 1; k-- {
		if k%stopEvery == 0 {
			r.advance(stopEvery)
			if r.stopped() {
				return math.NaN()
			}
		}
		bk := r.beta[k]
		// SP_k(x_k), and h ~ σ(β_k a(x_k)).
		clear(s.s1)
		kernel.Axpy(s.s1, bk, s.a)
		kernel.SigmoidBernoulli(s.prob[:H], s.h, s.s1, &st)
		kernel.Softplus(s.s1, s.s1)
		logp += sum64(s.s1)
		// x_{k−1} ~ σ((1−β_k)d_A + β_k(d + Cᵀh)) = σ(d_A + β_k v), with
		// v = (d − d_A) + Cᵀh.
		s.vp.update(s.v, r.dd32, r.ct, X, r.xs, s.h, s.idxH)
		r.visibleStep(k, s.v, s.x, &st, s.pre, s.prob)
		act = s.idxX[:s.hp.update(s.a, m.HiddenBias, r.c, H, r.hs, s.x, s.idxX)]
		// − SP_k(x_{k−1}) and the (d − d_A) term.
		clear(s.s1)
		kernel.Axpy(s.s1, bk, s.a)
		kernel.Softplus(s.s1, s.s1)
		logp -= sum64(s.s1)
		var xdd1 float64
		for _, j := range act {
			xdd1 += r.dd[j]
		}
		logp += float64(bk) * (xdd - xdd1)
		xdd = xdd1
	}
	r.advance((len(r.beta) - 1) % stopEvery)
	// The base-rate terms telescoped to xᵀd_A (already in logp): p_A(x_0)'s
	// x_0ᵀd_A cancels the last step's.
	return logp
}
