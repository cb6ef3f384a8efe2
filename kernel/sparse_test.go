package kernel

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomCSR returns a rows×cols matrix whose row r has about dens·cols
// entries (row lengths up to cols, some empty) with increasing columns and
// values from val.
func randomCSR(t testing.TB, r *rand.Rand, rows, cols int, dens float64, val func(*rand.Rand) float32) *CSR {
	t.Helper()
	ptr := []int32{0}
	var col []int32
	var v []float32
	for o := 0; o < rows; o++ {
		d := dens
		if o%7 == 3 {
			d = 0 // empty rows
		}
		for j := 0; j < cols; j++ {
			if r.Float64() < d {
				col = append(col, int32(j))
				v = append(v, val(r))
			}
		}
		ptr = append(ptr, int32(len(col)))
	}
	m, err := NewCSR(rows, cols, ptr, col, v)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewCSR(t *testing.T) {
	val := []float32{1, 2, 3}
	for _, c := range []struct {
		rows, cols int
		ptr, col   []int32
		val        []float32
		err        string
	}{
		{2, 4, []int32{0, 2, 3}, []int32{0, 3, 1}, val, ""},
		{0, 4, []int32{0}, nil, nil, ""},
		{2, 4, []int32{0, 2}, []int32{0, 3, 1}, val, "row pointers"},
		{2, 4, []int32{1, 2, 3}, []int32{0, 3, 1}, val, "row pointers"},
		{2, 4, []int32{0, 2, 2}, []int32{0, 3, 1}, val, "row pointers"},
		{2, 4, []int32{0, 3, 2, 3}[1:], []int32{0, 3, 1}, val, "row pointers"},
		{3, 4, []int32{0, 3, 2, 3}, []int32{0, 3, 1}, val, "ends before it starts"},
		{2, 3, []int32{0, 2, 3}, []int32{0, 3, 1}, val, "column 3 of 3"},
		{2, 4, []int32{0, 2, 3}, []int32{0, -1, 1}, val, "column -1"},
		{2, 4, []int32{0, 2, 3}, []int32{0, 3, 1}, val[:2], "2 values for 3"},
		{-1, 4, nil, nil, nil, "shape"},
	} {
		_, err := NewCSR(c.rows, c.cols, c.ptr, c.col, c.val)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%v: %v", c.ptr, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%v %v: error %v, want one with %q", c.ptr, c.col, err, c.err)
		}
	}
}

// TestSparseAffineIntegers holds every tier to exact sums derived without
// the kernel: with small integer weights and 0/1 inputs every partial sum
// is an integer float32 represents exactly, so the product must equal the
// integer count of present entries times their values, computed from a
// dense copy of the matrix.
func TestSparseAffineIntegers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const rows, cols = 37, 29
	m := randomCSR(t, r, rows, cols, 0.3, func(r *rand.Rand) float32 { return float32(r.IntN(9) - 4) })
	dense := make([]int, rows*cols)
	for o := 0; o < rows; o++ {
		for k := m.ptr[o]; k < m.ptr[o+1]; k++ {
			dense[o*cols+int(m.col[k])] = int(m.Val[k])
		}
	}
	bias := make([]float32, rows)
	for i := range bias {
		bias[i] = float32(r.IntN(5))
	}
	for _, lanes := range []int{8, 16, 32} {
		in := make([]float32, cols*lanes)
		for i := range in {
			in[i] = float32(r.IntN(2))
		}
		for _, im := range append(asmTiers(t), generic) {
			out := make([]float32, rows*lanes)
			im.sparseAffine(out, bias, in, lanes, m.ptr, m.col, m.Val)
			for o := 0; o < rows; o++ {
				for l := 0; l < lanes; l++ {
					want := int(bias[o])
					for j := 0; j < cols; j++ {
						want += dense[o*cols+j] * int(in[j*lanes+l])
					}
					if got := out[o*lanes+l]; got != float32(want) {
						t.Fatalf("%s, %d lanes: out[%d lane %d] = %g, want %d", im.name, lanes, o, l, got, want)
					}
				}
			}
		}
	}
}

// TestSparseAffineTiers: every assembly tier gives the generic kernel's
// bits, with real-valued inputs (where a fused multiply-add would round
// differently), with and without a bias, for 8, 16 and 32 lanes, and writes
// nothing outside out.
func TestSparseAffineTiers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, im := range asmTiers(t) {
		for _, lanes := range []int{8, 16, 32} {
			for _, shape := range [][2]int{{1, 1}, {5, 3}, {40, 17}, {300, 120}, {64, 784}} {
				for _, dens := range []float64{0.02, 0.2, 1} {
					rows, cols := shape[0], shape[1]
					m := randomCSR(t, r, rows, cols, dens, uni(-1, 1))
					in, _ := padded(t, r, cols*lanes, 1, uni(0, 1))
					for _, withBias := range []bool{false, true} {
						var bias []float32
						if withBias {
							bias, _ = padded(t, r, rows, 2, uni(-1, 1))
						}
						want := make([]float32, rows*lanes)
						sparseAffineGeneric(want, bias, in, lanes, m.ptr, m.col, m.Val)
						got, check := padded(t, r, rows*lanes, 3, uni(-9, 9))
						im.sparseAffine(got, bias, in, lanes, m.ptr, m.col, m.Val)
						check(im.name + " sparseAffine")
						for i := range want {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("%s %d lanes %d×%d density %g bias %v: out[%d] = %g, want %g", im.name, lanes, rows, cols, dens, withBias, i, got[i], want[i])
							}
						}
					}
				}
			}
		}
	}
}

