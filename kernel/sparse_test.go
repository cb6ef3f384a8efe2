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

// TestCSRReset: Reset replaces a matrix's structure in place, checked as
// NewCSR checks it, leaves the matrix as it was on an error, and does not
// allocate.
func TestCSRReset(t *testing.T) {
	m, err := NewCSR(1, 2, []int32{0, 1}, []int32{1}, []float32{5})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Reset(2, 3, []int32{0, 1}, []int32{0}, []float32{1}); err == nil || !strings.Contains(err.Error(), "row pointers") {
		t.Errorf("Reset with 2 rows and 2 pointers: error %v", err)
	}
	if m.Rows() != 1 || m.Cols() != 2 || len(m.Col()) != 1 || m.Col()[0] != 1 || m.Val[0] != 5 {
		t.Errorf("after a failed Reset: %d×%d, col %v, val %v; want the 1×2 matrix [0 5]", m.Rows(), m.Cols(), m.Col(), m.Val)
	}
	ptr, col, val := []int32{0, 2, 3}, []int32{0, 2, 1}, []float32{1, 2, 3, 4}
	if allocs := testing.AllocsPerRun(10, func() {
		if err := m.Reset(2, 3, ptr, col, val); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("Reset allocates %v times", allocs)
	}
	// [[1 0 2] [0 3 0]] times the column (1, 10, 100): 201 and 30.
	out := make([]float32, 2*8)
	in := make([]float32, 3*8)
	for j, v := range []float32{1, 10, 100} {
		in[j*8] = v
	}
	SparseAffine(out, nil, in, 8, m)
	if out[0] != 201 || out[8] != 30 || len(m.Val) != 3 {
		t.Errorf("product after Reset: %v, %v (%d values); want 201, 30 (3 values)", out[0], out[8], len(m.Val))
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
		forEachTier(t, withGeneric, func(im *impl) {
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
		})
	}
}

// TestSparseAffineTiers: every assembly tier gives the generic kernel's
// bits, with real-valued inputs (where a fused multiply-add would round
// differently), with and without a bias, for 8, 16 and 32 lanes, and writes
// nothing outside out.
func TestSparseAffineTiers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	forEachTier(t, asmOnly, func(im *impl) {
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
	})
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
		forEachTier(t, withGeneric, func(im *impl) {
			out := make([]float32, lanes)
			im.sparseAffine(out, nil, in, lanes, m.ptr, m.col, m.Val)
			for l, v := range out {
				if v != 1 {
					t.Errorf("%s lane %d of %d: %g, want 1 (the entries summed in order)", im.name, l, lanes, v)
				}
			}
		})
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
	forEachTier(t, withGeneric, func(im *impl) {
		for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 33, 64} {
			cols := make([]int32, n)
			for k := range cols {
				cols[k] = int32(r.IntN(stride))
			}
			dst := make([]float32, n)
			im.gatherSum(dst, src, stride, rows, cols)
			for k, c := range cols {
				want := float32(0)
				for _, row := range rows {
					want += src[int(row)*stride+int(c)]
				}
				if dst[k] != want {
					t.Fatalf("%s n=%d: dst[%d] = %g, want %g", im.name, n, k, dst[k], want)
				}
			}
		}
	})
}

// TestGatherSumTiers: every assembly tier gives the generic kernel's bits
// on real values and writes nothing outside dst.
func TestGatherSumTiers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	forEachTier(t, asmOnly, func(im *impl) {
		for _, n := range []int{0, 1, 3, 8, 13, 16, 31, 32, 100} {
			for _, nr := range []int{0, 1, 2, 25, 100} {
				stride := 150
				src, _ := padded(t, r, 100*stride, 1, uni(-1, 1))
				rows := make([]int32, nr)
				for i := range rows {
					rows[i] = int32(r.IntN(100))
				}
				cols := make([]int32, n)
				for k := range cols {
					cols[k] = int32(r.IntN(stride))
				}
				want := make([]float32, n)
				gatherSumGeneric(want, src, stride, rows, cols)
				got, check := padded(t, r, n, 3, uni(-9, 9))
				im.gatherSum(got, src, stride, rows, cols)
				check(im.name + " gatherSum")
				for k := range want {
					if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
						t.Fatalf("%s n=%d rows=%d: dst[%d] = %g, want %g", im.name, n, nr, k, got[k], want[k])
					}
				}
			}
		}
	})
}

