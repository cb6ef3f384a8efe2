//go:build !purego && !noasm && gc

package kernel

import "github.com/klauspost/cpuid/v2"

// Gate exactly on what each tier's assembly uses: AVX2 and FMA3 together
// (never FMA3 alone); AVX512F with DQ and BW for the AVX-512 tier (VL is
// implied on every CPU that has all three, but checked too), which also
// uses the AVX2 transpose.
func init() {
	if cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3) {
		register(avx2Kernels)
	}
	if cpuid.CPU.Supports(cpuid.AVX2, cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512BW, cpuid.AVX512VL) {
		// The AVX-512 kernels must also pass a start-up self-check against
		// the generic ones (kernel_avx512_amd64.go); DisabledTiers says why
		// they were left out if not.
		if err := selfCheckAVX512(); err == nil {
			register(avx512Kernels)
		} else {
			disabled["avx512"] = err.Error()
		}
	}
}
