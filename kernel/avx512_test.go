//go:build amd64 && !purego && !noasm && gc

package kernel

import (
	"math"
	"math/rand/v2"
	"reflect"
	"runtime/debug"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

func hasAVX512() bool {
	return cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512BW, cpuid.AVX512VL)
}

// TestAVX512KernelsComplete: the AVX-512 tier implements every kernel
// itself (no generic fallback), so TestTierSelfCheck covers all of them.
func TestAVX512KernelsComplete(t *testing.T) {
	v := reflect.ValueOf(avx512Kernels).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Func && f.IsNil() {
			t.Errorf("avx512Kernels.%s is nil", v.Type().Field(i).Name)
		}
	}
}

// TestAVX512Offered: on a CPU with every feature the AVX-512 kernels use,
// the tier is offered and is the default (TestTierSelfCheck and the
// differential tests then cover it).
func TestAVX512Offered(t *testing.T) {
	if !hasAVX512() {
		t.Skip("this CPU lacks AVX512F+DQ+BW+VL: the AVX-512 kernels cannot run here (they are assembled and vetted only)")
	}
	if got := Tiers(); len(got) == 0 || got[0] != "avx512" {
		t.Errorf("Tiers() = %v, want avx512 first", got)
	}
}

// TestAVX512Bits holds the packed-bits kernels to their Go references:
// packBitsAVX512 on unit counts around its 16-unit step, with guards past
// the words (a memory fault is an error), and sparseBits16/32AVX512 on
// random structures with guards.
func TestAVX512Bits(t *testing.T) {
	if !hasAVX512() {
		t.Skip("this CPU lacks AVX-512")
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	r := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{1, 15, 16, 17, 33, 100} {
		for _, nc := range []int{1, 5, 32} {
			in := make([]float32, nc*n)
			for i := range in {
				in[i] = float32(r.IntN(2))
			}
			want := make([]uint32, n)
			packBitsGeneric(want, in, nc, n)
			got := make([]uint32, n+16)
			for i := range got {
				got[i] = 0xdeadbeef
			}
			packBitsAVX512(got[:n], in, nc, n)
			if !reflect.DeepEqual(got[:n], want) {
				t.Fatalf("packBits n=%d nc=%d: %x, want %x", n, nc, got[:n], want)
			}
			for i := n; i < len(got); i++ {
				if got[i] != 0xdeadbeef {
					t.Fatalf("packBits n=%d nc=%d wrote past the end at %d", n, nc, i)
				}
			}
		}
	}
	for _, lanes := range []int{16, 32} {
		m := randomCSR(t, r, 70, 50, 0.25, uni(-1, 1))
		bits := make([]uint32, 50)
		for i := range bits {
			bits[i] = r.Uint32()
		}
		bias, _ := padded(t, r, 70, 1, uni(-1, 1))
		want := make([]float32, 70*lanes)
		sparseBitsGeneric(want, bias, bits, lanes, m.ptr, m.col, m.Val)
		got, check := padded(t, r, 70*lanes, 2, uni(-9, 9))
		if lanes == 16 {
			sparseBits16AVX512(got, bias, bits, m.ptr, m.col, m.Val)
		} else {
			sparseBits32AVX512(got, bias, bits, m.ptr, m.col, m.Val)
		}
		check("sparseBits")
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("sparseBits%d: out[%d] = %g, want %g", lanes, i, got[i], want[i])
			}
		}
	}
}
