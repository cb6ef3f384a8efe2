package bench

import (
	"math"
	"strconv"
	"testing"
)

func TestTargets(t *testing.T) {
	res := map[string]float64{
		"kernel/dense/gonum/x784-h500-c8":       32,
		"kernel/dense/gonum-1core/x784-h500-c8": 20,
		"kernel/dense/avx512/x784-h500-c8":      160, // 8× gonum on one core: met exactly at the bound
		"kernel/binary13/avx512/x784-h500-c8":   480, // 3× dense: not met
		"kernel/sigmoid/avx512/n32000":          20,
		"kernel/sigmoid/generic/n32000":         0.5, // 40×
		"kernel/bernoulli/avx512/n32000":        30,  // no generic case: no target
		"kernel/copy/go/x784-h500":              120,
		"kernel/updatencg/avx512/x784-h500":     60, // twice the copy's time: not met
		"epoch/mnist-ncg":                       1.5,
		"epoch/mnist-ncg/workers1":              2.4,  // 1.6×
		"epoch/mnist-ncg/pair":                  1.25, // 1.92×
		"ais/mnist-h500":                        3.2,  // over 3 s: not met
		"machine/compute/goroutines1":           200,
		"machine/compute/goroutines2":           356,
		"machine/compute/cpu0":                  160,
		"machine/compute/cpu1":                  200,
		"machine/compute/cpu3":                  190,
		"machine/stream/cpu0":                   100, // one CPU: no spread
	}
	got := map[string]Target{}
	for _, tg := range Targets(res, "avx512") {
		if _, dup := got[tg.Key]; dup {
			t.Errorf("duplicate target %s", tg.Key)
		}
		got[tg.Key] = tg
	}
	want := []struct {
		key   string
		value float64
		goal  string
		met   bool
	}{
		{"target/dense-vs-gonum/c8", 8, "≥ 8 ×", true},
		{"target/dense-vs-gonum-allcores/c8", 5, "", false},
		{"target/dense-gflops/c8", 160, "≥ 100 GFLOP/s", true},
		{"target/binary-vs-dense/c8", 3, "≥ 4 ×", false},
		{"target/sigmoid-vs-generic", 40, "≥ 8 ×", true},
		{"target/update-vs-copy", 2, "≤ 1.5 ×", false},
		{"target/epoch", 1.5, "≤ 1.5 s", true},
		{"target/epoch-workers", 1.6, "≥ 1.8 ×", false},
		{"target/epoch-pair", 1.92, "", false},
		{"target/ais", 3.2, "≤ 3 s", false},
		{"target/machine-compute", 1.78, "", false},
		{"target/machine-cpus-compute", 0.8, "", false},
	}
	for _, w := range want {
		g, ok := got[w.key]
		if !ok {
			t.Errorf("no target %s", w.key)
			continue
		}
		if math.Abs(g.Value-w.value) > 1e-9 || g.Goal != w.goal || g.Met != w.met || g.Name == "" {
			t.Errorf("%s = %+v, want value %v, goal %q, met %v", w.key, g, w.value, w.goal, w.met)
		}
		delete(got, w.key)
	}
	// Targets whose cases did not run are left out, not reported as 0 or NaN.
	for k, g := range got {
		t.Errorf("unexpected target %s: %+v", k, g)
	}
	if ts := Targets(map[string]float64{"epoch/mnist-ncg/workers1": 3, "epoch/mnist-ncg": 0}, "avx2"); len(ts) != 1 || ts[0].Key != "target/epoch" {
		t.Errorf("a zero denominator must drop its ratio: %+v", ts)
	}
}

// setResults returns the results of SET cases of sizes h with the given
// connections, units and seconds.
func setResults(h []int, conn, units, secs []float64) map[string]float64 {
	res := map[string]float64{}
	for i, hh := range h {
		name := "epoch/mnist-set/h" + strconv.Itoa(hh)
		res[name], res[name+"/connections"], res[name+"/units"] = secs[i], conn[i], units[i]
	}
	return res
}

