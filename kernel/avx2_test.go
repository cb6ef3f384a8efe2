//go:build amd64 && !purego && !noasm && gc

package kernel

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// Tests of the AVX2 tier beyond the shared differential tests: no kernel
// left to the generic fallback, shapes past the tiling boundaries of the
// wrappers, a dense sweep of float32 bit patterns for sigmoid and softplus,
// NaN handling, and fuzz targets against the generic code.

func avx2Tier(t testing.TB) *impl {
	for _, im := range available {
		if im == avx2Kernels {
			return im
		}
	}
	t.Skip("this CPU lacks AVX2+FMA3")
	return nil
}

// TestAVX2Complete fails if a field of the AVX2 tier is still the generic
// kernel that register() filled in.
func TestAVX2Complete(t *testing.T) {
	im := avx2Tier(t)
	v, g := reflect.ValueOf(im).Elem(), reflect.ValueOf(generic).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() != reflect.Func {
			continue
		}
		name := v.Type().Field(i).Name
		if f.IsNil() {
			t.Errorf("avx2.%s is nil", name)
		} else if f.Pointer() == g.Field(i).Pointer() {
			t.Errorf("avx2.%s is the generic kernel", name)
		}
	}
}

func checkAffine(t testing.TB, im *impl, r *rand.Rand, nc, nin, nout int, withBias bool) {
	t.Helper()
	off := (nc + nin + nout) % 4
	in, _ := padded(t, r, nc*nin, off, uni(-1, 1))
	m, _ := padded(t, r, nin*nout, off, uni(-1, 1))
	var bias []float32
	if withBias {
		bias, _ = padded(t, r, nout, off, uni(-1, 1))
	}
	want := make([]float32, nc*nout)
	affineGeneric(want, bias, in, m, nc, nin, nout)
	got, check := padded(t, r, nc*nout, (off+1)%4, uni(-9, 9))
	im.affine(got, bias, in, m, nc, nin, nout)
	check("avx2 affine")
	// Both sums have nin terms of size ≤ 1: bound the difference by the
	// float32 error of a sum of that many terms.
	tol := 1e-6 * float32(nin+1) * float32(math.Sqrt(float64(nin+1)))
	for i := range want {
		if !near(got[i], want[i], tol) {
			t.Fatalf("avx2 affine nc=%d nin=%d nout=%d: out[%d] = %g, want %g", nc, nin, nout, i, got[i], want[i])
		}
	}
}

// TestAVX2AffineShapes crosses every boundary of the wrapper: chain groups
// of 4 with 1–3 left over, 24-column panels with 0–23 columns left (one or
// two masked 16-column tiles), and more inputs than one k-block.
func TestAVX2AffineShapes(t *testing.T) {
	im := avx2Tier(t)
	r := rand.New(rand.NewPCG(21, 22))
	for _, nc := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 13} {
		for nout := 1; nout <= 75; nout++ {
			checkAffine(t, im, r, nc, 1+r.IntN(40), nout, nout%2 == 0)
		}
	}
	for _, nin := range []int{affineKBlock - 1, affineKBlock, affineKBlock + 1, 2*affineKBlock + 37} {
		checkAffine(t, im, r, 5, nin, 53, true)
	}
	checkAffine(t, im, r, 16, 784, 500, true)
}