// TestDotRowsOrder holds every tier to the stated order of the sums, with
// a = 1 (exact products) and rows of 1s and 2⁻²⁴s, whose sums depend on
// the order (1 + 2⁻²⁴ rounds to 1; 2⁻²⁴ + 2⁻²⁴ = 2⁻²³ is exact, and so is
// 1 + 2⁻²³). Worked by hand from the definition:
//
//	row 0: terms 0, 2, 3 = 1, t, t: (s₀+s₁)+(s₂+s₃) = 1 + 2t, exact
//	       (one running sum would give 1);
//	row 1: terms 0, 2, 6 = 1, t, t: (1 + t) + (t) rounds twice to 1
//	       (pairing s₂ with s₆ first would give 1 + 2t);
//	row 2: terms 0, 1, 9 = 1, t, t: s₁ = t + t = 2t (terms 1 and 9 share
//	       partial sum 1), then 1 + 2t
//	       (sixteen partial sums, or one running sum, would give 1).
func TestDotRowsOrder(t *testing.T) {
	tiny := float32(math.Ldexp(1, -24))
	a := make([]float32, 16)
	for c := range a {
		a[c] = 1
	}
	m := make([]float32, 3*16)
	m[0], m[2], m[3] = 1, tiny, tiny
	m[16+0], m[16+2], m[16+6] = 1, tiny, tiny
	m[32+0], m[32+1], m[32+9] = 1, tiny, tiny
	want := []float32{1 + 2*tiny, 1, 1 + 2*tiny}
	forEachTier(t, withGeneric, func(im *impl) {
		dst := make([]float32, 3)
		im.dotRows(dst, a, m, []int32{0, 16, 32})
		for k := range want {
			if dst[k] != want[k] {
				t.Errorf("%s row %d: %.9g, want %.9g", im.name, k, dst[k], want[k])
			}
		}
	})
}

// TestDotRowsTiers: every assembly tier gives the generic kernel's bits on
// real values, for vector lengths 0 to 64 and offsets anywhere in m, and
// writes nothing outside dst.
func TestDotRowsTiers(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	forEachTier(t, asmOnly, func(im *impl) {
		for _, na := range []int{0, 8, 16, 48, 64} {
			for _, n := range []int{0, 1, 5, 17} {
				a, _ := padded(t, r, na, 1, uni(0, 1))
				m, _ := padded(t, r, 500, 2, uni(-1, 1))
				offs := make([]int32, n)
				for k := range offs {
					offs[k] = int32(r.IntN(500 - na + 1))
				}
				want := make([]float32, n)
				dotRowsGeneric(want, a, m, offs)
				got, check := padded(t, r, n, 3, uni(-9, 9))
				im.dotRows(got, a, m, offs)
				check(im.name + " dotRows")
				for k := range want {
					if math.Float32bits(got[k]) != math.Float32bits(want[k]) {
						t.Fatalf("%s len %d: dst[%d] = %g, want %g", im.name, na, k, got[k], want[k])
					}
				}
			}
		}
	})
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
		"row":    func() { GatherSum(make([]float32, 1), make([]float32, 20), 10, []int32{2}, []int32{0}) },
		"col":    func() { GatherSum(make([]float32, 1), make([]float32, 20), 10, []int32{1}, []int32{10}) },
		"negcol": func() { GatherSum(make([]float32, 1), make([]float32, 20), 10, []int32{1}, []int32{-1}) },
		"dst":    func() { GatherSum(make([]float32, 1), make([]float32, 20), 10, []int32{1}, []int32{0, 1}) },
		"dotlen": func() { DotRows(make([]float32, 1), make([]float32, 7), make([]float32, 20), []int32{0}) },
		"dotoff": func() { DotRows(make([]float32, 1), make([]float32, 8), make([]float32, 20), []int32{13}) },
		"dotneg": func() { DotRows(make([]float32, 1), make([]float32, 8), make([]float32, 20), []int32{-1}) },
		"dotdst": func() { DotRows(make([]float32, 1), make([]float32, 8), make([]float32, 20), []int32{0, 1}) },
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
	GatherSum(dst, []float32{0, 1, 2, 3, 4, 5}, 3, []int32{1, 0}, []int32{2, 0})
	if dst[0] != 5+2 || dst[1] != 3+0 {
		t.Errorf("GatherSum = %v, want [7 3]", dst)
	}
}

