package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// AIS of the hidden marginal (AISConfig.Hidden).
//
// The hidden units are binary for every unit type, and summing (or
// integrating) the visible layer out of the joint gives the hidden
// marginal in closed form: p*(h) = exp(bᵀh + G(v(h))), with v(h) the
// visible units' input from h and G the log partition function of the
// visible layer given it (the term the exact sum adds per hidden state).
// Annealing from independent hidden units of biases b_A, with the joint
//
//	π_β(x, h) ∝ exp((1−β)·b_Aᵀh − β·E(x, h)),
//
// whose visible conditional is the model's at inverse temperature β, the
// hidden marginal of π_β is
//
//	f_β(h) = exp((1−β)·b_Aᵀh + β·bᵀh + G_β(v(h))),
//
// G_β the log partition function of the visible layer of π_β given h, up to
// a constant that does not depend on h (visible.marginalConst): for binary
// units G_β = Σ_j softplus(β·v_j) with v = d + Cᵀh; for categorical units
// G_β = Σ_g logsumexp_k(β·v_gk); for Gaussian units, v = μ(h) = b + Ch,
// G_β = β·Σ_i (μ_i² − b_i²)/(2σ_i²) (the Gaussian integral's
// (2πσ_i²/β)^½, the same for every h, is left out, and its value at β = 1
// added at the end). A run draws h from the base model, then for each β_k
// adds log f_{β_k}(h) − log f_{β_{k−1}}(h) = Δβ·hᵀ(b − b_A) + G_{β_k} −
// G_{β_{k−1}} to its log weight and, below the last step, makes a Gibbs
// transition of π_{β_k}: the visible layer from its conditional at β_k
// (binary: σ(β·v); categorical: softmax(β·v_g) per group; Gaussian:
// N(μ(h), σ²/β)), then h ~ σ((1−β_k)·b_A + β_k·a(x)), a the hidden input.
// log Z = Σ_i softplus(b_A_i) + marginalConst + log mean(w).
//
// For a binary model this is AIS of the transposed model (the layers
// swap roles, Salakhutdinov & Murray's base-rate model over the hidden
// units); for the other types it anneals a marginal the visible-side AIS
// never sees, through the same transitions. Either way its failures are
// its own: it starts from other states than the visible-side AIS and
// passes through other distributions, so the two missing the same mass
// by the same amount is no coincidence to expect (CheckAIS).

// hiddenRunner is AIS of the hidden marginal: aisRunner's shared state
// (Cᵀ, the visible product's bias v = VisibleBias, the schedule) and the
// hidden base model.
type hiddenRunner struct {
	*aisRunner
	bA []float32 // the base model's hidden biases (H)
	bb []float64 // b − b_A (H)
}

// aisHidden is AIS with cfg.Hidden set.
func aisHidden(ctx context.Context, m *Model, u visible, runs int, cfg AISConfig) (*AISResult, error) {
	bA := cfg.BaseBias
	if bA == nil {
		bA = make([]float32, m.H)
	}
	if len(bA) != m.H {
		return nil, fmt.Errorf("eval: hidden AIS base biases have length %d, want H = %d", len(bA), m.H)
	}
	for i, v := range bA {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("eval: hidden AIS base bias %d = %v is not finite", i, v)
		}
	}
	// The visible side's base model at zero (nil): the transitions draw
	// the visible layer from the model's conditional, v = VisibleBias + Cᵀh.
	ar, _, err := newAISRunner(m, u, cfg.Betas, nil, cfg.Seed)
	if err != nil {
		return nil, err
	}
	ar.done, ar.tick, ar.key = ctx.Done(), cfg.tick, cfg.key
	r := &hiddenRunner{aisRunner: ar, bA: bA, bb: make([]float64, m.H)}
	logZA := u.marginalConst()
	for i, v := range bA {
		r.bb[i] = float64(m.HiddenBias[i]) - float64(v)
		logZA += softplus64(float64(v))
	}
	logw, err := runInBlocks(ctx, runs, cfg.Workers, r.newBlock, r.hiddenBlock, r.stopErr)
	if err != nil {
		return nil, err
	}
	res := aisResult(logw, logZA, cfg.Seed, len(r.beta)-1)
	res.Hidden = true
	return res, nil
}

// hiddenBlock performs runs first … first+len(logw)−1 of the hidden
// marginal in lockstep, as runBlock does those of the visible one:
// interval by interval, the visible products v = VisibleBias + Cᵀh of all
// runs (blockProduct), each run's weight increment and visible draw
// (visible.marginalStep), the hidden inputs of all runs (hiddenChains)
// and each run's hidden draw.
func (r *hiddenRunner) hiddenBlock(b *chainBlock, first int, logw []float64) {
	m, u := r.m, r.u
	H, n := m.H, len(logw)
	for i := 0; i < n; i++ {
		b.st[i] = kernel.NewStream(r.seed, r.key+uint64(first+i))
		kernel.SigmoidBernoulli(b.prob[:H], b.h[i*H:(i+1)*H], r.bA, &b.st[i]) // h ~ σ(b_A)
		logw[i] = 0
	}
	b.vp.reset()
	if b.hp != nil {
		b.hp.reset()
	}
	K := len(r.beta) - 1
	for k := 1; k <= K; k++ {
		if k%stopEvery == 0 {
			r.advance(n * stopEvery)
			if r.stopped() {
				return
			}
		}
		b.vp.update(b.v, r.vbias, r.ct, r.xs, n, b.h)
		bk, bp := r.beta[k], r.beta[k-1]
		db := float64(bk) - float64(bp)
		for i := 0; i < n; i++ {
			var hb float64
			for _, j := range b.vp.act[i*H : i*H+b.vp.ones[i]] {
				hb += r.bb[j]
			}
			logw[i] += db*hb + u.marginalStep(b, i, bk, bp, k < K)
		}
		if k == K {
			r.advance(n * (K % stopEvery))
			break
		}
		u.hiddenChains(b, n)
		for i := 0; i < n; i++ {
			// h ~ σ((1−β_k)b_A + β_k a).
			clear(b.s1)
			kernel.Axpy(b.s1, 1-bk, r.bA)
			kernel.Axpy(b.s1, bk, b.a[i*H:(i+1)*H])
			kernel.SigmoidBernoulli(b.prob[:H], b.h[i*H:(i+1)*H], b.s1, &b.st[i])
		}
	}
}
