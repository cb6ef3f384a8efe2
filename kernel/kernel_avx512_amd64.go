//go:build !purego && !noasm && gc

package kernel

// avx512Kernels is the AVX-512 tier (kernel_avx512_amd64.s).
var avx512Kernels = &impl{name: "avx512"}
