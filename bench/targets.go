package bench

import (
	"fmt"
	"math"
	"strings"

	"github.com/ncg-rbm/ncg/internal/kernelbench"
)

// A Target is one of the project's speed targets, computed from the medians
// of a single run: a ratio of two cases measured minutes apart on the same
// machine, which is how a shared, noisy machine can be compared at all.
type Target struct {
	Name  string  // what is compared, for people
	Key   string  // a stable name for machines: target/<what>[/<shape>]
	Value float64 // the ratio, or the case's own value
	Unit  string  // "×", "s" or "GFLOP/s"
	// Goal is the target ("≥ 4×"); empty for a ratio shown for context
	// (what the machine itself gives two cores, gonum on all cores), which
	// Met leaves false.
	Goal string
	Met  bool
}

// targetRule computes Value = num / den (or num alone when den is empty)
// and compares it with atLeast or atMost (0: no bound). A rule with spread
// set instead computes the smallest over the largest of the results whose
// names start with spread, when there are at least two; one with value set
// computes it from the results (ok false: not computable).
type targetRule struct {
	name, key, num, den, unit string
	spread                    string
	value                     func(results map[string]float64) (v float64, ok bool)
	atLeast, atMost           float64
}

// targetRules lists the targets of the kernel and engine issues for the
// kernel tier in use.
func targetRules(tier string) []targetRule {
	var rs []targetRule
	for _, nc := range []int{8, 16, 64} {
		shape := kernelbench.ProductShape(nc)
		dense := "kernel/dense/" + tier + "/" + shape
		rs = append(rs,
			// Our product runs on one core, so the target compares it with
			// gonum on one core; gonum on all cores is shown beside it.
			targetRule{name: fmt.Sprintf("dense block product vs gonum Sgemm, both on one core, %d chains", nc),
				key: "target/dense-vs-gonum/c" + fmt.Sprint(nc), num: dense, den: "kernel/dense/gonum-1core/" + shape, unit: "×", atLeast: 8},
			targetRule{name: fmt.Sprintf("dense block product on one core vs gonum Sgemm on all cores, %d chains", nc),
				key: "target/dense-vs-gonum-allcores/c" + fmt.Sprint(nc), num: dense, den: "kernel/dense/gonum/" + shape, unit: "×"},
			targetRule{name: fmt.Sprintf("dense block product on one core, %d chains", nc),
				key: "target/dense-gflops/c" + fmt.Sprint(nc), num: dense, unit: "GFLOP/s", atLeast: 100},
			targetRule{name: fmt.Sprintf("binary-state product (13%% ones) vs the dense form, %d chains", nc),
				key: "target/binary-vs-dense/c" + fmt.Sprint(nc), num: "kernel/binary13/" + tier + "/" + shape, den: dense, unit: "×", atLeast: 4},
		)
	}
	for _, k := range []string{"sigmoid", "bernoulli"} {
		rs = append(rs, targetRule{name: k + " vs the generic Go code", key: "target/" + k + "-vs-generic",
			num: "kernel/" + k + "/" + tier + "/" + kernelbench.EWShape, den: "kernel/" + k + "/generic/" + kernelbench.EWShape, unit: "×", atLeast: 8})
	}
	// Both cases report GB/s over the same bytes, so copy ÷ update is the
	// update's time over the copy's.
	rs = append(rs,
		targetRule{name: "fused NCG update time vs a copy of the same bytes", key: "target/update-vs-copy",
			num: "kernel/copy/go/" + kernelbench.MatShape, den: "kernel/updatencg/" + tier + "/" + kernelbench.MatShape, unit: "×", atMost: 1.5},
		targetRule{name: "MNIST NCG epoch (paper configuration)", key: "target/epoch",
			num: "epoch/mnist-ncg", unit: "s", atMost: 1.5},
		targetRule{name: "MNIST NCG epoch, all workers vs 1 worker", key: "target/epoch-workers",
			num: "epoch/mnist-ncg/workers1", den: "epoch/mnist-ncg", unit: "×", atLeast: 1.8},
		targetRule{name: "MNIST NCG, two one-worker runs at once vs one (nothing shared)", key: "target/epoch-pair",
			num: "epoch/mnist-ncg/workers1", den: "epoch/mnist-ncg/pair", unit: "×"},
		targetRule{name: "MNIST Gaussian–Bernoulli NCG epoch (grey levels) vs the binary one", key: "target/epoch-gaussian",
			num: "epoch/mnist-ncg-gaussian", den: "epoch/mnist-ncg", unit: "×", atMost: 2},
		targetRule{name: "MNIST Gaussian–Bernoulli NCG epoch (standardised, W ~ N(0, 0.01²), α 0.01: C stays dense) vs the binary one", key: "target/epoch-gaussian-std",
			num: "epoch/mnist-ncg-gaussian-std", den: "epoch/mnist-ncg", unit: "×"},
		targetRule{name: "Connect-4 NCG epoch, categorical vs binary visible units", key: "target/epoch-categorical",
			num: "epoch/connect4-ncg-categorical", den: "epoch/connect4-ncg", unit: "×", atMost: 1.3},
		targetRule{name: "MNIST NCG epoch: NumPy + OpenBLAS (bench/peers) vs ours", key: "target/numpy-ncg",
			num: "peer/numpy/mnist-ncg", den: "epoch/mnist-ncg", unit: "×"},
		targetRule{name: "MNIST Gaussian–Bernoulli NCG epoch: NumPy + OpenBLAS (bench/peers) vs ours", key: "target/numpy-gaussian",
			num: "peer/numpy/mnist-ncg-gaussian", den: "epoch/mnist-ncg-gaussian", unit: "×", atLeast: 5},
		targetRule{name: "MNIST DBM joint-training epoch (784-500-1000): NumPy + OpenBLAS (bench/peers) vs ours", key: "target/numpy-dbm",
			num: "peer/numpy/mnist-dbm", den: "epoch/mnist-dbm", unit: "×", atLeast: 5},
		targetRule{name: "MNIST NCG DBM joint-training epoch (784-500-1000): NumPy + OpenBLAS (bench/peers) vs ours", key: "target/numpy-dbm-ncg",
			num: "peer/numpy/mnist-dbm-ncg", den: "epoch/mnist-dbm-ncg", unit: "×"},
		targetRule{name: "MNIST NCG epoch with momentum 0.9 and L2 2e-4 vs without", key: "target/epoch-momentum-l2",
			num: "epoch/mnist-ncg-momentum-l2", den: "epoch/mnist-ncg", unit: "×", atMost: 1.15},
		targetRule{name: "MNIST SET H = 2500 epoch vs the NCG H = 500 epoch", key: "target/set-h2500-vs-ncg",
			num: "epoch/mnist-set/h2500", den: "epoch/mnist-ncg", unit: "×", atMost: 1},
		targetRule{name: "MNIST SET epoch time: exponent of its growth in connections + units", key: "target/set-scaling",
			value: setExponent, atMost: 1.1},
		targetRule{name: "AIS, 14,500 intervals × 100 runs, CD-25 model", key: "target/ais",
			num: "ais/mnist-h500", unit: "s", atMost: 3},
		targetRule{name: "machine: compute-bound work, 2 goroutines vs 1", key: "target/machine-compute",
			num: "machine/compute/goroutines2", den: "machine/compute/goroutines1", unit: "×"},
		targetRule{name: "machine: memory-bound work, 2 goroutines vs 1", key: "target/machine-stream",
			num: "machine/stream/goroutines2", den: "machine/stream/goroutines1", unit: "×"},
		targetRule{name: "machine: slowest CPU vs fastest, compute-bound work pinned", key: "target/machine-cpus-compute",
			spread: "machine/compute/cpu", unit: "×"},
		targetRule{name: "machine: slowest CPU vs fastest, memory-bound work pinned", key: "target/machine-cpus-stream",
			spread: "machine/stream/cpu", unit: "×"},
	)
	return rs
}

