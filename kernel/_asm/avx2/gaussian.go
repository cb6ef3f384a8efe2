package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/ncg-rbm/ncg/kernel/_asm/gaussconst"
)

// gaussMem holds gaussconst.Table as 32-byte vector constants
// gauss_<name>; gk(name) is one of them.
var gaussMem = map[string]mem{}

func gaussTable() {
	for _, c := range gaussconst.Table {
		gaussMem[c.Name] = vconst("gauss_"+c.Name, c.Bits)
	}
}

func gk(name string) mem {
	m, ok := gaussMem[name]
	if !ok {
		panic("no gaussian constant " + name)
	}
	return m
}

// gaussV computes z = normalRef(r) for the eight draws in r (Y8) into Y13,
// the operations of package kernel's normalRef and logRef one instruction
// each, in their order, never fused, so the bits are the generic code's.
// Both branches of AS 241 are computed and the central one is selected
// where |q| ≤ 0.425. Clobbers Y8–Y15.
func gaussV() {
	// m = 2·(r >> 8) + 1 − 2²⁴ (int32), q = m·2⁻²⁵ (Y9).
	g.VPSRLD(operand.U8(8), Y8, Y8)
	g.VPSLLD(operand.U8(1), Y8, Y8)
	g.VPADDD(gk("moff"), Y8, Y8)
	g.VCVTDQ2PS(Y8, Y9)
	g.VMULPS(gk("two25"), Y9, Y9)
	// Central: t = const1 − q² (Y10), zc = (q·A(t)) / B(t) (Y11).
	g.VMULPS(Y9, Y9, Y11)
	g.VMOVUPS(gk("const1"), Y10)
	g.VSUBPS(Y11, Y10, Y10)
	g.VMULPS(gk("a3"), Y10, Y11)
	g.VADDPS(gk("a2"), Y11, Y11)
	g.VMULPS(Y10, Y11, Y11)
	g.VADDPS(gk("a1"), Y11, Y11)
	g.VMULPS(Y10, Y11, Y11)
	g.VADDPS(gk("a0"), Y11, Y11)
	g.VMULPS(gk("b3"), Y10, Y12)
	g.VADDPS(gk("b2"), Y12, Y12)
	g.VMULPS(Y10, Y12, Y12)
	g.VADDPS(gk("b1"), Y12, Y12)
	g.VMULPS(Y10, Y12, Y12)
	g.VADDPS(gk("one"), Y12, Y12)
	g.VMULPS(Y11, Y9, Y11)
	g.VDIVPS(Y12, Y11, Y11)
	// Tail: p = (2²⁴ − |m|)·2⁻²⁵ (Y12), then log p (logRef): e in Y13.
	g.VPABSD(Y8, Y12)
	g.VMOVDQU(gk("c24"), Y10)
	g.VPSUBD(Y12, Y10, Y12)
	g.VCVTDQ2PS(Y12, Y12)
	g.VMULPS(gk("two25"), Y12, Y12)
	g.VPSRLD(operand.U8(23), Y12, Y13)
	g.VPSUBD(gk("e126"), Y13, Y13)
	g.VCVTDQ2PS(Y13, Y13)
	g.VANDPS(gk("mant"), Y12, Y12)
	g.VORPS(gk("halfbits"), Y12, Y12)
	g.VCMPPS(operand.U8(1), gk("sqrth"), Y12, Y8) // f < √½
	g.VANDPS(gk("one"), Y8, Y10)
	g.VSUBPS(Y10, Y13, Y13) // e − 1 there (e − 0 is e)
	g.VANDPS(Y12, Y8, Y10)
	g.VADDPS(Y10, Y12, Y12) // f + f there (f + 0 is f)
	g.VSUBPS(gk("one"), Y12, Y12)
	g.VMULPS(Y12, Y12, Y14) // z
	g.VMULPS(gk("p0"), Y12, Y15)
	for _, p := range []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"} {
		g.VADDPS(gk(p), Y15, Y15)
		g.VMULPS(Y12, Y15, Y15)
	}
	g.VMULPS(Y14, Y15, Y15)
	g.VMULPS(gk("loglo"), Y13, Y10)
	g.VADDPS(Y10, Y15, Y15)
	g.VMULPS(gk("half"), Y14, Y10)
	g.VSUBPS(Y10, Y15, Y15)
	g.VADDPS(Y15, Y12, Y12)
	g.VMULPS(gk("loghi"), Y13, Y10)
	g.VADDPS(Y10, Y12, Y12) // log p
	// s = √(−log p) − 1.6 (Y12), zt = ±C(s)/D(s) with the sign of q (Y13).
	g.VXORPS(gk("sign"), Y12, Y12)
	g.VSQRTPS(Y12, Y12)
	g.VSUBPS(gk("const2"), Y12, Y12)
	g.VMULPS(gk("c3"), Y12, Y13)
	g.VADDPS(gk("c2"), Y13, Y13)
	g.VMULPS(Y12, Y13, Y13)
	g.VADDPS(gk("c1"), Y13, Y13)
	g.VMULPS(Y12, Y13, Y13)
	g.VADDPS(gk("c0"), Y13, Y13)
	g.VMULPS(gk("d2"), Y12, Y14)
	g.VADDPS(gk("d1"), Y14, Y14)
	g.VMULPS(Y12, Y14, Y14)
	g.VADDPS(gk("one"), Y14, Y14)
	g.VDIVPS(Y14, Y13, Y13)
	g.VANDPS(gk("sign"), Y9, Y10)
	g.VXORPS(Y10, Y13, Y13)
	// z = zc where |q| ≤ split, else zt.
	g.VANDPS(gk("abs"), Y9, Y10)
	g.VCMPPS(operand.U8(2), gk("split"), Y10, Y10)
	g.VBLENDVPS(Y10, Y11, Y13, Y13)
}

