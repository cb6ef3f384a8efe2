package engine

import "github.com/ncg-rbm/ncg/kernel"

// The SET authors' procedure (Config.SETProcedure = Mocanu): its chain
// step and the products it needs beyond the binary ones.

// mocanuBlock is chainBlock for the SET authors' procedure. The positive
// statistic is the sampled h⁰ (not its probabilities); each of the k steps
// reconstructs the visible units by their probabilities v̄ = σ(d + Cᵀh),
// without sampling them, and samples h from σ(b + C v̄). The gradient pairs
// the data with h⁰ and v̄ with the last h sample: xs holds v̄ and nhneg the
// negated sample, and the row tasks weight each chain's −h̃ by its v̄_j
// (meanFieldRows).
func (t *Trainer) mocanuBlock(blk int) {
	m := t.m
	x, h := m.X, m.H
	c0 := blk * t.block
	c1 := min(c0+t.block, t.nb)
	nc := c1 - c0
	t.loadSamples(c0, c1)
	x0, xs, vpre := t.x0[c0*x:c1*x], t.xs[c0*x:c1*x], t.vpre[c0*x:c1*x]
	hs, hpre, hprob, hpos, nhneg := t.h[c0*h:c1*h], t.hpre[c0*h:c1*h], t.hprob[c0*h:c1*h], t.hpos[c0*h:c1*h], t.nhneg[c0*h:c1*h]

	sc := &t.scratch[blk]
	_, _, hIdx, hCnt := t.indexLists(c0, c1)
	t.up.affineBinary(hpre, m.HiddenBias, x0, nc, x, h, t.posIdx[c0*x:c1*x], t.posCnt[c0:c1], sc)
	for c := 0; c < nc; c++ {
		kernel.SigmoidBernoulli(hprob[c*h:(c+1)*h], hs[c*h:(c+1)*h], hpre[c*h:(c+1)*h], &t.streams[c0+c])
	}
	copy(hpos, hs)
	for s := 1; s <= t.cfg.K && !t.stopping(); s++ {
		t.down.affineBinary(vpre, m.VisibleBias, hs, nc, h, x, hIdx, hCnt, sc)
		kernel.Sigmoid(xs, vpre)
		if s == 1 {
			t.reconError(c0, c1, x0, xs)
		}
		t.meanFieldUp(hpre, xs, nc, sc)
		for c := 0; c < nc; c++ {
			kernel.SigmoidBernoulli(hprob[c*h:(c+1)*h], hs[c*h:(c+1)*h], hpre[c*h:(c+1)*h], &t.streams[c0+c])
		}
	}
	for i, v := range hs {
		nhneg[i] = -v
	}
	if t.sp != nil {
		// Columns c0… of the slot-major copies.
		kernel.TransposeStrided(t.xsT[c0:], t.slotPad, xs, x, nc, x)
		kernel.TransposeStrided(t.nhT[c0:], t.slotPad, nhneg, h, nc, h)
	}
	clear(t.negCnt[c0:c1]) // no binary negative state: meanFieldRows weights every chain
	t.blockOffsets(c0, c1)
}

// meanFieldUp sets out (nc×H) to b + C v for the nc real-valued visible
// vectors v (nc×X): the dense product on C, or on the compressed rows.
func (t *Trainer) meanFieldUp(out, v []float32, nc int, sc *blockScratch) {
	m := t.m
	if t.sp == nil {
		kernel.Affine(out, m.HiddenBias, v, m.c, nc, m.X, m.H)
		return
	}
	kernel.SparseAffineChains(out, m.HiddenBias, v, nc, t.up.sp, sc.upWork)
}

// meanFieldRows adds the negative term of visible row j's gradient under
// the SET authors' procedure to g (H floats): Σ_c v̄_cj·(−h̃_c), chains in
// slot order.
func (t *Trainer) meanFieldRows(g []float32, j int) {
	x, h := t.m.X, t.m.H
	for c := 0; c < t.nb; c++ {
		if v := t.xs[c*x+j]; v != 0 {
			kernel.Axpy(g, v, t.nhneg[c*h:(c+1)*h])
		}
	}
}
