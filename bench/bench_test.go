package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/ncg-rbm/ncg/kernel"
)

func TestSuiteNames(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Suite(t.TempDir()) {
		if seen[c.Name] {
			t.Errorf("duplicate case %s", c.Name)
		}
		seen[c.Name] = true
		if c.Unit == "" || c.Count < 1 || c.Run == nil {
			t.Errorf("%s: incomplete case %+v", c.Name, c)
		}
	}
	want := []string{"epoch/mnist-ncg", "epoch/mnist-dense", "epoch/mnist-ncg/workers1", "epoch/mnist-ncg/pair", "ais/mnist-h500", "exact/logz-2^20",
		"kernel/dense/gonum/x784-h500-c64", "kernel/dense/gonum-1core/x784-h500-c64"}
	for _, tier := range kernel.Tiers() {
		want = append(want, "kernel/dense/"+tier+"/x784-h500-c16", "kernel/sigmoid/"+tier+"/n32000")
	}
	for _, n := range want {
		if !seen[n] {
			t.Errorf("no case %s", n)
		}
	}
}

func TestKernelCases(t *testing.T) {
	if err := SetBenchTime(5 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	for _, c := range Kernels() {
		if !strings.Contains(c.Name, "/c8") && !strings.Contains(c.Name, "sigmoid/") {
			continue
		}
		v, err := c.Run()
		if err != nil || !(v > 0) {
			t.Errorf("%s: %v, %v", c.Name, v, err)
		}
	}
}

func TestMachineCases(t *testing.T) {
	if err := SetBenchTime(5 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	cs := Machine()
	if want := 4 + 2*len(pinCPUs()); len(cs) != want {
		t.Fatalf("%d machine cases, want %d", len(cs), want)
	}
	for _, c := range cs {
		v, err := c.Run()
		if err != nil || !(v > 0) {
			t.Errorf("%s: %v, %v", c.Name, v, err)
		}
	}
}

func TestMissingDataSkips(t *testing.T) {
	for _, c := range Training(t.TempDir()) {
		if !strings.HasPrefix(c.Name, "epoch/") && !strings.HasPrefix(c.Name, "ais/") {
			continue
		}
		if _, err := c.Run(); !IsSkip(err) {
			t.Errorf("%s without data: %v, want a skip", c.Name, err)
		}
	}
}

// TestMeasure: measure grows the number of calls until one run lasts the
// bench time, and the time it reports is that of the calls it counts
// (each call sleeps 1 ms, so n calls take at least n ms).
func TestMeasure(t *testing.T) {
	defer func(d time.Duration) { benchTime = d }(benchTime)
	if err := SetBenchTime(30 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	calls := 0
	n, took := measure(func(n int) {
		for range n {
			calls++
			time.Sleep(time.Millisecond)
		}
	})
	if took < 30*time.Millisecond {
		t.Errorf("measure stopped after %v, want at least 30ms", took)
	}
	if took < time.Duration(n)*time.Millisecond {
		t.Errorf("measure reports %d calls in %v, less than 1 ms each", n, took)
	}
	if calls <= n {
		t.Errorf("%d calls in all for a last run of %d: no run before the last", calls, n)
	}
	if err := SetBenchTime(0); err == nil {
		t.Error("SetBenchTime(0) succeeded")
	}
}
