package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// elementwise emits the loop shared by the element-wise kernels: BX
// elements left, K1 the lanes of this step, body the work of one step;
// ptrs advance by 64 bytes a step. The loop is entered with BX ≥ 1.
func elementwise(name string, ptrs []Register, body func()) {
	Label(name)
	MOVQ(RBX, RCX)
	tailMask(K1)
	body()
	for _, p := range ptrs {
		ADDQ(imm(64), p)
	}
	SUBQ(imm(16), RBX)
	JG(LabelRef(name))
}

func sigmoid() {
	text("sigmoidAVX512", "func(dst, src []float32)",
		"sigmoidAVX512: for i < len(src): dst[i] = sigmoidRef(src[i]).",
		"len(dst) ≥ len(src); dst may be src.")
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RBX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("sigdone"))
	expConsts()
	elementwise("sigloop", []Register{RSI, RDI}, func() {
		VMOVUPS_Z(at(RSI), K1, Z0)
		sigmoidV(Z0, Z1, Z2, Z3, Z4)
		VMOVUPS(Z1, K1, at(RDI))
	})
	Label("sigdone")
	vzeroRet()
}

// softplus(x) = max(x, 0) + log1p(t), t = exp(-|x|) in (0, 1]. log1p(t) is
// log(u)·t/(u−1) with u = 1+t (exact compensation of the rounding of u),
// and t itself where u rounds to 1.
func softplus() {
	text("softplusAVX512", "func(dst, src []float32)",
		"softplusAVX512: for i < len(src): dst[i] = softplusRef(src[i]).",
		"len(dst) ≥ len(src); dst may be src.")
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RBX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("spdone"))
	expConsts()
	logConsts()
	// Clamp exp's argument at -104 here, where exp rounds to 0:
	// softplus(-Inf) = 0 exactly.
	bcast(0xc2d00000, cLO)
	elementwise("sploop", []Register{RSI, RDI}, func() {
		VMOVUPS_Z(at(RSI), K1, Z0) // x
		VPORD(cSIGN, Z0, Z1)       // -|x|
		VMAXPS(Z1, cLO, Z1)        // ≥ -104
		expV(Z1, Z2, Z3, Z4)       // Z1 = t = exp(-|x|)
		VADDPS(cONE, Z1, Z2)       // Z2 = u = 1+t
		VSUBPS(cONE, Z2, Z3)       // Z3 = d = u−1 (exact, ≥ 0)
		logV(Z2, Z4, Z5, Z6, Z7)   // Z4 = log(u)
		VPTESTMD(Z3, Z3, K2)       // K2: d ≠ 0
		VDIVPS(Z3, Z1, Z5)         // Z5 = t/d (unused where d = 0)
		VMULPS(Z5, Z4, K2, Z1)     // Z1 = log1p(t): log(u)·t/d, or t where d = 0
		VPXORD(Z6, Z6, Z6)
		VMAXPS(Z0, Z6, Z0) // max(x, 0), NaN propagates
		VADDPS(Z1, Z0, Z0)
		VMOVUPS(Z0, K1, at(RDI))
	})
	Label("spdone")
	vzeroRet()
}

func bernoulli() {
	text("bernoulliAVX512", "func(dst, p []float32, s *Stream)",
		"bernoulliAVX512: for each block of 16 of p (the last one partial):",
		"s.next(&blk); dst[i] = b2f(uniform(blk[i%16]) < p[i]). len(dst) ≥ len(p).")
	Load(Param("dst").Base(), RDI)
	Load(Param("p").Base(), RSI)
	Load(Param("p").Len(), RBX)
	Load(Param("s"), RDX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("bedone"))
	bcast(0x3f800000, cONE)
	bcast(0x33800000, cSCALE) // 2^-24
	loadState()
	elementwise("beloop", []Register{RSI, RDI}, func() {
		xoshiro(Z0, Z1) // one block per 16 outputs, tail included
		uniform(Z0)
		VMOVUPS_Z(at(RSI), K1, Z2)     // p
		VCMPPS(imm(1), Z2, Z0, K1, K2) // K2: u < p (LT_OS)
		VMOVAPS_Z(cONE, K2, Z3)
		VMOVUPS(Z3, K1, at(RDI))
	})
	storeState()
	Label("bedone")
	vzeroRet()
}

