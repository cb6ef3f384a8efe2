package kernel

import "math"

// Gaussian sampling: the normal deviate of a draw is the inverse of the
// normal distribution function at the draw's uniform, computed with
// Wichura's rational approximation PPND7 (Applied Statistics algorithm
// AS 241, 1988; about 7 significant digits, float32's precision) and a
// Cephes-style float32 logarithm. Every step is one IEEE operation (add,
// subtract, multiply, divide, square root, conversion, integer and bit
// operations), each rounded on its own and never fused, in the order
// written here, so every tier computes the same bits: the assembly does
// these operations in this order.
//
// The uniform of draw r is u = (2k+1)·2⁻²⁵ with k = r >> 8 (24 bits), the
// midpoints of the 2²⁴ cells of [0, 1): never 0 or 1, symmetric about ½,
// and both u − ½ and min(u, 1 − u) are exact in float32. So |z| ≤ 5.46
// (u = 2⁻²⁵; the normal tail beyond is 5·10⁻⁸), and AS 241's third
// branch (√(−log min(u, 1−u)) > 5, beyond |z| ≈ 6.6) is never reached.

// PPND7's coefficients.
const (
	ppA0 float32 = 3.3871327179e+00
	ppA1 float32 = 5.0434271938e+01
	ppA2 float32 = 1.5929113202e+02
	ppA3 float32 = 5.9109374720e+01
	ppB1 float32 = 1.7895169469e+01
	ppB2 float32 = 7.8757757664e+01
	ppB3 float32 = 6.7187563600e+01
	ppC0 float32 = 1.4234372777e+00
	ppC1 float32 = 2.7568153900e+00
	ppC2 float32 = 1.3067284816e+00
	ppC3 float32 = 1.7023821103e-01
	ppD1 float32 = 7.3700164250e-01
	ppD2 float32 = 1.2021132975e-01

	ppSplit  float32 = 0.425    // |u − ½| ≤ split: the central branch
	ppConst1 float32 = 0.180625 // split²
	ppConst2 float32 = 1.6
)

// Cephes logf's coefficients: log(1+x) = x − x²/2 + x³·P(x) for
// √½ − 1 ≤ x < √2 − 1, and ln 2 split as logHi + logLo (logHi exact in a
// few bits, so e·logHi is exact).
const (
	logP0 float32 = 7.0376836292e-2
	logP1 float32 = -1.1514610310e-1
	logP2 float32 = 1.1676998740e-1
	logP3 float32 = -1.2420140846e-1
	logP4 float32 = 1.4249322787e-1
	logP5 float32 = -1.6668057665e-1
	logP6 float32 = 2.0000714765e-1
	logP7 float32 = -2.4999993993e-1
	logP8 float32 = 3.3333331174e-1
	logHi float32 = 0.693359375
	logLo float32 = -2.12194440e-4
	sqrtH float32 = 0.707106781186547524
)

// logRef is the natural logarithm of a positive normal float32, in the
// kernels' sequence of operations (relative error about 1e-7).
func logRef(x float32) float32 {
	b := math.Float32bits(x)
	e := float32(int32(b>>23) - 126)                     // x = f·2^e, f in [½, 1)
	f := math.Float32frombits(b&0x007fffff | 0x3f000000) // f
	if f < sqrtH {
		e = e - 1
		f = f + f // exact
	}
	f = f - 1 // exact (Sterbenz): f in [√½ − 1, √2 − 1)
	z := float32(f * f)
	y := float32(logP0 * f)
	y = float32(float32(y+logP1) * f)
	y = float32(float32(y+logP2) * f)
	y = float32(float32(y+logP3) * f)
	y = float32(float32(y+logP4) * f)
	y = float32(float32(y+logP5) * f)
	y = float32(float32(y+logP6) * f)
	y = float32(float32(y+logP7) * f)
	y = float32(float32(y+logP8) * f)
	y = float32(y * z)
	y = y + float32(logLo*e)
	y = y - float32(0.5*z)
	f = f + y
	return f + float32(logHi*e)
}

// normalRef returns the standard normal deviate of draw r: Φ⁻¹((2k+1)·2⁻²⁵)
// with k = r >> 8, as every tier computes it.
func normalRef(r uint32) float32 {
	m := int32(r>>8)*2 + 1 - 1<<24 // odd, |m| < 2²⁴
	q := float32(m) * 0x1p-25      // u − ½, exact
	// Central branch: z = q·A(t)/B(t), t = 0.180625 − q².
	t := ppConst1 - float32(q*q)
	a := float32(float32(float32(float32(float32(ppA3*t)+ppA2)*t)+ppA1)*t) + ppA0
	b := float32(float32(float32(float32(float32(ppB3*t)+ppB2)*t)+ppB1)*t) + 1
	zc := float32(q*a) / b
	// Tail branch: s = √(−log min(u, 1−u)) − 1.6, |z| = C(s)/D(s), the
	// sign of q.
	am := m
	if am < 0 {
		am = -am
	}
	p := float32(1<<24-am) * 0x1p-25 // min(u, 1−u), exact
	s := float32(math.Sqrt(float64(-logRef(p)))) - ppConst2
	c := float32(float32(float32(float32(float32(ppC3*s)+ppC2)*s)+ppC1)*s) + ppC0
	d := float32(float32(float32(ppD2*s)+ppD1)*s) + 1
	zt := c / d
	if m < 0 {
		zt = -zt
	}
	if float32(math.Abs(float64(q))) <= ppSplit {
		return zc
	}
	return zt
}

func gaussianGeneric(dst, mean, sigma []float32, s *Stream) {
	var blk [Lanes]uint32
	for i := 0; i < len(mean); i += Lanes {
		s.next(&blk)
		for l := 0; l < Lanes && i+l < len(mean); l++ {
			dst[i+l] = mean[i+l] + float32(sigma[i+l]*normalRef(blk[l]))
		}
	}
}

// GaussianSample draws dst[i] = mean[i] + sigma[i]·z_i, with z_i the
// standard normal deviate of the i-th draw of the stream (see Stream for
// how draws are laid out): z_i = Φ⁻¹(u_i), u_i = (2k+1)·2⁻²⁵ for the
// draw's top 24 bits k, by AS 241's PPND7 (about 1e-7 relative error;
// |z| ≤ 5.46). Every tier gives the same bits. dst may alias mean or sigma.
func GaussianSample(dst, mean, sigma []float32, s *Stream) {
	need("dst", len(dst), len(mean))
	need("sigma", len(sigma), len(mean))
	if len(mean) == 0 {
		return
	}
	cur.gaussian(dst[:len(mean)], mean, sigma[:len(mean)], s)
}
