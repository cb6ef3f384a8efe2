package engine

import (
	"github.com/ncg-rbm/ncg/kernel"
)

// The work of one minibatch, split into tasks: blocks of chains through
// CD-k (the up and down products, from scratch or incremental), then
// chunks of visible rows through the gradient and the update.

// cdBlock advances the chains of one block through CD-k or PCD-k
// (docs/algorithm.md, "One minibatch"; the paper's equations 1–8), the
// visible unit type's steps delegated to t.vis.
//
// The first down product is computed from scratch for the whole block
// (tiles of C shared by its chains); every later one updates the chain's
// previous pre-activation by the hidden units that changed since
// (incremental), and binary visible states do the same in the up pass: in
// MNIST training about half as many visible units flip between Gibbs
// steps as are on, and a third of the hidden ones.
func (t *Trainer) cdBlock(blk int) {
	m, v := t.m, t.vis
	x, h := m.X, m.H
	c0 := blk * t.block
	c1 := min(c0+t.block, t.nb)
	nc := c1 - c0
	t.loadSamples(c0, c1)
	x0, xs, vpre, vprob := t.x0[c0*x:c1*x], t.xs[c0*x:c1*x], t.vpre[c0*x:c1*x], t.vprob[c0*x:c1*x]
	hs, hpre, hprob, hpos, nhneg := t.h[c0*h:c1*h], t.hpre[c0*h:c1*h], t.hprob[c0*h:c1*h], t.hpos[c0*h:c1*h], t.nhneg[c0*h:c1*h]
	href := t.href[c0*h : c1*h]
	streams := t.streams[c0:c1]
	sc := &t.scratch[blk]
	_, _, hIdx, hCnt := t.indexLists(c0, c1)

	// Positive phase: ĥ⁺ = σ(b + C x), and h sampled from it (CD's first
	// step). Here and below, DoubleUp and DoubleDown double the inputs
	// where they become probabilities (double.go); hpre and vpre stay
	// undoubled.
	v.up(t, blk, c0, c1, hpre, x0, rolePos, true)
	t.sampleHidden(hpos, hs, hpre, nc, streams)
	if t.sampler == PersistentCD {
		// The negative chain continues from the persistent state instead.
		copy(xs, t.pcd[c0*x:c1*x])
		v.up(t, blk, c0, c1, hpre, xs, roleMid, false)
		t.sampleHidden(hprob, hs, hpre, nc, streams)
	}
	for s := 1; s <= t.cfg.K && !t.stopping(); s++ {
		switch {
		case t.cdDown.sp != nil:
			t.cdDown.affineBinary(vpre, m.VisibleBias, hs, nc, h, x, nil, nil, sc)
		case s == 1:
			t.down.affineBinary(vpre, m.VisibleBias, hs, nc, h, x, hIdx, hCnt, sc)
			copy(href, hs)
		default:
			for c := 0; c < nc; c++ {
				sc.down.update(vpre[c*x:(c+1)*x], m.VisibleBias, t.down, href[c*h:(c+1)*h], hs[c*h:(c+1)*h], t.hIdx[(c0+c)*h:(c0+c+1)*h])
			}
		}
		mean := v.sample(t, blk, xs, vprob, t.visibleInput(vprob, vpre, nc), nc, 1, streams)
		if s == 1 {
			t.reconError(c0, c1, x0, mean)
		}
		if s < t.cfg.K {
			v.up(t, blk, c0, c1, hpre, xs, roleMid, false)
			t.sampleHidden(hprob, hs, hpre, nc, streams)
		}
	}
	// Negative statistics: ĥ⁻ = σ(b + C x̃) (probabilities, not samples),
	// kept negated so that the gradient is one sum of rows (exact: −v is).
	v.up(t, blk, c0, c1, hpre, xs, roleNeg, false)
	t.hiddenProbs(nhneg, hpre)
	for i, v := range nhneg {
		nhneg[i] = -v
	}
	if t.sampler == PersistentCD {
		copy(t.pcd[c0*x:c1*x], xs)
	}
	v.finishBlock(t, blk)
	t.blockVisibleGrad(blk)
}

// indexLists returns chains c0…c1−1's lists of the ones of their
// intermediate visible states and of their hidden states, which the
// incremental products of the dense form update; compressed rows need
// neither (nil: weights.affineBinary then lists nothing).
func (t *Trainer) indexLists(c0, c1 int) (tmpIdx, tmpCnt, hIdx, hCnt []int32) {
	if t.sp != nil {
		return nil, nil, nil, nil
	}
	x, h := t.m.X, t.m.H
	return t.tmpIdx[c0*x : c1*x], t.tmpCnt[c0:c1], t.hIdx[c0*h : c1*h], t.hCnt[c0:c1]
}

