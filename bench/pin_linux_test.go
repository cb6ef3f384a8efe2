package bench

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOnCPU: f runs on a thread whose affinity is the one CPU asked for,
// and the caller's thread keeps its own.
func TestOnCPU(t *testing.T) {
	cpus := pinCPUs()
	if len(cpus) == 0 {
		t.Fatal("no CPU to pin to")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var before, after unix.CPUSet
	if err := unix.SchedGetaffinity(0, &before); err != nil {
		t.Fatal(err)
	}
	for _, cpu := range cpus {
		var in unix.CPUSet
		var ran bool
		if err := onCPU(cpu, func() {
			ran = unix.SchedGetaffinity(0, &in) == nil
		}); err != nil {
			t.Fatalf("CPU %d: %v", cpu, err)
		}
		if !ran || in.Count() != 1 || !in.IsSet(cpu) {
			t.Errorf("CPU %d: f ran (%v) with affinity of %d CPUs, CPU %d in it: %v", cpu, ran, in.Count(), cpu, in.IsSet(cpu))
		}
	}
	if err := unix.SchedGetaffinity(0, &after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Errorf("the caller's affinity changed: %v → %v", before, after)
	}
	// A CPU that no machine here has: the error is returned, f never runs.
	if err := onCPU(1023, func() { t.Error("f ran on CPU 1023") }); err == nil {
		t.Error("pinning to CPU 1023 gave no error")
	}
}

// TestPinCPUs: the CPUs are the process's own, increasing, at most
// maxPinnedCPUs.
func TestPinCPUs(t *testing.T) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatal(err)
	}
	cpus := pinCPUs()
	if len(cpus) != min(set.Count(), maxPinnedCPUs) {
		t.Errorf("%d CPUs of %d, want min(%d, %d)", len(cpus), set.Count(), set.Count(), maxPinnedCPUs)
	}
	for i, c := range cpus {
		if !set.IsSet(c) || i > 0 && c <= cpus[i-1] {
			t.Errorf("CPUs %v: %d not allowed or out of order", cpus, c)
		}
	}
}
