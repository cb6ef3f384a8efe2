package engine

import "github.com/ncg-rbm/ncg/kernel"

// The mean field of a DBM's joint training on column tiles (dbmJoint's
// upPk, downPk): each task computes one tile of a layer's units for all
// the minibatch's rows, with one pass over the tile of C it reads. A
// unit's sums are the same whatever the tiles (one sum per unit, over the
// units below or above in order), so the result does not depend on them
// either.

// packTask refreshes tile i of the packed copies: the up tiles of every
// matrix but the bottom one over its upper layer's units, then the down
// tiles over its lower layer's.
func (j *dbmJoint) packTask(i int) {
	for k, m := range j.rbms {
		nin, nout := j.n[k], j.n[k+1]
		up := j.upTiles(k)
		if i < up {
			o0 := i * mfTile
			w := min(mfTile, nout-o0)
			dst := j.upPk[k][o0*nin : o0*nin+nin*w]
			for r := 0; r < nin; r++ {
				copy(dst[r*w:(r+1)*w], m.c[r*nout+o0:r*nout+o0+w])
			}
			return
		}
		i -= up
		down := (nin + mfTile - 1) / mfTile
		if i < down {
			o0 := i * mfTile
			w := min(mfTile, nin-o0)
			kernel.TransposeStrided(j.downPk[k][o0*nout:], w, m.c[o0*nout:], nout, w, nout)
			return
		}
		i -= down
	}
}

// packTasks is the number of packTask's tasks.
func (j *dbmJoint) packTasks() int {
	n := 0
	for k := range j.rbms {
		n += j.upTiles(k) + (j.n[k]+mfTile-1)/mfTile
	}
	return n
}

// upTiles is the number of up tiles of matrix k: none for the bottom one.
func (j *dbmJoint) upTiles(k int) int {
	if k == 0 {
		return 0
	}
	return (j.n[k+1] + mfTile - 1) / mfTile
}

// tileTask sets tile i of layer j.mfLayer's mean field for every row:
// μ = σ(b + f·(input from below) [+ input from above]).
func (j *dbmJoint) tileTask(i int) {
	l, L, nb := j.mfLayer, len(j.rbms), j.nb
	tc := j.tiles[j.tileOff[l]+i]
	o0, w, n := tc.j0, tc.j1-tc.j0, j.n[l]
	sc := j.tileSc[i]
	below, above := sc[:nb*w], sc[nb*mfTile:nb*mfTile+nb*w]
	if l == 1 {
		for r := 0; r < nb; r++ {
			copy(below[r*w:(r+1)*w], j.in1[r*n+o0:r*n+o0+w])
		}
	} else {
		nin := j.n[l-1]
		kernel.Affine(below, nil, j.mu[l-1][:nb*nin], j.upPk[l-1][o0*nin:o0*nin+nin*w], nb, nin, w)
	}
	withAbove := j.mfAbove && l < L
	if withAbove {
		nin := j.n[l+1]
		kernel.Affine(above, nil, j.mu[l+1][:nb*nin], j.downPk[l][o0*nin:o0*nin+nin*w], nb, nin, w)
	}
	b, f := j.bias[l][o0:o0+w], j.mfFactor
	for r := 0; r < nb; r++ {
		p := below[r*w : (r+1)*w]
		for k := range p {
			p[k] = b[k] + f*p[k]
		}
		if withAbove {
			kernel.Axpy(p, 1, above[r*w:(r+1)*w])
		}
		kernel.Sigmoid(j.mu[l][r*n+o0:r*n+o0+w], p)
	}
}

// reconTask sets tile i of the visible units' input d + C⁰μ¹ of every
// row in vpre.
func (j *dbmJoint) reconTask(i int) {
	tc, nb, x, n1 := j.visTiles[i], j.nb, j.n[0], j.n[1]
	o0, w := tc.j0, tc.j1-tc.j0
	out := j.tileSc[i][:nb*w]
	kernel.Affine(out, j.bias[0][o0:o0+w], j.mu[1][:nb*n1], j.downPk[0][o0*n1:o0*n1+n1*w], nb, n1, w)
	for r := 0; r < nb; r++ {
		copy(j.vpre[r*x+o0:r*x+o0+w], out[r*w:(r+1)*w])
	}
}

// meanField runs the positive phase of the minibatch's rows, after the
// row blocks have loaded them and their bottom layer's input: the
// bottom-up pass, doubled below the top, then the fixed-point sweeps;
// and the reconstruction error of the result.
func (j *dbmJoint) meanField() {
	L := len(j.rbms)
	run := func(l int, f float32, above bool) {
		j.mfLayer, j.mfFactor, j.mfAbove = l, f, above
		j.pool.run(j.tileOff[l+1]-j.tileOff[l], j.tileFn, nil)
	}
	for l := 1; l <= L; l++ {
		f := float32(2)
		if l == L {
			f = 1
		}
		run(l, f, false)
	}
	for it := 0; it < j.cfg.MeanField; it++ {
		for l := 1; l <= L; l++ {
			run(l, 1, true)
		}
	}
	j.pool.run(len(j.visTiles), j.reconFn, nil)
	x := j.n[0]
	mean := j.visibleMean(j.vprob[:j.nb*x], j.vpre[:j.nb*x], j.nb)
	v := j.mu[0]
	var e float64
	for k, p := range mean {
		d := float64(v[k] - p)
		e += d * d
	}
	j.reconSum += e
}
