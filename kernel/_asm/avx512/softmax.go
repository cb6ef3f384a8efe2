package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The row-wide steps of categorical (softmax) sampling; package kernel's
// softmax_tier.go runs the per-group steps between them.

// softmaxExpV sets e = expRef(x) (package kernel's softmax.go) on the
// lanes of K1 for x ≤ 0, −Inf or NaN: the operations of expRef one
// instruction each, in its order, never fused, so the bits are the
// generic code's. n is rounded to nearest even by VCVTPS2DQ (MXCSR's
// rounding, which Go leaves at its default); lanes below −87 (cLO) are
// set to 0 and NaN lanes to x afterwards. Uses K2, K3 and the
// temporaries n, r, y; expConsts' registers hold the constants (2ⁿ's
// exponent bias 127·2²³ is cONE's bit pattern).
func softmaxExpV(x, e, n, r, y Op) {
	VMULPS(cLOG2E, x, n) // t = x·log2e
	VCVTPS2DQ(n, n)      // n
	VCVTDQ2PS(n, e)      // nf
	VMULPS(cEXPC1, e, r) // nf·C1
	VSUBPS(r, x, r)      // r = x − nf·C1
	VMULPS(cEXPC2, e, e) // nf·C2
	VSUBPS(e, r, r)      // r = r − nf·C2
	VMULPS(r, r, e)      // z = r·r
	VMULPS(cP[0], r, y)  // y = P0·r
	for _, c := range cP[1:5] {
		VADDPS(c, y, y)
		VMULPS(r, y, y)
	}
	VADDPS(cP[5], y, y)
	VMULPS(e, y, y)    // y·z
	VADDPS(r, y, y)    // + r
	VADDPS(cONE, y, y) // + 1
	VPSLLD(imm(23), n, n)
	VPADDD(cONE, n, n) // 2ⁿ
	VMULPS(n, y, e)
	VCMPPS(imm(1), cLO, x, K1, K2) // x < −87 (false for NaN)
	VPXORD(e, e, K2, e)
	VCMPPS(imm(3), x, x, K1, K3) // x is NaN
	VMOVAPS(x, K3, e)
}

func softmaxExp() {
	text("softmaxExpAVX512", "func(dst, src []float32)",
		"softmaxExpAVX512: for i < len(src): dst[i] = expRef(src[i]), for",
		"src[i] ≤ 0, −Inf or NaN. len(dst) ≥ len(src); dst may be src.")
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RBX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("smxdone"))
	expConsts()
	bcast(0xc2ae0000, cLO) // −87: expRef's floor
	elementwise("smxloop", []Register{RSI, RDI}, func() {
		VMOVUPS_Z(at(RSI), K1, Z0)
		softmaxExpV(Z0, Z1, Z2, Z3, Z4)
		VMOVUPS(Z1, K1, at(RDI))
	})
	Label("smxdone")
	vzeroRet()
}

func softmaxFinish() {
	text("softmaxFinishAVX512", "func(prob, state []float32)",
		"softmaxFinishAVX512: for i < len(prob): prob[i] /= |state[i]|;",
		"state[i] = 1 if state[i]'s sign bit is set else 0. len(state) ≥ len(prob).")
	Load(Param("prob").Base(), RDI)
	Load(Param("state").Base(), RSI)
	Load(Param("prob").Len(), RBX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("smfdone"))
	bcast(0x7fffffff, Z31)
	elementwise("smfloop", []Register{RDI, RSI}, func() {
		VMOVUPS_Z(at(RSI), K1, Z0) // state
		VMOVUPS_Z(at(RDI), K1, Z1) // prob
		VPANDD(Z31, Z0, Z2)
		VDIVPS_Z(Z2, Z1, K1, Z1)
		VPSRLD(imm(31), Z0, Z0)
		VCVTDQ2PS(Z0, Z0)
		VMOVUPS(Z1, K1, at(RDI))
		VMOVUPS(Z0, K1, at(RSI))
	})
	Label("smfdone")
	vzeroRet()
}