// TestAVX2SigmoidSweep runs sigmoid and softplus over every 251st float32
// bit pattern of both signs (≈ 17 million values, all exponents) and
// reports the worst errors on the terms of kernel.go.
func TestAVX2SigmoidSweep(t *testing.T) {
	im := avx2Tier(t)
	if testing.Short() {
		t.Skip("long sweep")
	}
	const step = 251
	src := make([]float32, 0, 1<<16)
	got := make([]float32, 1<<16)
	worstSig, worstSub, worstSP := 0.0, 0.0, 0.0
	flush := func() {
		g := got[:len(src)]
		im.sigmoid(g, src)
		for i, x := range src {
			want := float64(sigmoidRef(x))
			if want < 1.2e-38 {
				worstSub = math.Max(worstSub, math.Abs(float64(g[i])-want))
			} else {
				worstSig = math.Max(worstSig, math.Abs(float64(g[i])-want)/want)
			}
		}
		im.softplus(g, src)
		for i, x := range src {
			want := float64(softplusRef(x))
			if math.IsInf(want, 1) {
				if !math.IsInf(float64(g[i]), 1) {
					t.Fatalf("softplus(%g) = %g, want +Inf", x, g[i])
				}
				continue
			}
			worstSP = math.Max(worstSP, math.Abs(float64(g[i])-want)/math.Max(1, want))
		}
		src = src[:0]
	}
	for b := uint64(0); b < 0x7f800000; b += step {
		for _, sign := range []uint32{0, 0x80000000} {
			src = append(src, math.Float32frombits(uint32(b)|sign))
		}
		if len(src) == cap(src) {
			flush()
		}
	}
	src = append(src, float32(math.Inf(1)), float32(math.Inf(-1)))
	flush()
	t.Logf("avx2 sigmoid: worst relative error %.3g (σ ≥ 1.2e-38), worst absolute error %.3g below", worstSig, worstSub)
	t.Logf("avx2 softplus: worst error %.3g·max(1, result)", worstSP)
	if worstSig > 1e-6 || worstSub > 3e-45 || worstSP > 1e-6 {
		t.Fatal("error above the bounds of kernel.go")
	}
}

func TestAVX2NaN(t *testing.T) {
	im := avx2Tier(t)
	nan := float32(math.NaN())
	src := []float32{nan, 1, nan, -100, nan, 0, 0, 0, 0, nan}
	dst := make([]float32, len(src))
	for _, f := range []func(dst, src []float32){im.sigmoid, im.softplus} {
		f(dst, src)
		for i, x := range src {
			if isNaN := x != x; isNaN != (dst[i] != dst[i]) {
				t.Errorf("f(%g) = %g", x, dst[i])
			}
		}
	}
	// A NaN probability never samples a one (u < NaN is false).
	st := NewStream(1, 2)
	prob, state := make([]float32, len(src)), make([]float32, len(src))
	im.sigmoidBernoulli(prob, state, src, &st)
	for i, x := range src {
		if x != x && (prob[i] == prob[i] || state[i] != 0) {
			t.Errorf("sigmoidBernoulli(NaN): prob %g state %g", prob[i], state[i])
		}
	}
}

func FuzzAVX2Affine(f *testing.F) {
	f.Add(uint64(1), uint8(4), uint8(7), uint8(24))
	f.Add(uint64(2), uint8(5), uint8(1), uint8(41))
	f.Add(uint64(3), uint8(1), uint8(0), uint8(3))
	f.Fuzz(func(t *testing.T, seed uint64, nc, nin, nout uint8) {
		im := avx2Tier(t)
		if nc == 0 || nout == 0 {
			return
		}
		r := rand.New(rand.NewPCG(seed, 7))
		checkAffine(t, im, r, int(nc%20), int(nin), int(nout), seed%2 == 0)
	})
}

func FuzzAVX2Sigmoid(f *testing.F) {
	for _, x := range specialInputs {
		f.Add(x, uint16(3))
	}
	f.Fuzz(func(t *testing.T, x float32, n uint16) {
		im := avx2Tier(t)
		if x != x {
			return
		}
		// x in every lane position of a vector and of the masked tail.
		src := make([]float32, int(n%40)+1)
		for i := range src {
			src[i] = x
		}
		dst := make([]float32, len(src))
		im.sigmoid(dst, src)
		want := sigmoidRef(x)
		for i := range dst {
			if !near(dst[i], want, 1e-6*want+3e-45) {
				t.Fatalf("sigmoid(%g) = %g, want %g", x, dst[i], want)
			}
		}
		im.softplus(dst, src)
		want = softplusRef(x)
		for i := range dst {
			if !near(dst[i], want, 1e-6*float32(math.Max(1, float64(want)))) {
				t.Fatalf("softplus(%g) = %g, want %g", x, dst[i], want)
			}
		}
	})
}

func FuzzAVX2Indices(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 3, 0, 0, 0, 0, 9, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		im := avx2Tier(t)
		s := make([]float32, len(b))
		for i, v := range b {
			if v%3 != 0 {
				s[i] = float32(v)
			}
		}
		want, got := make([]int32, len(s)), make([]int32, len(s))
		k := indicesGeneric(want, s)
		if g := im.indices(got, s); g != k || !reflect.DeepEqual(got[:k], want[:k]) {
			t.Fatalf("indices(%v) = %v (%d), want %v", s, got[:g], g, want[:k])
		}
	})
}
