package kernel

import "github.com/ncg-rbm/ncg/internal/kerneltier"

// Switches for the tests and benchmarks of this module, reached through
// internal/kerneltier. They change package state that every kernel call
// reads, so none is safe to use while kernels run.

func init() { kerneltier.Register(useTier, forceRowSums) }

// useTier forces a tier and returns a function that restores the previous
// one. It returns an error, and keeps the current tier, if this CPU or
// build lacks the tier.
func useTier(name string) (restore func(), err error) {
	prev := cur
	t, err := findTier(name)
	if err != nil {
		return func() {}, err
	}
	cur = t
	return func() { cur = prev }, nil
}

// forceRowSums makes AffineBinary and AffineBinaryStride sum rows at every
// density, never switching to the dense product, and returns the function
// that restores the thresholds (see kerneltier.ForceRowSums).
func forceRowSums() (restore func()) {
	d, b := denseThreshold, denseThresholdBlocked
	denseThreshold, denseThresholdBlocked = 2, 2
	return func() { denseThreshold, denseThresholdBlocked = d, b }
}
