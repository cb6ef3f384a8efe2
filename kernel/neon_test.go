//go:build arm64 && !purego && !noasm && gc

package kernel

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestNEONComplete: register fills missing kernels from the generic set, so
// a nil field would pass every differential test unnoticed. Every kernel of
// the NEON tier must be its own.
func TestNEONComplete(t *testing.T) {
	nv, gv := reflect.ValueOf(neonKernels).Elem(), reflect.ValueOf(generic).Elem()
	for i := 0; i < nv.NumField(); i++ {
		f := nv.Field(i)
		if f.Kind() != reflect.Func {
			continue
		}
		name := nv.Type().Field(i).Name
		if optionalKernel[name] {
			continue
		}
		if f.IsNil() {
			t.Errorf("neon %s is nil", name)
		} else if f.Pointer() == gv.Field(i).Pointer() {
			t.Errorf("neon %s is the generic kernel", name)
		}
	}
}

// TestNEONSpecial: values the shared tests do not use.
func TestNEONSpecial(t *testing.T) {
	nan := float32(math.NaN())
	src := []float32{nan, -nan, float32(math.SmallestNonzeroFloat32), -1e-40, 1e-40, -87.3, -87.33, -87.34, -88.0001, -103.9, -104, -105, 16.5, 17, 17.5, 88.7, 89}
	got := make([]float32, len(src))
	neonKernels.sigmoid(got, src)
	for i, x := range src {
		if want := sigmoidRef(x); !near(got[i], want, 1e-6*want+3e-45) {
			t.Errorf("sigmoid(%g) = %g, want %g", x, got[i], want)
		}
	}
	neonKernels.softplus(got, src)
	for i, x := range src {
		if want := softplusRef(x); !near(got[i], want, 1e-6*float32(math.Max(1, float64(want)))) {
			t.Errorf("softplus(%g) = %g, want %g", x, got[i], want)
		}
	}
	// Indices: -0 is zero, NaN is not.
	s := make([]float32, 37)
	s[3], s[16], s[20], s[36] = float32(math.Copysign(0, -1)), nan, 1, -2
	idx := make([]int32, len(s))
	if k := neonKernels.indices(idx, s); k != 3 || idx[0] != 16 || idx[1] != 20 || idx[2] != 36 {
		t.Errorf("indices = %v, want [16 20 36]", idx[:k])
	}
}

// floats reads little-endian float32s from b.
func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// FuzzNEONElementwise compares the element-wise NEON kernels with the
// generic ones on arbitrary float32 bit patterns (NaN, Inf, subnormals).
func FuzzNEONElementwise(f *testing.F) {
	f.Add([]byte{}, uint64(1))
	f.Add([]byte{0, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x7f, 0, 0, 0, 0x80, 1, 0, 0, 0}, uint64(2))
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{3, 16, 17, 40} {
		b := make([]byte, 4*n)
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(200*r.Float32()-100))
		}
		f.Add(b, uint64(n))
	}
	f.Fuzz(checkElementwise)
}

func checkElementwise(t *testing.T, b []byte, seed uint64) {
	src := floats(b)
	n := len(src)
	got := make([]float32, n)
	neonKernels.sigmoid(got, src)
	for i, x := range src {
		if want := sigmoidRef(x); !near(got[i], want, 1e-6*want+3e-45) {
			t.Fatalf("sigmoid(%g) = %g, want %g", x, got[i], want)
		}
	}
	neonKernels.softplus(got, src)
	for i, x := range src {
		if want := softplusRef(x); !near(got[i], want, 1e-6*float32(math.Max(1, float64(want)))) {
			t.Fatalf("softplus(%g) = %g, want %g", x, got[i], want)
		}
	}
	idx, want := make([]int32, n), make([]int32, n)
	k := indicesGeneric(want, src)
	if g := neonKernels.indices(idx, src); g != k || !reflect.DeepEqual(idx[:k], want[:k]) {
		t.Fatalf("indices = %v, want %v", idx[:g], want[:k])
	}
	// Bernoulli with the inputs as probabilities: exact draws and state.
	s1 := NewStream(seed, 5)
	s2 := s1
	wantS := make([]float32, n)
	bernoulliGeneric(wantS, src, &s1)
	neonKernels.bernoulli(got, src, &s2)
	if s1 != s2 || !reflect.DeepEqual(got, wantS) {
		t.Fatalf("bernoulli differs from the generic draws")
	}
}

