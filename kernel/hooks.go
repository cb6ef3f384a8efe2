package kernel

// Hooks for tests and benchmarks. They change package state that every
// kernel call reads, so none is safe to call while kernels run.

// UseTier forces a tier and returns a function that restores the previous
// one, for tests and benchmarks: defer kernel.UseTier("generic")(). It
// returns an error, and keeps the current tier, if this CPU or build lacks
// the tier.
func UseTier(name string) (restore func(), err error) {
	prev := cur
	t, err := findTier(name)
	if err != nil {
		return func() {}, err
	}
	cur = t
	return func() { cur = prev }, nil
}

// ForceRowSums makes AffineBinary and AffineBinaryStride sum rows at every
// density, never switching to the dense product, and returns the function
// that restores the thresholds. Summing rows adds every chain's rows in
// increasing order whatever the tier's blocking, so a test can compare a
// product against compressed-row sums bit for bit.
func ForceRowSums() (restore func()) {
	d, b := denseThreshold, denseThresholdBlocked
	denseThreshold, denseThresholdBlocked = 2, 2
	return func() { denseThreshold, denseThresholdBlocked = d, b }
}
