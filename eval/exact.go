package eval

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/ncg-rbm/ncg/kernel"
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

// ExactLogZ returns log Z = log Σ_{x,h} exp(dᵀx + bᵀh + xᵀCh) by summing
// over the states of the smaller layer (log-sum-exp in float64). With the
// hidden layer smaller,
//
//	log Z = log Σ_h exp(bᵀh + Σ_j softplus(d_j + (Cᵀh)_j)),
//
// and symmetrically over x when the visible layer is smaller (ties: hidden).
// The smaller layer may have at most MaxExactBits units.
//
// States are visited in Gray-code order inside fixed chunks of 4096, so each
// state costs one row add or subtract and one softplus over the other layer.
// Chunks are spread over workers (≤ 0: GOMAXPROCS) and reduced in chunk
// order, so the result does not depend on the number of workers.
//
// Accuracy: each pre-activation entry is a float32 sum of its bias, at most
// n rows from a fresh recomputation (n = the enumerated layer's size) and at
// most 63 incremental ±row updates (the vector is recomputed every 64
// steps). With u = 2⁻²⁴ its error is at most (n+64)·u·(|bias| + Σ|weights|),
// and since softplus is 1-Lipschitz each state's log term is off by at most
// the sum of these over the other layer plus the Softplus kernel's error
// (1e-6·max(1,|value|) per entry); log Z is off by no more than the largest
// per-state error. For weights of size ~1 this is ~1e-4 nats or less; the
// typical error is far smaller (rounding errors are not all of one sign).
//
// For a Gaussian model (Model.Gaussian) log Z sums over the 2^H hidden
// states with the integral over the visible units done analytically:
//
//	log Z = log Σ_h exp(cᵀh + Σ_i (μ_i(h)² − b_i²)/(2σ_i²)) + Σ_i ½·log(2πσ_i²),
//
// μ(h) = b + Ch, in float64 (derivation at gaussExactLogZ); H may be at
// most MaxExactBits whatever X is.
//
// When ctx is done it stops early (it looks between chunks of 4096 states)
// with an error wrapping ctx.Err().
func ExactLogZ(ctx context.Context, m *Model, workers int) (float64, error) {
	return exactLogZ(ctx, m, workers, nil)
}

// exactLogZ is ExactLogZ calling tick, if set, after each chunk of states
// (from the worker goroutines).
func exactLogZ(ctx context.Context, m *Model, workers int, tick func(done int64)) (float64, error) {
	if err := m.Validate(); err != nil {
		return math.NaN(), err
	}
	if m.Gaussian {
		return gaussExactLogZ(ctx, m, workers, tick)
	}
	var rows, ebias, obias []float32
	var n, o int // enumerated and other layer sizes
	if m.H <= m.X {
		n, o = m.H, m.X
		rows, ebias, obias = m.transposed(), m.HiddenBias, m.VisibleBias
	} else {
		n, o = m.X, m.H
		rows, ebias, obias = m.C, m.VisibleBias, m.HiddenBias
	}
	if n > MaxExactBits {
		return math.NaN(), fmt.Errorf("eval: exact log Z needs 2^%d states (smaller layer has %d units); the limit is 2^%d: use AIS", n, n, MaxExactBits)
	}
	k := min(n, exactChunkBits)
	chunks := 1 << (n - k)
	workers = workerCount(workers, chunks)
	type scratch struct {
		pre, sp []float32
		idx     []int32
	}
	sc := make([]scratch, workers)
	for w := range sc {
		sc[w] = scratch{make([]float32, o), make([]float32, o), make([]int32, n)}
	}
	part := make([]float64, chunks)
	err := parallel(ctx, chunks, workers, func(w, c int) error {
		s := &sc[w]
		high := uint64(c) << k
		var lin float64
		var maxT, sum float64 = math.Inf(-1), 0
		for t := uint64(0); t < 1<<k; t++ {
			state := high | (t ^ t>>1)
			if t%exactRefresh == 0 {
				// Fresh pre-activation: bias plus the rows of the units on.
				act := s.idx[:0]
				lin = 0
				for st := state; st != 0; st &= st - 1 {
					u := bits.TrailingZeros64(st)
					act = append(act, int32(u))
					lin += float64(ebias[u])
				}
				copy(s.pre, obias)
				kernel.SumRows(s.pre, rows, o, act, o)
			} else {
				// Gray code: step t flips unit trailing-zeros(t).
				u := bits.TrailingZeros64(t)
				r := rows[u*o : (u+1)*o]
				if state>>u&1 == 1 {
					kernel.Axpy(s.pre, 1, r)
					lin += float64(ebias[u])
				} else {
					kernel.Axpy(s.pre, -1, r)
					lin -= float64(ebias[u])
				}
			}
			kernel.Softplus(s.sp, s.pre)
			term := lin + sum64(s.sp)
			if term > maxT {
				sum = sum*math.Exp(maxT-term) + 1
				maxT = term
			} else {
				sum += math.Exp(term - maxT)
			}
		}
		part[c] = maxT + math.Log(sum)
		if tick != nil {
			tick(1)
		}
		return nil
	})
	if err != nil {
		return math.NaN(), err
	}
	return logSumExp(part), nil
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

// ExactNLL returns the exact average negative log-likelihood of the n rows
// of x: mean F(x) + log Z with log Z from ExactLogZ. (ExactNLLReal is its
// counterpart for a Gaussian model.)
func ExactNLL(ctx context.Context, m *Model, x []uint8, n, workers int) (float64, error) {
	if err := m.binaryOnly("ExactNLL", "ExactNLLReal"); err != nil {
		return math.NaN(), err
	}
	lz, err := ExactLogZ(ctx, m, workers)
	if err != nil {
		return math.NaN(), err
	}
	return AverageNLL(ctx, m, lz, x, n, workers)
}
