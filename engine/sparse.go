package engine

import "github.com/ncg-rbm/ncg/kernel"

// SparseDensity returns the largest connection density (of the data rows,
// as the configuration sets it) at which a fixed-mask model (line, random,
// SET) trains on compressed rows instead of the dense matrices, on the
// kernel tier in use: the density at which a random mask of MNIST at
// H = 500 costs about the same in both forms (BenchmarkCompressedCrossover
// measures it). SET's paper setting (H = 2500, ε = 11) is 1.8% dense.
//
// On compressed rows every product sums the present connections afresh,
// for up to 32 chains at once (kernel.SparseAffineBinary; SparseAffine for
// the SET authors' real-valued mean-field pass), and the gradient and
// update visit the present connections only, so a minibatch costs what
// the connections cost. Each sum adds the same terms in the same order as
// a fresh dense sum of rows (a dense sum adds zeros where the mask is 0,
// which changes no sum), and each connection gets the dense form's update
// kernel, so the two forms give the same parameters whenever the dense
// form sums rows afresh too (see TestSparseMatchesDense); the dense form
// updates its products incrementally and switches to a fused multiply-add
// product above a density of ones (see kernel.AffineBinary), which rounds
// differently.
func SparseDensity() float64 {
	if d, ok := sparseDensity[kernel.Tier()]; ok {
		return d
	}
	return sparseDensity["generic"]
}

// sparseDensity is SparseDensity per kernel tier: where the two forms'
// minibatch times cross (docs/design-notes.md). NEON's is 0.1, below the
// other tiers' crossovers, until an arm64 machine measures it.
var sparseDensity = map[string]float64{"avx512": 0.2, "avx2": 0.18, "generic": 0.19, "neon": 0.1}

// sparseRows is a compressed-row copy of the acting weights C, in one
// orientation: row r's present connections are col[ptr[r]:ptr[r+1]]
// (increasing) with their weights in val; csr is the same arrays as the
// kernels' checked matrix; next is transposeOf's scratch.
type sparseRows struct {
	ptr  []int32
	col  []int32
	val  []float32
	csr  kernel.CSR
	next []int32
}

// transposeOf sets r to the transpose of s, which has cols columns, in
// r's arrays (sized for it): each of r's rows lists its entries in
// increasing column order. If toHid is not nil, toHid[k] is set to the
// position in r of s's entry k.
func (r *sparseRows) transposeOf(s *sparseRows, cols int, toHid []int32) {
	rows := len(s.ptr) - 1
	n := int(s.ptr[rows])
	next := r.next[:cols]
	clear(next)
	for _, i := range s.col[:n] {
		next[i]++
	}
	at := int32(0)
	for i, c := range next {
		r.ptr[i], next[i] = at, at
		at += c
	}
	r.ptr[cols] = at
	for j := 0; j < rows; j++ {
		for k := s.ptr[j]; k < s.ptr[j+1]; k++ {
			i := s.col[k]
			p := next[i]
			next[i]++
			r.col[p], r.val[p] = int32(j), s.val[k]
			if toHid != nil {
				toHid[k] = p
			}
		}
	}
	if err := r.csr.Reset(cols, rows, r.ptr, r.col[:n], r.val); err != nil {
		panic(err) // a transpose of a valid structure is one
	}
}

// sparseModel holds both orientations of C: vis (visible rows: the down
// pass's sums, the gradient and the update) and hid (hidden rows: the up
// pass's sums); toHid maps a connection's position in vis to its position
// in hid. w and v are the present connections' weights and velocities (v
// nil without momentum or decay), in the order of vis: during an epoch
// the trainer updates these and vis.val, and flush writes them back to the
// model's dense W, C and velocities.
type sparseModel struct {
	vis, hid sparseRows
	toHid    []int32
	w, v     []float32
}

// Compressed reports whether the trainer works on compressed rows of C
// (see SparseDensity).
func (t *Trainer) Compressed() bool { return t.sp != nil }

// rowForm, when not "", forces the form of every fixed-mask model,
// "compressed" or "dense", whatever its density: a test and benchmark hook.
var rowForm string

