package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestBenchSigmoidJSON(t *testing.T) {
	out, errb, code := ncgbench(t, t.TempDir(), "bench", "-run", "kernel/sigmoid/", "-json", "-count", "2", "-benchtime", "20ms", "-quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	var entries []struct {
		Name  string
		Value float64
		Unit  string
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	if len(entries) == 0 {
		t.Fatal("no entries")
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name, "kernel/sigmoid/") || e.Value <= 0 || e.Unit != "GB/s" {
			t.Errorf("entry %+v", e)
		}
	}
}

func TestBenchTableAndErrors(t *testing.T) {
	dir := t.TempDir()
	out, errb, code := ncgbench(t, dir, "bench", "-run", "kernel/dense/gonum/.*c8$|exact", "-count", "1", "-benchtime", "10ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"cpu:", "kernel tier:", "kernel/dense/gonum/x784-h500-c8", "GFLOP/s", "exact/logz-2^20"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	// The MNIST cases skip with a note when the data directory is empty.
	_, errb, code = ncgbench(t, dir, "bench", "-run", "epoch/mnist-dense", "-data-dir", dir)
	if code != 0 || !strings.Contains(errb, "skipped") {
		t.Errorf("missing data: exit %d: %s", code, errb)
	}
	for _, args := range [][]string{{"bench", "-run", "("}, {"bench", "-run", "nomatch"}, {"bench", "-count", "-1"}} {
		_, errb, code := ncgbench(t, dir, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errb), "\n") > 0 {
			t.Errorf("%v: exit %d, want 2 and one line:\n%s", args, code, errb)
		}
	}
}
