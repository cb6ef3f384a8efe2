package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The constants of gaussianAVX512, one 32-bit pattern each (read as
// broadcast memory operands), in the order of gaussConsts: PPND7's
// coefficients (Wichura, AS 241) and Cephes logf's, as float32 (Go rounds
// the decimal constants as package kernel's gaussian.go does), and the
// integer and bit patterns of the range reductions.
var gaussConsts = []struct {
	name string
	bits uint32
}{
	{"moff", uint32(1 - 1<<24 + 1<<32)}, // int32 1 − 2²⁴
	{"two25", f32(0x1p-25)},
	{"c24", 1 << 24}, // int32
	{"const1", f32(0.180625)},
	{"a0", f32(3.3871327179e+00)}, {"a1", f32(5.0434271938e+01)}, {"a2", f32(1.5929113202e+02)}, {"a3", f32(5.9109374720e+01)},
	{"b1", f32(1.7895169469e+01)}, {"b2", f32(7.8757757664e+01)}, {"b3", f32(6.7187563600e+01)},
	{"c0", f32(1.4234372777e+00)}, {"c1", f32(2.7568153900e+00)}, {"c2", f32(1.3067284816e+00)}, {"c3", f32(1.7023821103e-01)},
	{"d1", f32(7.3700164250e-01)}, {"d2", f32(1.2021132975e-01)},
	{"split", f32(0.425)}, {"const2", f32(1.6)},
	{"one", f32(1)}, {"half", f32(0.5)},
	{"sign", 0x80000000}, {"abs", 0x7fffffff}, {"mant", 0x007fffff}, {"halfbits", 0x3f000000}, {"e126", 126},
	{"sqrth", f32(0.707106781186547524)},
	{"p0", f32(7.0376836292e-2)}, {"p1", f32(-1.1514610310e-1)}, {"p2", f32(1.1676998740e-1)},
	{"p3", f32(-1.2420140846e-1)}, {"p4", f32(1.4249322787e-1)}, {"p5", f32(-1.6668057665e-1)},
	{"p6", f32(2.0000714765e-1)}, {"p7", f32(-2.4999993993e-1)}, {"p8", f32(3.3333331174e-1)},
	{"loghi", f32(0.693359375)}, {"loglo", f32(-2.12194440e-4)},
}

func f32(x float32) uint32 { return math.Float32bits(x) }

// gc is the table of gaussConsts; gk(name) is its entry.
var gc Mem

func gaussTable() {
	gc = GLOBL("gaussAVX512", RODATA|NOPTR)
	for i, c := range gaussConsts {
		DATA(4*i, U32(c.bits))
	}
}

func gk(name string) Mem {
	for i, c := range gaussConsts {
		if c.name == name {
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
