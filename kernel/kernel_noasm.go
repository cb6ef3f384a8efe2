//go:build (!amd64 && !arm64) || purego || noasm || !gc

package kernel

// This build runs the generic Go kernels only: another architecture, the
// purego or noasm tag, or a compiler other than gc.
func archTiers() []*impl { return nil }
