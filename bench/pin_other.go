//go:build !linux

package bench

import "errors"

// pinCPUs returns no CPU: pinning a thread needs Linux's sched_setaffinity,
// so there are no per-CPU machine cases elsewhere.
func pinCPUs() []int { return nil }

// onCPU refuses: with no per-CPU case it is never called here.
func onCPU(cpu int, f func()) error { return errors.New("pinning a thread to a CPU needs Linux") }
