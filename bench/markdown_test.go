package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestWriteMarkdown writes a page from a made-up result set and checks
// every part of it against values worked out by hand.
func TestWriteMarkdown(t *testing.T) {
	medians := map[string]float64{
		"kernel/sigmoid/avx2/n32000":    40,
		"kernel/sigmoid/generic/n32000": 4, // 40 / 4 = 10×, goal ≥ 8×: met
		"epoch/mnist-ncg":               2.5,
		"epoch/mnist-ncg/workers1":      4, // 4 / 2.5 = 1.6×, goal ≥ 1.8×: not met
	}
	r := Report{
		Command: "./ncgbench bench -markdown docs/benchmarks.md",
		Machine: "ncgbench devel\ngo go1.26 linux/amd64\nkernel tier avx2 (available: [avx2 generic])\ncpu Test CPU\n",
		Date:    time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600)),
		Results: []Result{
			{"kernel/sigmoid/avx2/n32000", 40, "GB/s", 5},
			{"kernel/sigmoid/generic/n32000", 4, "GB/s", 5},
			{"epoch/mnist-ncg", 2.5, "s", 1},
			{"epoch/mnist-ncg/workers1", 4, "s", 1},
			{"kernel/dense/avx2/x784-h500-c64", 123456.7, "GFLOP/s", 3},
		},
		Targets: Targets(medians, "avx2"),
		Skipped: []string{"ais/mnist-h500: skipped: no reference model"},
	}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"```sh\ngo build -o ncgbench ./cmd/ncgbench\n./ncgbench bench -markdown docs/benchmarks.md\n```",
		"Measured 2026-01-02 02:04 UTC on:",
		"```\nncgbench devel\ngo go1.26 linux/amd64\nkernel tier avx2 (available: [avx2 generic])\ncpu Test CPU\n```",
		"| sigmoid vs the generic Go code | 10 × | ≥ 8 ×: met |",
		"| MNIST NCG epoch, all workers vs 1 worker | 1.6 × | ≥ 1.8 ×: not met |",
		"| MNIST NCG epoch (paper configuration) | 2.5 s | ≤ 1.5 s: not met |",
		"| `kernel/sigmoid/generic/n32000` | 4 | GB/s | 5 |",
		"| `epoch/mnist-ncg` | 2.5 | s | 1 |",
		"| `kernel/dense/avx2/x784-h500-c64` | 123457 | GFLOP/s | 3 |",
		"- ais/mnist-h500: skipped: no reference model",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	// The targets come before the medians; each case once.
	if i, j := strings.Index(page, "## Against the alternatives"), strings.Index(page, "## Medians"); i < 0 || j < i {
		t.Errorf("sections out of order:\n%s", page)
	}
	if n := strings.Count(page, "`epoch/mnist-ncg`"); n != 1 {
		t.Errorf("epoch/mnist-ncg appears %d times", n)
	}
}

// TestWriteMarkdownScaling: the SET scaling section and its figure's link
// appear when the report names a figure, and a target without a unit has
// no trailing space.
func TestWriteMarkdownScaling(t *testing.T) {
	res := map[string]float64{
		"epoch/mnist-set/h500": 1, "epoch/mnist-set/h500/connections": 900, "epoch/mnist-set/h500/units": 100,
		"epoch/mnist-set/h1000": 4, "epoch/mnist-set/h1000/connections": 3900, "epoch/mnist-set/h1000/units": 100, // exponent 1
	}
	r := Report{Command: "./ncgbench bench", Machine: "m", Targets: Targets(res, "avx2")}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if page := b.String(); strings.Contains(page, "SET scaling") || !strings.Contains(page, "| MNIST SET epoch time: exponent of its growth in connections + units | 1 | ≤ 1.1: met |") {
		t.Errorf("page without a figure:\n%s", page)
	}
	r.ScalingFigure = "benchmarks-set-scaling.png"
	b.Reset()
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	i, j := strings.Index(page, "## SET scaling"), strings.Index(page, "## Medians")
	if i < 0 || j < i || !strings.Contains(page, "](benchmarks-set-scaling.png)\n") {
		t.Errorf("page with a figure:\n%s", page)
	}
}
