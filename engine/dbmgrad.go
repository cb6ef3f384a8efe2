package engine

import (
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// gradTask runs row chunk i of the matrices' gradient and update, or,
// past them, bias chunk i − row chunks, or past those a row block of the
// reconstruction error.
func (j *dbmJoint) gradTask(i, worker int) {
	if i < len(j.chunks) {
		j.rowOK[i] = j.rowTask(i, &j.rowSc[worker])
		return
	}
	i -= len(j.chunks)
	if i < len(j.biasTsk) {
		j.biasOK[i] = j.biasTask(i)
		return
	}
	j.reconBlock(i - len(j.biasTsk))
}

// biasSumTask sums bias chunk i's gradient, or past them computes a row
// block of the reconstruction error: a centred update's first phase.
func (j *dbmJoint) biasSumTask(i int) {
	if i < len(j.biasTsk) {
		j.biasSum(i)
		return
	}
	j.reconBlock(i - len(j.biasTsk))
}

// negScale is the chains' weight in the gradient, B/M, so that the
// gradient is a sum over the minibatch's rows (what the update kernels
// divide by B).
func (j *dbmJoint) negScale() float32 { return float32(j.nb) / float32(j.cfg.chains()) }

// rowTask sums the gradient of row chunk i (rows j0…j1−1 of matrix k)
// in the scratch sc, updates the rows and their packed tiles; it reports
// whether the new weights are finite.
func (j *dbmJoint) rowTask(i int, sc *rowScratch) bool {
	ch := j.chunks[i]
	k, j0, j1 := ch.k, ch.j0, ch.j1
	rows, nout, nb, M := j1-j0, j.n[k+1], j.nb, j.cfg.chains()
	realVisible := k == 0 && !j.binaryVisible()
	g := sc.g[:rows*nout]
	// This chunk's units' means over the rows (and, below the bottom
	// matrix, the visible chain states), transposed: a row per unit.
	pos := j.muT[k][j0*nb : j1*nb]
	kernel.TransposeStrided(pos, nb, j.mu[k][j0:], j.n[k], nb, rows)
	if realVisible {
		kernel.TransposeStrided(j.s0T[j0*M:j1*M], M, j.s[0][j0:], j.n[0], M, rows)
	}
	// Σ μ^k μ^{k+1}ᵀ over the rows: the visible data are 0 and 1 (lists
	// of ones), the mean fields real.
	if k == 0 && !realVisible {
		kernel.AffineBinary(g, nil, pos, j.mu[1], rows, nb, nout, sc.idx[:rows*nb], sc.cnt[:rows])
	} else {
		kernel.Affine(g, nil, pos, j.mu[k+1], rows, nb, nout)
	}
	// − (B/M) Σ s^k s^{k+1}ᵀ over the chains: counts of the chains in
	// which both units are on, from their states' bits, but for Gaussian
	// visible units.
	neg := sc.neg[:rows*nout]
	if realVisible {
		kernel.Affine(neg, nil, j.s0T[j0*M:j1*M], j.s[1], rows, M, nout)
	} else {
		kernel.BothOn(neg, j.bits[k][j0:], j.n[k], j.bits[k+1], nout, kernel.BitWords(M), rows, nout)
	}
	kernel.Axpy(g, -j.negScale(), neg)
	if realVisible && j.scale != nil {
		// The weights' gradient of Gaussian units is in v/σ².
		for r := 0; r < rows; r++ {
			s := j.scale[j0+r]
			for o := range g[r*nout : (r+1)*nout] {
				g[r*nout+o] *= s
			}
		}
	}
	if j.ctr != nil {
		j.centreRows(i, g)
	}
	m, lc := j.rbms[k], j.layers[k]
	lo, hi := j0*nout, j1*nout
	w, a, c := m.W[lo:hi], m.A[lo:hi], m.c[lo:hi]
	var ok bool
	switch v := j.vel[k]; {
	case v == nil && lc.Method == NCG:
		ok = kernel.UpdateNCG(w, m.AP[lo:hi], a, c, g, j.alpha, float32(lc.LRConn/float64(nb)), float32(lc.Gamma))
	case v == nil && lc.Method == Dense:
		if j.cFromW[k] {
			c = nil // sync copies W
		}
		ok = kernel.UpdateDense(w, c, g, j.alpha)
	case v == nil:
		ok = kernel.UpdateMasked(w, a, c, g, j.alpha)
	case lc.Method == NCG:
		p := j.step
		p.LRA, p.Gamma = float32(lc.LRConn/float64(nb)), float32(lc.Gamma)
		ok = kernel.UpdateMomentumNCG(w, m.AP[lo:hi], a, c, g, v[lo:hi], p)
	default:
		ok = kernel.UpdateMomentum(w, a, c, g, v[lo:hi], j.step)
	}
	j.packRows(k, j0, j1)
	if j.ctr != nil {
		j.centreShift(i)
	}
	return ok
}

// bitsChunk is the number of units a packing task packs.
const bitsChunk = 256

// packBits packs the chains' states of bit task i's units.
func (j *dbmJoint) packBits(i int) {
	t := j.bitTasks[i]
	n := j.n[t.k]
	kernel.PackBits(j.bits[t.k][t.j0:], n, j.s[t.k][t.j0:], n, j.cfg.chains(), t.j1-t.j0)
}

// biasTask sums and steps bias chunk i.
func (j *dbmJoint) biasTask(i int) bool {
	j.biasSum(i)
	return j.biasStep(i)
}

// biasSum sums the gradient of units j0…j1−1 of a layer, Σ μ − (B/M) Σ s.
func (j *dbmJoint) biasSum(i int) {
	ch := j.biasTsk[i]
	l, j0, j1 := ch.k, ch.j0, ch.j1
	n := j.n[l]
	g := j.gb[l][j0:j1]
	for c := 0; c < j.nb; c++ {
		kernel.Axpy(g, 1, j.mu[l][c*n+j0:c*n+j1])
	}
	ns := -j.negScale()
	for c := 0; c < j.cfg.chains(); c++ {
		kernel.Axpy(g, ns, j.s[l][c*n+j0:c*n+j1])
	}
	if l == 0 && j.vis == unit.Gaussian && j.scale != nil {
		for k := range g {
			g[k] *= j.scale[j0+k]
		}
	}
}

// biasStep updates the biases of bias chunk i along their summed
// gradient (never decayed), clearing it.
func (j *dbmJoint) biasStep(i int) bool {
	ch := j.biasTsk[i]
	l, j0, j1 := ch.k, ch.j0, ch.j1
	g, b := j.gb[l][j0:j1], j.bias[l][j0:j1]
	if v := j.velB[l]; v != nil {
		p := j.step
		p.L2 = 0
		return kernel.UpdateMomentum(b, nil, nil, g, v[j0:j1], p)
	}
	return kernel.UpdateDense(b, nil, g, j.alpha)
}

// centredGradient is the gradient phase of a centred DBM: the biases'
// gradients first (G^c needs them), then the rows, then the biases'
// steps and shifts.
func (j *dbmJoint) centredGradient() {
	j.pool.run(len(j.biasTsk)+j.reconBlocks(), j.biasSumFn, nil)
	j.rowScratchFor(j.pool)
	j.pool.runWorkers(len(j.chunks), j.gradFn)
	for i := range j.biasTsk {
		j.biasOK[i] = j.biasStep(i)
	}
	if !j.centreBiases() {
		for i := range j.biasOK {
			j.biasOK[i] = false
		}
	}
}