// Targets returns the targets whose cases are all in results (case name →
// median of this run), for the kernel tier tier, in a fixed order.
func Targets(results map[string]float64, tier string) []Target {
	var ts []Target
	for _, r := range targetRules(tier) {
		v, ok := results[r.num]
		switch {
		case r.spread != "":
			v, ok = spread(results, r.spread)
		case r.value != nil:
			v, ok = r.value(results)
		}
		if !ok {
			continue
		}
		if r.den != "" {
			d, ok := results[r.den]
			if !ok || !(d > 0) {
				continue
			}
			v /= d
		}
		t := Target{Name: r.name, Key: r.key, Value: v, Unit: r.unit}
		switch {
		case r.atLeast > 0:
			t.Goal = strings.TrimSpace(fmt.Sprintf("≥ %g %s", r.atLeast, r.unit))
			t.Met = v >= r.atLeast
		case r.atMost > 0:
			t.Goal = strings.TrimSpace(fmt.Sprintf("≤ %g %s", r.atMost, r.unit))
			t.Met = v <= r.atMost
		}
		ts = append(ts, t)
	}
	return ts
}

// spread returns the smallest over the largest of the results whose names
// start with prefix; ok is false unless there are two or more, all positive.
func spread(results map[string]float64, prefix string) (v float64, ok bool) {
	lo, hi, n := math.Inf(1), 0.0, 0
	for name, r := range results {
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		if !(r > 0) {
			return 0, false
		}
		lo, hi, n = min(lo, r), max(hi, r), n+1
	}
	return lo / hi, n >= 2
}

// setExponent is the exponent b of a least-squares fit of
// log(epoch time) = a + b·log(connections + units) over the SET sizes in
// results (see SETScaling and GrowthExponent), when two or more ran.
func setExponent(results map[string]float64) (float64, bool) {
	b, _, ok := GrowthExponent(SETScaling(results))
	return b, ok
}
