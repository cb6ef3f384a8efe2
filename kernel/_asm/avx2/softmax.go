package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The row-wide steps of categorical (softmax) sampling; package kernel's
// softmax_tier.go runs the per-group steps between them.

// softmaxExpV sets x = expRef(x) (package kernel's softmax.go) for x ≤ 0,
// −Inf or NaN: the operations of expRef one instruction each, in its
// order, never fused, so the bits are the generic code's. n is rounded to
// nearest even by VCVTPS2DQ (MXCSR's rounding, which Go leaves at its
// default); lanes below −87 are set to 0 and NaN lanes to x afterwards.
// t0–t3 are scratch, o holds 1.0.
func softmaxExpV(x, t0, t1, t2, t3, o VecPhysical) {
	g.VMULPS(log2e, x, t0)  // t = x·log2e
	g.VCVTPS2DQ(t0, t0)     // n
	g.VCVTDQ2PS(t0, t1)     // nf
	g.VMULPS(ln2hi, t1, t2) // nf·C1
	g.VSUBPS(t2, x, t2)     // r = x − nf·C1
	g.VMULPS(ln2lo, t1, t1) // nf·C2
	g.VSUBPS(t1, t2, t2)    // r = r − nf·C2
	g.VMULPS(t2, t2, t1)    // z = r·r
	g.VMULPS(expP0, t2, t3) // y = P0·r
	for _, p := range []mem{expP1, expP2, expP3, expP4} {
		g.VADDPS(p, t3, t3)
		g.VMULPS(t2, t3, t3)
	}
	g.VADDPS(expP5, t3, t3)
	g.VMULPS(t1, t3, t3) // y·z
	g.VADDPS(t2, t3, t3) // + r
	g.VADDPS(o, t3, t3)  // + 1
	g.VPSLLD(operand.U8(23), t0, t0)
	g.VPADDD(expBias, t0, t0) // 2ⁿ
	g.VMULPS(t0, t3, t3)
	g.VCMPPS(operand.U8(1), expLo, x, t0) // x < −87 (false for NaN)
	g.VANDNPS(t3, t0, t3)
	g.VCMPPS(operand.U8(3), x, x, t0) // x is NaN
	g.VBLENDVPS(t0, x, t3, x)
}

func softmaxExp() {
	text("softmaxExpAVX2", "func(dst, src []float32)",
		"softmaxExpAVX2 computes dst[i] = expRef(src[i]) for src[i] ≤ 0, −Inf",
		"or NaN, with the generic code's bits; len(dst) ≥ len(src), dst may be src.")
	elementwise("smx", softmaxExpV)
}

// softmaxFinish emits softmaxFinishAVX2, two vectors a step, then one, then
// a masked tail (masked-off lanes divide 0 by 0 and are not stored).
func softmaxFinish() {
	text("softmaxFinishAVX2", "func(prob, state []float32)",
		"softmaxFinishAVX2 computes, for i < len(prob),",
		"",
		"	prob[i] /= |state[i]|; state[i] = 1 if state[i]'s sign bit is set else 0",
		"",
		"len(state) ≥ len(prob).")
	prob, stt, n, i := RDI, RSI, RCX, RAX
	loadBase("prob", prob)
	loadBase("state", stt)
	loadLen("prob", n)
	g.VMOVUPS(absmask, Y15)
	// step divides the vectors at d(prob) by |d(state)| and turns the
	// states into their sign bits (0 or 1 as float32).
	step := func(p, s, a VecPhysical) {
		g.VANDPS(Y15, s, a)
		g.VDIVPS(a, p, p)
		g.VPSRLD(operand.U8(31), s, s)
		g.VCVTDQ2PS(s, s)
	}
	g.XORQ(i, i)
	g.Label("smf16")
	g.LEAQ(atd(i, 16), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl("smf8"))
	for h := 0; h < 2; h++ {
		p, s, a := ymm(3*h), ymm(3*h+1), ymm(3*h+2)
		g.VMOVUPS(ixd(prob, i, 4, 32*h), p)
		g.VMOVUPS(ixd(stt, i, 4, 32*h), s)
		step(p, s, a)
		g.VMOVUPS(p, ixd(prob, i, 4, 32*h))
		g.VMOVUPS(s, ixd(stt, i, 4, 32*h))
	}
	g.MOVQ(RDX, i)
	g.JMP(lbl("smf16"))
	g.Label("smf8")
	g.LEAQ(atd(i, 8), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl("smfTail"))
	g.VMOVUPS(ix(prob, i, 4), Y0)
	g.VMOVUPS(ix(stt, i, 4), Y1)
	step(Y0, Y1, Y2)
	g.VMOVUPS(Y0, ix(prob, i, 4))
	g.VMOVUPS(Y1, ix(stt, i, 4))
	g.MOVQ(RDX, i)
	g.Label("smfTail")
	g.MOVQ(n, RDX)
	g.SUBQ(i, RDX)
	g.JZ(lbl("smfDone"))
	tailMask(RDX, 0, X10, Y10)
	g.VMASKMOVPS(ix(prob, i, 4), Y10, Y0)
	g.VMASKMOVPS(ix(stt, i, 4), Y10, Y1)
	step(Y0, Y1, Y2)
	g.VMASKMOVPS(Y0, Y10, ix(prob, i, 4))
	g.VMASKMOVPS(Y1, Y10, ix(stt, i, 4))
	g.Label("smfDone")
	g.VZEROUPPER()
	g.RET()
}
