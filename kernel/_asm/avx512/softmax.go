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

// softmaxSteps is the largest group softmaxBlocks takes (its frame holds
// one vector of 16 lanes per unit of a group: 2 KB).
const softmaxSteps = 32

// softmaxBlocks emits softmaxSampleBlocksAVX512 (sample) or
// softmaxBlocksAVX512: the whole of SoftmaxSample (Softmax) for blocks of
// 16 groups, one group a lane, as long as no group of the block has more
// than softmaxSteps units. Lane l of a block holds group 16b + l: its
// first unit off (Z5) and its size (Z6); step k works on unit off + k of
// every lane that has one (K5), so each lane runs its group's units in
// their order, as the generic code does:
//
//   - pass A gathers x_k = pre[off + k] into the frame (one vector a
//     step) and takes the maximum m = x_k if x_k > m, from −Inf (VMAXPS
//     with m as its second source keeps m for a NaN x_k, as groupMax
//     skips it);
//   - pass B sets d = x − m (0 where x = m), e = expRef(d) (softmaxExpV)
//     over the frame, and the running sum c = c + e: S;
//   - the block's draws give u and t = u·S (sampling only);
//   - pass C adds the e again in the same order (the same c_k, bit for
//     bit), counts the c_k with !(c_k > t) (a NaN counts, so a NaN group
//     counts all its units), and scatters prob = e/S;
//   - the unit on is off + min(count, size − 1): the first c_k > t, or
//     the last unit of a NaN group; the block's states are cleared and a
//     1 scattered there.
//
// It returns the number of groups done: all of them, or the 16 of each
// block before the first block with a larger group, where the stream is
// left for the caller to go on.
func softmaxBlocks(sample bool) {
	name, sig := "softmaxBlocksAVX512", "func(prob, pre []float32, groups []int32) int"
	doc := []string{
		"softmaxBlocksAVX512 does softmaxGeneric for the groups of groups, 16 at a",
		"time, while no group of the 16 has more than 32 units; it returns the",
		"number of groups done.",
	}
	if sample {
		name, sig = "softmaxSampleBlocksAVX512", "func(prob, state, pre []float32, groups []int32, s *Stream) int"
		doc = []string{
			"softmaxSampleBlocksAVX512 does softmaxSampleGeneric for the groups of",
			"groups, 16 at a time (one block of s each), while no group of the 16",
			"has more than 32 units; it returns the number of groups done.",
		}
	}
	TEXT(name, 0, sig)
	Doc(doc...)
	Pragma("noescape")
	frame := AllocLocal(64 * softmaxSteps)
	p := "smb"
	if sample {
		p = "smsb"
	}
	Load(Param("prob").Base(), RDI)
	Load(Param("pre").Base(), RSI)
	Load(Param("groups").Base(), RBX)
	Load(Param("groups").Len(), R9)
	DECQ(R9) // groups left
	MOVQ(R9, R14)
	LEAQ(frame, R10)
	expConsts()
	bcast(0xc2ae0000, cLO) // −87: expRef's floor
	bcast(softmaxSteps, Z19)
	bcast(1, Z15)
	bcast(0xff800000, Z20) // −Inf
	KXNORW(K1, K1, K1)     // softmaxExpV's lanes: all
	if sample {
		Load(Param("state").Base(), R8)
		Load(Param("s"), RDX)
		bcast(0x33800000, cSCALE) // 2^-24
		loadState()
	}

	Label(p + "Block")
	TESTQ(R9, R9)
	JLE(LabelRef(p + "Done"))
	MOVQ(R9, RCX)
	tailMask(K4) // the block's groups
	VMOVDQU32_Z(at(RBX), K4, Z5)
	VMOVDQU32_Z(atd(RBX, 4), K4, Z6)
	VPSUBD(Z5, Z6, Z6)
	VPCMPUD(imm(6), Z19, Z6, K4, K2) // a group above softmaxSteps
	KORTESTW(K2, K2)
	JNZ(LabelRef(p + "Done"))

	if sample {
		// Clear the states of the block's units, groups[0] … groups[L]−1.
		MOVL(at(RBX), R12L)
		MOVQ(U32(16), RAX)
		CMPQ(R9, RAX)
		CMOVQLT(R9, RAX)
		MOVL(ix(RBX, RAX, 4), R13L)
		VPXORD(Z3, Z3, Z3)
		Label(p + "Clear")
		MOVQ(R13, RCX)
		SUBQ(R12, RCX)
		JLE(LabelRef(p + "A0"))
		tailMask(K6)
		VMOVUPS(Z3, K6, ix(R8, R12, 4))
		ADDQ(imm(16), R12)
		JMP(LabelRef(p + "Clear"))
	}

	// Pass A: gather the inputs, their maximum.
	Label(p + "A0")
	VMOVAPS(Z20, Z7)
	VMOVDQA32(Z5, Z16)
	VPXORD(Z14, Z14, Z14)
	MOVQ(R10, R12)
	XORQ(R11, R11)
	Label(p + "A")
	VPCMPD(imm(1), Z6, Z14, K4, K5) // k < size
	KORTESTW(K5, K5)
	JZ(LabelRef(p + "B0"))
	KMOVW(K5, K6)
	VPXORD(Z0, Z0, Z0)
	VGATHERDPS(Mem{Base: RSI, Index: Z16, Scale: 4}, K6, Z0)
	VMOVUPS(Z0, at(R12))
	VMAXPS(Z7, Z0, K5, Z7)
	VPADDD(Z15, Z16, Z16)
	VPADDD(Z15, Z14, Z14)
	ADDQ(imm(64), R12)
	INCQ(R11)
	JMP(LabelRef(p + "A"))

	// Pass B: the exponentials in the frame, their sum S in Z13.
	Label(p + "B0")
	VPXORD(Z13, Z13, Z13)
	VPXORD(Z14, Z14, Z14)
	MOVQ(R10, R12)
	MOVQ(R11, R13)
	Label(p + "B")
	VPCMPD(imm(1), Z6, Z14, K4, K5)
	VMOVUPS(at(R12), Z0)
	VSUBPS_Z(Z7, Z0, K5, Z1)       // d = x − m
	VCMPPS(imm(0), Z7, Z0, K5, K2) // x = m (EQ_OQ)
	VPXORD(Z1, Z1, K2, Z1)         // d = 0 there
	softmaxExpV(Z1, Z0, Z2, Z3, Z4)
	VADDPS(Z0, Z13, K5, Z13) // c = c + e
	VMOVUPS(Z0, at(R12))
	VPADDD(Z15, Z14, Z14)
	ADDQ(imm(64), R12)
	DECQ(R13)
	JNZ(LabelRef(p + "B"))

	// Pass C: the probabilities (and the counts).
	VPXORD(Z14, Z14, Z14)
	VMOVDQA32(Z5, Z16)
	MOVQ(R10, R12)
	MOVQ(R11, R13)
	if sample {
		xoshiro(Z17, Z2)
		uniform(Z17)
		VMULPS(Z13, Z17, Z17) // t = u·S
		VPXORD(Z2, Z2, Z2)    // c
		VPXORD(Z18, Z18, Z18) // count
	}
	Label(p + "C")
	VPCMPD(imm(1), Z6, Z14, K4, K5)
	VMOVUPS(at(R12), Z0)
	if sample {
		VADDPS(Z0, Z2, K5, Z2)
		VCMPPS(imm(0x1a), Z17, Z2, K5, K2) // !(c > t) (NGT_UQ)
		VPADDD(Z15, Z18, K2, Z18)
	}
	VDIVPS(Z13, Z0, Z1) // e/S
	KMOVW(K5, K6)
	VSCATTERDPS(Z1, K6, Mem{Base: RDI, Index: Z16, Scale: 4})
	VPADDD(Z15, Z16, Z16)
	VPADDD(Z15, Z14, Z14)
	ADDQ(imm(64), R12)
	DECQ(R13)
	JNZ(LabelRef(p + "C"))
	if sample {
		VPSUBD(Z15, Z6, Z0)
		VPMINUD(Z0, Z18, Z18)
		VPADDD(Z5, Z18, Z18)
		KMOVW(K4, K6)
		VSCATTERDPS(cONE, K6, Mem{Base: R8, Index: Z18, Scale: 4})
	}
	ADDQ(imm(64), RBX)
	SUBQ(imm(16), R9)
	JMP(LabelRef(p + "Block"))

	Label(p + "Done")
	if sample {
		storeState()
	}
	XORQ(RAX, RAX)
	CMPQ(R9, RAX)
	CMOVQLT(RAX, R9)
	MOVQ(R14, RAX)
	SUBQ(R9, RAX)
	Store(RAX, ReturnIndex(0))
	vzeroRet()
}

