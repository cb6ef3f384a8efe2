package eval

import (
	"context"
	"fmt"
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// AIS and RAISE for Gaussian models.
//
// The base model p_A has independent visible units v_i ~ N(m_i, σ_i²), with
// the model's σ and the means m = AISConfig.BaseBias (BaseMean of the
// training rows; nil: zeros), and H free hidden units: Z_A = 2^H·Π_i √(2π)σ_i.
// The intermediate distributions are p*_β(v, h) = exp(−(1−β)E_A(v) −
// βE(v, h)) with E_A(v) = Σ_i (v_i − m_i)²/(2σ_i²), as in Salakhutdinov &
// Murray's binary AIS. Summing out h,
//
//	log p*_β(v) = −(1−β)·Q_A(v) − β·Q(v) + Σ_j softplus(β·a_j(v)),
//
// with Q_A(v) = Σ_i (v_i − m_i)²/(2σ_i²), Q(v) = Σ_i (v_i − b_i)²/(2σ_i²) and
// a_j(v) = c_j + Σ_i C_ij v_i/σ_i². Its Gibbs transition: h_j ~ σ(β·a_j(v)),
// then, completing the square in v_i (the quadratic coefficient is
// 1/(2σ_i²) for every β),
//
//	v_i ~ N((1−β)·m_i + β·(b_i + Σ_j C_ij h_j), σ_i²).
//
// The log-weight increment of step k is log p*_{β_k}(v) − log p*_{β_{k−1}}(v)
// = −Δβ·(Q(v) − Q_A(v)) + Σ_j softplus(β_k a_j) − softplus(β_{k−1} a_j), with
// Q(v) − Q_A(v) = Σ_i (m_i − b_i)(v_i − (b_i + m_i)/2)/σ_i².

// gaussRunner is what every Gaussian AIS or RAISE chain reads (read-only).
// It embeds the binary runner for the schedule, seed, stop and progress
// and its padded Cᵀ (the rows a binary hidden state sums); the binary
// base-rate fields are unused.
type gaussRunner struct {
	*aisRunner
	mA     []float32 // base means (X)
	p32    []float32 // 1/σ² (X)
	p64    []float64
	sig    []float32 // σ (X)
	g      []float64 // (m − b)/σ² (X)
	centre []float64 // (b + m)/2 (X)
	logs   float64   // Σ_i ½·log(2πσ_i²)
}

// newGaussRunner checks the schedule and the base means (nil: zeros) and
// prepares the shared state; it returns log Z_A as well.
func newGaussRunner(m *Model, betas []float64, mA []float32, seed uint64) (*gaussRunner, float64, error) {
	betas, err := schedule(betas)
	if err != nil {
		return nil, 0, err
	}
	if mA == nil {
		mA = make([]float32, m.X)
	}
	if len(mA) != m.X {
		return nil, 0, fmt.Errorf("eval: AIS base means have length %d, want X = %d", len(mA), m.X)
	}
	for i, v := range mA {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, 0, fmt.Errorf("eval: AIS base mean %d = %v is not finite", i, v)
		}
	}
	r := &aisRunner{m: m, seed: seed}
	r.xs = kernel.PadStride(m.X)
	r.ct = padRows(m.transposed(), m.H, m.X, r.xs)
	r.beta = make([]float32, len(betas))
	for k, b := range betas {
		r.beta[k] = float32(b)
	}
	g := &gaussRunner{aisRunner: r, mA: mA, sig: make([]float32, m.X), g: make([]float64, m.X), centre: make([]float64, m.X)}
	g.p32, g.p64 = precisions(m)
	for i := range g.sig {
		s := m.sigma(i)
		g.sig[i] = float32(s)
		b, mi := float64(m.VisibleBias[i]), float64(mA[i])
		g.g[i] = (mi - b) * g.p64[i]
		g.centre[i] = (b + mi) / 2
		g.logs += 0.5 * math.Log(2*math.Pi*s*s)
	}
	return g, float64(m.H)*math.Ln2 + g.logs, nil
}

// gaussians fills z with standard normal draws from st by the Box–Muller
// transform: pair p takes two draws a, b (Uint32s of 2⌈len(z)/2⌉ into buf),
// u = (a + ½)·2⁻³², w = (b + ½)·2⁻³² in (0, 1), and gives √(−2 log u)·cos(2πw)
// and √(−2 log u)·sin(2πw) (the second dropped when len(z) is odd), in
// float64. u ≥ 2⁻³³ truncates the pair's radius at 6.8: the probability
// mass cut off is 2⁻³³ ≈ 1.2e-10 per pair.
func gaussians(z []float32, st *kernel.Stream, buf []uint32) {
	n := 2 * ((len(z) + 1) / 2)
	buf = buf[:n]
	st.Uint32s(buf)
	for p := 0; p < n; p += 2 {
		u := (float64(buf[p]) + 0.5) * (1.0 / (1 << 32))
		w := (float64(buf[p+1]) + 0.5) * (1.0 / (1 << 32))
		rad := math.Sqrt(-2 * math.Log(u))
		s, c := math.Sincos(2 * math.Pi * w)
		z[p] = float32(rad * c)
		if p+1 < len(z) {
			z[p+1] = float32(rad * s)
		}
	}
}

