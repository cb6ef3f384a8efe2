package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The updates with momentum and weight decay repeat updateMomGeneric's
// float32 operations one by one, in its order: every product rounded on
// its own (VMULPS, never an FMA), the sums left to right, so the bits are
// the generic code's. Beside updateStart's Z27 (0) and Z26: Z25 lr, Z24
// invB, Z23 mu, Z22 l2, Z21 l1, Z28 1.0; NCG also Z20 lrA and Z19 γ. RDI
// w, RSI ap, RDX a, R8 c, R9 g, R11 v.

// momConsts broadcasts the coefficients both updates use.
func momConsts() {
	for _, c := range []struct {
		name string
		z    VecPhysical
	}{{"lr", Z25}, {"invB", Z24}, {"mu", Z23}, {"l2", Z22}, {"l1", Z21}} {
		VBROADCASTSS(arg(c.name), c.z)
	}
	bcast(0x3f800000, Z28) // 1
}

// momStep is one step of 16 lanes (K1) from w0 in Z0, a in Z2 and g in
// Z3:
//
//	Z4 = s = g·invB − l2·w0 − l1·sign(w0) + mu·v
//	Z5 = nw = w0 + (lr·s)·a,  Z4 = nv = s·a
//
// It loads v, stores w, v and g (0) and adds nw·0 to Z26 on the
// lanes of K1. sign(w0) is 1 on K2 (0 < w0), then less 1 on K3 (w0 < 0):
// 1, −1 or +0.
func momStep() {
	VMOVUPS_Z(ix(R11, R10, 1), K1, Z7) // v
	VMULPS(Z24, Z3, Z4)                // g·invB
	VMULPS(Z0, Z22, Z5)                // l2·w0
	VSUBPS(Z5, Z4, Z4)
	VCMPPS(imm(1), Z0, Z27, K2) // 0 < w0 (LT_OS)
	VCMPPS(imm(1), Z27, Z0, K3) // w0 < 0
	VMOVAPS_Z(Z28, K2, Z6)
	VSUBPS(Z28, Z6, K3, Z6) // sign(w0)
	VMULPS(Z6, Z21, Z6)     // l1·sign(w0)
	VSUBPS(Z6, Z4, Z4)
	VMULPS(Z7, Z23, Z7) // mu·v
	VADDPS(Z7, Z4, Z4)  // s
	VMULPS(Z4, Z25, Z5) // lr·s
	VMULPS(Z2, Z5, Z5)  // ·a
	VADDPS(Z5, Z0, Z5)  // nw = w0 + ·
	VMULPS(Z2, Z4, Z4)  // nv = s·a
	VMULPS(Z27, Z5, Z6)
	VADDPS(Z6, Z26, K1, Z26) // acc += nw·0
	VMOVUPS(Z5, K1, ix(RDI, R10, 1))
	VMOVUPS(Z4, K1, ix(R11, R10, 1))
	VMOVUPS(Z27, K1, ix(R9, R10, 1))
}

func updateMom() {
	text("updateMomAVX512", "func(w, a, c, g, v []float32, lr, invB, mu, l2, l1 float32) float32",
		"updateMomAVX512: for k < len(w), as updateMomGeneric, with ak = a[k] (1 if a",
		"is nil), every product rounded (no FMA) and the sums left to right:",
		"",
		"\tw0 := w[k]",
		"\ts := g[k]*invB - l2*w0 - l1*sign(w0) + mu*v[k]",
		"\tw[k] = w0 + lr*s*ak; v[k] = s*ak; g[k] = 0",
		"\tif c != nil { c[k] = w[k]*ak }",
		"",
		"It returns 0 if every w[k] is finite, else NaN. a and c (unless nil), g and v",
		"are at least as long as w.")
	// Four loops, for a and c present or nil, chosen once.
	Load(Param("w").Base(), RDI)
	Load(Param("a").Base(), RDX)
	Load(Param("c").Base(), R8)
	Load(Param("g").Base(), R9)
	Load(Param("v").Base(), R11)
	Load(Param("w").Len(), RBX)
	momConsts()
	updateStart("mmdone")
	TESTQ(RDX, RDX)
	JZ(LabelRef("mmnoa"))
	TESTQ(R8, R8)
	JZ(LabelRef("mma"))
	for _, k := range []struct {
		p          string
		hasA, hasC bool
	}{{"mmac", true, true}, {"mma", true, false}, {"mmc", false, true}, {"mmn", false, false}} {
		if k.p == "mmc" {
			Label("mmnoa")
			TESTQ(R8, R8)
			JZ(LabelRef("mmn"))
		}
		hasA, hasC := k.hasA, k.hasC
		elementwise(k.p, []Register{R10}, func() {
			VMOVUPS_Z(ix(RDI, R10, 1), K1, Z0) // w0
			if hasA {
				VMOVUPS_Z(ix(RDX, R10, 1), K1, Z2) // a
			} else {
				VMOVAPS(Z28, Z2)
			}
			VMOVUPS_Z(ix(R9, R10, 1), K1, Z3) // g
			momStep()
			if hasC {
				VMULPS(Z2, Z5, Z6) // c = nw·a
				VMOVUPS(Z6, K1, ix(R8, R10, 1))
			}
		})
		JMP(LabelRef("mmdone"))
	}
	updateEnd("mmdone")
}

