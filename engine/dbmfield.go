package engine

import "github.com/ncg-rbm/ncg/kernel"

// The mean field of a DBM's joint training on column tiles (dbmJoint's
// upPk, downPk): each task computes one tile of a layer's units for all
// the minibatch's rows, with one pass over the tile of C it reads. A
// unit's sums are the same whatever the tiles (one sum per unit, over the
// units below or above in order), so the result does not depend on them
// either.

// The packed tiles follow C: every update's row tasks rewrite their rows
// of them (packRows), and the first minibatch after C changed otherwise
// (the start, a resume, SET's rewiring) packs them whole (pack).

// packRows copies rows j0…j1−1 of C^k into its up tiles, and their
// transpose into its down tiles. The rows lie in one down tile: a row
// chunk starts at a multiple of rowChunk, which divides mfTile.
func (j *dbmJoint) packRows(k, j0, j1 int) {
	nin, nout, c := j.n[k], j.n[k+1], j.weights(k)
	for o0 := 0; o0 < nout; o0 += mfTile {
		w := min(mfTile, nout-o0)
		dst := j.upPk[k][o0*nin : o0*nin+nin*w]
		for r := j0; r < j1; r++ {
			copy(dst[r*w:(r+1)*w], c[r*nout+o0:r*nout+o0+w])
		}
	}
	o0 := j0 / mfTile * mfTile
	w := min(mfTile, nin-o0)
	kernel.TransposeStrided(j.downPk[k][o0*nout+j0-o0:], w, c[j0*nout:], nout, j1-j0, nout)
}

var _ = [1]int{}[mfTile%rowChunk] // rowChunk divides mfTile

// packTask packs the rows of chunk i of the gradient's row chunks.
func (j *dbmJoint) packTask(i int) {
	ch := j.chunks[i]
	j.packRows(ch.k, ch.j0, ch.j1)
}

// pack packs every matrix whole, unless the tiles are up to date.
func (j *dbmJoint) pack() {
	if !j.packed {
		j.pool.run(len(j.chunks), j.packFn, nil)
		j.packed = true
	}
}

// mfParts is the number of row blocks a mean-field tile's task covers:
// a phase has mfParts tasks a tile, so that a worker that finishes first
// takes a smaller piece of the other's share (the two parts of a tile run
// one after the other on a worker, the second finding the tile in L2).
const mfParts = 2

// tileTask sets part i%mfParts of tile i/mfParts of layer j.mfLayer's
// mean field (rows r0…r1−1): μ = σ(b + f·(input from below) [+ input from
// above]). The last product of a tile runs in kernel.AffineSigmoid, which
// adds the rest and applies σ on the way out: (b + below) + above, or
// below + b at the top, the same sums as one after the other.
func (j *dbmJoint) tileTask(i int) {
	l, L := j.mfLayer, len(j.rbms)
	t, part := i/mfParts, i%mfParts
	r0, r1 := part*j.nb/mfParts, (part+1)*j.nb/mfParts
	nb := r1 - r0
	if nb == 0 {
		return // a minibatch of fewer rows than parts
	}
	tc := j.tiles[j.tileOff[l]+t]
	o0, w, n := tc.j0, tc.j1-tc.j0, j.n[l]
	sc := j.tileSc[t]
	below, tmp := sc[r0*w:r1*w], sc[j.nb*mfTile+r0*w:j.nb*mfTile+r1*w]
	mu := j.mu[l][r0*n+o0 : (r1-1)*n+o0+w]
	b, f := j.bias[l][o0:o0+w], j.mfFactor
	withAbove := j.mfAbove && l < L
	var next []float32 // the second part prefetches the next tile
	if l == 1 && withAbove && f == 1 {
		// The bottom layer's bias and fixed input, summed once a
		// minibatch (loadBlock), plus the input from above.
		nin := j.n[2]
		next = j.toPrefetch(part, j.mu[2], nin, 1, j.downPk, t)
		kernel.AffineSigmoid(mu, n, j.in1b[r0*n+o0:], n, j.mu[2][r0*nin:r1*nin], j.downPk[1][o0*nin:o0*nin+nin*w], next, tmp, nb, nin, w)
		return
	}
	if l > 1 && !withAbove && f == 1 {
		nin := j.n[l-1]
		next = j.toPrefetch(part, j.mu[l-1], nin, l-1, j.upPk, t)
		kernel.AffineSigmoid(mu, n, b, 0, j.mu[l-1][r0*nin:r1*nin], j.upPk[l-1][o0*nin:o0*nin+nin*w], next, tmp, nb, nin, w)
		return
	}
	if l == 1 {
		for r := 0; r < nb; r++ {
			copy(below[r*w:(r+1)*w], j.in1[(r0+r)*n+o0:(r0+r)*n+o0+w])
		}
	} else {
		nin := j.n[l-1]
		kernel.Affine(below, nil, j.mu[l-1][r0*nin:r1*nin], j.upPk[l-1][o0*nin:o0*nin+nin*w], nb, nin, w)
	}
	for r := 0; r < nb; r++ {
		p := below[r*w : (r+1)*w]
		if f == 1 {
			kernel.Axpy(p, 1, b) // b + p, the same sum
		} else {
			for k := range p {
				p[k] = b[k] + f*p[k]
			}
		}
	}
	if withAbove {
		nin := j.n[l+1]
		next = j.toPrefetch(part, j.mu[l+1], nin, l, j.downPk, t)
		kernel.AffineSigmoid(mu, n, below, w, j.mu[l+1][r0*nin:r1*nin], j.downPk[l][o0*nin:o0*nin+nin*w], next, tmp, nb, nin, w)
		return
	}
	for r := 0; r < nb; r++ {
		kernel.Sigmoid(mu[r*n:r*n+w], below[r*w:(r+1)*w])
	}
}

