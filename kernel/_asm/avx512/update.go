package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// indices: each step compares 16 states with 0 (NEQ_UQ: NaN counts as
// non-zero, like Go's !=) and compresses the matching lane numbers to the
// bottom of a register (compress; VPCOMPRESSD to memory is microcoded on
// Zen 4). Whole steps store all 16 lanes at idx[count]
// and move count on by the number of matches: as count ≤ i and i+16 ≤ n,
// the store stays inside idx[:n], and what it writes past the new count is
// overwritten by later steps or left as garbage in idx[count:n] (as
// indicesAVX2 does). Two steps a loop, so the loop's own instructions are
// paid once per 32 states. The last partial step stores exactly its
// matches with a mask.
func indices() {
	text("indicesAVX512", "func(idx []int32, s []float32) int",
		"indicesAVX512: for i < len(s): if s[i] != 0 { idx[count] = i; count++ }; returns count.",
		"len(idx) ≥ len(s). It may write garbage to idx[count:len(s)] (never past it).")
	Load(Param("idx").Base(), RDI)
	Load(Param("s").Base(), RSI)
	Load(Param("s").Len(), RBX)
	MOVQ(RDI, R8) // start of idx, for the count
	TESTQ(RBX, RBX)
	JLE(LabelRef("ixdone"))
	VMOVDQU32(lanes, Z1) // Z1: positions of the current 16 states
	bcast(16, Z2)
	VPXORD(Z3, Z3, Z3)
	bcast(32, Z5)
	VPADDD(Z2, Z1, Z6) // Z6: positions of the next 16

	Label("ix32")
	CMPQ(RBX, imm(32))
	JLT(LabelRef("ix16"))
	VCMPPS(imm(4), at(RSI), Z3, K2)      // K2: s[i:i+16] ≠ 0
	VCMPPS(imm(4), atd(RSI, 64), Z3, K3) // K3: s[i+16:i+32] ≠ 0
	compress(Z1, K2, Z4)
	compress(Z6, K3, Z7)
	KMOVW(K2, EDX)
	KMOVW(K3, ECX)
	POPCNTL(EDX, EDX)
	POPCNTL(ECX, ECX)
	VMOVDQU32(Z4, at(RDI))
	LEAQ(ix(RDI, RDX, 4), RDI)
	VMOVDQU32(Z7, at(RDI))
	LEAQ(ix(RDI, RCX, 4), RDI)
	VPADDD(Z5, Z1, Z1)
	VPADDD(Z5, Z6, Z6)
	ADDQ(imm(128), RSI)
	SUBQ(imm(32), RBX)
	JMP(LabelRef("ix32"))

	Label("ix16")
	CMPQ(RBX, imm(16))
	JLT(LabelRef("ixtail"))
	VCMPPS(imm(4), at(RSI), Z3, K2)
	compress(Z1, K2, Z4)
	KMOVW(K2, EDX)
	POPCNTL(EDX, EDX)
	VMOVDQU32(Z4, at(RDI))
	LEAQ(ix(RDI, RDX, 4), RDI)
	VPADDD(Z2, Z1, Z1)
	ADDQ(imm(64), RSI)
	SUBQ(imm(16), RBX)

	Label("ixtail")
	TESTQ(RBX, RBX)
	JLE(LabelRef("ixdone"))
	MOVQ(RBX, RCX)
	tailMask(K1)
	VMOVUPS_Z(at(RSI), K1, Z0)
	VCMPPS(imm(4), Z3, Z0, K1, K2) // K2: lanes of K1 with s ≠ 0
	compress(Z1, K2, Z4)
	KMOVW(K2, EDX)
	POPCNTL(EDX, EDX) // DX: number of non-zero states
	lowLanes(EDX, K3) // K3: the low DX lanes
	VMOVDQU32(Z4, K3, at(RDI))
	LEAQ(ix(RDI, RDX, 4), RDI)

	Label("ixdone")
	SUBQ(RDI, R8)
	NEGQ(R8)
	SHRQ(imm(2), R8)
	Store(R8, ReturnIndex(0))
	vzeroRet()
}

