package kernel

import (
	"errors"
	"fmt"
)

// CSR is a compressed-row matrix: row r's entries are at positions
// Ptr()[r] to Ptr()[r+1]−1 of Col() (their column numbers) and Val (their
// values). NewCSR checks the structure once, so that the kernels that read
// it need not check every column number on every call. The caller may
// change Val at any time, but not the slices Ptr and Col return.
type CSR struct {
	rows, cols int
	ptr, col   []int32
	Val        []float32
}

// NewCSR returns the rows×cols compressed-row matrix with the given
// structure and values (kept, not copied). It is an error if ptr does not
// have rows+1 entries rising from 0 to len(col), if val is shorter than
// col, or if a column number is outside [0, cols).
func NewCSR(rows, cols int, ptr, col []int32, val []float32) (*CSR, error) {
	m := &CSR{}
	if err := m.Reset(rows, cols, ptr, col, val); err != nil {
		return nil, err
	}
	return m, nil
}

// Reset gives m the structure and values NewCSR would give a new matrix,
// checked the same way, without allocating: for compressed rows rebuilt
// every minibatch. On error m is unchanged.
func (m *CSR) Reset(rows, cols int, ptr, col []int32, val []float32) error {
	if rows < 0 || cols < 0 {
		return fmt.Errorf("kernel: CSR shape %d×%d", rows, cols)
	}
	if len(ptr) != rows+1 || ptr[0] != 0 || int(ptr[rows]) != len(col) {
		return errors.New("kernel: CSR row pointers do not span the column numbers")
	}
	if len(val) < len(col) {
		return fmt.Errorf("kernel: CSR has %d values for %d entries", len(val), len(col))
	}
	for r := 0; r < rows; r++ {
		if ptr[r] > ptr[r+1] {
			return fmt.Errorf("kernel: CSR row %d ends before it starts", r)
		}
	}
	for k, c := range col {
		if uint32(c) >= uint32(cols) {
			return fmt.Errorf("kernel: CSR entry %d has column %d of %d", k, c, cols)
		}
	}
	*m = CSR{rows: rows, cols: cols, ptr: ptr, col: col, Val: val[:len(col)]}
	return nil
}

// Rows and Cols return the shape of m.
func (m *CSR) Rows() int { return m.rows }
func (m *CSR) Cols() int { return m.cols }

// Ptr and Col return m's structure (not to be changed).
func (m *CSR) Ptr() []int32 { return m.ptr }
func (m *CSR) Col() []int32 { return m.col }

// SparseAffine is the product of the compressed-row matrix m with lanes
// chains at once (8, 16 or 32), their inputs and outputs interleaved
// (unit-major):
//
//	for o < m.Rows(), l < lanes:
//	  out[o*lanes+l] = bias[o] + Σ_{k=ptr[o]}^{ptr[o+1]−1} val[k]·in[col[k]*lanes+l]
//
// each product rounded to float32 before it is added, and the terms added
// in the order of k (so a row with increasing column numbers sums its
// terms as a scatter of the columns' rows would). With 0/1 inputs every
// product is exact and out is the sum of the present entries whose input
// is 1. A nil bias means zero, and a bias of −0 counts as +0, so that no
// sum is ever −0 (then adding 0·val changes nothing, as a skipped term
// does: see SparseAffineBinary). One vector operation serves all the lanes,
// so the cost follows m's entries, not the chains' states; a lane's sums
// do not depend on the other lanes or on the lane count.
func SparseAffine(out, bias, in []float32, lanes int, m *CSR) {
	if lanes != 8 && lanes != 16 && lanes != 32 {
		panic(fmt.Sprintf("kernel: SparseAffine with %d lanes, want 8, 16 or 32", lanes))
	}
	if m.rows == 0 {
		return
	}
	need("out", len(out), m.rows*lanes)
	need("in", len(in), m.cols*lanes)
	if bias != nil {
		need("bias", len(bias), m.rows)
		bias = bias[:m.rows]
	}
	cur.sparseAffine(out[:m.rows*lanes], bias, in[:m.cols*lanes], lanes, m.ptr, m.col, m.Val)
}

// SparseWork is the scratch of SparseAffineBinary for a matrix shape.
type SparseWork struct {
	rows, cols int
	in, out    []float32
	bits       []uint32
}

// NewSparseWork returns the scratch of SparseAffineBinary for rows×cols
// matrices.
func NewSparseWork(rows, cols int) *SparseWork {
	return &SparseWork{rows: rows, cols: cols, in: make([]float32, 32*cols), out: make([]float32, 32*rows), bits: make([]uint32, cols)}
}

