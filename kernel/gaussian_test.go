package kernel

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// Tests of GaussianSample: the deviates against the normal quantile in
// float64, their distribution (Kolmogorov–Smirnov and moments at a false
// alarm rate of 10⁻⁶ each), and every tier against the generic code, bit
// for bit.

// TestNormalQuantile holds the deviate of every 61st cell of the 2²⁴ and
// the extreme ones to √2·erfinv(2u − 1) in float64: PPND7 is good to
// about 1e-7 and the float32 arithmetic adds a few ulps; 5e-7 relative
// bounds both (the worst over all 2²⁴ cells is 3.8e-7).
func TestNormalQuantile(t *testing.T) {
	check := func(k uint32) {
		z := float64(normalRef(k << 8))
		u := (2*float64(k) + 1) / (1 << 25)
		want := math.Sqrt2 * math.Erfinv(2*u-1)
		if math.Abs(z-want) > 5e-7*math.Abs(want) {
			t.Fatalf("k = %d: z = %.9g, want Φ⁻¹(%.9g) = %.9g", k, z, u, want)
		}
	}
	for k := uint32(0); k < 1<<24; k += 61 {
		check(k)
	}
	for _, k := range []uint32{0, 1, 2, 1<<23 - 1, 1 << 23, 1<<24 - 2, 1<<24 - 1} {
		check(k)
	}
	// The symmetry the exact u − ½ and min(u, 1−u) give: z(k) = −z(2²⁴−1−k).
	for k := uint32(0); k < 1<<24; k += 4099 {
		if a, b := normalRef(k<<8), normalRef((1<<24-1-k)<<8); a != -b {
			t.Fatalf("k = %d: z = %g, mirror %g", k, a, b)
		}
	}
}

// ksCritical is the Kolmogorov–Smirnov bound on √n·D at a false alarm rate
// of 10⁻⁶: P(√n·D > x) → 2Σ(−1)^(k−1)·e^(−2k²x²) ≤ 2e^(−2x²) = 10⁻⁶.
var ksCritical = math.Sqrt(math.Log(2/1e-6) / 2) // 2.694

// normal6 is the two-sided standard normal bound at 10⁻⁶: P(|Z| > 4.892) = 10⁻⁶.
const normal6 = 4.892

// ksNormal returns √n·D of the sample z against the standard normal.
func ksNormal(z []float64) float64 {
	sort.Float64s(z)
	n := float64(len(z))
	var d float64
	for i, v := range z {
		f := 0.5 * math.Erfc(-v/math.Sqrt2)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return math.Sqrt(n) * d
}

// TestGaussianDistribution draws 2²⁰ deviates through GaussianSample on the
// tier in use, with per-element means and standard deviations, and tests
// the standardised values for normality: KS, mean, variance, skewness and
// kurtosis, each at a false alarm rate of 10⁻⁶ (the moments' standard errors
// for a normal sample: 1, √2, √6 and √24 over √n).
func TestGaussianDistribution(t *testing.T) {
	forEachTier(t, withGeneric, func(im *impl) {
		const n = 1 << 20
		mean, sigma, dst := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range mean {
			mean[i] = float32(i%7) - 3
			sigma[i] = 0.25 * float32(1+i%5)
		}
		s := NewStream(3, 4)
		for i := 0; i < n; i += 1000 { // calls of many lengths
			j := min(i+1000, n)
			GaussianSample(dst[i:j], mean[i:j], sigma[i:j], &s)
		}
		z := make([]float64, n)
		var m1, m2, m3, m4 float64
		for i := range z {
			z[i] = (float64(dst[i]) - float64(mean[i])) / float64(sigma[i])
			m1 += z[i]
		}
		m1 /= n
		for _, v := range z {
			d := v - m1
			m2 += d * d
			m3 += d * d * d
			m4 += d * d * d * d
		}
		m2, m3, m4 = m2/n, m3/n, m4/n
		rn := math.Sqrt(n)
		for _, c := range []struct {
			what       string
			dev, bound float64
		}{
			{"mean", math.Abs(m1), normal6 / rn},
			{"variance − 1", math.Abs(m2 - 1), normal6 * math.Sqrt2 / rn},
			{"skewness", math.Abs(m3 / math.Pow(m2, 1.5)), normal6 * math.Sqrt(6) / rn},
			{"excess kurtosis", math.Abs(m4/(m2*m2) - 3), normal6 * math.Sqrt(24) / rn},
		} {
			if c.dev > c.bound {
				t.Errorf("%s: |%s| = %.3g, above %.3g", im.name, c.what, c.dev, c.bound)
			}
		}
		if ks := ksNormal(z); ks > ksCritical {
			t.Errorf("%s: KS √n·D = %.3f, above %.3f", im.name, ks, ksCritical)
		}
	})
}

// TestGaussianKSDetects shows that the KS test above rejects a sample that
// is slightly off: deviates scaled by 1.01.
func TestGaussianKSDetects(t *testing.T) {
	const n = 1 << 20
	s := NewStream(3, 4)
	u := make([]uint32, n)
	s.Uint32s(u)
	z := make([]float64, n)
	for i, r := range u {
		z[i] = 1.01 * float64(normalRef(r))
	}
	if ks := ksNormal(z); ks <= ksCritical {
		t.Fatalf("KS √n·D = %.3f for σ = 1.01: not detected", ks)
	}
}

// TestGaussianTiers: every tier gives the generic code's bits and leaves
// the stream where it does, at every length, offset and aliasing.
func TestGaussianTiers(t *testing.T) {
	forEachTier(t, asmOnly, func(im *impl) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, n := range lengths() {
			mean, _ := padded(t, r, n, n%4, uni(-4, 4))
			sigma, _ := padded(t, r, n, (n+1)%4, uni(0, 3))
			for i := range sigma {
				switch r.IntN(10) {
				case 0:
					sigma[i] = 0
				case 1:
					sigma[i] = 1
				}
			}
			checkGaussian(t, r, im, mean, sigma, NewStream(uint64(n), 79), (n+2)%4)
		}
	})
}

func checkGaussian(t testing.TB, r *rand.Rand, im *impl, mean, sigma []float32, s0 Stream, off int) {
	t.Helper()
	n := len(mean)
	s1, s2, s3 := s0, s0, s0
	want := make([]float32, n)
	gaussianGeneric(want, mean, sigma, &s1)
	got, check := padded(t, r, n, off, uni(0, 0))
	im.gaussian(got, mean, sigma, &s2)
	check(im.name + " gaussian")
	if s1 != s2 {
		t.Fatalf("%s gaussian n=%d: stream state differs from the reference's", im.name, n)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s gaussian n=%d: dst[%d] = %g, want %g (mean %g, sigma %g)", im.name, n, i, got[i], want[i], mean[i], sigma[i])
		}
	}
	// In place: dst = mean.
	in := clone(mean)
	im.gaussian(in, in, sigma, &s3)
	for i := range want {
		if math.Float32bits(in[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s gaussian in place n=%d: dst[%d] = %g, want %g", im.name, n, i, in[i], want[i])
		}
	}
}
