package engine

import "github.com/ncg-rbm/ncg/kernel"

// SparseDensity is the largest connection density (of the data rows, as the
// configuration sets it) at which a fixed-mask model (line, random, SET)
// trains on compressed rows instead of the dense matrices. SET's paper
// setting (H = 2500, ε = 11) is 1.8% dense: summing only the present
// connections does ~50× less work there. The paper's 50% line and random
// rows keep the dense kernels (a scatter-add per connection would meet half
// of the dense work; not measured).
//
// Both forms add the same terms in the same order (a dense sum adds zeros
// where the mask is 0, which changes no sum) and update each row with the
// same kernel, so they give the same parameters whenever the dense form
// sums rows too; its down pass switches to a fused multiply-add product
// above a density of ones (see kernel.AffineBinary), while its up pass, on
// padded rows, always sums them (see TestSparseMatchesDense).
const SparseDensity = 0.1

// sparseRows is a compressed-row copy of the acting weights C, in one
// orientation: row r's present connections are col[ptr[r]:ptr[r+1]]
// (increasing) with their weights in val.
type sparseRows struct {
	ptr []int32
	col []int32
	val []float32
}

// sum adds the rows named by idx to out, in the order of idx.
func (s *sparseRows) sum(out []float32, idx []int32) {
	for _, r := range idx {
		lo, hi := s.ptr[r], s.ptr[r+1]
		col, val := s.col[lo:hi], s.val[lo:hi]
		for k, c := range col {
			out[c] += val[k]
		}
	}
}

// sparseModel holds both orientations of C for the products: vis (visible
// rows, for the up pass and the gradient) and hid (hidden rows, for the
// down pass); toHid maps a connection's position in vis to its position in
// hid.
type sparseModel struct {
	vis, hid sparseRows
	toHid    []int32
}

// Compressed reports whether the trainer works on compressed rows of C
// (see SparseDensity).
func (t *Trainer) Compressed() bool { return t.sp != nil }

// useSparse reports whether the configuration trains on compressed rows.
func useSparse(cfg Config, d int) bool {
	switch cfg.Method {
	case Line:
		return float64(cfg.LineWidth)/float64(d) <= SparseDensity
	case Random:
		return cfg.Density <= SparseDensity
	case SET:
		return setDensity(cfg, d) <= SparseDensity
	}
	return false
}

// build (re)compresses m's mask and acting weights into s, reusing its
// memory.
func (s *sparseModel) build(m *Model) {
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
	grow(&s.vis.col, nnz)
	grow(&s.hid.col, nnz)
	grow(&s.toHid, nnz)
	s.vis.val = append(s.vis.val[:0], make([]float32, nnz)...)
	s.hid.val = append(s.hid.val[:0], make([]float32, nnz)...)
	// Visible rows in order; count each hidden unit's connections.
	k := 0
	for j := 0; j < x; j++ {
		s.vis.ptr[j] = int32(k)
		for i, a := range m.A[j*h : (j+1)*h] {
			if a != 0 {
				s.vis.col[k], s.vis.val[k] = int32(i), m.c[j*h+i]
				s.hid.ptr[i+1]++
				k++
			}
		}
	}
	s.vis.ptr[x] = int32(k)
	for i := 0; i < h; i++ {
		s.hid.ptr[i+1] += s.hid.ptr[i]
	}
	// Hidden rows: visiting the visible rows in order keeps each increasing.
	next := append([]int32(nil), s.hid.ptr[:h]...)
	for j := 0; j < x; j++ {
		for k := s.vis.ptr[j]; k < s.vis.ptr[j+1]; k++ {
			i := s.vis.col[k]
			p := next[i]
			next[i]++
			s.hid.col[p], s.hid.val[p] = int32(j), s.vis.val[k]
			s.toHid[k] = p
		}
	}
}

// weights is one direction's matrix of the products: dense rows of m
// (stride floats apart), or the compressed rows sp when sp is not nil.
type weights struct {
	m      []float32
	stride int
	sp     *sparseRows
}