// useSparse reports whether the configuration trains on compressed rows:
// binary visible states only (binaryInput). Gaussian visible units train
// on the dense matrices, their chains on compressed copies of a sparse C
// (gaussrows.go).
func useSparse(cfg Config, d int) bool {
	fixed := cfg.Method == Line || cfg.Method == Random || cfg.Method == SET
	switch {
	case rowForm == "dense" || !fixed || !unitsOf(cfg.Visible).binaryStates():
		return false
	case rowForm == "compressed":
		return true
	}
	switch cfg.Method {
	case Line:
		return float64(cfg.LineWidth)/float64(d) <= SparseDensity()
	case Random:
		return cfg.Density <= SparseDensity()
	case SET:
		return setDensity(cfg, d) <= SparseDensity()
	}
	return false
}

// build (re)compresses m's mask, weights and acting weights, and the
// velocities vel (nil: none), into s, reusing its memory.
func (s *sparseModel) build(m *Model, vel []float32) {
	x, h := m.X, m.H
	nnz := 0
	for _, a := range m.A {
		if a != 0 {
			nnz++
		}
	}
	grow := func(p *[]int32, n int) { *p = append((*p)[:0], make([]int32, n)...) }
	grow(&s.vis.ptr, x+1)
	grow(&s.hid.ptr, h+1)
	grow(&s.hid.next, h)
	grow(&s.vis.col, nnz)
	grow(&s.hid.col, nnz)
	grow(&s.toHid, nnz)
	s.vis.val = append(s.vis.val[:0], make([]float32, nnz)...)
	s.hid.val = append(s.hid.val[:0], make([]float32, nnz)...)
	s.w = append(s.w[:0], make([]float32, nnz)...)
	s.v = s.v[:0]
	if vel != nil {
		s.v = append(s.v, make([]float32, nnz)...)
	}
	// Visible rows in order, then the hidden rows as their transpose.
	k := 0
	for j := 0; j < x; j++ {
		s.vis.ptr[j] = int32(k)
		for i, a := range m.A[j*h : (j+1)*h] {
			if a != 0 {
				s.vis.col[k], s.vis.val[k], s.w[k] = int32(i), m.c[j*h+i], m.W[j*h+i]
				if vel != nil {
					s.v[k] = vel[j*h+i]
				}
				k++
			}
		}
	}
	s.vis.ptr[x] = int32(k)
	if err := s.vis.csr.Reset(x, h, s.vis.ptr, s.vis.col, s.vis.val); err != nil {
		panic(err) // built above: a failure is a bug here
	}
	s.hid.transposeOf(&s.vis, h, s.toHid)
}

// flush writes the compressed rows' weights, acting weights and
// velocities back to the model's dense arrays and rebuilds the model's
// copies of C, if a minibatch has changed them since the last flush: once
// an epoch, not once a minibatch (a pass over all of C).
func (t *Trainer) flush() {
	if t.sp == nil || !t.spDirty {
		return
	}
	m, s := t.m, t.sp
	for j := 0; j < m.X; j++ {
		row := j * m.H
		for k := s.vis.ptr[j]; k < s.vis.ptr[j+1]; k++ {
			i := row + int(s.vis.col[k])
			m.W[i], m.c[i] = s.w[k], s.vis.val[k]
			if t.velW != nil {
				t.velW[i] = s.v[k]
			}
		}
	}
	m.syncCopies()
	t.spDirty = false
}

// weights is one direction's matrix of the products: dense rows of m
// (stride floats apart), or, for a compressed model, sp: the compressed
// rows of the products' outputs (hidden rows for the up pass, visible rows
// for the down pass).
type weights struct {
	m      []float32
	stride int
	sp     *kernel.CSR
	up     bool // the up pass's (visible to hidden)
}

