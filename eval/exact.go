package eval

import (
	"context"
	"fmt"
	"math"
	"math/bits"
)

// MaxExactBits is the hard limit of ExactLogZ: the largest smaller layer it
// accepts, summing over 2^MaxExactBits states at most. LikelihoodAuto
// chooses the exact sum only up to AutoExactBits.
const MaxExactBits = 25

const (
	// exactChunkBits: one parallel piece enumerates 2^exactChunkBits states
	// (fewer if the layer is smaller). Fixed, so the reduction order, and
	// hence the result, does not depend on the number of workers.
	exactChunkBits = 12
	// exactRefresh: the pre-activation vector is recomputed from scratch
	// every exactRefresh Gray-code steps, bounding float32 drift.
	exactRefresh = 64
)

// ExactLogZ returns log Z, the log of the sum of exp(−E) over every joint
// state, by enumerating the states of one layer and summing the other out
// analytically: 2^n states for n = m.Visible.ExactLayer(m.X, m.H), at
// most MaxExactBits.
//
// A binary model is enumerated over its smaller layer (ties: the hidden
// one). With the hidden layer smaller,
//
//	log Z = log Σ_h exp(bᵀh + Σ_j softplus(d_j + (Cᵀh)_j)),
//
// and symmetrically over x when the visible layer is smaller.
//
// A Gaussian model is enumerated over its 2^H hidden states, the integral
// over the visible units done analytically, whatever X is:
//
//	log Z = log Σ_h exp(cᵀh + Σ_i (μ_i(h)² − b_i²)/(2σ_i²)) + Σ_i ½·log(2πσ_i²),
//
// μ(h) = b + Ch, in float64 (derivation at gaussUnits.exact).
//
// A categorical model is enumerated over its 2^H hidden states, each group
// summed analytically given h, in float64:
//
//	log Z = log Σ_h exp(bᵀh + Σ_g logsumexp_k(d_gk + (Ch)_gk)).
//
// States are visited in Gray-code order inside fixed chunks of 4096, so each
// state costs one row add or subtract and one pass over the other layer.
// Chunks are spread over workers (≤ 0: GOMAXPROCS) and reduced in chunk
// order, so the result does not depend on the number of workers.
//
// Accuracy of the binary sum: each pre-activation entry is a float32 sum of
// its bias, at most n rows from a fresh recomputation (n = the enumerated
// layer's size) and at most 63 incremental ±row updates (the vector is
// recomputed every 64 steps). With u = 2⁻²⁴ its error is at most
// (n+64)·u·(|bias| + Σ|weights|), and since softplus is 1-Lipschitz each
// state's log term is off by at most the sum of these over the other layer
// plus the Softplus kernel's error (1e-6·max(1,|value|) per entry); log Z
// is off by no more than the largest per-state error. For weights of size
// ~1 this is ~1e-4 nats or less; the typical error is far smaller (rounding
// errors are not all of one sign). The Gaussian and categorical sums keep
// the other layer's input in float64, recomputed as often: ≈ 1e-12
// relative for weights of size ~1.
//
// When ctx is done it stops early (it looks between chunks of 4096 states)
// with an error wrapping ctx.Err().
func ExactLogZ(ctx context.Context, m *Model, workers int) (float64, error) {
	return exactLogZ(ctx, m, workers, nil)
}

// exactLogZ is ExactLogZ calling tick, if set, after each chunk of states
// (from the worker goroutines).
func exactLogZ(ctx context.Context, m *Model, workers int, tick func(done int64)) (float64, error) {
	u, err := m.units()
	if err != nil {
		return math.NaN(), err
	}
	ex, err := newExactSum(m, u)
	if err != nil {
		return math.NaN(), err
	}
	part, err := ex.parts(ctx, workers, tick)
	if err != nil {
		return math.NaN(), err
	}
	return ex.logZ(part), nil
}

// exactEnum is the enumeration of the exact sum of a model: its terms, the
// 2^n states of the enumerated layer, in fixed chunks of 2^k states each
// visited in Gray-code order.
type exactEnum struct {
	u      exactTerms
	e      exactSum
	k      int // states of a chunk: 2^k
	chunks int
}