func updateMomNCG() {
	text("updateMomNCGAVX512", "func(w, ap, a, c, g, v []float32, lr, invB, mu, l2, l1, lrA, gamma float32) float32",
		"updateMomNCGAVX512: for k < len(w), as updateMomNCGGeneric, every product",
		"rounded (no FMA) and the sums left to right:",
		"",
		"\tw0, gk := w[k], g[k]",
		"\ts := gk*invB - l2*w0 - l1*sign(w0) + mu*v[k]",
		"\tnw := w0 + lr*s*a[k]; v[k] = s*a[k]",
		"\tq := ap[k] + lrA*gk*w0; if q < 0 { q = 0 }; if q > 1 { q = 1 }",
		"\tap[k] = q; a[k] = 1 if q >= gamma else 0",
		"\tw[k] = nw; c[k] = nw*a[k]; g[k] = 0",
		"",
		"It returns 0 if every w[k] is finite, else NaN. ap, a, c, g and v are at least",
		"as long as w.")
	// VMAXPS/VMINPS take q as the second operand, which they return when
	// the compare fails: (0 > q) ? 0 : q and (1 < q) ? 1 : q, Go's
	// branches exactly (a NaN or −0 q is kept).
	Load(Param("w").Base(), RDI)
	Load(Param("ap").Base(), RSI)
	Load(Param("a").Base(), RDX)
	Load(Param("c").Base(), R8)
	Load(Param("g").Base(), R9)
	Load(Param("v").Base(), R11)
	Load(Param("w").Len(), RBX)
	momConsts()
	VBROADCASTSS(arg("lrA"), Z20)
	VBROADCASTSS(arg("gamma"), Z19)
	updateStart("mncdone")
	elementwise("mncloop", []Register{R10}, func() {
		VMOVUPS_Z(ix(RDI, R10, 1), K1, Z0) // w0
		VMOVUPS_Z(ix(RDX, R10, 1), K1, Z2) // a
		VMOVUPS_Z(ix(RSI, R10, 1), K1, Z1) // ap
		VMOVUPS_Z(ix(R9, R10, 1), K1, Z3)  // g
		VMULPS(Z20, Z3, Z8)                // lrA·g
		VMULPS(Z0, Z8, Z8)                 // ·w0
		VADDPS(Z8, Z1, Z1)                 // q = ap + ·
		VMAXPS(Z1, Z27, Z1)
		VMINPS(Z1, Z28, Z1)
		VCMPPS(imm(13), Z19, Z1, K1, K4) // q >= gamma (GE_OS)
		VMOVAPS_Z(Z28, K4, Z9)           // new a
		momStep()
		VMULPS(Z9, Z5, Z6) // c = nw·(new a)
		VMOVUPS(Z1, K1, ix(RSI, R10, 1))
		VMOVUPS(Z9, K1, ix(RDX, R10, 1))
		VMOVUPS(Z6, K1, ix(R8, R10, 1))
	})
	updateEnd("mncdone")
}