// TestSparseAffineBinary: every tier's binary product (interleaved floats
// or packed bits) gives, for 1 to 32 chains of 0/1 inputs, the bits of the
// generic SparseAffine on the same inputs interleaved by hand, and is held
// to exact integer sums computed here; the outputs past the chains' rows
// are left alone.
func TestSparseAffineBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, shape := range [][2]int{{1, 1}, {7, 5}, {40, 33}, {300, 130}} {
		rows, cols := shape[0], shape[1]
		m := randomCSR(t, r, rows, cols, 0.2, uni(-1, 1))
		mi := randomCSR(t, r, rows, cols, 0.2, func(r *rand.Rand) float32 { return float32(r.IntN(9) - 4) })
		bias := make([]float32, rows)
		for i := range bias {
			bias[i] = 2*r.Float32() - 1
		}
		bias[0] = float32(math.Copysign(0, -1)) // −0: read as +0 on every path
		w := NewSparseWork(rows, cols)
		for _, nc := range []int{1, 3, 8, 9, 16, 17, 31, 32} {
			in := make([]float32, nc*cols)
			for i := range in {
				in[i] = float32(r.IntN(2))
			}
			// The reference: SparseAffine (generic) on the inputs
			// interleaved here, in 32 lanes.
			inT := interleave(in, nc, cols, 32)
			outT := make([]float32, rows*32)
			sparseAffineGeneric(outT, bias, inT, 32, m.ptr, m.col, m.Val)
			forEachTier(t, withGeneric, func(im *impl) {
				out, check := padded(t, r, nc*rows, 1, uni(-9, 9))
				im.sparseBinary(out, bias, in, nc, m, w)
				check(im.name + " sparseBinary")
				for c := 0; c < nc; c++ {
					for o := 0; o < rows; o++ {
						got, want := out[c*rows+o], outT[o*32+c]
						if math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("%s %d×%d, %d chains: chain %d out[%d] = %g, want %g", im.name, rows, cols, nc, c, o, got, want)
						}
					}
				}
				// Integer weights, no bias: the count of present
				// connections times their values, from the structure.
				im.sparseBinary(out, nil, in, nc, mi, w)
				for c := 0; c < nc; c++ {
					for o := 0; o < rows; o++ {
						want := 0
						for k := mi.ptr[o]; k < mi.ptr[o+1]; k++ {
							want += int(mi.Val[k]) * int(in[c*cols+int(mi.col[k])])
						}
						if out[c*rows+o] != float32(want) {
							t.Fatalf("%s integers, %d chains: chain %d out[%d] = %g, want %d", im.name, nc, c, o, out[c*rows+o], want)
						}
					}
				}
			})
		}
	}
}

