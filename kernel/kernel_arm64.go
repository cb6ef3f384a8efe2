//go:build !purego && !noasm && gc

package kernel

// NEON is mandatory on arm64: no feature gate.
func init() { register(neonKernels) }

// neonKernels is the NEON tier (kernel_arm64.s).
var neonKernels = &impl{name: "neon"}
