package eval

import (
	"context"
	"errors"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// RAISEReal is RAISE for a Gaussian model: it estimates the log-densities
// of the n real-valued rows of v (n×X, row-major) by reverse annealed
// importance sampling through AIS's distributions for a Gaussian model
// (the base model N(cfg.BaseBias, σ²), nil: zero means; see AIS). A chain
// starts at the row, v_K = v, and for k = K … 1 draws v_{k−1} by the Gibbs
// transition at β_k; its estimate is
//
//	p̂(v) = p_A(v_0) · Π_k p*_{β_k}(v_k) / p*_{β_k}(v_{k−1}),
//
// with log p*_β(v) = −(1−β)·Σ_i (v_i − m_i)²/(2σ_i²) − β·Σ_i (v_i − b_i)²/(2σ_i²)
// + Σ_j softplus(β(c_j + Σ_i C_ij v_i/σ_i²)) and p_A the base density.
// The result's MeanLogP is a mean log-density (nats per row, so the NLL
// −MeanLogP can be negative); as for binary models it errs low where
// AIS's errs high. Chain c of row i draws from kernel.NewStream(Seed,
// i·Chains + c), so the result is bit-identical for any number of workers.
//
// When ctx is done it stops early, with an error wrapping ctx.Err().
func RAISEReal(ctx context.Context, m *Model, v []float32, n int, cfg RAISEConfig) (*RAISEResult, error) {
	if err := gaussianOnly(m, "RAISEReal"); err != nil {
		return nil, err
	}
	if err := checkRealData(v, n, m.X); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("eval: RAISE needs at least one test row")
	}
	chains := max(cfg.Chains, 1)
	r, _, err := newGaussRunner(m, cfg.Betas, cfg.BaseBias, cfg.Seed)
	if err != nil {
		return nil, err
	}
	r.done, r.tick = ctx.Done(), cfg.tick
	logp := make([]float64, n*chains)
	workers := workerCount(cfg.Workers, n*chains)
	sc := make([]*gaussScratch, workers)
	for w := range sc {
		sc[w] = newGaussScratch(m.H, m.X)
	}
	err = parallel(ctx, n*chains, workers, func(w, i int) error {
		row := v[i/chains*m.X : (i/chains+1)*m.X]
		logp[i] = r.reverse(sc[w], row, uint64(i))
		return r.stopErr(ctx)
	})
	if err != nil {
		return nil, err
	}
	return raiseResult(logp, n, chains, len(r.beta)-1, cfg.Seed)
}

// gaussScratch is one RAISE chain's scratch.
type gaussScratch struct {
	v, s, mu, z  []float32 // X: state, state/σ², b + Ch, normal draws
	a, h, s1, pr []float32 // H: c + Cᵀ(v/σ²), hidden state, β·a, probabilities
	idxH         []int32
	buf          []uint32
	vp           binProduct
}

func newGaussScratch(H, X int) *gaussScratch {
	return &gaussScratch{
		v: make([]float32, X), s: make([]float32, X), mu: make([]float32, X), z: make([]float32, X),
		a: make([]float32, H), h: make([]float32, H), s1: make([]float32, H), pr: make([]float32, H),
		idxH: make([]int32, H), buf: make([]uint32, X+1), vp: newBinProduct(H, X),
	}
}

// logPStar returns log p*_β(v) given a = c + Cᵀ(v/σ²) (s.s1 is scratch).
func (r *gaussRunner) logPStar(s *gaussScratch, beta float32, v, a []float32) float64 {
	b := float64(beta)
	lp := -(1-b)*quadratic(v, r.mA, r.p64) - b*quadratic(v, r.m.VisibleBias, r.p64)
	clear(s.s1)
	kernel.Axpy(s.s1, beta, a)
	kernel.Softplus(s.s1, s.s1)
	return lp + sum64(s.s1)
}

// hidden sets s.a = c + Cᵀ(s.v/σ²).
func (r *gaussRunner) hidden(s *gaussScratch) {
	r.scale(s.s, s.v)
	kernel.Affine(s.a, r.m.HiddenBias, s.s, r.m.C, 1, r.m.X, r.m.H)
}

// reverse runs one RAISE chain from the row and returns its log p̂(v).
func (r *gaussRunner) reverse(s *gaussScratch, row []float32, id uint64) float64 {
	m := r.m
	st := kernel.NewStream(r.seed, id)
	copy(s.v, row)
	s.vp.reset()
	r.hidden(s)
	var logp float64
	for k := len(r.beta) - 1; k >= 1; k-- {
		if k%stopEvery == 0 {
			r.advance(stopEvery)
			if r.stopped() {
				return math.NaN()
			}
		}
		bk := r.beta[k]
		logp += r.logPStar(s, bk, s.v, s.a)
		// h ~ σ(β_k a(v_k)), then v_{k−1} ~ N((1−β_k)m + β_k(b + Ch), σ²).
		clear(s.s1)
		kernel.Axpy(s.s1, bk, s.a)
		kernel.SigmoidBernoulli(s.pr, s.h, s.s1, &st)
		s.vp.update(s.mu, m.VisibleBias, r.ct, m.X, r.xs, s.h, s.idxH)
		r.visibleDraw(s.v, bk, s.mu, &st, s.z, s.buf)
		r.hidden(s)
		logp -= r.logPStar(s, bk, s.v, s.a)
	}
	r.advance((len(r.beta) - 1) % stopEvery)
	// log p_A(v_0) = −Σ_i (v_i − m_i)²/(2σ_i²) − Σ_i ½·log(2πσ_i²).
	return logp - quadratic(s.v, r.mA, r.p64) - r.logs
}