// TestNegativeZeroBias: a −0 bias starts the sums at +0 on every tier and
// path, so a row with no term, or only zero terms, gives +0.
func TestNegativeZeroBias(t *testing.T) {
	m, err := NewCSR(2, 2, []int32{0, 0, 1}, []int32{1}, []float32{-2})
	if err != nil {
		t.Fatal(err)
	}
	negz := float32(math.Copysign(0, -1))
	bias := []float32{negz, negz}
	forEachTier(t, withGeneric, func(im *impl) {
		for _, lanes := range []int{8, 16, 32} {
			out := make([]float32, 2*lanes)
			im.sparseAffine(out, bias, make([]float32, 2*lanes), lanes, m.ptr, m.col, m.Val)
			for i, v := range out {
				if math.Float32bits(v) != 0 {
					t.Errorf("%s %d lanes: out[%d] = %g (bits %#x), want +0", im.name, lanes, i, v, math.Float32bits(v))
				}
			}
		}
		out := make([]float32, 2*5)
		im.sparseBinary(out, bias, make([]float32, 5*2), 5, m, NewSparseWork(2, 2))
		for i, v := range out {
			if math.Float32bits(v) != 0 {
				t.Errorf("%s binary: out[%d] = %g (bits %#x), want +0", im.name, i, v, math.Float32bits(v))
			}
		}
	})
}

// TestSparseBitsReference: the packed-bits reference (packBitsGeneric,
// sparseBitsGeneric), which the AVX-512 binary product is held to, gives
// the float product's bits.
func TestSparseBitsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const rows, cols = 60, 45
	m := randomCSR(t, r, rows, cols, 0.3, uni(-1, 1))
	bias := make([]float32, rows)
	for i := range bias {
		bias[i] = 2*r.Float32() - 1
	}
	for _, nc := range []int{1, 16, 20, 32} {
		lanes := 16
		if nc > 16 {
			lanes = 32
		}
		in := make([]float32, nc*cols)
		for i := range in {
			in[i] = float32(r.IntN(2))
		}
		bits := make([]uint32, cols)
		packBitsGeneric(bits, in, nc, cols)
		for j := 0; j < cols; j++ {
			for c := 0; c < 32; c++ {
				want := c < nc && in[c*cols+j] != 0
				if got := bits[j]>>c&1 != 0; got != want {
					t.Fatalf("%d chains: bit %d of unit %d is %v", nc, c, j, got)
				}
			}
		}
		got := make([]float32, rows*lanes)
		sparseBitsGeneric(got, bias, bits, lanes, m.ptr, m.col, m.Val)
		inT := interleave(in, nc, cols, lanes)
		want := make([]float32, rows*lanes)
		sparseAffineGeneric(want, bias, inT, lanes, m.ptr, m.col, m.Val)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%d chains: out[%d] = %g, want %g", nc, i, got[i], want[i])
			}
		}
	}
}

// TestSparseAffineChains: chain-major real-valued inputs give the bits of
// the generic SparseAffine on the same inputs interleaved here, for chain
// counts across the lane counts.
func TestSparseAffineChains(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	const rows, cols = 90, 70
	m := randomCSR(t, r, rows, cols, 0.2, uni(-1, 1))
	bias := make([]float32, rows)
	for i := range bias {
		bias[i] = 2*r.Float32() - 1
	}
	w := NewSparseWork(rows, cols)
	for _, nc := range []int{1, 8, 12, 16, 25, 32} {
		in := make([]float32, nc*cols)
		for i := range in {
			in[i] = r.Float32()
		}
		inT := interleave(in, nc, cols, 32)
		outT := make([]float32, rows*32)
		sparseAffineGeneric(outT, bias, inT, 32, m.ptr, m.col, m.Val)
		out, check := padded(t, r, nc*rows, 1, uni(-9, 9))
		SparseAffineChains(out, bias, in, nc, m, w)
		check("SparseAffineChains")
		for c := 0; c < nc; c++ {
			for o := 0; o < rows; o++ {
				if got, want := out[c*rows+o], outT[o*32+c]; math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%d chains: chain %d out[%d] = %g, want %g", nc, c, o, got, want)
				}
			}
		}
	}
}

// interleave lays nc chain-major rows of n inputs out unit-major in the
// given number of lanes, zeros past nc: the layout of SparseAffine's
// inputs, made by hand.
func interleave(in []float32, nc, n, lanes int) []float32 {
	out := make([]float32, n*lanes)
	for c := 0; c < nc; c++ {
		for j := 0; j < n; j++ {
			out[j*lanes+c] = in[c*n+j]
		}
	}
	return out
}