// TestSparseAffineOrder: the terms are added in the order of the
// entries, not in another association. With entries 1, 2⁻²⁵ and 2⁻²⁵,
// adding in order gives 1 (each tiny term rounds away), pairing the tiny
// ones first gives 1 + 2⁻²⁴.
func TestSparseAffineOrder(t *testing.T) {
	tiny := float32(math.Ldexp(1, -25))
	m, err := NewCSR(1, 3, []int32{0, 3}, []int32{0, 1, 2}, []float32{1, tiny, tiny})
	if err != nil {
		t.Fatal(err)
	}
	for _, lanes := range []int{8, 16, 32} {
		in := make([]float32, 3*lanes)
		for i := range in {
			in[i] = 1
		}
		for _, im := range append(asmTiers(t), generic) {
			out := make([]float32, lanes)
			im.sparseAffine(out, nil, in, lanes, m.ptr, m.col, m.Val)
			for l, v := range out {
				if v != 1 {
					t.Errorf("%s lane %d of %d: %g, want 1 (the entries summed in order)", im.name, l, lanes, v)
				}
			}
		}
	}
}

// TestGatherSumIntegers: integer-valued rows give exact sums, checked
// against a sum computed here, for every tier, column counts across the
// vector widths and repeated rows.
func TestGatherSumIntegers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const nrows, stride = 12, 70
	src := make([]float32, nrows*stride)
	for i := range src {
		src[i] = float32(r.IntN(21) - 10)
	}
	rows := []int32{3, 0, 11, 3, 7}
	weight := []float32{2, -1, 0.5, 3, 1}
	for _, im := range append(asmTiers(t), generic) {
		for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 33, 64} {
			cols := make([]int32, n)
			for k := range cols {
				cols[k] = int32(r.IntN(stride))
			}
			for _, w := range [][]float32{nil, weight} {
				dst := make([]float32, n)
				im.gatherSum(dst, src, stride, rows, w, cols)
				for k, c := range cols {
					want := 0.0
					for t, row := range rows {
						f := 1.0
						if w != nil {
							f = float64(w[t])
						}
						want += f * float64(src[int(row)*stride+int(c)])
					}
					if float64(dst[k]) != want {
						t.Fatalf("%s n=%d weighted=%v: dst[%d] = %g, want %g", im.name, n, w != nil, k, dst[k], want)
					}
				}
			}
		}
	}
}

// TestGatherSumTiers: every assembly tier gives the generic kernel's bits
// on real values (products rounded before the sums) and writes nothing
// outside dst.
func TestGatherSumTiers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, im := range asmTiers(t) {
		for _, n := range []int{0, 1, 3, 8, 13, 16, 31, 32, 100} {
			for _, nr := range []int{0, 1, 2, 25, 100} {
				stride := 150
				src, _ := padded(t, r, 100*stride, 1, uni(-1, 1))
				rows := make([]int32, nr)
				for i := range rows {
					rows[i] = int32(r.IntN(100))
				}
				weight, _ := padded(t, r, nr, 2, uni(0, 1))
				cols := make([]int32, n)
				for k := range cols {
					cols[k] = int32(r.IntN(stride))
				}
				for _, w := range [][]float32{nil, weight} {
					want := make([]float32, n)
					gatherSumGeneric(want, src, stride, rows, w, cols)
					got, check := padded(t, r, n, 3, uni(-9, 9))
					im.gatherSum(got, src, stride, rows, w, cols)
					check(im.name + " gatherSum")
					for k := range want {
						if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
							t.Fatalf("%s n=%d rows=%d weighted=%v: dst[%d] = %g, want %g", im.name, n, nr, w != nil, k, got[k], want[k])
						}
					}
				}
			}
		}
	}
}

// TestSparseChecks: the exported functions refuse inputs too short for
// the matrix and rows or columns outside src.
func TestSparseChecks(t *testing.T) {
	m, err := NewCSR(2, 3, []int32{0, 1, 2}, []int32{0, 2}, []float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func(){
		"out":    func() { SparseAffine(make([]float32, 15), nil, make([]float32, 24), 8, m) },
		"in":     func() { SparseAffine(make([]float32, 16), nil, make([]float32, 23), 8, m) },
		"bias":   func() { SparseAffine(make([]float32, 16), make([]float32, 1), make([]float32, 24), 8, m) },
		"lanes":  func() { SparseAffine(make([]float32, 48), nil, make([]float32, 72), 24, m) },
		"row":    func() { GatherSum(make([]float32, 1), make([]float32, 20), 10, []int32{2}, nil, []int32{0}) },
		"col":    func() { GatherSum(make([]float32, 1), make([]float32, 20), 10, []int32{1}, nil, []int32{10}) },
		"negcol": func() { GatherSum(make([]float32, 1), make([]float32, 20), 10, []int32{1}, nil, []int32{-1}) },
		"dst":    func() { GatherSum(make([]float32, 1), make([]float32, 20), 10, []int32{1}, nil, []int32{0, 1}) },
		"weight": func() { GatherSum(make([]float32, 1), make([]float32, 20), 10, []int32{1}, []float32{}, []int32{0}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	// The valid calls run.
	out := make([]float32, 16)
	SparseAffine(out, []float32{1, 2}, make([]float32, 24), 8, m)
	if out[0] != 1 || out[8] != 2 {
		t.Errorf("bias only: %v", out)
	}
	dst := make([]float32, 2)
	GatherSum(dst, []float32{0, 1, 2, 3, 4, 5}, 3, []int32{1, 0}, nil, []int32{2, 0})
	if dst[0] != 5+2 || dst[1] != 3+0 {
		t.Errorf("GatherSum = %v, want [7 3]", dst)
	}
}
