package engine

import "github.com/ncg-rbm/ncg/kernel"

// Compressed rows for the chains of a masked Gaussian model. Its up pass
// multiplies C by real-valued states, a dense product that costs all X·H
// entries of C whatever the mask; trained by NCG on MNIST's grey levels, C
// keeps a few per cent of its connections after some dozens of minibatches
// (docs/design-notes.md). So at the start of each minibatch, when at most
// SparseDensity() of C is present, the chains take their products from
// compressed-row copies of C made afresh from the dense ones: the up pass
// by kernel.SparseAffineChains, the down pass (and the σ gradient's C ĥ)
// by kernel.SparseAffineBinary and SparseAffineChains, each summing the
// present connections in column order for every step; above that density
// they use the dense products. The choice depends on C alone, never on the
// workers. The gradient and update stay dense: NCG's connectivity gradient
// G ⊙ W is defined for absent connections too.

// newGaussRows is a compressed-row copy of a rows×cols C in one
// orientation, sized for every entry present, remade each minibatch.
func newGaussRows(rows, cols int) *sparseRows {
	return &sparseRows{ptr: make([]int32, rows+1), col: make([]int32, rows*cols), val: make([]float32, rows*cols), next: make([]int32, rows)}
}

// compress sets r to the non-zero entries of the rows×cols matrix m
// (row-major), unless more than limit of them are non-zero: then it
// returns false and r is not to be used.
func (r *sparseRows) compress(m []float32, rows, cols, limit int) bool {
	n := 0
	for i := 0; i < rows; i++ {
		row := m[i*cols : (i+1)*cols]
		k := kernel.Indices(r.col[n:n+cols], row)
		val := r.val[n : n+k]
		for q, j := range r.col[n : n+k] {
			val[q] = row[j]
		}
		n += k
		r.ptr[i+1] = int32(n)
		if n > limit {
			return false
		}
	}
	if err := r.csr.Reset(rows, cols, r.ptr, r.col[:n], r.val); err != nil {
		panic(err) // the loop above makes a valid structure
	}
	return true
}

// allocRows sizes the compressed copies of a masked model (after alloc's
// arrays); a dense model's C is never sparse.
func (g *gaussianUnits) allocRows(t *Trainer) {
	if t.cfg.Method == Dense {
		return
	}
	x, h := t.m.X, t.m.H
	g.gHid, g.gVis = newGaussRows(h, x), newGaussRows(x, h)
	for i := range t.scratch {
		if t.scratch[i].upWork == nil {
			t.scratch[i].upWork, t.scratch[i].downWork = kernel.NewSparseWork(h, x), kernel.NewSparseWork(x, h)
		}
	}
}

// form chooses the form of the chain products for the minibatch about to
// run, making the compressed copies of C when it is sparse enough (see
// above): the visible-major copy from C, then the hidden-major one from
// it, which costs what the present connections cost instead of another
// pass over C. The CD chains' down pass then sums the compressed rows
// (cdDown).
func (g *gaussianUnits) form(t *Trainer) {
	g.sparse = false
	if g.gHid == nil {
		return
	}
	m := t.m
	x, h := m.X, m.H
	if !g.gVis.compress(m.c, x, h, int(SparseDensity()*float64(x*h))) {
		return
	}
	g.gHid.transposeOf(g.gVis, h, nil)
	g.sparse = true
	t.cdDown = weights{sp: &g.gVis.csr}
}