// SparseAffineBinary is the product of the compressed-row matrix m with nc
// ≤ 32 chains whose inputs are binary, with inputs and outputs chain-major
// (nc×m.Cols() and nc×m.Rows(), one chain a row):
//
//	out[c*rows+o] = bias[o] + Σ_{k=ptr[o]…ptr[o+1]−1, in[c*cols+col[k]] ≠ 0} val[k]
//
// the terms added in the order of k. It gives SparseAffine's bits for the
// same 0/1 inputs on every tier, whichever way the tier computes it: by
// interleaving the chains into floats for SparseAffine, or, on AVX-512,
// into one bit per chain and unit, the product then adding each
// connection's value to the lanes its bits select (a 2.5 KB word per
// unit instead of 128 bytes, and no multiplies). An input is read as 1
// when it is not 0. w must be NewSparseWork(m.Rows(), m.Cols())'s.
func SparseAffineBinary(out, bias, in []float32, nc int, m *CSR, w *SparseWork) {
	if checkChains("SparseAffineBinary", out, bias, in, nc, m, w) {
		cur.sparseBinary(out[:nc*m.rows], bias, in[:nc*m.cols], nc, m, w)
	}
}

// SparseAffineChains is SparseAffine for nc ≤ 32 chains with inputs and
// outputs chain-major, as SparseAffineBinary takes them, and inputs of any
// value: the chains are interleaved into the fewest lanes that hold them,
// multiplied and written back. w must be NewSparseWork(m.Rows(),
// m.Cols())'s.
func SparseAffineChains(out, bias, in []float32, nc int, m *CSR, w *SparseWork) {
	if checkChains("SparseAffineChains", out, bias, in, nc, m, w) {
		sparseChains(sparseOf(cur), out, bias, in, nc, m, w)
	}
}

// checkChains checks the arguments of the chain-major products and
// reports whether there is anything to compute.
func checkChains(name string, out, bias, in []float32, nc int, m *CSR, w *SparseWork) bool {
	if nc <= 0 || m.rows == 0 {
		return false
	}
	if nc > 32 {
		panic(fmt.Sprintf("kernel: %s of %d chains, at most 32", name, nc))
	}
	if w.rows != m.rows || w.cols != m.cols {
		panic(fmt.Sprintf("kernel: %s scratch for %d×%d, matrix %d×%d", name, w.rows, w.cols, m.rows, m.cols))
	}
	need("out", len(out), nc*m.rows)
	need("in", len(in), nc*m.cols)
	if bias != nil {
		need("bias", len(bias), m.rows)
	}
	return true
}

// SparseLanes is the fewest lanes of SparseAffine (8, 16 or 32) that hold
// n chains; 32 for more.
func SparseLanes(n int) int {
	switch {
	case n <= 8:
		return 8
	case n <= 16:
		return 16
	}
	return 32
}

// sparseChains is the product of nc chain-major chains through
// interleaved floats, with a tier's transpose and sparseAffine. Lanes past
// nc keep older inputs, whose outputs are not read.
func sparseChains(t tierSparse, out, bias, in []float32, nc int, m *CSR, w *SparseWork) {
	lanes := SparseLanes(nc)
	if bias != nil {
		bias = bias[:m.rows]
	}
	inT, outT := w.in[:(m.cols-1)*lanes+nc], w.out[:m.rows*lanes]
	if m.cols > 0 {
		t.transpose(inT, in, nc, m.cols, lanes, m.cols)
	}
	t.sparseAffine(outT, bias, w.in[:m.cols*lanes], lanes, m.ptr, m.col, m.Val)
	t.transpose(out[:nc*m.rows], outT[:(m.rows-1)*lanes+nc], m.rows, nc, m.rows, lanes)
}

// tierSparse is the two kernels of a tier that sparseChains runs.
type tierSparse struct {
	transpose    func(dst, src []float32, rows, cols, ldd, lds int)
	sparseAffine func(out, bias, in []float32, lanes int, ptr, col []int32, val []float32)
}

func sparseOf(t *impl) tierSparse { return tierSparse{t.transpose, t.sparseAffine} }

// sparseBinaryVia is SparseAffineBinary as sparseChains on tier t.
func sparseBinaryVia(t *impl) func(out, bias, in []float32, nc int, m *CSR, w *SparseWork) {
	return func(out, bias, in []float32, nc int, m *CSR, w *SparseWork) {
		sparseChains(sparseOf(t), out, bias, in, nc, m, w)
	}
}