// gaussian emits gaussianAVX2: per block of 16 draws, lanes 0–7 then
// 8–15, dst = mean + sigma·z; the last, partial block steps both halves
// of the state and stores under a lane mask.
func gaussian() {
	text("gaussianAVX2", "func(dst, mean, sigma []float32, s *Stream)",
		"gaussianAVX2 computes, one 16-lane block of s per 16 elements,",
		"",
		"	dst[i] = mean[i] + sigma[i]·normalRef(r_i)",
		"",
		"with the generic code's bits; dst may be mean or sigma.")
	dst, mean, sigma, n, i, st := RDI, RSI, R9, RCX, RAX, RBX
	loadBase("dst", dst)
	loadBase("mean", mean)
	loadBase("sigma", sigma)
	loadLen("mean", n)
	load("s", st)
	loadState(st)
	g.XORQ(i, i)
	g.Label("ga16")
	g.LEAQ(atd(i, 16), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl("gaTail"))
	for h, d := range []int{0, 32} {
		xoshiro(state[h], state[2+h], state[4+h], state[6+h], Y8, Y9)
		gaussV()
		g.VMULPS(ixd(sigma, i, 4, d), Y13, Y13)
		g.VADDPS(ixd(mean, i, 4, d), Y13, Y13)
		g.VMOVUPS(Y13, ixd(dst, i, 4, d))
	}
	g.MOVQ(RDX, i)
	g.JMP(lbl("ga16"))
	g.Label("gaTail")
	g.MOVQ(n, RDX)
	g.SUBQ(i, RDX)
	g.JZ(lbl("gaDone"))
	for h, d := range []int{0, 32} {
		xoshiro(state[h], state[2+h], state[4+h], state[6+h], Y8, Y9)
		gaussV()
		tailMask(RDX, d, X10, Y10)
		g.VMASKMOVPS(ixd(mean, i, 4, d), Y10, Y11)
		g.VMASKMOVPS(ixd(sigma, i, 4, d), Y10, Y12)
		g.VMULPS(Y12, Y13, Y13)
		g.VADDPS(Y11, Y13, Y13)
		g.VMASKMOVPS(Y13, Y10, ixd(dst, i, 4, d))
	}
	g.Label("gaDone")
	storeState(st)
	g.VZEROUPPER()
	g.RET()
}