// TestScaleTargets: the SET growth exponent, momentum and SET-vs-NCG
// targets from made-up medians. The sizes' connections are not a fixed
// multiple of their units, so that a fit on the connections alone (or on
// H) gives another exponent than the one on connections + units.
func TestScaleTargets(t *testing.T) {
	// connections + units = 2000, 8000, 32000; time = (size/1000)^1.3 s.
	res := setResults([]int{500, 2500, 10000}, []float64{1000, 7000, 30000}, []float64{1000, 1000, 2000},
		[]float64{math.Pow(2, 1.3), math.Pow(8, 1.3), math.Pow(32, 1.3)})
	res["epoch/mnist-ncg"] = 2
	res["epoch/mnist-ncg-momentum-l2"] = 2.2  // 1.1×: met (≤ 1.15)
	res["epoch/mnist-ncg-gaussian"] = 5       // 2.5×: not met (≤ 2)
	res["peer/numpy/mnist-ncg"] = 13          // 6.5×: shown
	res["peer/numpy/mnist-ncg-gaussian"] = 30 // 6×: met (≥ 5)
	res["epoch/mnist-dbm"] = 8
	res["peer/numpy/mnist-dbm"] = 36 // 4.5×: not met (≥ 5)
	res["epoch/mnist-dbm-ncg"] = 8
	res["peer/numpy/mnist-dbm-ncg"] = 44 // 5.5×: shown
	got := map[string]Target{}
	for _, tg := range Targets(res, "avx2") {
		got[tg.Key] = tg
	}
	for _, w := range []struct {
		key   string
		value float64
		unit  string
		goal  string
		met   bool
	}{
		{"target/set-scaling", 1.3, "", "≤ 1.1", false},
		{"target/epoch-momentum-l2", 1.1, "×", "≤ 1.15 ×", true},
		{"target/epoch-gaussian", 2.5, "×", "≤ 2 ×", false},
		{"target/numpy-ncg", 6.5, "×", "", false},
		{"target/numpy-gaussian", 6, "×", "≥ 5 ×", true},
		{"target/numpy-dbm", 4.5, "×", "≥ 5 ×", false},
		{"target/numpy-dbm-ncg", 5.5, "×", "", false},
		{"target/set-h2500-vs-ncg", math.Pow(8, 1.3) / 2, "×", "≤ 1 ×", false}, // 7.464 s / 2 s
		{"target/epoch", 2, "s", "≤ 1.5 s", false},
	} {
		g, ok := got[w.key]
		if !ok {
			t.Errorf("no target %s", w.key)
			continue
		}
		if math.Abs(g.Value-w.value) > 1e-9 || g.Unit != w.unit || g.Goal != w.goal || g.Met != w.met || g.Name == "" {
			t.Errorf("%s = %+v, want value %v, unit %q, goal %q, met %v", w.key, g, w.value, w.unit, w.goal, w.met)
		}
		delete(got, w.key)
	}
	for k, g := range got {
		t.Errorf("unexpected target %s: %+v", k, g)
	}

	// Exponent 1 on the dot: met.
	res = setResults([]int{1000, 5000}, []float64{900, 4900}, []float64{100, 100}, []float64{0.5, 2.5})
	if ts := Targets(res, "avx2"); len(ts) != 1 || ts[0].Key != "target/set-scaling" || math.Abs(ts[0].Value-1) > 1e-12 || !ts[0].Met {
		t.Errorf("exponent 1: %+v", ts)
	}
	// One size, or a size without its parts: no exponent.
	res = setResults([]int{500}, []float64{1000}, []float64{100}, []float64{1})
	res["epoch/mnist-set/h1000"] = 2
	if ts := Targets(res, "avx2"); len(ts) != 0 {
		t.Errorf("one size with its parts gave %+v", ts)
	}
}

// TestGrowthExponent: least squares of log time on log size, worked out by
// hand. With log sizes 0, 1, 2 and log times 0, 1, 3 the means are 1 and
// 4/3, Σ(x − x̄)(y − ȳ) = 4/3 + 0 + 5/3 = 3 and Σ(x − x̄)² = 2: exponent
// 1.5, intercept 4/3 − 1.5 = −1/6.
func TestGrowthExponent(t *testing.T) {
	e := math.E
	res := setResults([]int{500, 1000, 2500}, []float64{0.5, e - 1, e*e - 2}, []float64{0.5, 1, 2}, []float64{1, e, e * e * e})
	pts := SETScaling(res)
	if len(pts) != 3 || pts[0].Hidden != 500 || pts[2].Hidden != 2500 || math.Abs(pts[1].Size-e) > 1e-12 {
		t.Fatalf("points %+v", pts)
	}
	b, a, ok := GrowthExponent(pts)
	if !ok || math.Abs(b-1.5) > 1e-12 || math.Abs(a+1.0/6) > 1e-12 {
		t.Errorf("exponent %v, intercept %v, ok %v; want 1.5, −1/6", b, a, ok)
	}
	for _, bad := range [][]ScalePoint{
		nil,
		{{500, 100, 1}},
		{{500, 100, 1}, {1000, 100, 2}}, // one size twice
		{{500, 100, 1}, {1000, 200, 0}}, // a zero time
		{{500, 0, 1}, {1000, 200, 2}},   // a zero size
	} {
		if _, _, ok := GrowthExponent(bad); ok {
			t.Errorf("%+v gave an exponent", bad)
		}
	}
}