// GatherSum sets, for every k < len(cols),
//
//	dst[k] = Σ_t src[rows[t]*stride + cols[k]]
//
// the terms added from zero in the order of t. It is the sum of the rows
// named by rows (as SumRows) at the columns cols only: the gradient of a
// sparse model's present connections. Every index must be inside src
// (checked).
func GatherSum(dst, src []float32, stride int, rows []int32, cols []int32) {
	n := len(cols)
	need("dst", len(dst), n)
	if n == 0 {
		return
	}
	var cmax int32
	for _, c := range cols {
		if c < 0 {
			panic(fmt.Sprintf("kernel: GatherSum column %d", c))
		}
		cmax = max(cmax, c)
	}
	checkRows("src", src, stride, rows, int(cmax)+1)
	cur.gatherSum(dst[:n], src, stride, rows, cols)
}

// DotRows sets, for every k < len(offs), dst[k] to the dot product of a
// with the len(a) floats of m from offs[k] on:
//
//	dst[k] = Σ_c a[c]·m[offs[k]+c]
//
// each product rounded, the terms summed in 8 interleaved partial sums
// (term c into sum c mod 8, from zero) that are combined as
// ((s₀+s₁)+(s₂+s₃))+((s₄+s₅)+(s₆+s₇)), so that every tier gives the same
// bits. len(a) must be a multiple of 8 (pad both sides with zeros); every
// row must be inside m (checked). The SET authors' negative gradient of a
// compressed row is this: the mean-field visible states of its unit times
// each connection's negated hidden samples, over the slots.
func DotRows(dst, a, m []float32, offs []int32) {
	n := len(offs)
	need("dst", len(dst), n)
	if len(a)%8 != 0 {
		panic(fmt.Sprintf("kernel: DotRows vectors of %d floats, not a multiple of 8", len(a)))
	}
	if n == 0 {
		return
	}
	last := len(m) - len(a)
	for _, o := range offs {
		if o < 0 || int(o) > last {
			panic(fmt.Sprintf("kernel: DotRows row at %d of %d floats outside m (%d)", o, len(a), len(m)))
		}
	}
	cur.dotRows(dst[:n], a, m, offs)
}

func sparseAffineGeneric(out, bias, in []float32, lanes int, ptr, col []int32, val []float32) {
	var buf [32]float32
	acc := buf[:lanes]
	for o := 0; o+1 < len(ptr); o++ {
		clear(acc)
		if bias != nil && bias[o] != 0 { // a −0 bias starts the sums at +0
			for l := range acc {
				acc[l] = bias[o]
			}
		}
		for k := ptr[o]; k < ptr[o+1]; k++ {
			v, x := val[k], in[int(col[k])*lanes:int(col[k])*lanes+lanes]
			for l := range acc {
				acc[l] += float32(v * x[l])
			}
		}
		copy(out[o*lanes:o*lanes+lanes], acc)
	}
}

func gatherSumGeneric(dst, src []float32, stride int, rows []int32, cols []int32) {
	for k, c := range cols {
		var s float32
		for _, r := range rows {
			s += src[int(r)*stride+int(c)]
		}
		dst[k] = s
	}
}

func dotRowsGeneric(dst, a, m []float32, offs []int32) {
	for k, o := range offs {
		row := m[o : int(o)+len(a)]
		var s [8]float32
		for c, v := range row {
			s[c%8] += float32(a[c] * v)
		}
		dst[k] = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))
	}
}

// sparseBinaryGeneric is sparseBinaryVia(generic), written out so that the
// other tiers' closures are not the generic kernel's own code.
func sparseBinaryGeneric(out, bias, in []float32, nc int, m *CSR, w *SparseWork) {
	sparseChains(tierSparse{transposeGeneric, sparseAffineGeneric}, out, bias, in, nc, m, w)
}

// packBitsGeneric sets bits[j] to the word whose bit c is in[c*n+j] ≠ 0,
// for c < nc ≤ 32 and j < n.
func packBitsGeneric(bits []uint32, in []float32, nc, n int) {
	for j := 0; j < n; j++ {
		var b uint32
		for c := 0; c < nc; c++ {
			if in[c*n+j] != 0 {
				b |= 1 << c
			}
		}
		bits[j] = b
	}
}

// sparseBitsGeneric is the product on packed inputs, lanes 16 or 32:
// out[o*lanes+l] = bias[o] + Σ_{k: bit l of bits[col[k]]} val[k].
func sparseBitsGeneric(out, bias []float32, bits []uint32, lanes int, ptr, col []int32, val []float32) {
	var buf [32]float32
	acc := buf[:lanes]
	for o := 0; o+1 < len(ptr); o++ {
		clear(acc)
		if bias != nil && bias[o] != 0 {
			for l := range acc {
				acc[l] = bias[o]
			}
		}
		for k := ptr[o]; k < ptr[o+1]; k++ {
			v, b := val[k], bits[col[k]]
			for l := range acc {
				if b>>l&1 != 0 {
					acc[l] += v
				}
			}
		}
		copy(out[o*lanes:o*lanes+lanes], acc)
	}
}
