package eval

import (
	"context"
	"fmt"
	"math"
	"math/bits"
)

// gaussExactLogZ is ExactLogZ for a Gaussian model: the sum over the 2^H
// hidden states, the integral over v done analytically.
//
// Derivation. For a hidden state h let μ_i(h) = b_i + Σ_j C_ij h_j. Since
// (v_i − b_i)² − 2v_i(μ_i − b_i) = (v_i − μ_i)² − (μ_i² − b_i²),
//
//	−E(v, h) = cᵀh − Σ_i (v_i − b_i)²/(2σ_i²) + Σ_i v_i(μ_i − b_i)/σ_i²
//	         = cᵀh + Σ_i (μ_i² − b_i²)/(2σ_i²) − Σ_i (v_i − μ_i)²/(2σ_i²),
//
// and ∫ exp(−(v_i − μ_i)²/(2σ_i²)) dv_i = √(2π)·σ_i, so
//
//	Z = Σ_h ∫ exp(−E(v, h)) dv
//	log Z = log Σ_h exp(cᵀh + Σ_i (μ_i(h)² − b_i²)/(2σ_i²)) + Σ_i ½·log(2πσ_i²).
//
// With r_i = b_i/σ_i and u_i(h) = (μ_i(h) − b_i)/σ_i = Σ_j (C_ij/σ_i) h_j
// the exponent is cᵀh + Σ_i u_i·(r_i + u_i/2), which is what is summed:
// u is kept in float64 (the rows C_·j/σ in float64 too), one row added or
// subtracted per Gray-code step and recomputed every exactRefresh steps,
// so the result is as accurate as float64 allows (≈ 1e-12 relative for
// weights of size ~1). The chunks, their order and the reduction are those
// of the binary sum, so the result does not depend on the number of
// workers.
func gaussExactLogZ(ctx context.Context, m *Model, workers int, tick func(done int64)) (float64, error) {
	H, X := m.H, m.X
	if H > MaxExactBits {
		return math.NaN(), fmt.Errorf("eval: exact log Z of a Gaussian model needs 2^%d hidden states; the limit is 2^%d: use AIS", H, MaxExactBits)
	}
	rows := make([]float64, H*X) // rows[j*X+i] = C_ij/σ_i
	r := make([]float64, X)      // b_i/σ_i
	var gauss float64            // Σ_i ½·log(2πσ_i²)
	for i := 0; i < X; i++ {
		s := m.sigma(i)
		for j := 0; j < H; j++ {
			rows[j*X+i] = float64(m.C[i*H+j]) / s
		}
		r[i] = float64(m.VisibleBias[i]) / s
		gauss += 0.5 * math.Log(2*math.Pi*s*s)
	}
	k := min(H, exactChunkBits)
	chunks := 1 << (H - k)
	workers = workerCount(workers, chunks)
	u := make([][]float64, workers)
	for w := range u {
		u[w] = make([]float64, X)
	}
	part := make([]float64, chunks)
	err := parallel(ctx, chunks, workers, func(w, c int) error {
		u := u[w]
		high := uint64(c) << k
		var lin float64
		var maxT, sum float64 = math.Inf(-1), 0
		for t := uint64(0); t < 1<<k; t++ {
			state := high | (t ^ t>>1)
			if t%exactRefresh == 0 {
				clear(u)
				lin = 0
				for st := state; st != 0; st &= st - 1 {
					j := bits.TrailingZeros64(st)
					lin += float64(m.HiddenBias[j])
					for i, v := range rows[j*X : (j+1)*X] {
						u[i] += v
					}
				}
			} else {
				j := bits.TrailingZeros64(t)
				row := rows[j*X : (j+1)*X]
				if state>>j&1 == 1 {
					lin += float64(m.HiddenBias[j])
					for i, v := range row {
						u[i] += v
					}
				} else {
					lin -= float64(m.HiddenBias[j])
					for i, v := range row {
						u[i] -= v
					}
				}
			}
			term := lin + gaussExponent(u, r)
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
	return logSumExp(part) + gauss, nil
}

// gaussExponent returns Σ_i u_i·(r_i + u_i/2) with four accumulators (a
// fixed order).
func gaussExponent(u, r []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(u); i += 4 {
		s0 += u[i] * (r[i] + 0.5*u[i])
		s1 += u[i+1] * (r[i+1] + 0.5*u[i+1])
		s2 += u[i+2] * (r[i+2] + 0.5*u[i+2])
		s3 += u[i+3] * (r[i+3] + 0.5*u[i+3])
	}
	for ; i < len(u); i++ {
		s0 += u[i] * (r[i] + 0.5*u[i])
	}
	return (s0 + s1) + (s2 + s3)
}
