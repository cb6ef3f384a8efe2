package engine

import (
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// ptBlock is chainBlock for parallel tempering (Desjardins et al. 2010,
// "Tempered Markov chain Monte Carlo for training of restricted Boltzmann
// machines"). Each minibatch slot owns M persistent chains, chain m
// sampling p_m(x, h) ∝ exp(−β_m E(x, h)) with
//
//	E(x, h) = −b·h − d·x − xᵀC h,  1 = β_0 > β_1 > … > β_{M−1}.
//
// A round is one Gibbs step of every chain at its temperature
// (h ~ σ(β(b + C x)), then x ~ σ(β(d + Cᵀh))), drawing from its own stream,
// then swaps: the slot's stream draws M−1 uniforms and neighbours (0,1),
// (1,2), …, (M−2, M−1) in turn exchange states with the Metropolis
// probability swapProbability. A minibatch runs K rounds (K = 1: M Gibbs
// steps per slot, the cost of CD-M). The β = 1 chain gives the negative
// statistics. Each slot is one task's alone, so the result does not depend
// on the workers.
//
// The positive phase and the reconstruction error are CD's: ĥ⁺ from the
// data, h sampled from it (slot stream), and the reconstruction σ(d + Cᵀh).
// Every product is computed afresh: a chain makes one step per round, so
// CD's incremental products have nothing to reuse.
//
// Every visible unit type takes part through t.vis: chain m draws its
// visible states at β_m (binary units from σ(β_m(d + Cᵀh)), Gaussian ones
// from N(d + Cᵀh, σ²/β_m)), and E is the type's energy.
func (t *Trainer) ptBlock(blk int) {
	m, v := t.m, t.vis
	x, h, b := m.X, m.H, t.cfg.Batch
	c0 := blk * t.block
	c1 := min(c0+t.block, t.nb)
	nc := c1 - c0
	t.loadSamples(c0, c1)
	x0, xs, vpre, vprob := t.x0[c0*x:c1*x], t.xs[c0*x:c1*x], t.vpre[c0*x:c1*x], t.vprob[c0*x:c1*x]
	hs, hpre, hprob, hpos, nhneg := t.h[c0*h:c1*h], t.hpre[c0*h:c1*h], t.hprob[c0*h:c1*h], t.hpos[c0*h:c1*h], t.nhneg[c0*h:c1*h]
	_, _, hIdx, hCnt := t.indexLists(c0, c1)
	sc := &t.scratch[blk]
	u := sc.u

	v.up(t, blk, c0, c1, hpre, x0, rolePos, true)
	for c := 0; c < nc; c++ {
		kernel.SigmoidBernoulli(hpos[c*h:(c+1)*h], hs[c*h:(c+1)*h], hpre[c*h:(c+1)*h], &t.streams[c0+c])
	}
	t.down.affineBinary(vpre, m.VisibleBias, hs, nc, h, x, hIdx, hCnt, sc)
	t.reconError(c0, c1, x0, v.mean(vprob, vpre, nc))

	for round := 0; round < t.cfg.K; round++ {
		for k, beta := range t.betas {
			if t.stopping() {
				return
			}
			states := t.pcd[(k*b+c0)*x : (k*b+c1)*x]
			streams := t.streams[b+k*b+c0 : b+k*b+c1]
			v.up(t, blk, c0, c1, hpre, states, roleMid, true)
			scale(hprob, hpre, beta)
			for c := 0; c < nc; c++ {
				kernel.SigmoidBernoulli(hprob[c*h:(c+1)*h], hs[c*h:(c+1)*h], hprob[c*h:(c+1)*h], &streams[c])
			}
			t.down.affineBinary(vpre, m.VisibleBias, hs, nc, h, x, hIdx, hCnt, sc)
			v.sample(t, blk, states, vprob, vpre, nc, beta, streams)
			for c := 0; c < nc; c++ {
				t.energy[k*b+c0+c] = v.energy(t, hs[c*h:(c+1)*h], states[c*x:(c+1)*x], vpre[c*x:(c+1)*x])
			}
		}
		for c := c0; c < c1; c++ {
			t.streams[c].Uniforms(u)
			for k := range u {
				i, j := k*b+c, (k+1)*b+c
				if float64(u[k]) < swapProbability(t.betas[k], t.betas[k+1], t.energy[i], t.energy[j]) {
					swapRows(t.pcd[i*x:(i+1)*x], t.pcd[j*x:(j+1)*x])
					t.energy[i], t.energy[j] = t.energy[j], t.energy[i]
				}
			}
		}
	}

	// Negative statistics from the β = 1 chains, as CD's.
	copy(xs, t.pcd[c0*x:c1*x])
	v.up(t, blk, c0, c1, hpre, xs, roleNeg, true)
	kernel.Sigmoid(nhneg, hpre)
	for i, v := range nhneg {
		nhneg[i] = -v
	}
	v.finishBlock(t, blk)
	t.blockVisibleGrad(blk)
}

// scale sets dst = β·src (dst = src when β = 1).
func scale(dst, src []float32, beta float64) {
	f := float32(beta)
	for i, v := range src {
		dst[i] = f * v
	}
}

// energy returns E(x, h) = −b·h − x·(d + Cᵀh) of a chain's state, from the
// down pass's pre-activation vpre = d + Cᵀh (at β = 1), in float64.
func energy(bias, h, x, vpre []float32) float64 {
	var e float64
	for i, v := range h {
		if v != 0 {
			e -= float64(bias[i])
		}
	}
	for j, v := range x {
		if v != 0 {
			e -= float64(vpre[j])
		}
	}
	return e
}

// swapProbability is the Metropolis probability of exchanging the states
// of chains at inverse temperatures βi and βj with energies Ei and Ej:
// min(1, p_i(s_j)·p_j(s_i) / (p_i(s_i)·p_j(s_j))) = min(1, exp((βi − βj)(Ei − Ej))).
func swapProbability(betaI, betaJ, eI, eJ float64) float64 {
	return math.Min(1, math.Exp((betaI-betaJ)*(eI-eJ)))
}

func swapRows(a, b []float32) {
	for i := range a {
		a[i], b[i] = b[i], a[i]
	}
}