// nanResult sets BX to the updates' result: 0 if no lane of the
// accumulator acc (the sum of w·0 over the new weights) is NaN, else a NaN.
// Clobbers AX, CX and K2.
func nanResult(acc Op) {
	VCMPPS(imm(3), acc, acc, K2) // UNORD_Q
	KMOVW(K2, EAX)
	XORL(EBX, EBX)
	MOVL(U32(0x7fc00000), ECX)
	TESTL(EAX, EAX)
	CMOVLNE(ECX, EBX)
}

// The updates keep products and sums in the Go code's order, unfused, so
// that w, ap and c round as in the generic kernel. R10 is the byte offset
// of the step in every slice.

// updateStart zeroes Z27 (0) and Z26 (the NaN accumulator) and R10, and
// jumps to done when BX, the length, is not positive.
func updateStart(done string) {
	VPXORD(Z27, Z27, Z27) // 0
	VPXORD(Z26, Z26, Z26) // NaN accumulator
	XORQ(R10, R10)        // R10: byte offset
	TESTQ(RBX, RBX)
	JLE(LabelRef(done))
}

// updateEnd places done and returns nanResult's verdict on Z26.
func updateEnd(done string) {
	Label(done)
	nanResult(Z26)
	MOVL(EBX, arg("ret"))
	vzeroRet()
}

func updateNCG() {
	text("updateNCGAVX512", "func(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32",
		"updateNCGAVX512: for k < len(w), as updateNCGGeneric:",
		"",
		"\tw0 := w[k]; nw := w0 + alpha*g[k]*a[k]",
		"\tp := min(max(ap[k] + alphaA*g[k]*w0, 0), 1)",
		"\tw[k], ap[k], a[k], c[k], g[k] = nw, p, b2f(p >= gamma), nw*a[k], 0",
		"",
		"It returns 0 if every nw is finite, else NaN. ap, a, c and g are at least as long as w.")
	Load(Param("w").Base(), RDI)
	Load(Param("ap").Base(), RSI)
	Load(Param("a").Base(), RDX)
	Load(Param("c").Base(), R8)
	Load(Param("g").Base(), R9)
	Load(Param("w").Len(), RBX)
	VBROADCASTSS(arg("alpha"), Z31)
	VBROADCASTSS(arg("alphaA"), Z30)
	VBROADCASTSS(arg("gamma"), Z29)
	bcast(0x3f800000, Z28) // 1
	updateStart("uncdone")
	elementwise("uncloop", []Register{R10}, func() {
		VMOVUPS_Z(ix(RDI, R10, 1), K1, Z0) // w0
		VMOVUPS_Z(ix(RSI, R10, 1), K1, Z1) // ap
		VMOVUPS_Z(ix(RDX, R10, 1), K1, Z2) // a
		VMOVUPS_Z(ix(R9, R10, 1), K1, Z3)  // g
		VMULPS(Z31, Z3, Z4)                // alpha·g
		VMULPS(Z2, Z4, Z4)                 // ·a
		VADDPS(Z4, Z0, Z5)                 // Z5: nw = w0 + alpha·g·a
		VMULPS(Z30, Z3, Z6)                // alphaA·g
		VMULPS(Z0, Z6, Z6)                 // ·w0
		VADDPS(Z6, Z1, Z1)                 // ap + alphaA·g·w0
		VMAXPS(Z1, Z27, Z1)                // max(·, 0)
		VMINPS(Z1, Z28, Z1)                // min(·, 1)
		VCMPPS(imm(13), Z29, Z1, K1, K2)   // K2: ap ≥ gamma (GE_OS)
		VMOVAPS_Z(Z28, K2, Z7)             // Z7: new a
		VMULPS(Z7, Z5, Z6)                 // Z6: c = nw·a
		VFMADD231PS(Z27, Z5, Z26)          // acc += nw·0
		VMOVUPS(Z5, K1, ix(RDI, R10, 1))
		VMOVUPS(Z1, K1, ix(RSI, R10, 1))
		VMOVUPS(Z7, K1, ix(RDX, R10, 1))
		VMOVUPS(Z6, K1, ix(R8, R10, 1))
		VMOVUPS(Z27, K1, ix(R9, R10, 1))
	})
	updateEnd("uncdone")
}

