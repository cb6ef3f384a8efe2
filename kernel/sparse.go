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
	if rows < 0 || cols < 0 {
		return nil, fmt.Errorf("kernel: CSR shape %d×%d", rows, cols)
	}
	if len(ptr) != rows+1 || ptr[0] != 0 || int(ptr[rows]) != len(col) {
		return nil, errors.New("kernel: CSR row pointers do not span the column numbers")
	}
	if len(val) < len(col) {
		return nil, fmt.Errorf("kernel: CSR has %d values for %d entries", len(val), len(col))
	}
	for r := 0; r < rows; r++ {
		if ptr[r] > ptr[r+1] {
			return nil, fmt.Errorf("kernel: CSR row %d ends before it starts", r)
		}
	}
	for k, c := range col {
		if uint32(c) >= uint32(cols) {
			return nil, fmt.Errorf("kernel: CSR entry %d has column %d of %d", k, c, cols)
		}
	}
	return &CSR{rows: rows, cols: cols, ptr: ptr, col: col, Val: val[:len(col)]}, nil
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
// is 1. A nil bias means zero. One vector operation serves all the lanes,
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

// GatherSum sets, for every k < len(cols),
//
//	dst[k] = Σ_t src[rows[t]*stride + cols[k]]          (weight == nil)
//	dst[k] = Σ_t weight[t]·src[rows[t]*stride + cols[k]]
//
// the terms added from zero in the order of t, each product rounded before
// it is added. It is the sum of the rows named by rows (as SumRows) at the
// columns cols only: the gradient of a sparse model's present connections.
// With stride 1 and cols scaled by a row length it sums along the rows of
// a transposed matrix instead (src[cols[k] + rows[t]]), whose lines the
// successive terms then share. Every index must be inside src (checked);
// len(weight) ≥ len(rows) when weight is not nil.
func GatherSum(dst, src []float32, stride int, rows []int32, weight []float32, cols []int32) {
	n := len(cols)
	need("dst", len(dst), n)
	if n == 0 {
		return
	}
	if weight != nil {
		need("weight", len(weight), len(rows))
		weight = weight[:len(rows)]
	}
	var cmax, rmax int32
	for _, c := range cols {
		if c < 0 {
			panic(fmt.Sprintf("kernel: GatherSum column %d", c))
		}
		cmax = max(cmax, c)
	}
	for _, r := range rows {
		if r < 0 {
			panic(fmt.Sprintf("kernel: GatherSum row %d", r))
		}
		rmax = max(rmax, r)
	}
	if stride < 0 || len(rows) > 0 && int64(rmax)*int64(stride)+int64(cmax) >= int64(len(src)) {
		panic(fmt.Sprintf("kernel: GatherSum reads src[%d·%d + %d] of %d", rmax, stride, cmax, len(src)))
	}
	cur.gatherSum(dst[:n], src, stride, rows, weight, cols)
}

func sparseAffineGeneric(out, bias, in []float32, lanes int, ptr, col []int32, val []float32) {
	var buf [32]float32
	acc := buf[:lanes]
	for o := 0; o+1 < len(ptr); o++ {
		clear(acc)
		if bias != nil {
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

func gatherSumGeneric(dst, src []float32, stride int, rows []int32, weight []float32, cols []int32) {
	for k, c := range cols {
		var s float32
		if weight == nil {
			for _, r := range rows {
				s += src[int(r)*stride+int(c)]
			}
		} else {
			for t, r := range rows {
				s += float32(weight[t] * src[int(r)*stride+int(c)])
			}
		}
		dst[k] = s
	}
}
