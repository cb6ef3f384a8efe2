package engine

import (
	"github.com/ncg-rbm/ncg/kernel"
	"github.com/ncg-rbm/ncg/unit"
)

// The Gibbs sweeps of a DBM's chains (joint training's negative phase and
// GibbsStack), in two kinds of task per half-sweep. The odd layers are
// drawn given the even ones, then the even given the odd; for each half:
//
//   - tile tasks: one column tile (mfTile units) of a layer being drawn,
//     for every chain at once, reading the packed tiles of C (upPk,
//     downPk) once: the input from below plus the bias, plus the input
//     from above, into chPre. The binary states of the layers given are
//     listed once a half-sweep (chOnes), shared by every tile;
//   - chain tasks: blocks of blockSize chains draw the layers' states
//     from chPre, each chain from its own stream, layer by layer.
//
// A unit's input is the same sums in the same order as one chain's
// product (the bias, then the rows of the ones below in increasing order;
// then those of the ones above, added), and each chain draws from its
// stream in the same order whatever the tasks, so the chains do not
// depend on the tiles or on the workers.

// chainTiles are the tile tasks of a half-sweep: the column tiles of
// every layer of the given parity, layer by layer.
func (j *dbmJoint) chainTiles(parity int) []dbmChunk {
	var ts []dbmChunk
	for l := parity; l < len(j.n); l += 2 {
		for o := 0; o < j.n[l]; o += mfTile {
			ts = append(ts, dbmChunk{l, o, min(o+mfTile, j.n[l])})
		}
	}
	return ts
}

// allocChains allocates the sweeps' state beside the chains (j.s) and
// the packed tiles of C they read.
func (j *dbmJoint) allocChains() {
	L, M := len(j.rbms), j.cfg.chains()
	// Row chunks of every matrix, larger matrices first (small tasks
	// last even out a phase's end): the gradient's tasks and the
	// packing's.
	for k := L - 1; k >= 0; k-- {
		for r := 0; r < j.n[k]; r += rowChunk {
			j.chunks = append(j.chunks, dbmChunk{k, r, min(r+rowChunk, j.n[k])})
		}
	}
	j.upPk, j.downPk = make([][]float32, L), make([][]float32, L)
	for k := range j.rbms {
		j.upPk[k] = make([]float32, j.n[k]*j.n[k+1])
		j.downPk[k] = make([]float32, j.n[k]*j.n[k+1])
	}
	j.chPre, j.chOnes = make([][]float32, L+1), make([]*kernel.Ones, L+1)
	for l, n := range j.n {
		j.chPre[l] = make([]float32, M*n)
		if l > 0 || j.binaryVisible() {
			j.chOnes[l] = kernel.NewOnes(M, n)
		}
	}
	if !j.binaryVisible() && j.scale != nil {
		j.chIn0 = make([]float32, M*j.n[0])
	}
	j.chTiles = [2][]dbmChunk{j.chainTiles(0), j.chainTiles(1)}
	j.chTileSc = make([][]float32, max(len(j.chTiles[0]), len(j.chTiles[1])))
	for i := range j.chTileSc {
		j.chTileSc[i] = make([]float32, 2*M*mfTile)
	}
	j.chainFn, j.chainTileFn, j.packFn, j.listFn = j.chainTask, j.chainTileTask, j.packTask, j.listTask
	j.sweepPh = chainPhases(1)
}

// gibbs runs sweeps Gibbs sweeps of every chain; the packed tiles must
// hold the current C.
func (j *dbmJoint) gibbs(sweeps int) {
	for sweep := 0; sweep < sweeps; sweep++ {
		j.runPhases(j.sweepPh)
	}
}

// listTask readies chain block blk's input of the current half-sweep
// (the one that draws the layers of parity j.chParity): the lists of the
// ones of the layers it is given, and the visible states scaled by 1/σ²
// (Gaussian units with σ ≠ 1). The tile phase then tallies the lists.
func (j *dbmJoint) listTask(blk int) {
	c0, c1 := blk*blockSize, min((blk+1)*blockSize, j.cfg.chains())
	for l := 1 - j.chParity; l < len(j.n); l += 2 {
		if o := j.chOnes[l]; o != nil {
			o.SetChains(j.s[l], c0, c1)
		}
	}
	if j.chParity == 1 && j.chIn0 != nil {
		x, s := j.n[0], j.s[0]
		for i := c0 * x; i < c1*x; i++ {
			j.chIn0[i] = s[i] * j.scale[i%x]
		}
	}
}

// chainTileTask sets tile i of the current half-sweep's input for every
// chain: the bias, plus C^{l−1}ᵀ s^{l−1} (for l ≥ 1), plus C^l s^{l+1}
// (below the top).
func (j *dbmJoint) chainTileTask(i int) {
	tc, M, L := j.chTiles[j.chParity][i], j.cfg.chains(), len(j.rbms)
	l, o0, w, n := tc.k, tc.j0, tc.j1-tc.j0, j.n[tc.k]
	sc := j.chTileSc[i]
	pre := sc[:M*w]
	if l == 0 {
		for c := 0; c < M; c++ {
			copy(pre[c*w:(c+1)*w], j.bias[0][o0:o0+w])
		}
	} else {
		nin := j.n[l-1]
		tile := j.upPk[l-1][o0*nin : o0*nin+nin*w]
		switch {
		case j.chOnes[l-1] != nil:
			kernel.AffineOnes(pre, nil, j.s[l-1], tile, w, w, j.chOnes[l-1])
		case j.chIn0 != nil:
			kernel.Affine(pre, nil, j.chIn0, tile, M, nin, w)
		default:
			kernel.Affine(pre, nil, j.s[0], tile, M, nin, w)
		}
		b := j.bias[l][o0 : o0+w]
		for c := 0; c < M; c++ {
			p := pre[c*w : (c+1)*w]
			for k := range p {
				p[k] += b[k]
			}
		}
	}
	if l < L {
		nin := j.n[l+1]
		above := sc[M*w : 2*M*w]
		kernel.AffineOnes(above, nil, j.s[l+1], j.downPk[l][o0*nin:o0*nin+nin*w], w, w, j.chOnes[l+1])
		kernel.Axpy(pre, 1, above)
	}
	for c := 0; c < M; c++ {
		copy(j.chPre[l][c*n+o0:c*n+o0+w], pre[c*w:(c+1)*w])
	}
}

// chainTask draws the current half-sweep's layers of chain block blk
// from their inputs.
func (j *dbmJoint) chainTask(blk int) {
	c0, c1 := blk*blockSize, min((blk+1)*blockSize, j.cfg.chains())
	sc := &j.chainSc[blk]
	for l := j.chParity; l < len(j.n); l += 2 {
		n := j.n[l]
		for c := c0; c < c1; c++ {
			p, st, s := j.chPre[l][c*n:(c+1)*n], j.s[l][c*n:(c+1)*n], &j.streams[c]
			switch {
			case l > 0 || j.vis == unit.Binary:
				kernel.SigmoidBernoulli(sc.prob[:n], st, p, s)
			case j.vis == unit.Categorical:
				kernel.SoftmaxSample(sc.prob[:n], st, p, j.groups, s)
			default:
				kernel.GaussianSample(st, p, j.sigma, s)
			}
		}
	}
}