// blockVisibleGrad sets block blk's share of the visible biases' gradient,
// Σ (x⁰ − x̃) over its slots, while they are in this core's cache. Every
// term is 0 or ±1, so any order of the sums gives the same integers and
// visibleGrad may add the blocks' shares instead of every slot's states
// (one line of each in the other core's cache: 4,900 vectors of 16 floats
// a minibatch). Not for Mocanu's procedure, whose x̃ are probabilities.
// Gaussian units sum (x⁰ − x̃)/σ², real values: their blocks are fixed
// (blockSize chains, never compressed rows), so the order of the sums
// does not depend on the workers either.
func (t *Trainer) blockVisibleGrad(blk int) {
	x := t.m.X
	c0, c1 := blk*t.block, min((blk+1)*t.block, t.nb)
	dv := t.dvBlock[blk*x : (blk+1)*x]
	clear(dv)
	pos, neg := t.vis.gradStates(t)
	for c := c0; c < c1; c++ {
		kernel.Axpy(dv, 1, pos[c*x:(c+1)*x])
		kernel.Axpy(dv, -1, neg[c*x:(c+1)*x])
	}
}

// loadSamples sets the data x⁰ of slots c0…c1−1 from the minibatch's data
// rows (a label as a one-hot tail); on the first minibatch of a persistent
// sampler, it also starts every chain of these slots at its slot's data.
func (t *Trainer) loadSamples(c0, c1 int) {
	d, x := t.data, t.m.X
	for c := c0; c < c1; c++ {
		r := int(t.rows[c])
		dst := t.x0[c*x : (c+1)*x]
		t.vis.load(dst, d, r)
		if d.Classes > 0 {
			clear(dst[d.D:])
			dst[d.D+int(d.Labels[r])] = 1
		}
		if t.pcd != nil && !t.pcdInit {
			for k := c * x; k < len(t.pcd); k += t.cfg.Batch * x {
				copy(t.pcd[k:k+x], dst)
			}
		}
	}
}

// biasTask sums the gradient of chunk k of the hidden biases over the
// slots, in slot order (ĥ⁺ then −ĥ⁻ of each), and updates them.
func (t *Trainer) biasTask(k int) {
	h := t.m.H
	i0, i1 := k*biasChunk, min((k+1)*biasChunk, h)
	g := t.gB[i0:i1]
	for c := 0; c < t.nb; c++ {
		kernel.Axpy(g, 1, t.hpos[c*h+i0:c*h+i1])
		kernel.Axpy(g, 1, t.nhneg[c*h+i0:c*h+i1])
	}
	t.biasOK[k] = t.updateBias(t.m.HiddenBias[i0:i1], g, sub(t.velB, i0, i1))
}

// sub returns s[i:j], or nil for a nil s.
func sub(s []float32, i, j int) []float32 {
	if s == nil {
		return nil
	}
	return s[i:j]
}

// blockOffsets sets where each row chunk starts in the index lists of
// slots c0…c1−1, once per block, so that the row tasks need no binary
// search of their own.
func (t *Trainer) blockOffsets(c0, c1 int) {
	x, k1 := t.m.X, len(t.rowOK)+1
	for c := c0; c < c1; c++ {
		chunkOffsets(t.posOff[c*k1:(c+1)*k1], t.posIdx[c*x:c*x+int(t.posCnt[c])])
		chunkOffsets(t.negOff[c*k1:(c+1)*k1], t.negIdx[c*x:c*x+int(t.negCnt[c])])
	}
}

// reconError sets the squared error of each slot c0…c1−1 between its
// data x0 and its first reconstruction's probabilities vprob (the block's
// rows), over the data units.
func (t *Trainer) reconError(c0, c1 int, x0, vprob []float32) {
	x := t.m.X
	for c := 0; c < c1-c0; c++ {
		var e float64
		for j := 0; j < t.m.DataUnits; j++ {
			d := float64(x0[c*x+j] - vprob[c*x+j])
			e += d * d
		}
		t.recon[c0+c] = e
	}
}

// chunkOffsets sets off[k] to the position of the first entry ≥ k·rowChunk
// of the increasing list idx, for every k < len(off).
func chunkOffsets(off, idx []int32) {
	k := 0
	for i, j := range idx {
		for k*rowChunk <= int(j) {
			off[k] = int32(i)
			k++
		}
	}
	for ; k < len(off); k++ {
		off[k] = int32(len(idx))
	}
}

