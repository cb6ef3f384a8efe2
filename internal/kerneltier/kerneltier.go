// Package kerneltier holds package kernel's process-wide switches for the
// tests and benchmarks of this module: the tier in use and the row-sum
// form of the binary-state product. Package kernel registers them when it
// initialises; code outside this module cannot import an internal
// package, so the switches are no part of the library's API.
//
// A switch changes state that every kernel call reads, so none is safe to
// use while kernels run.
package kerneltier

import "errors"

var (
	useTier      func(name string) (restore func(), err error)
	forceRowSums func() (restore func())
)

// Register installs package kernel's switches; kernel calls it from init.
func Register(use func(name string) (restore func(), err error), rowSums func() (restore func())) {
	useTier, forceRowSums = use, rowSums
}

// Use forces the kernel tier called name and returns a function that
// restores the previous one: defer kerneltier.Use("generic")(). It returns
// an error, and keeps the current tier, if this CPU or build lacks the tier.
func Use(name string) (restore func(), err error) {
	if useTier == nil {
		return func() {}, errors.New("kerneltier: package kernel is not linked in")
	}
	return useTier(name)
}

// ForceRowSums makes kernel.AffineBinary and kernel.AffineBinaryStride sum
// rows at every density, never switching to the dense product, and returns
// the function that restores the thresholds. Summing rows adds every
// chain's rows in increasing order whatever the tier's blocking, so a test
// can compare a product against compressed-row sums bit for bit.
func ForceRowSums() (restore func()) {
	if forceRowSums == nil {
		panic("kerneltier: package kernel is not linked in")
	}
	return forceRowSums()
}
