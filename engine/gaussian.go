package engine

import (
	"math"

	"github.com/ncg-rbm/ncg/kernel"
)

// Gaussian visible units (Config.Visible = Gaussian; docs/algorithm.md,
// "Gaussian visible units"), in the parameterisation of Cho, Ilin & Raiko
// (2011), with z = log σ² per visible unit:
//
//	E(v, h) = Σ_j (v_j − b_j)²/(2σ_j²) − Σ_i c_i h_i − Σ_j (v_j/σ_j²)·(C h)_j
//	v_j | h ~ N(b_j + (C h)_j, σ_j²),  P(h_i = 1 | v) = sigmoid(c_i + (Cᵀ(v/σ²))_i)
//
// The hidden states stay binary, so the down pass is the binary models'
// (rows of C summed, incrementally after the first step); the up pass
// multiplies C by the real-valued v/σ² (kernel.Affine), and the gradient
// of W (and of NCG's A′) pairs ĥ with v/σ² where a binary model pairs it
// with x: one dense product of the chunk's columns of [v⁺/σ²; v⁻/σ²] with
// the statistics [ĥ⁺; −ĥ⁻] per row chunk. Gaussian models train on the
// dense matrices, but when a mask leaves at most SparseDensity() of C
// present, a minibatch's chains take their products from compressed
// copies of C (gaussrows.go).

// allocGaussian sizes the scratch of a Gaussian model (after alloc).
func (t *Trainer) allocGaussian() {
	if !t.m.Gaussian {
		return
	}
	b, x, h := t.cfg.Batch, t.m.X, t.m.H
	chunks := len(t.rowOK)
	t.gg = make([]float32, x*h)
	t.gST = make([]float32, chunks*rowChunk*2*b)
	for i := range t.scratch {
		t.scratch[i].sv = make([]float32, t.block*x)
		t.scratch[i].sig = make([]float32, x)
	}
	if t.cfg.LearnSigma {
		t.invVar = make([]float32, x)
		t.spos, t.sneg = make([]float32, b*x), make([]float32, b*x)
		t.dzBlock = make([]float32, len(t.scratch)*x)
		t.gZ = make([]float32, x)
		if !t.cfg.plainUpdate() {
			t.velZ = make([]float32, x)
		}
		t.m.refreshSigma(t.invVar, 0, x)
	}
	t.allocGaussRows()
}

// statesScaled returns the slots' data and final chain states as the
// gradient pairs them with ĥ⁺ and ĥ⁻: x⁰ and x̃ (binary units, or σ = 1),
// or x⁰/σ² and x̃/σ² (learned σ).
func (t *Trainer) statesScaled() (pos, neg []float32) {
	if t.spos != nil {
		return t.spos, t.sneg
	}
	return t.x0, t.xs
}

// gaussUp sets hpre = c + Cᵀ(v/σ²) for the nc chains of states (v/σ² goes
// to scaled when σ is learned; with σ = 1 it is v itself), on the
// compressed rows when gSparse (gaussrows.go).
func (t *Trainer) gaussUp(hpre, states, scaled []float32, nc int, sc *blockScratch) {
	m := t.m
	x := m.X
	in := states
	if t.invVar != nil {
		for c := 0; c < nc; c++ {
			out := scaled[c*x : (c+1)*x]
			for j, v := range states[c*x : (c+1)*x] {
				out[j] = v * t.invVar[j]
			}
		}
		in = scaled[:nc*x]
	}
	if t.gSparse {
		kernel.SparseAffineChains(hpre, m.HiddenBias, in, nc, &t.gHid.csr, sc.upWork)
		return
	}
	kernel.Affine(hpre, m.HiddenBias, in, m.c, nc, x, m.H)
}

