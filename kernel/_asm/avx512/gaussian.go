package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"

	"github.com/ncg-rbm/ncg/kernel/_asm/gaussconst"
)

// gc is gaussconst.Table laid out in memory; gk(name) is its entry.
var gc Mem

func gaussTable() {
	gc = GLOBL("gaussAVX512", RODATA|NOPTR)
	for i, c := range gaussconst.Table {
		DATA(4*i, U32(c.Bits))
	}
}

func gk(name string) Mem {
	for i, c := range gaussconst.Table {
		if c.Name == name {
			return gc.Offset(4 * i)
		}
	}
	panic("no gaussian constant " + name)
}

// gaussian emits gaussianAVX512: the operations of package kernel's
// normalRef and logRef, one instruction each, in their order, never fused,
// so the bits are the generic code's. Both branches of AS 241 are computed
// on every lane and the central one is selected where |q| ≤ 0.425.
func gaussian() {
	text("gaussianAVX512", "func(dst, mean, sigma []float32, s *Stream)",
		"gaussianAVX512: for each block of 16 of mean (the last one partial):",
		"s.next(&blk); dst[i] = mean[i] + sigma[i]·normalRef(blk[i%16]).",
		"len(dst), len(sigma) ≥ len(mean); dst may be mean or sigma.")
	Load(Param("dst").Base(), RDI)
	Load(Param("mean").Base(), RSI)
	Load(Param("sigma").Base(), R9)
	Load(Param("mean").Len(), RBX)
	Load(Param("s"), RDX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("gadone"))
	loadState()
	VPBROADCASTD(gk("const1"), Z16)
	VPBROADCASTD(gk("c24"), Z17)
	elementwise("galoop", []Register{RSI, R9, RDI}, func() {
		VMOVUPS_Z(at(RSI), K1, Z0) // mean
		VMOVUPS_Z(at(R9), K1, Z1)  // sigma
		xoshiro(Z2, Z3)
		// m = 2·(r >> 8) + 1 − 2²⁴ (int32), q = m·2⁻²⁵.
		VPSRLD(imm(8), Z2, Z2)
		VPSLLD(imm(1), Z2, Z2)
		VPADDD_BCST(gk("moff"), Z2, Z2)
		VCVTDQ2PS(Z2, Z3)
		VMULPS_BCST(gk("two25"), Z3, Z3)
		// Central: t = const1 − q², zc = (q·A(t)) / B(t).
		VMULPS(Z3, Z3, Z4)
		VSUBPS(Z4, Z16, Z4)
		VMULPS_BCST(gk("a3"), Z4, Z5)
		VADDPS_BCST(gk("a2"), Z5, Z5)
		VMULPS(Z4, Z5, Z5)
		VADDPS_BCST(gk("a1"), Z5, Z5)
		VMULPS(Z4, Z5, Z5)
		VADDPS_BCST(gk("a0"), Z5, Z5)
		VMULPS_BCST(gk("b3"), Z4, Z6)
		VADDPS_BCST(gk("b2"), Z6, Z6)
		VMULPS(Z4, Z6, Z6)
		VADDPS_BCST(gk("b1"), Z6, Z6)
		VMULPS(Z4, Z6, Z6)
		VADDPS_BCST(gk("one"), Z6, Z6)
		VMULPS(Z5, Z3, Z5)
		VDIVPS(Z6, Z5, Z5) // Z5 = zc
		// Tail: p = (2²⁴ − |m|)·2⁻²⁵, then log p (logRef).
		VPABSD(Z2, Z6)
		VPSUBD(Z6, Z17, Z6)
		VCVTDQ2PS(Z6, Z6)
		VMULPS_BCST(gk("two25"), Z6, Z6)
		VPSRLD(imm(23), Z6, Z7)
		VPSUBD_BCST(gk("e126"), Z7, Z7)
		VCVTDQ2PS(Z7, Z7) // e
		VPANDD_BCST(gk("mant"), Z6, Z6)
		VPORD_BCST(gk("halfbits"), Z6, Z6) // f in [½, 1)
		VCMPPS_BCST(imm(1), gk("sqrth"), Z6, K2)
		VSUBPS_BCST(gk("one"), Z7, K2, Z7)
		VADDPS(Z6, Z6, K2, Z6)
		VSUBPS_BCST(gk("one"), Z6, Z6)
		VMULPS(Z6, Z6, Z13) // z
		VMULPS_BCST(gk("p0"), Z6, Z14)
		for _, p := range []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"} {
			VADDPS_BCST(gk(p), Z14, Z14)
			VMULPS(Z6, Z14, Z14)
		}
		VMULPS(Z13, Z14, Z14)
		VMULPS_BCST(gk("loglo"), Z7, Z15)
		VADDPS(Z15, Z14, Z14)
		VMULPS_BCST(gk("half"), Z13, Z15)
		VSUBPS(Z15, Z14, Z14)
		VADDPS(Z14, Z6, Z6)
		VMULPS_BCST(gk("loghi"), Z7, Z15)
		VADDPS(Z15, Z6, Z6) // log p
		// s = √(−log p) − 1.6, zt = ±C(s)/D(s) with the sign of q.
		VPXORD_BCST(gk("sign"), Z6, Z6)
		VSQRTPS(Z6, Z6)
		VSUBPS_BCST(gk("const2"), Z6, Z6)
		VMULPS_BCST(gk("c3"), Z6, Z7)
		VADDPS_BCST(gk("c2"), Z7, Z7)
		VMULPS(Z6, Z7, Z7)
		VADDPS_BCST(gk("c1"), Z7, Z7)
		VMULPS(Z6, Z7, Z7)
		VADDPS_BCST(gk("c0"), Z7, Z7)
		VMULPS_BCST(gk("d2"), Z6, Z13)
		VADDPS_BCST(gk("d1"), Z13, Z13)
		VMULPS(Z6, Z13, Z13)
		VADDPS_BCST(gk("one"), Z13, Z13)
		VDIVPS(Z13, Z7, Z7)
		VPANDD_BCST(gk("sign"), Z3, Z13)
		VPXORD(Z13, Z7, Z7)
		// z = zc where |q| ≤ split, else zt; dst = mean + sigma·z.
		VPANDD_BCST(gk("abs"), Z3, Z13)
		VCMPPS_BCST(imm(2), gk("split"), Z13, K2)
		VMOVAPS(Z5, K2, Z7)
		VMULPS(Z7, Z1, Z7)
		VADDPS(Z7, Z0, Z7)
		VMOVUPS(Z7, K1, at(RDI))
	})
	storeState()
	Label("gadone")
	vzeroRet()
}
