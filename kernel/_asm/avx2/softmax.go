package main

import (
	"log"

	"github.com/mmcloughlin/avo/gotypes"
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

// softmaxSteps is the largest group softmaxBlocks takes (its frame holds
// one vector of 8 lanes per unit of a group).
const softmaxSteps = 32

// Frame offsets of softmaxBlocks: the passes' vectors (one a unit of the
// groups), the block's uniforms, the halves' first units and sizes, and
// the probabilities and indices of one step, for the stores.
const (
	smfDraws = 32 * softmaxSteps
	smfOff   = smfDraws + 64
	smfSize  = smfOff + 64
	smfP     = smfSize + 64
	smfIdx   = smfP + 32
	smfLen   = smfIdx + 32
)

// softmaxBlocks emits softmaxSampleBlocksAVX2 (sample) or softmaxBlocksAVX2:
// the whole of SoftmaxSample (Softmax) for blocks of 16 groups, one group
// a lane, in two halves of eight lanes, as long as no group of the block
// has more than softmaxSteps units. Lane l of a half holds a group: its
// first unit off (Y6) and its size (Y8); step k works on unit off + k,
// and lanes past their group's last unit repeat it (the index is off +
// min(k, size − 1)), so every gather and store stays in the group. Each
// lane runs its group's units in their order, as the generic code does:
//
//   - pass A gathers x_k into the frame and takes the maximum m = x_k if
//     x_k > m, from −Inf (VMAXPS with m as its second source keeps m for
//     a NaN, as groupMax skips it; a repeated unit changes nothing);
//   - pass B sets d = x − m (0 where x = m), e = expRef(d) (softmaxExpV),
//     0 in the lanes past their group, and the running sum c = c + e: S;
//   - the block's draws give u and t = u·S (sampling only);
//   - pass C adds the e again in the same order (the same c_k, bit for
//     bit), counts the c_k with !(c_k > t) in the lanes still in their
//     group (a NaN counts, so a NaN group counts all its units), and
//     stores prob = e/S lane by lane (a lane past its group stores its
//     last unit's again);
//   - the unit on is off + min(count, size − 1): the first c_k > t, or the
//     last unit of a NaN group; the block's states are cleared and a 1
//     stored there.
//
// The lanes of a half past the last group repeat its first lane (its
// group and its uniform), so that they store what it stores. It returns
// the number of groups done: all of them, or the 16 of each block before
// the first block with a larger group, where the stream is left for the
// caller to go on.
func softmaxBlocks(sample bool) {
	name, sig := "softmaxBlocksAVX2", "func(prob, pre []float32, groups []int32) int"
	doc := []string{
		"softmaxBlocksAVX2 does softmaxGeneric for the groups of groups, 16 at a",
		"time, while no group of the 16 has more than 32 units; it returns the",
		"number of groups done.",
	}
	p := "smb"
	if sample {
		name, sig = "softmaxSampleBlocksAVX2", "func(prob, state, pre []float32, groups []int32, s *Stream) int"
		doc = []string{
			"softmaxSampleBlocksAVX2 does softmaxSampleGeneric for the groups of",
			"groups, 16 at a time (one block of s each), while no group of the 16",
			"has more than 32 units; it returns the number of groups done.",
		}
		p = "smsb"
	}
	s, err := gotypes.ParseSignatureInPackage(kernelPkg, sig)
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	g.Function(name)
	g.Signature(s)
	g.Doc(doc...)
	g.Pragma("noescape")
	frame := g.AllocLocal(smfLen)
	fr := func(d int) mem { return atd(R10, d) }
	prob, stt, pre, grp, left, st := RDI, R8, RSI, RBX, R9, RDX
	loadBase("prob", prob)
	loadBase("pre", pre)
	loadBase("groups", grp)
	loadLen("groups", left)
	g.DECQ(left)
	g.MOVQ(left, R14) // G
	if sample {
		loadBase("state", stt)
		load("s", st)
	}
	g.LEAQ(frame, R10)
	g.VMOVUPS(one, Y5)
	g.VPCMPEQD(Y15, Y15, Y15) // −1

	// off, smax, size, kv: Y6, Y7, Y8, Y9.
	off, smax, size, kv := Y6, Y7, Y8, Y9
	// idx sets r = off + min(k, size − 1).
	idx := func(r VecPhysical) {
		g.VPMINSD(smax, kv, r)
		g.VPADDD(off, r, r)
	}
	// scatter stores the lanes of v at the indices in r into base, lane by
	// lane through the frame.
	scatter := func(v, r VecPhysical, base Register) {
		if v != nil {
			g.VMOVUPS(v, fr(smfP))
		}
		g.VMOVDQU(r, fr(smfIdx))
		for l := 0; l < 8; l++ {
			g.MOVL(fr(smfIdx+4*l), EAX)
			if v != nil {
				g.MOVL(fr(smfP+4*l), ECX)
				g.MOVL(ECX, ix(base, RAX, 4))
			} else {
				g.MOVL(operand.U32(0x3f800000), ix(base, RAX, 4))
			}
		}
	}

	g.Label(p + "Block")
	g.TESTQ(left, left)
	g.JLE(lbl(p + "Done"))
	// The halves' groups: first units and sizes, lanes past the last
	// group a copy of lane 0; a group above softmaxSteps ends the call.
	g.VXORPS(Y12, Y12, Y12)
	for h := 0; h < 2; h++ {
		tailMask(left, 32*h, X1, Y1) // lanes with a group
		g.VPMASKMOVD(atd(grp, 32*h), Y1, Y2)
		g.VPMASKMOVD(atd(grp, 32*h+4), Y1, Y3)
		g.VPSUBD(Y2, Y3, Y3) // size
		g.VPBROADCASTD(X2, Y4)
		g.VBLENDVPS(Y1, Y2, Y4, Y2)
		g.VPBROADCASTD(X3, Y4)
		g.VBLENDVPS(Y1, Y3, Y4, Y3)
		g.VMOVDQU(Y2, fr(smfOff+32*h))
		g.VMOVDQU(Y3, fr(smfSize+32*h))
		g.VPCMPGTD(smSteps, Y3, Y4)
		g.VPOR(Y4, Y12, Y12)
	}
	g.VPTEST(Y12, Y12)
	g.JNZ(lbl(p + "Done"))
	if sample {
		// The block's draws, lanes 0–7 then 8–15, as uniforms.
		for h := 0; h < 2; h++ {
			for w := 0; w < 4; w++ {
				g.VMOVDQU(atd(st, 64*w+32*h), ymm(w))
			}
			xoshiro(Y0, Y1, Y2, Y3, Y4, Y10)
			for w := 0; w < 4; w++ {
				g.VMOVDQU(ymm(w), atd(st, 64*w+32*h))
			}
			uniform(Y4)
			g.VMOVUPS(Y4, fr(smfDraws+32*h))
		}
		// Clear the states of the block's units, groups[0] … groups[L]−1.
		g.MOVL(at(grp), R12L)
		g.MOVQ(operand.U32(16), RAX)
		g.CMPQ(left, RAX)
		g.CMOVQLT(left, RAX)
		g.MOVL(ix(grp, RAX, 4), R13L)
		g.VXORPS(Y0, Y0, Y0)
		g.Label(p + "Clear8")
		g.LEAQ(atd(R12, 8), RAX)
		g.CMPQ(RAX, R13)
		g.JGT(lbl(p + "ClearTail"))
		g.VMOVUPS(Y0, ix(stt, R12, 4))
		g.MOVQ(RAX, R12)
		g.JMP(lbl(p + "Clear8"))
		g.Label(p + "ClearTail")
		g.MOVQ(R13, RAX)
		g.SUBQ(R12, RAX)
		tailMask(RAX, 0, X1, Y1)
		g.VMASKMOVPS(Y0, Y1, ix(stt, R12, 4))
	}

	for h := 0; h < 2; h++ {
		q := sprintf("%sH%d", p, h)
		if h == 1 {
			g.CMPQ(left, operand.U8(8))
			g.JLE(lbl(p + "Next"))
		}
		g.VMOVDQU(fr(smfOff+32*h), off)
		g.VMOVDQU(fr(smfSize+32*h), size)
		g.VPADDD(Y15, size, smax)

		// Pass A: gather the inputs, their maximum.
		g.VMOVUPS(negInf, Y10)
		g.VPXOR(kv, kv, kv)
		g.MOVQ(R10, R12)
		g.XORQ(R11, R11)
		g.Label(q + "A")
		g.VPCMPGTD(kv, size, Y1) // k < size
		g.VMOVMSKPS(Y1, EAX)
		g.TESTL(EAX, EAX)
		g.JZ(lbl(q + "B0"))
		idx(Y1)
		g.VPCMPEQD(Y2, Y2, Y2)
		g.VXORPS(Y0, Y0, Y0)
		g.VGATHERDPS(Y2, mem{Base: pre, Index: Y1, Scale: 4}, Y0)
		g.VMOVUPS(Y0, at(R12))
		g.VMAXPS(Y10, Y0, Y10)
		g.VPSUBD(Y15, kv, kv)
		g.ADDQ(operand.U8(32), R12)
		g.INCQ(R11)
		g.JMP(lbl(q + "A"))

		// Pass B: the exponentials in the frame, their sum S in Y11.
		g.Label(q + "B0")
		g.VXORPS(Y11, Y11, Y11)
		g.VPXOR(kv, kv, kv)
		g.MOVQ(R10, R12)
		g.MOVQ(R11, R13)
		g.Label(q + "B")
		g.VMOVUPS(at(R12), Y1)
		g.VSUBPS(Y10, Y1, Y0)                // d = x − m
		g.VCMPPS(operand.U8(0), Y10, Y1, Y1) // x = m (EQ_OQ)
		g.VANDNPS(Y0, Y1, Y0)                // d = 0 there
		softmaxExpV(Y0, Y1, Y2, Y3, Y4, Y5)
		g.VPCMPGTD(kv, size, Y1)
		g.VANDPS(Y1, Y0, Y0)   // 0 past the group
		g.VADDPS(Y0, Y11, Y11) // c = c + e
		g.VMOVUPS(Y0, at(R12))
		g.VPSUBD(Y15, kv, kv)
		g.ADDQ(operand.U8(32), R12)
		g.DECQ(R13)
		g.JNZ(lbl(q + "B"))

		// Pass C: the probabilities (and the counts).
		g.VPXOR(kv, kv, kv)
		g.MOVQ(R10, R12)
		g.MOVQ(R11, R13)
		if sample {
			g.VMOVUPS(fr(smfDraws+32*h), Y12)
			g.VPBROADCASTD(X12, Y1) // lanes past the last group: lane 0's
			tailMask(left, 32*h, X2, Y2)
			g.VBLENDVPS(Y2, Y12, Y1, Y12)
			g.VMULPS(Y11, Y12, Y12) // t = u·S
			g.VXORPS(Y14, Y14, Y14) // c
			g.VPXOR(Y13, Y13, Y13)  // count
		}
		g.Label(q + "C")
		g.VMOVUPS(at(R12), Y0)
		g.VPCMPGTD(kv, size, Y1)
		if sample {
			g.VADDPS(Y0, Y14, Y14)
			g.VCMPPS(operand.U8(0x1a), Y12, Y14, Y2) // !(c > t) (NGT_UQ)
			g.VPAND(Y1, Y2, Y2)
			g.VPSUBD(Y2, Y13, Y13)
		}
		g.VDIVPS(Y11, Y0, Y3)         // e/S
		g.VBLENDVPS(Y1, Y3, Y10, Y10) // past the group: the last unit's
		idx(Y4)
		scatter(Y10, Y4, prob)
		g.VPSUBD(Y15, kv, kv)
		g.ADDQ(operand.U8(32), R12)
		g.DECQ(R13)
		g.JNZ(lbl(q + "C"))
		if sample {
			g.VPMINSD(smax, Y13, Y4)
			g.VPADDD(off, Y4, Y4)
			scatter(nil, Y4, stt)
		}
	}
	g.Label(p + "Next")
	g.ADDQ(operand.U8(64), grp)
	g.SUBQ(operand.U8(16), left)
	g.JMP(lbl(p + "Block"))

	g.Label(p + "Done")
	g.XORQ(RAX, RAX)
	g.CMPQ(left, RAX)
	g.CMOVQLT(RAX, left)
	g.MOVQ(R14, RAX)
	g.SUBQ(left, RAX)
	g.Store(RAX, g.ReturnIndex(0))
	g.VZEROUPPER()
	g.RET()
}

// groupsValid emits groupsValidAVX2, checkGroups' test without its
// messages, 8 groups a step: groups[0] = 0, groups[G] = n, and for each
// group groups[g+1] > groups[g] (a signed compare, which cannot wrap)
// and groups[g+1] − groups[g] ≤ 2²⁴ (unsigned: the difference of two
// int32 in that order is below 2³², exact in uint32).
func groupsValid() {
	text("groupsValidAVX2", "func(groups []int32, n int) bool",
		"groupsValidAVX2 reports whether checkGroups(groups, n) passes.")
	grp, left, n := RSI, R9, RDX
	loadBase("groups", grp)
	loadLen("groups", left)
	load("n", n)
	g.XORL(R10L, R10L) // the result
	g.TESTQ(left, left)
	g.JZ(lbl("gvDone"))
	g.MOVL(at(grp), EAX)
	g.TESTL(EAX, EAX)
	g.JNZ(lbl("gvDone"))
	g.MOVLQSX(ixd(grp, left, 4, -4), RAX)
	g.CMPQ(RAX, n)
	g.JNE(lbl("gvDone"))
	g.DECQ(left) // G
	g.VMOVDQU(smMaxGroup, Y5)
	g.Label("gvStep")
	g.TESTQ(left, left)
	g.JLE(lbl("gvTrue"))
	tailMask(left, 0, X1, Y1) // lanes with a group
	g.VPMASKMOVD(at(grp), Y1, Y2)
	g.VPMASKMOVD(atd(grp, 4), Y1, Y3)
	g.VPCMPGTD(Y2, Y3, Y4) // groups[g+1] > groups[g]
	g.VPSUBD(Y2, Y3, Y3)
	g.VPMINUD(Y5, Y3, Y2)
	g.VPCMPEQD(Y3, Y2, Y2) // and at most 2²⁴ above it
	g.VPAND(Y4, Y2, Y2)
	g.VPANDN(Y1, Y2, Y2) // lanes with a group that fails
	g.VPTEST(Y2, Y2)
	g.JNZ(lbl("gvDone"))
	g.ADDQ(operand.U8(32), grp)
	g.SUBQ(operand.U8(8), left)
	g.JMP(lbl("gvStep"))
	g.Label("gvTrue")
	g.MOVL(operand.U32(1), R10L)
	g.Label("gvDone")
	g.Store(R10B, g.ReturnIndex(0))
	g.VZEROUPPER()
	g.RET()
}