// affineBinary is kernel.AffineBinary on w: out = bias + the sum of the
// rows named by each chain's ones, whose lists it writes to idx/counts
// (on compressed rows, a nil idx lists nothing). Compressed rows sum every
// present connection of the nc chains with one vector operation per
// connection (kernel.SparseAffineBinary), which costs what the
// connections cost whatever the states.
func (w weights) affineBinary(out, bias, in []float32, nc, nin, nout int, idx, counts []int32, sc *blockScratch) {
	if w.sp == nil {
		kernel.AffineBinaryStride(out, bias, in, w.m, w.stride, nc, nin, nout, idx, counts)
		return
	}
	for c := 0; c < nc && idx != nil; c++ {
		counts[c] = int32(kernel.Indices(idx[c*nin:(c+1)*nin], in[c*nin:(c+1)*nin]))
	}
	kernel.SparseAffineBinary(out, bias, in, nc, w.sp, w.work(sc))
}

// work is the block's scratch of kernel.SparseAffineBinary for w.
func (w weights) work(sc *blockScratch) *kernel.SparseWork {
	if w.up {
		return sc.upWork
	}
	return sc.downWork
}

// sumRows adds the rows named by idx to out (nout floats) (dense rows).
func (w weights) sumRows(out []float32, idx []int32) {
	kernel.SumRows(out, w.m, w.stride, idx, len(out))
}

// flipRows is kernel.FlipRows on w: add the rows of on, subtract the sum
// of the rows of off (dense rows).
func (w weights) flipRows(out []float32, on, off []int32, tmp []float32) {
	kernel.FlipRows(out, w.m, w.stride, on, off, tmp, len(out))
}

// sparseRowUpdate is rowTask's gradient and update of visible row j on
// compressed rows, on its present connections only (the mask is fixed, so
// an absent weight would not change): their summed gradient
//
//	G[k] = Σ_{r in list} hstat[r][col[k]]
//
// (kernel.GatherSum, in the order of the dense row sums), plus, for the
// SET authors' procedure, Σ_c v̄_cj·(−h̃_c)[col[k]] over the slots
// (kernel.DotRows: eight interleaved partial sums); then the dense path's
// own update of the row on the compressed weights (UpdateDense for a label
// row, UpdateMasked with a mask of ones for a data row, UpdateMomentum
// with momentum or decay), so that every
// connection gets the operations the dense form gives it. The new weights
// and acting weights stay in the compressed rows (both orientations) until
// flush. scratch holds 2·H floats. It reports whether every new weight is
// finite.
func (t *Trainer) sparseRowUpdate(j int, list []int32, alpha float32, scratch []float32) bool {
	m, s := t.m, t.sp
	h := m.H
	lo, hi := s.vis.ptr[j], s.vis.ptr[j+1]
	cols := s.vis.col[lo:hi]
	n := len(cols)
	g, tmp := scratch[:n], scratch[h:h+n]
	kernel.GatherSum(g, t.hstat, h, list, cols)
	c, w := s.vis.val[lo:hi], s.w[lo:hi]
	if t.ctr != nil {
		t.centreRow(g, c, cols, j) // the present connections
	}
	if t.cfg.SETProcedure == Mocanu {
		// Row j of xsT with the rows of nhT at its connections: the slots
		// in eight interleaved partial sums (kernel.DotRows).
		nb := t.slotPad
		off := t.spCols[j/rowChunk*h:][:n] // the row task's
		for k, i := range cols {
			off[k] = i * int32(nb)
		}
		kernel.DotRows(tmp, t.xsT[j*nb:(j+1)*nb], t.nhT, off)
		for k, v := range tmp {
			g[k] += v
		}
	}
	var ok bool
	switch {
	case !t.cfg.plainUpdate():
		ok = kernel.UpdateMomentum(w, nil, c, g, s.v[lo:hi], t.step) // the present connections: mask all ones
	case j >= m.DataUnits:
		ok = kernel.UpdateDense(w, c, g, alpha)
	default:
		ok = kernel.UpdateMasked(w, t.ones[:n], c, g, alpha)
	}
	if t.ctr != nil {
		t.centreShift(c, cols, j)
	}
	for k := range cols {
		s.hid.val[s.toHid[int(lo)+k]] = c[k]
	}
	return ok
}