func updateMasked() {
	text("updateMaskedAVX512", "func(w, a, c, g []float32, alpha float32) float32",
		"updateMaskedAVX512: for k < len(w): nw := w[k] + alpha*g[k]*a[k];",
		"w[k], c[k], g[k] = nw, nw*a[k], 0. Returns 0 if every nw is finite, else NaN.",
		"a, c and g are at least as long as w.")
	Load(Param("w").Base(), RDI)
	Load(Param("a").Base(), RDX)
	Load(Param("c").Base(), R8)
	Load(Param("g").Base(), R9)
	Load(Param("w").Len(), RBX)
	VBROADCASTSS(arg("alpha"), Z31)
	updateStart("umdone")
	elementwise("umloop", []Register{R10}, func() {
		VMOVUPS_Z(ix(RDI, R10, 1), K1, Z0) // w
		VMOVUPS_Z(ix(RDX, R10, 1), K1, Z2) // a
		VMOVUPS_Z(ix(R9, R10, 1), K1, Z3)  // g
		VMULPS(Z31, Z3, Z4)                // alpha·g
		VMULPS(Z2, Z4, Z4)                 // ·a
		VADDPS(Z4, Z0, Z5)                 // nw
		VMULPS(Z2, Z5, Z6)                 // c = nw·a
		VFMADD231PS(Z27, Z5, Z26)          // acc += nw·0
		VMOVUPS(Z5, K1, ix(RDI, R10, 1))
		VMOVUPS(Z6, K1, ix(R8, R10, 1))
		VMOVUPS(Z27, K1, ix(R9, R10, 1))
	})
	updateEnd("umdone")
}

// updateDense: c may be nil (biases): then only w and g are written.
func updateDense() {
	text("updateDenseAVX512", "func(w, c, g []float32, alpha float32) float32",
		"updateDenseAVX512: for k < len(w): nw := w[k] + alpha*g[k]; w[k], g[k] = nw, 0;",
		"if c != nil { c[k] = nw }. Returns 0 if every nw is finite, else NaN.",
		"g, and c unless nil, are at least as long as w.")
	Load(Param("w").Base(), RDI)
	Load(Param("c").Base(), R8)
	Load(Param("g").Base(), R9)
	Load(Param("w").Len(), RBX)
	VBROADCASTSS(arg("alpha"), Z31)
	updateStart("uddone")
	Label("udloop")
	MOVQ(RBX, RCX)
	tailMask(K1)
	VMOVUPS_Z(ix(RDI, R10, 1), K1, Z0) // w
	VMOVUPS_Z(ix(R9, R10, 1), K1, Z3)  // g
	VMULPS(Z31, Z3, Z4)                // alpha·g
	VADDPS(Z4, Z0, Z5)                 // nw
	VFMADD231PS(Z27, Z5, Z26)          // acc += nw·0
	VMOVUPS(Z5, K1, ix(RDI, R10, 1))
	VMOVUPS(Z27, K1, ix(R9, R10, 1))
	TESTQ(R8, R8)
	JZ(LabelRef("udnext"))
	VMOVUPS(Z5, K1, ix(R8, R10, 1))
	Label("udnext")
	ADDQ(imm(64), R10)
	SUBQ(imm(16), RBX)
	JG(LabelRef("udloop"))
	updateEnd("uddone")
}

