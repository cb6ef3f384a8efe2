package kernel

import (
	"math"
	"testing"
)

// Statistical checks of the random stream with fixed thresholds: a sound
// generator passes them with overwhelming probability (each threshold is
// five or more standard deviations, or a chi-square p-value below 1e-6), a
// broken one (a lane stuck, a shift wrong, lanes copying each other) fails.

func TestStreamUniformity(t *testing.T) {
	s := NewStream(2026, 1)
	const n, bins = 1 << 20, 256
	u := make([]float32, n)
	s.Uniforms(u)
	var count [bins]float64
	for _, v := range u {
		if v < 0 || v >= 1 {
			t.Fatalf("uniform %g outside [0, 1)", v)
		}
		count[int(v*bins)]++
	}
	chi2 := 0.0
	e := float64(n) / bins
	for _, c := range count {
		chi2 += (c - e) * (c - e) / e
	}
	// 255 degrees of freedom: mean 255, sd 22.6; P(chi2 > 385) < 1e-6.
	if chi2 > 385 || chi2 < 150 {
		t.Errorf("chi-square over %d bins = %.1f, outside [150, 385]", bins, chi2)
	}
	mean := 0.0
	for _, v := range u {
		mean += float64(v)
	}
	mean /= n
	// sd of the mean of n uniforms: sqrt(1/12/n) = 2.8e-4.
	if math.Abs(mean-0.5) > 5*math.Sqrt(1.0/12/n) {
		t.Errorf("mean %g, want 0.5 ± %g", mean, 5*math.Sqrt(1.0/12/n))
	}
}

// corr is the sample correlation of x[i] and y[i].
func corr(x, y []float32) float64 {
	var sx, sy, sxx, syy, sxy float64
	for i := range x {
		a, b := float64(x[i]), float64(y[i])
		sx, sy, sxx, syy, sxy = sx+a, sy+b, sxx+a*a, syy+b*b, sxy+a*b
	}
	n := float64(len(x))
	return (sxy/n - sx/n*sy/n) / math.Sqrt((sxx/n-sx/n*sx/n)*(syy/n-sy/n*sy/n))
}

func TestStreamSerialCorrelation(t *testing.T) {
	s := NewStream(7, 3)
	const n = 1 << 20
	u := make([]float32, n+64)
	s.Uniforms(u)
	lim := 5 / math.Sqrt(n) // five standard deviations of a null correlation
	// Lag 1 crosses lanes; lag 16 is the same lane's next draw; lag 17 and
	// 32 mix both.
	for _, lag := range []int{1, 2, 15, 16, 17, 32} {
		if r := corr(u[:n], u[lag:n+lag]); math.Abs(r) > lim {
			t.Errorf("lag-%d correlation %.5f, |r| should be < %.5f", lag, r, lim)
		}
	}
	// Two streams of neighbouring ids must be uncorrelated.
	a, b := NewStream(7, 4), NewStream(7, 5)
	ua, ub := make([]float32, n), make([]float32, n)
	a.Uniforms(ua)
	b.Uniforms(ub)
	if r := corr(ua, ub); math.Abs(r) > lim {
		t.Errorf("streams 4 and 5: correlation %.5f, want |r| < %.5f", r, lim)
	}
}

func TestStreamBitBalance(t *testing.T) {
	// Every output bit, low ones included (xoshiro's + scrambler fails
	// this in bit 0; ++ does not), is 1 half the time.
	s := NewStream(99, 0)
	const n = 1 << 18
	r := make([]uint32, n)
	s.Uint32s(r)
	for bit := 0; bit < 32; bit++ {
		ones := 0
		for _, v := range r {
			ones += int(v >> bit & 1)
		}
		if z := math.Abs(float64(ones)-n/2) / math.Sqrt(n/4); z > 5 {
			t.Errorf("bit %d: %d ones in %d (z = %.1f)", bit, ones, n, z)
		}
	}
}

func TestBernoulliFrequency(t *testing.T) {
	s := NewStream(5, 5)
	const n = 1 << 18
	for _, p := range []float32{0, 0.001, 0.13, 0.5, 0.9, 1} {
		probs := make([]float32, n)
		for i := range probs {
			probs[i] = p
		}
		st := make([]float32, n)
		Bernoulli(st, probs, &s)
		ones := 0.0
		for _, v := range st {
			ones += float64(v)
		}
		sd := math.Sqrt(n * float64(p) * (1 - float64(p)))
		if math.Abs(ones-n*float64(p)) > 5*sd+1e-9 {
			t.Errorf("p = %g: %v ones in %d, want %g ± %g", p, ones, n, n*float64(p), 5*sd)
		}
	}
}

func TestStreamKeysAndState(t *testing.T) {
	a, b := NewStream(1, 2), NewStream(1, 2)
	if a != b {
		t.Fatal("same (seed, id) gave different streams")
	}
	seen := map[Stream]bool{}
	for seed := uint64(0); seed < 4; seed++ {
		for id := uint64(0); id < 64; id++ {
			s := NewStream(seed, id)
			if seen[s] {
				t.Fatalf("(seed %d, id %d) repeats another key's stream", seed, id)
			}
			seen[s] = true
		}
	}
	x := make([]uint32, 100)
	a.Uint32s(x[:37]) // 3 blocks: the tail of the last one is discarded
	b.Uint32s(x[:48]) // 3 whole blocks
	if a != b {
		t.Fatal("37 and 48 draws should both use exactly 3 blocks")
	}
	buf, _ := a.MarshalBinary()
	var c Stream
	if err := c.UnmarshalBinary(buf); err != nil {
		t.Fatal(err)
	}
	y, z := make([]uint32, 50), make([]uint32, 50)
	a.Uint32s(y)
	c.Uint32s(z)
	for i := range y {
		if y[i] != z[i] {
			t.Fatal("a restored stream does not continue the original")
		}
	}
	if err := c.UnmarshalBinary(buf[:10]); err == nil {
		t.Error("a short state was accepted")
	}
	if err := c.UnmarshalBinary(make([]byte, StreamStateSize)); err == nil {
		t.Error("an all-zero state was accepted")
	}
}