// toPrefetch returns what part part of tile t prefetches while it runs:
// the last part, the next tile of matrix k (nextTile); the others, the
// rows of the input in (rows of nin) that the next part reads. The
// other worker wrote half of each row in the phase before, so the first
// tile a worker runs in a phase would wait for those lines from the
// other core.
func (j *dbmJoint) toPrefetch(part int, in []float32, nin, k int, pk [][]float32, t int) []float32 {
	if part == mfParts-1 {
		return j.nextTile(k, pk, t)
	}
	r1, r2 := (part+1)*j.nb/mfParts, (part+2)*j.nb/mfParts
	return in[r1*nin : r2*nin]
}

// nextTile returns the packed tile of matrix k after tile t of layer
// j.mfLayer (pk: upPk or downPk), which this worker likely computes next
// (a worker's tasks are consecutive), or nil after the last.
func (j *dbmJoint) nextTile(k int, pk [][]float32, t int) []float32 {
	l := j.mfLayer
	if j.tileOff[l]+t+1 >= j.tileOff[l+1] {
		return nil
	}
	tc := j.tiles[j.tileOff[l]+t+1]
	nin := len(pk[k]) / j.n[l]
	return pk[k][tc.j0*nin : tc.j1*nin]
}

// reconTask sets part i%mfParts of tile i/mfParts of the visible units'
// input d + C⁰μ¹ of every row in vpre.
func (j *dbmJoint) reconTask(i int) {
	t, part := i/mfParts, i%mfParts
	r0, r1 := part*j.nb/mfParts, (part+1)*j.nb/mfParts
	if r0 == r1 {
		return
	}
	tc, x, n1 := j.visTiles[t], j.n[0], j.n[1]
	o0, w := tc.j0, tc.j1-tc.j0
	out := j.tileSc[t][r0*w : r1*w]
	kernel.Affine(out, j.bias[0][o0:o0+w], j.mu[1][r0*n1:r1*n1], j.downPk[0][o0*n1:o0*n1+n1*w], r1-r0, n1, w)
	for r := r0; r < r1; r++ {
		copy(j.vpre[r*x+o0:r*x+o0+w], out[(r-r0)*w:(r-r0+1)*w])
	}
}

// meanField runs the positive phase of the minibatch's rows, after the
// row blocks have loaded them and their bottom layer's input: the
// bottom-up pass, doubled below the top, then the fixed-point sweeps;
// and the reconstruction error of the result. (A minibatch runs the
// chains' phases inside these, and the error's blocks in its gradient
// phase.)
func (j *dbmJoint) meanField() {
	j.runPhases(j.fieldPh)
	for blk := 0; blk < j.reconBlocks(); blk++ {
		j.reconBlock(blk)
	}
	j.reconError()
}

// reconBlocks is the number of row blocks of the reconstruction error.
func (j *dbmJoint) reconBlocks() int { return (j.nb + blockSize - 1) / blockSize }

// reconBlock sets the squared error of row block blk's reconstruction
// (the visible means of reconTask's input) in reconPart[blk].
func (j *dbmJoint) reconBlock(blk int) {
	x := j.n[0]
	c0, c1 := blk*blockSize, min((blk+1)*blockSize, j.nb)
	mean := j.visibleMean(j.vprob[c0*x:c1*x], j.vpre[c0*x:c1*x], c1-c0)
	v := j.mu[0][c0*x : c1*x]
	var e float64
	for k, p := range mean {
		d := float64(v[k] - p)
		e += d * d
	}
	j.reconPart[blk] = e
}

// reconError adds the minibatch's reconstruction error to the epoch's
// sum, block by block in order.
func (j *dbmJoint) reconError() {
	for _, e := range j.reconPart[:j.reconBlocks()] {
		j.reconSum += e
	}
}
