package engine

import (
	"strings"
	"testing"

	"github.com/ncg-rbm/ncg/unit"
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
		if cfg.Visible == unit.Gaussian {
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
		if cfg.Visible == unit.Gaussian {
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