func sigmoidBernoulli() {
	text("sigmoidBernoulliAVX512", "func(prob, state, pre []float32, s *Stream)",
		"sigmoidBernoulliAVX512: prob[i] = sigmoidRef(pre[i]); state[i] =",
		"b2f(uniform(draw i) < prob[i]), draws as bernoulliAVX512, for i < len(pre).",
		"prob may be pre.")
	Load(Param("prob").Base(), RDI)
	Load(Param("state").Base(), R8)
	Load(Param("pre").Base(), RSI)
	Load(Param("pre").Len(), RBX)
	Load(Param("s"), RDX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("sbdone"))
	expConsts()
	bcast(0x33800000, cSCALE) // 2^-24
	loadState()
	elementwise("sbloop", []Register{RSI, RDI, R8}, func() {
		// pre is loaded before prob is stored: they may alias.
		VMOVUPS_Z(at(RSI), K1, Z0)
		sigmoidV(Z0, Z1, Z2, Z3, Z4)
		xoshiro(Z5, Z6)
		uniform(Z5)
		VCMPPS(imm(1), Z1, Z5, K1, K3) // K3: u < prob (LT_OS)
		VMOVAPS_Z(cONE, K3, Z6)
		VMOVUPS(Z1, K1, at(RDI))
		VMOVUPS(Z6, K1, at(R8))
	})
	storeState()
	Label("sbdone")
	vzeroRet()
}

// axpyMasked does y += a·x (a in Z31) on the lanes of mask k at (DI), (SI).
func axpyMasked(k Op) {
	VMOVUPS_Z(at(RSI), k, Z0)
	VMOVUPS_Z(at(RDI), k, Z1)
	VMULPS(Z31, Z0, Z0)
	VADDPS(Z0, Z1, Z1)
	VMOVUPS(Z1, k, at(RDI))
}

// axpy multiplies, then adds (not fused), as the Go loop rounds. Four full
// vectors a step, then single vectors, then one masked tail, so that only
// the tail pays for a lane mask. A masked head first aligns y to 64 bytes:
// rows of 500 floats start at 16-byte offsets, and a 64-byte store across
// two cache lines costs about double.
func axpy() {
	text("axpyAVX512", "func(y []float32, a float32, x []float32)",
		"axpyAVX512: for i < len(x): y[i] += a * x[i]. len(y) ≥ len(x).")
	Load(Param("y").Base(), RDI)
	Load(Param("x").Base(), RSI)
	Load(Param("x").Len(), RBX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("axdone"))
	VBROADCASTSS(arg("a"), Z31)
	MOVQ(RDI, RCX)
	NEGQ(RCX)
	ANDQ(imm(63), RCX)
	SHRQ(imm(2), RCX) // CX: floats before y is 64-byte aligned
	JZ(LabelRef("axaligned"))
	CMPQ(RCX, RBX)
	CMOVQGT(RBX, RCX)
	MOVQ(RCX, RDX)
	tailMask(K1)
	axpyMasked(K1)
	LEAQ(ix(RSI, RDX, 4), RSI)
	LEAQ(ix(RDI, RDX, 4), RDI)
	SUBQ(RDX, RBX)

	Label("axaligned")
	CMPQ(RBX, imm(64))
	JLT(LabelRef("axone"))

	Label("axfour")
	for i := 0; i < 4; i++ {
		VMULPS(atd(RSI, 64*i), Z31, zmm(i))
	}
	for i := 0; i < 4; i++ {
		VADDPS(atd(RDI, 64*i), zmm(i), zmm(i))
	}
	for i := 0; i < 4; i++ {
		VMOVUPS(zmm(i), atd(RDI, 64*i))
	}
	ADDQ(imm(256), RSI)
	ADDQ(imm(256), RDI)
	SUBQ(imm(64), RBX)
	CMPQ(RBX, imm(64))
	JGE(LabelRef("axfour"))

	Label("axone")
	CMPQ(RBX, imm(16))
	JLT(LabelRef("axtail"))
	VMULPS(at(RSI), Z31, Z0)
	VADDPS(at(RDI), Z0, Z0)
	VMOVUPS(Z0, at(RDI))
	ADDQ(imm(64), RSI)
	ADDQ(imm(64), RDI)
	SUBQ(imm(16), RBX)
	JMP(LabelRef("axone"))

	Label("axtail")
	TESTQ(RBX, RBX)
	JLE(LabelRef("axdone"))
	MOVQ(RBX, RCX)
	tailMask(K1)
	axpyMasked(K1)

	Label("axdone")
	vzeroRet()
}