// newExactSum checks that the exact sum of m is within MaxExactBits and
// prepares it.
func newExactSum(m *Model, u visible) (*exactEnum, error) {
	if n := m.Visible.ExactLayer(m.X, m.H); n > MaxExactBits {
		return nil, fmt.Errorf("eval: exact log Z of a model of %d visible and %d hidden units needs 2^%d states; the limit is 2^%d: use AIS",
			m.X, m.H, n, MaxExactBits)
	}
	return newExactEnum(u, u.exact()), nil
}

// newExactEnum returns the enumeration of the sum e whose terms u gives.
func newExactEnum(u exactTerms, e exactSum) *exactEnum {
	k := min(e.n, exactChunkBits)
	return &exactEnum{u: u, e: e, k: k, chunks: 1 << (e.n - k)}
}

// exactWalkScratch is a worker's scratch for exactEnum.walk.
type exactWalkScratch struct {
	exactScratch
	idx []int32
}

func (ex *exactEnum) newScratch() *exactWalkScratch {
	o := ex.e.other
	return &exactWalkScratch{exactScratch{pre: make([]float32, o), sp: make([]float32, o), u: make([]float64, o)}, make([]int32, ex.e.n)}
}

// walk calls fn with every state of chunk c and its term (the log of its
// share of Z, less the constant), in Gray-code order.
func (ex *exactEnum) walk(s *exactWalkScratch, c int, fn func(state uint64, term float64)) {
	u, bias, k := ex.u, ex.e.bias, ex.k
	high := uint64(c) << k
	var lin float64
	for t := uint64(0); t < 1<<k; t++ {
		state := high | (t ^ t>>1)
		if t%exactRefresh == 0 {
			// Fresh: the bias plus the rows of the units on.
			act := s.idx[:0]
			lin = 0
			for st := state; st != 0; st &= st - 1 {
				j := bits.TrailingZeros64(st)
				act = append(act, int32(j))
				lin += bias[j]
			}
			u.exactFresh(&s.exactScratch, act)
		} else {
			// Gray code: step t flips unit trailing-zeros(t).
			j := bits.TrailingZeros64(t)
			if state>>j&1 == 1 {
				u.exactFlip(&s.exactScratch, j, true)
				lin += bias[j]
			} else {
				u.exactFlip(&s.exactScratch, j, false)
				lin -= bias[j]
			}
		}
		fn(state, lin+u.exactTerm(&s.exactScratch))
	}
}

// parts returns the log-sum-exp of the terms of each chunk, the chunks
// spread over workers, calling tick, if set, after each.
func (ex *exactEnum) parts(ctx context.Context, workers int, tick func(done int64)) ([]float64, error) {
	workers = workerCount(workers, ex.chunks)
	sc := make([]*exactWalkScratch, workers)
	for w := range sc {
		sc[w] = ex.newScratch()
	}
	part := make([]float64, ex.chunks)
	err := parallel(ctx, ex.chunks, workers, func(w, c int) error {
		var maxT, sum float64 = math.Inf(-1), 0
		ex.walk(sc[w], c, func(_ uint64, term float64) {
			if term > maxT {
				sum = sum*math.Exp(maxT-term) + 1
				maxT = term
			} else {
				sum += math.Exp(term - maxT)
			}
		})
		part[c] = maxT + math.Log(sum)
		if tick != nil {
			tick(1)
		}
		return nil
	})
	return part, err
}

// logZ is log Z from the chunks' parts, reduced in chunk order.
func (ex *exactEnum) logZ(part []float64) float64 {
	return logSumExp(part) + ex.e.constant
}

// freshRows64 sets u to the sum of the rows act of rows (each len(u) long),
// added in order in float64.
func freshRows64(u, rows []float64, act []int32) {
	clear(u)
	n := len(u)
	for _, j := range act {
		for i, v := range rows[int(j)*n : (int(j)+1)*n] {
			u[i] += v
		}
	}
}

// flipRow64 adds row to u (on) or subtracts it.
func flipRow64(u, row []float64, on bool) {
	if on {
		for i, v := range row {
			u[i] += v
		}
		return
	}
	for i, v := range row {
		u[i] -= v
	}
}

// logSumExp returns log Σ exp(v_i), stably, summing in slice order.
func logSumExp(v []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = math.Max(mx, x)
	}
	if math.IsInf(mx, 0) || math.IsNaN(mx) {
		return mx
	}
	var s float64
	for _, x := range v {
		s += math.Exp(x - mx)
	}
	return mx + math.Log(s)
}
