package bench

import (
	"math"
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
