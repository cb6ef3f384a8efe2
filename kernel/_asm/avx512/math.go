package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// tailMask sets mask register k to the low clamp(CX, 0, 16) bits: the
// lanes of a vector that starts CX elements before the end of the data.
// Clobbers AX and CX.
func tailMask(k Op) {
	XORL(EAX, EAX)
	CMPQ(RCX, RAX)
	CMOVQLT(RAX, RCX)
	MOVQ(U32(16), RAX)
	CMPQ(RCX, RAX)
	CMOVQGT(RAX, RCX)
	MOVL(U32(1), EAX)
	SHLL(CL, EAX)
	DECL(EAX)
	KMOVW(EAX, k)
}

// chunkMasks sets K1-K4 to the lanes of the four vectors of a chunk of
// columns: vector i masked by clamp(left − 16·(first+i), 0, 16), where
// left is in register left. Clobbers AX and CX.
func chunkMasks(left Register, first int) {
	for i, k := range masks {
		if d := 16 * (first + i); d == 0 {
			MOVQ(left, RCX)
		} else {
			LEAQ(atd(left, -d), RCX)
		}
		tailMask(k)
	}
}

// expV sets x = exp(x) for x in [-104, 88] (Cephes expf; below about
// -103.3 the result rounds to 0):
//
//	n = round(x·log2e); r = x − n·C1 − n·C2  (|r| ≤ ln2/2)
//	p = ((((P0·r + P1)·r + P2)·r + P3)·r + P4)·r + P5
//	x = (p·r² + r + 1) · 2^n                 (VSCALEFPS: exact, subnormal-safe)
//
// n, r and p are temporaries.
func expV(x, n, r, p Op) {
	VMULPS(cLOG2E, x, n)
	VRNDSCALEPS(imm(0), n, n)
	VMOVAPS(x, r)
	VFNMADD231PS(cEXPC1, n, r)
	VFNMADD231PS(cEXPC2, n, r)
	VMOVAPS(cP[0], p)
	for _, c := range cP[1:] {
		VFMADD213PS(c, r, p)
	}
	VMULPS(r, r, x)
	VFMADD213PS(r, x, p)
	VADDPS(cONE, p, p)
	VSCALEFPS(n, p, x)
}

// sigmoidV sets s = 1/(1+exp(-x)) on the lanes of K1 where x ≥ -88 (or x
// is NaN, which propagates), and s = 0 elsewhere. exp's argument -x is
// clamped to [-88, 88]: σ is then exactly 1 for x ≥ 88 (and +Inf). Uses K2
// and the temporaries n, r, p.
func sigmoidV(x, s, n, r, p Op) { sigmoidVK(x, s, n, r, p, K1, K2) }

// sigmoidVK is sigmoidV on the lanes of mask register k, with kt (not k)
// in place of K2.
func sigmoidVK(x, s, n, r, p, k, kt Op) {
	VPXORD(cSIGN, x, s)
	VMAXPS(s, cLO, s)
	VMINPS(s, cHI, s)
	expV(s, n, r, p)
	VADDPS(cONE, s, s)
	VCMPPS(imm(0x15), cLO, x, k, kt) // NLT_UQ: x ≥ -88 or NaN
	VDIVPS_Z(s, cONE, kt, s)
}

// logV sets m = log(u) for normal u > 0 (Cephes logf). u = mant·2^k with
// mant in [1, 2); if mant > sqrt(2) it is halved and k incremented, so that
// x = mant − 1 lies in [sqrt(1/2)−1, sqrt(2)−1]; then
//
//	log u = x − x²/2 + x³·L(x) + k·ln2   (ln2 = C1 + C2).
//
// Uses K3 and the temporaries k, z, y.
func logV(u, m, k, zz, y Op) {
	VGETMANTPS(imm(0), u, m)
	VGETEXPPS(u, k)
	VCMPPS(imm(0x1e), cSQRT2, m, K3) // GT_OQ
	VMULPS(cHALF, m, K3, m)
	VADDPS(cONE, k, K3, k)
	VSUBPS(cONE, m, m)
	VMULPS(m, m, zz)
	VMOVAPS(cL[0], y)
	for _, c := range cL[1:] {
		VFMADD213PS(c, m, y)
	}
	VMULPS(m, y, y)
	VMULPS(zz, y, y)
	VFMADD231PS(cEXPC2, k, y)
	VFNMADD231PS(cHALF, zz, y)
	VADDPS(y, m, m)
	VFMADD231PS(cEXPC1, k, m)
}

// xoshiro128++ state of the 16 lanes: word w of every lane in one register
// (Stream.s[w] is 64 contiguous bytes); cSCALE is 2^-24.
var (
	ss     = []VecPhysical{Z8, Z9, Z10, Z11}
	cSCALE = Z12
)

// loadState loads the stream at (DX) into ss; storeState writes it back.
func loadState() {
	for w, r := range ss {
		VMOVDQU32(atd(RDX, 64*w), r)
	}
}

func storeState() {
	for w, r := range ss {
		VMOVDQU32(r, atd(RDX, 64*w))
	}
}

// xoshiro sets r to the next block of 16 draws and steps the state, as
// Stream.next: r = rotl(s0+s3, 7) + s0; t = s1<<9; s2 ^= s0; s3 ^= s1;
// s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11).
func xoshiro(r, t Op) {
	VPADDD(ss[3], ss[0], r)
	VPROLD(imm(7), r, r)
	VPADDD(ss[0], r, r)
	VPSLLD(imm(9), ss[1], t)
	VPXORD(ss[0], ss[2], ss[2])
	VPXORD(ss[1], ss[3], ss[3])
	VPXORD(ss[2], ss[1], ss[1])
	VPXORD(ss[3], ss[0], ss[0])
	VPXORD(t, ss[2], ss[2])
	VPROLD(imm(11), ss[3], ss[3])
}

// uniform turns draws r into uniforms in place: float32(r>>8)·2^-24 (exact).
func uniform(r Op) {
	VPSRLD(imm(8), r, r)
	VCVTDQ2PS(r, r)
	VMULPS(cSCALE, r, r)
}

// lowLanes sets k to the low cnt (≤ 16) bits. Clobbers AX and CX.
func lowLanes(cnt, k Op) {
	MOVL(cnt, ECX)
	MOVL(U32(1), EAX)
	SHLL(CL, EAX)
	DECL(EAX)
	KMOVW(EAX, k)
}
