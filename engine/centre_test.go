package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/kernel"
)

// centredConfigs are every method's small configuration (dense matrices
// and compressed rows) and the option configurations (momentum with
// its start phase, decay, schedules, PT), centred; not the SET authors'
// procedure, which refuses centring.
func centredConfigs() []Config {
	var cs []Config
	for _, c := range append(allConfigs(), optionConfigs()...) {
		if c.SETProcedure == Mocanu {
			continue
		}
		c.Centre = true
		cs = append(cs, c)
	}
	return cs
}

// TestCentredMinibatchMatchesReference checks three centred minibatches of
// every configuration against the float64 reference, which takes the
// step in the centred parameterisation itself (biases b + Cμ and d + Cᵀλ,
// the correlations of the offset units) and converts back with the new C.
func TestCentredMinibatchMatchesReference(t *testing.T) {
	for _, cfg := range centredConfigs() {
		for _, classes := range []int{0, 3} {
			d := randomData(3, 40, 21, classes)
			cfg.Batch, cfg.InitScale = 5, 0.5
			if cfg.Method != SET { // the sparse SET keeps its ε for 21 units
				cfg.Hidden, cfg.K = 7, 3
			}
			name := describeConfig(cfg) + fmt.Sprintf(" classes=%d", classes)
			tr, err := New(cfg, d)
			if err != nil {
				t.Fatal(err)
			}
			for n, rows := range [][]int32{{1, 2, 3, 5, 8}, {4, 17, 0, 33, 9}, {12, 30, 7, 21, 39}} {
				tr.epoch = n
				m0 := tr.Model().Clone()
				in := refState{epoch: tr.epoch, vW: f64(tr.velW), vB: f64(tr.velB), vV: f64(tr.velV), chains: f64(tr.pcd), lambda: f64(tr.ctr.lambda)}
				if n == 0 {
					in.lambda = nil // the reference's own start: ½
				}
				streams := append([]kernel.Stream(nil), tr.streams...)
				if _, err := tr.Step(rows); err != nil {
					t.Fatal(err)
				}
				if cfg.Sampler == ParallelTempering && n == 0 {
					continue // PT's chains start at this batch
				}
				want, out := reference(t, m0, cfg, d, rows, streams, in)
				got := tr.Model()
				cmp := func(what string, a []float32, b []float64, tol float64) {
					t.Helper()
					if len(a) != len(b) {
						t.Fatalf("%s step %d: %s has %d values, want %d", name, n+1, what, len(a), len(b))
					}
					for k := range a {
						if math.Abs(float64(a[k])-b[k]) > tol {
							t.Fatalf("%s step %d: %s[%d] = %g, want %g", name, n+1, what, k, a[k], b[k])
						}
					}
				}
				cmp("W", got.W, f64(want.W), 1e-5)
				cmp("A", got.A, f64(want.A), 0)
				cmp("C", got.c, f64(want.c), 1e-5)
				cmp("b", got.HiddenBias, f64(want.HiddenBias), 2e-5)
				cmp("d", got.VisibleBias, f64(want.VisibleBias), 2e-5)
				cmp("λ", tr.ctr.lambda, out.lambda, 1e-6)
				if cfg.Method == NCG {
					cmp("A′", got.AP, f64(want.AP), 1e-5)
				}
				if cfg.hasMomentum() {
					cmp("velocity of W", tr.velW, out.vW, 1e-5)
					cmp("velocity of b", tr.velB, out.vB, 1e-5)
					cmp("velocity of d", tr.velV, out.vV, 1e-5)
				}
			}
			tr.Close()
		}
	}
}

// centredGaussian are centred Gaussian configurations: NCG and SET (on the
// dense matrices), σ fixed and learned, with momentum on one.
func centredGaussian() []Config {
	var cs []Config
	for _, m := range []Method{NCG, SET} {
		for _, learn := range []bool{false, true} {
			c := gaussConfig(m, learn)
			c.Centre = true
			if learn {
				c.Momentum = 0.5
			}
			cs = append(cs, c)
		}
	}
	return cs
}

// TestCentredSameResultAnyWorkers: centred runs give the same bits on 1,
// 2, 3 and 8 workers (the hidden biases' shifts are summed in row-chunk
// order whatever the workers).
func TestCentredSameResultAnyWorkers(t *testing.T) {
	bin, real := randomData(5, 157, 40, 0), gaussData(5, 157, 40)
	for _, cfg := range append(centredConfigs(), centredGaussian()...) {
		d := bin
		if cfg.Visible == Gaussian {
			d = real
		}
		cfg.Workers = 1
		ref := train(t, cfg, d)
		for _, w := range []int{2, 3, 8} {
			cfg.Workers = w
			if p := paramsEqual(ref, train(t, cfg, d)); p != "" {
				t.Fatalf("%s %s: %s differs between 1 and %d workers", describeConfig(cfg), cfg.Visible, p, w)
			}
		}
	}
}

// TestCentredResumeIsBitIdentical: a centred run resumed mid-epoch from
// its checkpoint (which carries the hidden offsets) ends with the
// uninterrupted run's bits.
func TestCentredResumeIsBitIdentical(t *testing.T) {
	bin, real := randomData(6, 95, 30, 2), gaussData(6, 95, 30)
	for _, cfg := range append(append(allConfigs()[:2], sparseConfigs()[0]), centredGaussian()...) {
		d := bin
		if cfg.Visible == Gaussian {
			d = real
		}
		cfg.Centre, cfg.Epochs = true, 3
		checkResume(t, cfg, d, describeConfig(cfg)+" "+string(cfg.Visible))
	}
}

// TestCentreRefusedWithMocanu: the SET authors' procedure trains as their
// code does, uncentred.
func TestCentreRefusedWithMocanu(t *testing.T) {
	cfg := smallConfig(SET)
	cfg.SETProcedure, cfg.Centre = Mocanu, true
	err := cfg.Validate(30)
	if err == nil || !strings.Contains(err.Error(), "centre") {
		t.Fatalf("centred SET authors' procedure: %v, want a refusal naming centre", err)
	}
}

// TestCentredWithZeroOffsetsIsUncentred: with both offsets held at zero
// a centred step is the uncentred one, bit for bit (the centred form adds
// work, not rounding), on the dense matrices and on compressed rows. The
// centred0 cases of BenchmarkMinibatch rely on it.
func TestCentredWithZeroOffsetsIsUncentred(t *testing.T) {
	d := randomData(7, 60, 30, 0)
	for _, cfg := range append(allConfigs(), optionConfigs()[0]) {
		if cfg.SETProcedure == Mocanu {
			continue
		}
		plain, err := New(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Centre = true
		centred, err := New(cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		zero := zeroOffsets(centred)
		for i := 0; i < 6; i++ {
			rows := []int32{int32(i), int32(i + 10), int32(i + 20), int32(i + 30), int32(i + 40)}
			zero()
			if _, err := plain.Step(rows); err != nil {
				t.Fatal(err)
			}
			if _, err := centred.Step(rows); err != nil {
				t.Fatal(err)
			}
		}
		if p := paramsEqual(plain.Model(), centred.Model()); p != "" {
			t.Errorf("%s: %s differs between the uncentred run and the centred one with zero offsets", describeConfig(cfg), p)
		}
		plain.Close()
		centred.Close()
	}
}