// affineBinary is kernel.AffineBinary on w: out = bias + the sum of the
// rows named by each chain's ones, whose lists it writes to idx/counts.
func (w weights) affineBinary(out, bias, in []float32, nc, nin, nout int, idx, counts []int32) {
	if w.sp == nil {
		kernel.AffineBinaryStride(out, bias, in, w.m, w.stride, nc, nin, nout, idx, counts)
		return
	}
	for c := 0; c < nc; c++ {
		ones := idx[c*nin : (c+1)*nin]
		counts[c] = int32(kernel.Indices(ones, in[c*nin:(c+1)*nin]))
		o := out[c*nout : (c+1)*nout]
		copy(o, bias)
		w.sp.sum(o, ones[:counts[c]])
	}
}

// sumRows adds the rows named by idx to out (nout floats).
func (w weights) sumRows(out []float32, idx []int32) {
	if w.sp == nil {
		kernel.SumRows(out, w.m, w.stride, idx, len(out))
		return
	}
	w.sp.sum(out, idx)
}

// flipRows is kernel.FlipRows on w: add the rows of on, subtract the sum
// of the rows of off.
func (w weights) flipRows(out []float32, on, off []int32, tmp []float32) {
	if w.sp == nil {
		kernel.FlipRows(out, w.m, w.stride, on, off, tmp, len(out))
		return
	}
	w.sp.sum(out, on)
	if len(off) > 0 {
		clear(tmp)
		w.sp.sum(tmp, off)
		kernel.Axpy(out, -1, tmp)
	}
}

// sparseRowUpdate is rowTask's gradient and update of visible row j on
// compressed rows: for each present connection (j, i),
//
//	G = Σ_{r in list} hstat[r][i]
//
// summed in the order of the dense row sums, into g (H floats, zero), then
// the dense path's own update kernel on the row (UpdateDense for a label
// row, else UpdateMasked; with momentum or decay UpdateMomentumAt, the
// kernel of UpdateMomentum on the present connections), so that the
// rounding is the same on every tier (some tiers fuse α·G + W). The row's new weights are copied to the
// hidden-major copy CH, the padded copy and both compressed orientations.
// It reports whether every new weight is finite.
func (t *Trainer) sparseRowUpdate(j int, list []int32, alpha float32, g []float32) bool {
	m, s := t.m, t.sp
	h, ld := m.H, m.cpStride()
	lo, hi := s.vis.ptr[j], s.vis.ptr[j+1]
	mocanu := t.cfg.SETProcedure == Mocanu
	for _, i := range s.vis.col[lo:hi] {
		var v float32
		for _, r := range list {
			v += t.hstat[int(r)*h+int(i)]
		}
		if mocanu {
			v += t.meanFieldConn(j, int(i))
		}
		g[i] = v
	}
	row := j * h
	var ok bool
	switch {
	case !t.cfg.plainUpdate():
		var a []float32 // a label row's mask: all ones
		if j < m.DataUnits {
			a = m.A[row : row+h]
		}
		k := j / rowChunk
		ok = kernel.UpdateMomentumAt(m.W[row:row+h], a, m.c[row:row+h], g, t.velRow(j), s.vis.col[lo:hi], t.stepBuf[k*stepBuf:(k+1)*stepBuf], t.step)
	case j >= m.DataUnits:
		ok = kernel.UpdateDense(m.W[row:row+h], m.c[row:row+h], g, alpha)
	default:
		ok = kernel.UpdateMasked(m.W[row:row+h], m.A[row:row+h], m.c[row:row+h], g, alpha)
	}
	for k := lo; k < hi; k++ {
		i := int(s.vis.col[k])
		w := m.c[row+i]
		m.ch[i*m.X+j] = w
		m.cp[j*ld+i] = w
		s.vis.val[k], s.hid.val[s.toHid[k]] = w, w
	}
	return ok
}
