//go:build !purego && !noasm && gc

package kernel

// avx2Kernels is the AVX2+FMA3 tier (kernel_amd64.s).
var avx2Kernels = &impl{name: "avx2"}
