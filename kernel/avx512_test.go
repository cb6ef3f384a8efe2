//go:build amd64 && !purego && !noasm && gc

package kernel

import (
	"reflect"
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