// visibleDraw sets v = (1−β)m_A + β·mu + σ·z in float32, z standard normal
// from st (z and buf are scratch of X and X+1).
func (r *gaussRunner) visibleDraw(v []float32, beta float32, mu []float32, st *kernel.Stream, z []float32, buf []uint32) {
	gaussians(z, st, buf)
	for i := range v {
		v[i] = r.mA[i] + beta*(mu[i]-r.mA[i]) + r.sig[i]*z[i]
	}
}

// quadDiff returns Q(v) − Q_A(v) = Σ_i (m_i − b_i)(v_i − (b_i + m_i)/2)/σ_i².
func (r *gaussRunner) quadDiff(v []float32) float64 {
	var d float64
	for i, x := range v {
		d += r.g[i] * (float64(x) - r.centre[i])
	}
	return d
}

// scale writes v/σ² to s (the input of the hidden pre-activation).
func (r *gaussRunner) scale(s, v []float32) {
	for k, x := range v {
		s[k] = x * r.p32[k%len(r.p32)]
	}
}

// gaussBlock is a worker's scratch for a block of up to maxBlockRuns
// Gaussian AIS runs.
type gaussBlock struct {
	v, s []float32 // runs×X: states and states/σ²
	h    []float32 // runs×H: binary hidden states
	a    []float32 // runs×H: c + Cᵀ(v/σ²)
	mu   []float32 // runs×X: b + Ch
	st   []kernel.Stream
	vp   *blockProduct
	s1   []float32 // β_k·a (H)
	sp   []float32 // scratch for softplusDiff (2H)
	prob []float32 // probabilities (H)
	z    []float32 // normal draws (X)
	buf  []uint32  // X+1
}

func newGaussBlock(runs, H, X int) *gaussBlock {
	return &gaussBlock{
		v: make([]float32, runs*X), s: make([]float32, runs*X),
		h: make([]float32, runs*H), a: make([]float32, runs*H), mu: make([]float32, runs*X),
		st: make([]kernel.Stream, runs), vp: newBlockProduct(runs, H, X),
		s1: make([]float32, H), sp: make([]float32, 2*H), prob: make([]float32, H),
		z: make([]float32, X), buf: make([]uint32, X+1),
	}
}

// runBlock performs runs first … first+len(logw)−1 in lockstep and writes
// their log weights: interval by interval, the hidden pre-activations of
// all runs in one dense product (kernel.Affine, which computes each run's
// row by itself, so a run's result does not depend on its block), each
// run's weight increment and hidden draw, then the visible means of all
// runs by blockProduct and each run's visible draw.
func (r *gaussRunner) runBlock(b *gaussBlock, first int, logw []float64) {
	m := r.m
	H, X, n := m.H, m.X, len(logw)
	for i := 0; i < n; i++ {
		b.st[i] = kernel.NewStream(r.seed, uint64(first+i))
		// v ~ p_A: β = 0, the mean is m_A.
		r.visibleDraw(b.v[i*X:(i+1)*X], 0, r.mA, &b.st[i], b.z, b.buf)
		logw[i] = 0
	}
	b.vp.reset()
	K := len(r.beta) - 1
	for k := 1; k <= K; k++ {
		if k%stopEvery == 0 {
			r.advance(n * stopEvery)
			if r.stopped() {
				return
			}
		}
		r.scale(b.s[:n*X], b.v[:n*X])
		kernel.Affine(b.a, m.HiddenBias, b.s, m.C, n, X, H)
		db := float64(r.beta[k]) - float64(r.beta[k-1])
		for i := 0; i < n; i++ {
			// hiddenStep with no active binary units: the softplus
			// differences, and h ~ σ(β_k a) below the last step.
			logw[i] += r.hiddenStep(k, b.a[i*H:(i+1)*H], nil, b.h[i*H:(i+1)*H], &b.st[i], b.s1, b.prob, b.sp) -
				db*r.quadDiff(b.v[i*X:(i+1)*X])
		}
		if k == K {
			r.advance(n * (K % stopEvery))
			break
		}
		b.vp.update(b.mu, m.VisibleBias, r.ct, r.xs, n, b.h)
		for i := 0; i < n; i++ {
			r.visibleDraw(b.v[i*X:(i+1)*X], r.beta[k], b.mu[i*X:(i+1)*X], &b.st[i], b.z, b.buf)
		}
	}
}

// gaussAIS is AIS for a Gaussian model (runs ≥ 1).
func gaussAIS(ctx context.Context, m *Model, cfg AISConfig, runs int) (*AISResult, error) {
	r, logZA, err := newGaussRunner(m, cfg.Betas, cfg.BaseBias, cfg.Seed)
	if err != nil {
		return nil, err
	}
	r.done, r.tick = ctx.Done(), cfg.tick
	logw, err := runInBlocks(ctx, runs, cfg.Workers, func(size int) *gaussBlock { return newGaussBlock(size, m.H, m.X) },
		r.runBlock, r.stopErr)
	if err != nil {
		return nil, err
	}
	return aisResult(logw, logZA, cfg.Seed, len(r.beta)-1), nil
}
