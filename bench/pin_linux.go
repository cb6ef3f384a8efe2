package bench

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// maxPinnedCPUs bounds the per-CPU machine cases: they show how unequal a
// small (virtual) machine's CPUs are, and on a large one the first few say
// as much as all of them.
const maxPinnedCPUs = 8

// pinCPUs returns the CPUs the per-CPU machine cases run on: the first
// maxPinnedCPUs this process may use, in increasing order.
func pinCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for c := 0; len(cpus) < min(set.Count(), maxPinnedCPUs); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// onCPU runs f on a goroutine of its own, locked to a new OS thread whose
// affinity is CPU cpu alone. The goroutine ends without unlocking, so the
// runtime ends that thread with it and no other goroutine runs on it
// pinned.
func onCPU(cpu int, f func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		var set unix.CPUSet
		set.Set(cpu)
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			errc <- fmt.Errorf("pin to CPU %d: %w", cpu, err)
			return
		}
		f()
		errc <- nil
	}()
	return <-errc
}
