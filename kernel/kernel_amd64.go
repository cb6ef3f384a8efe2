//go:build !purego && !noasm && gc

package kernel

import "github.com/klauspost/cpuid/v2"

// archTiers returns the assembly tiers this CPU runs, best first. It gates
// exactly on what each tier's assembly uses: AVX2 and FMA3 together (never
// FMA3 alone); AVX512F with DQ and BW for the AVX-512 tier (VL is implied
// on every CPU that has all three, but checked too), plus POPCNT, which two
// of its kernels use (avo's "Requires" lines in the generated files list
// each function's needs), and AVX2 and FMA3 for the AVX2 transpose and
// Taylor sums it shares. BothOn's AVX-512 kernel also needs VPOPCNTDQ
// (Ice Lake, Zen 4 and later); without it the tier counts with AVX2's.
func archTiers() []*impl {
	var ts []*impl
	if cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3, cpuid.POPCNT, cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512BW, cpuid.AVX512VL) {
		avx512Kernels.bothOn = bothOnAVX2
		if cpuid.CPU.Supports(cpuid.AVX512VPOPCNTDQ) {
			avx512Kernels.bothOn = bothOnAVX512
		}
		ts = append(ts, avx512Kernels)
	}
	if cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3) {
		ts = append(ts, avx2Kernels)
	}
	return ts
}