// blockScratch is one chain block's scratch for its incremental products.
type blockScratch struct {
	up, down product
	// sv, sig: Gaussian units' scaled states v/σ² of the block's chains,
	// and PT's σ/√β.
	sv, sig []float32
	u       []float32 // PT: the uniforms of one slot's swaps
	// upWork, downWork: the scratch of the products on compressed rows.
	upWork, downWork *kernel.SparseWork
}

// incremental is whether the dense form updates a chain's pre-activation
// by the units that changed (product.update); a test turns it off to hold
// the dense form to the fresh sums of the compressed one.
var incremental = true

// product keeps one chain's pre-activation out = bias + Σ_{j: s_j=1} m[j]
// (rows of nout floats) up to date as its binary state s changes.
type product struct {
	on, off []int32
	tmp     []float32 // the sum of the rows switched off
}

func newProduct(nin, nout int) product {
	return product{on: make([]int32, nin), off: make([]int32, nin), tmp: make([]float32, nout)}
}

// update brings out from the state ref to the state s and sets ref = s. It
// adds the rows of the units switched on and subtracts the sum of those
// switched off, unless at least as many changed as are on: then it sums the
// rows of s from bias. It writes the ones of s to idx and returns their
// number. An incremental value differs from a fresh sum only by float32
// rounding: it is a sum of at most K−1 updates since the fresh one of the
// minibatch, each exact to 2⁻²⁴ relative per term.
func (p *product) update(out, bias []float32, w weights, ref, s []float32, idx []int32) int {
	ones, non, noff := kernel.Changes(idx, p.on, p.off, ref, s)
	if non+noff >= ones || !incremental {
		copy(out, bias)
		w.sumRows(out, idx[:ones])
		return ones
	}
	w.flipRows(out, p.on[:non], p.off[:noff], p.tmp[:len(out)])
	return ones
}

// visibleGrad sums the gradient of the visible biases j0…j1−1 over the
// slots into gV: Σ x⁰ − x̃, the chain blocks' shares, or with Mocanu's
// mean-field x̃ every slot in slot order, x⁰ then −x̃ of each.
func (t *Trainer) visibleGrad(j0, j1 int) {
	x := t.m.X
	g := t.gV[j0:j1]
	if t.cfg.SETProcedure == Mocanu {
		for c := 0; c < t.nb; c++ {
			kernel.Axpy(g, 1, t.x0[c*x+j0:c*x+j1])
			kernel.Axpy(g, -1, t.xs[c*x+j0:c*x+j1])
		}
	} else {
		for blk := 0; blk*t.block < t.nb; blk++ {
			kernel.Axpy(g, 1, t.dvBlock[blk*x+j0:blk*x+j1]) // exact: see blockVisibleGrad
		}
	}
}

// visibleStep updates the visible biases j0…j1−1 (and their σ) from
// their summed gradient in gV, shifted after a centred step, and reports
// whether they are finite.
func (t *Trainer) visibleStep(j0, j1 int) bool {
	ok := t.updateBias(t.m.VisibleBias[j0:j1], t.gV[j0:j1], sub(t.velV, j0, j1))
	ok = t.vis.step(t, j0, j1) && ok
	if t.ctr != nil {
		ok = t.centreVisible(j0, j1) && ok
	}
	return ok
}

// prefetchRow asks for the lines of row j of the arrays its fused update
// writes (W and C; A′ and A for NCG, A for a fixed mask) before the row's
// gradient is summed, so that they arrive while the sums run: the arrays
// do not fit L2, and the update would otherwise wait for each line. The
// update with momentum or decay is not prefetched (docs/design-notes.md).
func (t *Trainer) prefetchRow(j int) {
	m, h := t.m, t.m.H
	n := (h-1)/lineFloats + 1 // the lines from the row's first float on
	ap, a := t.rowMask(j)
	for _, s := range [4][]float32{m.W[j*h : (j+1)*h], m.c[j*h : (j+1)*h], a, ap} {
		if s != nil {
			kernel.PrefetchW(s, n, lineFloats)
		}
	}
}

// rowMask returns row j's connection strengths A′ and mask A as its update
// uses them: both for NCG, A alone for a fixed mask (line, random, SET),
// neither (nil) for a dense model and for the label rows, which are always
// present.
func (t *Trainer) rowMask(j int) (ap, a []float32) {
	m, h := t.m, t.m.H
	lo, hi := j*h, (j+1)*h
	switch {
	case j >= m.DataUnits || t.cfg.Method == Dense:
		return nil, nil
	case t.cfg.Method == NCG:
		return m.AP[lo:hi], m.A[lo:hi]
	}
	return nil, m.A[lo:hi]
}