// changes: one pass over 16 states at a time: compare s and ref with 0
// (NEQ_UQ, as indices), derive the masks of ones, of units switched on
// (s ≠ 0, ref = 0) and off (s = 0, ref ≠ 0), compress the three lists'
// lane numbers into registers and store them, copy s to ref: one pass
// where two Indices, an Axpy, a copy and a Go loop would take five. As in
// indices, each compress goes to a register
// of its own, zeroed first, and whole vectors store all 16 lanes (the
// lists' entries past their counts are scratch, and 16 more stay within
// len(s)); only the tail masks its stores.
func changes() {
	text("changesAVX512", "func(idx, on, off []int32, ref, s []float32) (ones, non, noff int)",
		"changesAVX512: see Changes; n = len(s), and idx, on, off and ref are at least as long.")
	Load(Param("idx").Base(), RDI)
	Load(Param("on").Base(), R10)
	Load(Param("off").Base(), R11)
	Load(Param("ref").Base(), R9)
	Load(Param("s").Base(), RSI)
	Load(Param("s").Len(), RBX)
	MOVQ(RDI, R12) // the starts, for the counts
	MOVQ(R10, R13)
	MOVQ(R11, R14)
	TESTQ(RBX, RBX)
	JLE(LabelRef("chdone"))
	VMOVDQU32(lanes, Z1) // Z1: positions of the current 16 states
	bcast(16, Z2)
	VPXORD(Z3, Z3, Z3)
	// store puts the positions of the lanes in k at ptr (through z) and
	// advances ptr.
	store := func(k Op, ptr, z Register, whole bool) {
		compress(Z1, k, z)
		KMOVW(k, EDX)
		POPCNTL(EDX, EDX)
		if whole {
			VMOVDQU32(z, at(ptr))
		} else {
			lowLanes(EDX, K3)
			VMOVDQU32(z, K3, at(ptr))
		}
		LEAQ(ix(ptr, RDX, 4), ptr)
	}
	body := func(whole bool) {
		if whole {
			VMOVUPS(at(RSI), Z0)
			VMOVUPS(at(R9), Z5)
			VMOVUPS(Z0, at(R9))        // ref = s
			VCMPPS(imm(4), Z3, Z0, K2) // K2: s ≠ 0
			VCMPPS(imm(4), Z3, Z5, K4) // K4: ref ≠ 0
		} else {
			MOVQ(RBX, RCX)
			tailMask(K1)
			VMOVUPS_Z(at(RSI), K1, Z0)
			VMOVUPS_Z(at(R9), K1, Z5)
			VMOVUPS(Z0, K1, at(R9))
			VCMPPS(imm(4), Z3, Z0, K1, K2)
			VCMPPS(imm(4), Z3, Z5, K1, K4)
		}
		KANDNW(K2, K4, K5) // K5: s ≠ 0 and not ref ≠ 0: switched on
		KANDNW(K4, K2, K6) // K6: ref ≠ 0 and not s ≠ 0: switched off
		store(K2, RDI, Z4, whole)
		store(K5, R10, Z7, whole)
		store(K6, R11, Z8, whole)
	}
	Label("chloop")
	CMPQ(RBX, imm(16))
	JLT(LabelRef("chtail"))
	body(true)
	VPADDD(Z2, Z1, Z1)
	ADDQ(imm(64), RSI)
	ADDQ(imm(64), R9)
	SUBQ(imm(16), RBX)
	JMP(LabelRef("chloop"))
	Label("chtail")
	TESTQ(RBX, RBX)
	JLE(LabelRef("chdone"))
	body(false)
	Label("chdone")
	for i, p := range [][2]Register{{RDI, R12}, {R10, R13}, {R11, R14}} {
		SUBQ(p[1], p[0])
		SHRQ(imm(2), p[0])
		Store(p[0], ReturnIndex(i))
	}
	vzeroRet()
}

// compress puts the lanes of src selected by k at the bottom of dst. It
// zeroes dst first: VPCOMPRESSD merges into dst, so without that each
// compress into a register waits for the previous one into it, a chain
// through the whole loop (Zen 4 and 5 wait even in the zero-masking form).
// A register XORed with itself waits for nothing.
func compress(src, k, dst Op) {
	VPXORD(dst, dst, dst)
	VPCOMPRESSD(src, k, dst)
}