// gaussianBlock is chainBlock for Gaussian visible units: CD-k or PCD-k,
// the visible states drawn by kernel.GaussianSample from each slot's
// stream, the first reconstruction's means b + C h scored against the
// data.
func (t *Trainer) gaussianBlock(blk int) {
	m := t.m
	x, h := m.X, m.H
	c0 := blk * t.block
	c1 := min(c0+t.block, t.nb)
	nc := c1 - c0
	x0, xs, vpre := t.x0[c0*x:c1*x], t.xs[c0*x:c1*x], t.vpre[c0*x:c1*x]
	hs, hpre, hprob, hpos, nhneg := t.h[c0*h:c1*h], t.hpre[c0*h:c1*h], t.hprob[c0*h:c1*h], t.hpos[c0*h:c1*h], t.nhneg[c0*h:c1*h]
	href := t.href[c0*h : c1*h]
	_, _, hIdx, hCnt := t.indexLists(c0, c1)
	sc := &t.scratch[blk]
	spos, sneg := sub(t.spos, c0*x, c1*x), sub(t.sneg, c0*x, c1*x)

	t.gaussUp(hpre, x0, spos, nc, sc)
	for c := 0; c < nc; c++ {
		kernel.SigmoidBernoulli(hpos[c*h:(c+1)*h], hs[c*h:(c+1)*h], hpre[c*h:(c+1)*h], &t.streams[c0+c])
	}
	if t.sampler == PersistentCD {
		copy(xs, t.pcd[c0*x:c1*x])
		t.gaussUp(hpre, xs, sc.sv, nc, sc)
		for c := 0; c < nc; c++ {
			kernel.SigmoidBernoulli(hprob[c*h:(c+1)*h], hs[c*h:(c+1)*h], hpre[c*h:(c+1)*h], &t.streams[c0+c])
		}
	}
	for s := 1; s <= t.cfg.K && !t.stopping(); s++ {
		switch {
		case t.gSparse:
			t.gaussDown(vpre, hs, nc, sc)
		case s == 1:
			t.down.affineBinary(vpre, m.VisibleBias, hs, nc, h, x, hIdx, hCnt, sc)
			copy(href, hs)
		default:
			for c := 0; c < nc; c++ {
				sc.down.update(vpre[c*x:(c+1)*x], m.VisibleBias, t.down, href[c*h:(c+1)*h], hs[c*h:(c+1)*h], t.hIdx[(c0+c)*h:(c0+c+1)*h])
			}
		}
		for c := 0; c < nc; c++ {
			kernel.GaussianSample(xs[c*x:(c+1)*x], vpre[c*x:(c+1)*x], m.Sigma, &t.streams[c0+c])
		}
		if s == 1 {
			t.reconError(c0, c1, x0, vpre)
		}
		if s < t.cfg.K {
			t.gaussUp(hpre, xs, sc.sv, nc, sc)
			for c := 0; c < nc; c++ {
				kernel.SigmoidBernoulli(hprob[c*h:(c+1)*h], hs[c*h:(c+1)*h], hpre[c*h:(c+1)*h], &t.streams[c0+c])
			}
		}
	}
	t.gaussUp(hpre, xs, sneg, nc, sc)
	kernel.Sigmoid(nhneg, hpre)
	for i, v := range nhneg {
		nhneg[i] = -v
	}
	if t.sampler == PersistentCD {
		copy(t.pcd[c0*x:c1*x], xs)
	}
	t.blockVisibleGrad(blk)
	t.blockSigmaGrad(blk)
}