// rowTask computes the gradient of one chunk of visible rows and applies
// the update to them, a row at a time while the row is in cache:
//
//	G[j,:] = Σ_{c: x⁰_cj = 1} ĥ⁺_c − Σ_{c: x̃_cj = 1} ĥ⁻_c
//
// one sum of rows of hstat per visible row j, in slot order (positive
// terms, then negative), so no gradient matrix is stored or streamed.
func (t *Trainer) rowTask(k int) {
	if k >= len(t.rowOK) {
		t.biasTask(k - len(t.rowOK))
		return
	}
	m := t.m
	x, h, b := m.X, m.H, t.cfg.Batch
	j0, j1 := k*rowChunk, min((k+1)*rowChunk, x)
	// The visible biases' gradient first (a centred row needs it), their
	// step after the rows (a centred step shifts them by the rows' change).
	t.visibleGrad(j0, j1)
	if t.ctr != nil {
		clear(t.ctr.part[k*h : (k+1)*h])
	}
	t.vis.rowGrad(t, k, j0, j1)
	alpha := t.alpha
	alphaA := float32(t.cfg.LRConn / float64(t.nb))
	grow := t.grow[k*h : (k+1)*h] // zero: every update clears it
	ok := true
	if t.sp != nil {
		// Binary states only (a Gaussian model never trains on compressed
		// rows): the lists binaryInput.rowGrad made.
		scratch := t.spRow[k*2*h : (k+1)*2*h]
		lists, lens := t.rowList[k*rowChunk*2*b:(k+1)*rowChunk*2*b], t.rowLen[k*rowChunk:(k+1)*rowChunk]
		for j := j0; j < j1; j++ {
			r := j - j0
			ok = t.sparseRowUpdate(j, lists[r*2*b:r*2*b+int(lens[r])], alpha, scratch) && ok
		}
		t.rowOK[k], t.visOK[k] = ok, t.visibleStep(j0, j1)
		return // the dense copies of C follow at the epoch's end (flush)
	}
	mocanu := t.cfg.SETProcedure == Mocanu
	// With one worker the copies' lines are this core's already, and the
	// row's own lines are fetched instead (prefetchRow).
	prefetch, plain := t.pool.workers > 1, t.cfg.plainUpdate()
	per := (h + j1 - j0 - 1) / (j1 - j0) // hidden units of ch prefetched per row
	for j := j0; j < j1; j++ {
		r := j - j0
		if prefetch {
			m.prefetchCopies(j, min(r*per, h), min((r+1)*per, h), j0, j1)
		}
		if plain && !prefetch {
			t.prefetchRow(j)
		}
		g := t.vis.gradRow(t, k, j, grow)
		if mocanu {
			t.meanFieldRows(g, j)
		}
		lo, hi := j*h, (j+1)*h
		ap, a := t.rowMask(j)
		if t.ctr != nil {
			t.centreRow(g, m.c[lo:hi], nil, j)
		}
		switch {
		case !plain && ap != nil:
			ok = kernel.UpdateMomentumNCG(m.W[lo:hi], ap, a, m.c[lo:hi], g, t.velRow(j), t.step) && ok
		case !plain:
			ok = kernel.UpdateMomentum(m.W[lo:hi], a, m.c[lo:hi], g, t.velRow(j), t.step) && ok
		case a == nil:
			ok = kernel.UpdateDense(m.W[lo:hi], m.c[lo:hi], g, alpha) && ok
		case ap != nil:
			ok = kernel.UpdateNCG(m.W[lo:hi], ap, a, m.c[lo:hi], g, alpha, alphaA, float32(t.cfg.Gamma)) && ok
		default:
			ok = kernel.UpdateMasked(m.W[lo:hi], a, m.c[lo:hi], g, alpha) && ok
		}
		if t.ctr != nil {
			t.centreShift(m.c[lo:hi], nil, j)
		}
	}
	t.rowOK[k], t.visOK[k] = ok, t.visibleStep(j0, j1)

	// Refresh this chunk's columns of the hidden-major copy CH, and its rows
	// of the padded copy, while its rows of C are in cache (16 floats a
	// hidden unit: one cache line), in the parallel row phase.
	kernel.TransposeStrided(m.ch[j0:], x, m.c[j0*h:j1*h], h, j1-j0, h)
	m.padC(j0, j1)
}
