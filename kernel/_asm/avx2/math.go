package main

import (
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The building blocks shared by several kernels, each a fixed instruction
// sequence on the registers it is given.

// tailMask sets m to the lane mask "lane+off/4 < count" (count in a GPR),
// using x as scratch for the broadcast (x may be m's low half). VEX
// encodings only (VMOVQ, not MOVQ): legacy SSE instructions with dirty
// upper YMM halves are slow on Intel CPUs.
func tailMask(count reg.Register, off int, x, m reg.VecPhysical) {
	g.VMOVQ(count, x)
	g.VPBROADCASTD(x, m)
	g.VPCMPGTD(iota.Offset(off), m, m)
}

// expV: e = e^t for t in [-87, 88] (t, n, r2 clobbered).
// n = round(t·log2e); r = t − n·ln2 (two-part, Cephes); e^r = 1 + r + r²·P(r);
// 2^n is built in the exponent field (n ∈ [−126, 127] thanks to the clamp).
func expV(t, n, e, r2 reg.VecPhysical) {
	g.VMULPS(log2e, t, n)
	g.VROUNDPS(operand.U8(8), n, n)
	g.VFNMADD231PS(ln2hi, n, t)
	g.VFNMADD231PS(ln2lo, n, t)
	g.VMOVUPS(expP0, e)
	for _, p := range []mem{expP1, expP2, expP3, expP4, expP5} {
		g.VFMADD213PS(p, t, e)
	}
	g.VMULPS(t, t, r2)
	g.VFMADD213PS(t, r2, e)
	g.VADDPS(one, e, e)
	g.VCVTTPS2DQ(n, n)
	g.VPSLLD(operand.U8(23), n, n)
	g.VPADDD(expBias, n, n)
	g.VMULPS(n, e, e)
}

// sigmoidV: x = σ(x) = 1/(1+e^−x) with an exact divide; o holds 1.0.
// e^−x is clamped to [e^−87, e^88]: below x = −87, σ is exactly 1 anyway;
// at x = −88, 1/(1+e^88) ≈ 6e−39 is subnormal and the divide rounds it once.
// x < −88 gives 0 as the generic code; a NaN input gives a NaN.
func sigmoidV(x, t0, t1, t2, t3, o reg.VecPhysical) {
	g.VXORPS(signbit, x, t0)
	g.VMAXPS(expLo, t0, t0)
	g.VMINPS(expHi, t0, t0)
	expV(t0, t1, t2, t3)
	g.VADDPS(o, t2, t2)
	g.VDIVPS(t2, o, t2)
	g.VCMPPS(operand.U8(1), sigFloor, x, t0)
	g.VANDNPS(t2, t0, t2)
	g.VCMPPS(operand.U8(3), x, x, t0)
	g.VORPS(t0, t2, x)
}

// softplusV: x = max(x,0) + log1p(e^−|x|). z = 1+e^−|x| ∈ (1, 2] is reduced
// to m ∈ [√½, √2) (m = z or z/2), f = m−1, log z = f − f²/2 + f³·P(f) + k·ln2.
// The rounding of 1+e^−|x| costs at most 6e−8 absolute, well inside the
// 1e−6 budget. softplus(+Inf) = +Inf, softplus(−Inf) ≈ 1.6e−38, NaN → NaN.
func softplusV(x, t0, t1, t2, t3, o reg.VecPhysical) {
	g.VANDPS(absmask, x, t0)
	g.VXORPS(signbit, t0, t0)
	g.VMAXPS(expLo, t0, t0)
	expV(t0, t1, t2, t3)
	g.VADDPS(o, t2, t2)
	g.VCMPPS(operand.U8(14), sqrt2, t2, t1)
	g.VMULPS(half, t2, t3)
	g.VBLENDVPS(t1, t3, t2, t2)
	g.VSUBPS(o, t2, t2)
	g.VANDPS(ln2, t1, t1)
	g.VMOVUPS(logP0, t0)
	for _, p := range []mem{logP1, logP2, logP3, logP4, logP5, logP6, logP7, logP8, mhalf} {
		g.VFMADD213PS(p, t2, t0)
	}
	g.VMULPS(t2, t2, t3)
	g.VFMADD213PS(t2, t3, t0)
	g.VADDPS(t1, t0, t0)
	g.VXORPS(t1, t1, t1)
	g.VMAXPS(t1, x, t1)
	g.VADDPS(t1, t0, t0)
	g.VCMPPS(operand.U8(3), x, x, t1)
	g.VORPS(t1, t0, x)
}

// xoshiro steps eight xoshiro128++ lanes (state words s0..s3) and leaves
// their outputs in r (t is scratch):
//
//	r = rotl(s0+s3, 7) + s0; t = s1<<9; s2 ^= s0; s3 ^= s1; s1 ^= s2;
//	s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11)
func xoshiro(s0, s1, s2, s3, r, t reg.VecPhysical) {
	g.VPADDD(s3, s0, r)
	g.VPSLLD(operand.U8(7), r, t)
	g.VPSRLD(operand.U8(25), r, r)
	g.VPOR(t, r, r)
	g.VPADDD(s0, r, r)
	g.VPSLLD(operand.U8(9), s1, t)
	g.VPXOR(s0, s2, s2)
	g.VPXOR(s1, s3, s3)
	g.VPXOR(s2, s1, s1)
	g.VPXOR(s3, s0, s0)
	g.VPXOR(t, s2, s2)
	g.VPSLLD(operand.U8(11), s3, t)
	g.VPSRLD(operand.U8(21), s3, s3)
	g.VPOR(t, s3, s3)
}

// uniform turns draws r into u = float32(r>>8)·2^−24 ∈ [0, 1) (exact).
func uniform(r reg.VecPhysical) {
	g.VPSRLD(operand.U8(8), r, r)
	g.VCVTDQ2PS(r, r)
	g.VMULPS(twoM24, r, r)
}

// The stream state s[4][16]uint32 lives in Y0..Y7 while a kernel runs:
// word w, lanes 0–7 in Y(2w), lanes 8–15 in Y(2w+1).
var state = []reg.VecPhysical{reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7}

func loadState(p reg.Register) {
	for k, y := range state {
		g.VMOVDQU(atd(p, 32*k), y)
	}
}

func storeState(p reg.Register) {
	for k, y := range state {
		g.VMOVDQU(y, atd(p, 32*k))
	}
}