// blockSigmaGrad sets block blk's share of the gradient of z = log σ²
// (learned σ only; Cho, Ilin & Raiko 2011, with the hidden units'
// probabilities for h as in the gradient of W):
//
//	Σ_c e^(−z_j)·(½(x⁰_cj − b_j)² − x⁰_cj·(C ĥ⁺_c)_j) − e^(−z_j)·(½(x̃_cj − b_j)² − x̃_cj·(C ĥ⁻_c)_j)
//
// summed in slot order within the block, as blockVisibleGrad's share.
// It uses the block's rows of vpre as scratch (the chains are done).
func (t *Trainer) blockSigmaGrad(blk int) {
	if t.dzBlock == nil {
		return
	}
	m := t.m
	x, h := m.X, m.H
	c0, c1 := blk*t.block, min((blk+1)*t.block, t.nb)
	nc := c1 - c0
	dz := t.dzBlock[blk*x : (blk+1)*x]
	clear(dz)
	u := t.vpre[c0*x : c1*x]
	for k, sign := range [2]float32{1, -1} {
		states, stat := t.x0, t.hpos
		if k == 1 {
			states, stat = t.xs, t.nhneg // −ĥ⁻: u is −C ĥ⁻
		}
		if t.gSparse {
			kernel.SparseAffineChains(u, nil, stat[c0*h:c1*h], nc, &t.gVis.csr, t.scratch[blk].downWork)
		} else {
			kernel.Affine(u, nil, stat[c0*h:c1*h], m.ch, nc, h, x)
		}
		for c := 0; c < nc; c++ {
			v, uc := states[(c0+c)*x:(c0+c+1)*x], u[c*x:(c+1)*x]
			for j := range dz {
				d := v[j] - m.VisibleBias[j]
				g := float32(0.5*float32(d*d)) - float32(v[j]*float32(sign*uc[j]))
				dz[j] += sign * float32(t.invVar[j]*g)
			}
		}
	}
}

// gaussGrad sets the gradient rows j0…j1−1 of W (row chunk k) for a
// Gaussian model: G[j,:] = Σ_c s⁺_cj ĥ⁺_c − s⁻_cj ĥ⁻_c with s = v/σ², one
// dense product of the chunk's columns of the scaled states (slots
// beyond the minibatch zero) with the statistics hstat.
func (t *Trainer) gaussGrad(k, j0, j1 int) {
	b, x, h := t.cfg.Batch, t.m.X, t.m.H
	n := j1 - j0
	st := t.gST[k*rowChunk*2*b : (k*rowChunk+n)*2*b]
	pos, neg := t.statesScaled()
	for r := 0; r < n; r++ {
		j := j0 + r
		row := st[r*2*b : (r+1)*2*b]
		for c := 0; c < t.nb; c++ {
			row[c], row[b+c] = pos[c*x+j], neg[c*x+j]
		}
		for c := t.nb; c < b; c++ {
			row[c], row[b+c] = 0, 0
		}
	}
	kernel.Affine(t.gg[j0*h:j1*h], nil, st, t.hstat, n, 2*b, h)
}

// updateSigma updates z = log σ² of the visible units j0…j1−1 from the
// chain blocks' shares of its gradient (learned σ only), then their σ and
// 1/σ², and reports whether the new z are finite.
func (t *Trainer) updateSigma(j0, j1 int) bool {
	if t.dzBlock == nil {
		return true
	}
	x := t.m.X
	g := t.gZ[j0:j1]
	for blk := 0; blk*t.block < t.nb; blk++ {
		kernel.Axpy(g, 1, t.dzBlock[blk*x+j0:blk*x+j1])
	}
	ok := t.updateBias(t.m.LogVar[j0:j1], g, sub(t.velZ, j0, j1))
	t.m.refreshSigma(t.invVar, j0, j1)
	return ok
}

// gaussEnergy returns E(v, h) of a Gaussian chain's state in float64, from
// the down pass's vpre = b + C h:
//
//	E = Σ_j ((v_j − b_j)²/2 − v_j·(vpre_j − b_j))/σ_j² − Σ_i c_i h_i.
func (t *Trainer) gaussEnergy(h, v, vpre []float32) float64 {
	m := t.m
	var e float64
	for i, s := range h {
		if s != 0 {
			e -= float64(m.HiddenBias[i])
		}
	}
	for j, vj := range v {
		b := float64(m.VisibleBias[j])
		d := float64(vj) - b
		q := (d*d/2 - float64(vj)*(float64(vpre[j])-b))
		if t.invVar != nil {
			q *= float64(t.invVar[j])
		}
		e += q
	}
	return e
}

// tempSigma sets sig = σ/√β, the standard deviation of the visible units
// of the chain at inverse temperature β: p_β(v | h) = N(b + C h, σ²/β).
func tempSigma(sig, sigma []float32, beta float64) {
	f := float32(1 / math.Sqrt(beta))
	for j, s := range sigma {
		sig[j] = s * f
	}
}