// groupsValid emits groupsValidAVX512, checkGroups' test without its
// messages, 16 groups a step: groups[0] = 0, groups[G] = n, and for each
// group groups[g+1] > groups[g] (a signed compare, which cannot wrap)
// and groups[g+1] − groups[g] ≤ 2²⁴ (unsigned: the difference of two
// int32 in that order is below 2³², exact in uint32).
func groupsValid() {
	text("groupsValidAVX512", "func(groups []int32, n int) bool",
		"groupsValidAVX512 reports whether checkGroups(groups, n) passes.")
	Load(Param("groups").Base(), RSI)
	Load(Param("groups").Len(), R9)
	Load(Param("n"), RDX)
	XORL(R10L, R10L) // the result
	TESTQ(R9, R9)
	JZ(LabelRef("gvDone"))
	MOVL(at(RSI), EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("gvDone"))
	MOVLQSX(ixd(RSI, R9, 4, -4), RAX)
	CMPQ(RAX, RDX)
	JNE(LabelRef("gvDone"))
	DECQ(R9) // G
	bcast(1<<24, Z1)
	Label("gvStep")
	TESTQ(R9, R9)
	JLE(LabelRef("gvTrue"))
	MOVQ(R9, RCX)
	tailMask(K1)
	VMOVDQU32_Z(at(RSI), K1, Z2)
	VMOVDQU32_Z(atd(RSI, 4), K1, Z3)
	VPCMPD(imm(6), Z2, Z3, K1, K2) // groups[g+1] > groups[g]
	VPSUBD(Z2, Z3, Z4)
	VPCMPUD(imm(2), Z1, Z4, K2, K3) // and at most 2²⁴ above it
	KXORW(K1, K3, K4)
	KORTESTW(K4, K4)
	JNZ(LabelRef("gvDone"))
	ADDQ(imm(64), RSI)
	SUBQ(imm(16), R9)
	JMP(LabelRef("gvStep"))
	Label("gvTrue")
	MOVL(U32(1), R10L)
	Label("gvDone")
	MOVB(R10B, arg("ret"))
	vzeroRet()
}