// FuzzNEONAffine compares the dense product (tiles of 4 chains × 16, 4 and 1
// columns, overlapping last block) and the binary row sums with the generic
// code on random shapes.
func FuzzNEONAffine(f *testing.F) {
	for _, s := range [][3]uint8{{1, 1, 1}, {4, 4, 16}, {5, 3, 17}, {9, 13, 35}, {3, 0, 7}} {
		f.Add(s[0], s[1], s[2], uint64(s[0])+uint64(s[2]), true)
	}
	f.Fuzz(checkAffine)
}

func checkAffine(t *testing.T, nc8, nin8, nout8 uint8, seed uint64, useBias bool) {
	nc, nin, nout := int(nc8%24)+1, int(nin8%40), int(nout8%80)+1
	r := rand.New(rand.NewPCG(seed, 3))
	fill := func(n int, p float64) []float32 {
		s := make([]float32, n)
		for i := range s {
			if r.Float64() < p {
				s[i] = 2*r.Float32() - 1
			}
		}
		return s
	}
	in, m := fill(nc*nin, 0.7), fill(nin*nout, 1)
	var bias []float32
	if useBias {
		bias = fill(nout, 1)
	}
	want, got := make([]float32, nc*nout), fill(nc*nout+3, 1)
	affineGeneric(want, bias, in, m, nc, nin, nout)
	tail := append([]float32(nil), got[nc*nout:]...)
	neonKernels.affine(got[:nc*nout], bias, in, m, nc, nin, nout)
	if !reflect.DeepEqual(got[nc*nout:], tail) {
		t.Fatalf("affine nc=%d nin=%d nout=%d wrote past out", nc, nin, nout)
	}
	for i := range want {
		if !near(got[i], want[i], 1e-5*float32(nin+1)) {
			t.Fatalf("affine nc=%d nin=%d nout=%d: out[%d] = %g, want %g", nc, nin, nout, i, got[i], want[i])
		}
	}
	if nin == 0 {
		return
	}
	idx := make([]int32, nin)
	k := indicesGeneric(idx, in[:nin])
	wantRow, gotRow := append([]float32(nil), want[:nout]...), append([]float32(nil), want[:nout]...)
	sumRowsGeneric(wantRow, m, nout, idx[:k], nout)
	neonKernels.sumRows(gotRow, m, nout, idx[:k], nout)
	for i := range wantRow {
		if !near(gotRow[i], wantRow[i], 1e-5*float32(k+1)) {
			t.Fatalf("sumRows nout=%d: out[%d] = %g, want %g", nout, i, gotRow[i], wantRow[i])
		}
	}
}

// TestNEONRandom runs the fuzz checks on random inputs: fuzzing itself
// cannot run under qemu-user (the fuzz workers re-execute the arm64 binary).
func TestNEONRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 300 {
		b := make([]byte, 4*r.IntN(70))
		for i := 0; i < len(b); i += 4 {
			v := r.Uint32()
			if r.IntN(2) == 0 { // mostly ordinary values, near the interesting range
				v = math.Float32bits(float32(r.NormFloat64() * 40))
			}
			binary.LittleEndian.PutUint32(b[i:], v)
		}
		checkElementwise(t, b, r.Uint64())
		checkAffine(t, uint8(r.Uint32()), uint8(r.Uint32()), uint8(r.Uint32()), r.Uint64(), r.IntN(2) == 0)
	}
}
