package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func indices() {
	text("indicesAVX2", "func(idx []int32, s []float32) int",
		"indicesAVX2 computes",
		"",
		"	n := 0",
		"	for i, v := range s { if v != 0 { idx[n] = int32(i); n++ } }",
		"	return n",
		"",
		"It may write garbage to idx[n:len(s)] (never past len(s)).")
	// Branch-free stream compaction, 8 floats per step: the compare mask
	// selects an 8-byte row of compress<> (the set lanes' numbers, packed
	// low) that is widened to int32, offset by the block's base and stored
	// whole at idx[count]; count grows by popcnt8<>[mask]. The store may
	// write up to 8 values past the new count but, as count ≤ i, never past
	// idx[i+8] ≤ idx[len(s)]. The last partial block is done bit by bit.
	// NaN counts as non-zero (v != 0), −0 as zero, as in the generic code.
	// The tables avoid the POPCNT and BMI features, so the AVX2+FMA3 gate
	// is enough.
	idx, s, n, i, cnt, lut, popc := RDI, RSI, RCX, RAX, RBX, R8, R9
	loadBase("idx", idx)
	loadBase("s", s)
	loadLen("s", n)
	g.LEAQ(compress, lut)
	g.LEAQ(popcnt8, popc)
	g.XORQ(i, i)
	g.XORQ(cnt, cnt)
	g.VXORPS(Y15, Y15, Y15) // 0.0
	g.VPXOR(Y14, Y14, Y14)  // base: i in every lane
	g.VMOVDQU(eight, Y13)
	g.Label("ix8")
	g.LEAQ(atd(i, 8), R10)
	g.CMPQ(R10, n)
	g.JGT(lbl("ixTail"))
	g.VCMPPS(operand.U8(4), ix(s, i, 4), Y15, Y0) // NEQ_UQ: 0 != s (true for NaN)
	g.VMOVMSKPS(Y0, EDX)
	g.VPMOVZXBD(ix(lut, RDX, 8), Y1)
	g.VPADDD(Y14, Y1, Y1)
	g.VMOVDQU(Y1, ix(idx, cnt, 4))
	g.MOVBQZX(ix(popc, RDX, 1), RDX)
	g.ADDQ(RDX, cnt)
	g.VPADDD(Y13, Y14, Y14)
	g.MOVQ(R10, i)
	g.JMP(lbl("ix8"))
	g.Label("ixTail")
	g.MOVQ(n, R10)
	g.SUBQ(i, R10)
	g.JZ(lbl("ixDone"))
	tailMask(R10, 0, X2, Y2)
	g.VMASKMOVPS(ix(s, i, 4), Y2, Y0) // masked lanes read as 0
	g.VCMPPS(operand.U8(4), Y0, Y15, Y0)
	g.VMOVMSKPS(Y0, EDX)
	g.TESTQ(RDX, RDX)
	g.JZ(lbl("ixDone"))
	g.Label("ixBit")
	g.BSFQ(RDX, R10)
	g.ADDQ(i, R10)
	g.MOVL(R10L, ix(idx, cnt, 4))
	g.INCQ(cnt)
	g.LEAQ(atd(RDX, -1), R10)
	g.ANDQ(R10, RDX)
	g.JNZ(lbl("ixBit"))
	g.Label("ixDone")
	g.MOVQ(cnt, arg("ret"))
	g.VZEROUPPER()
	g.RET()
}

// The fused updates keep their constants in Y10–Y14 and fold w·0 of every
// new weight into the finiteness accumulator Y15 (0, or NaN once a weight
// is not finite), which hsum reduces to the result.
var (
	w, ap, a, c, gr, n, i = RDI, RSI, R8, R9, R10, RCX, RAX
)

// hsum stores the sum of Y15's lanes at ret.
func hsum() {
	g.VEXTRACTF128(operand.U8(1), Y15, X0)
	g.VADDPS(X15, X0, X0)
	g.VHADDPS(X0, X0, X0)
	g.VHADDPS(X0, X0, X0)
	g.VMOVSS(X0, arg("ret"))
}

// ncgStep is the NCG update of eight elements held in registers: w0 in Y0,
// g in Y1, a in Y2, ap in Y3. It leaves w in Y0, ap in Y4, a in Y2, c in Y1
// and folds w·0 into Y15. Constants: α Y10, αA Y11, γ Y12, 1.0 Y13, 0.0
// Y14. VMAXPS/VMINPS take p as the second operand so that a NaN p stays
// NaN (and gives a = 0), as math.Max/Min do.
func ncgStep() {
	g.VMULPS(Y11, Y1, Y4)
	g.VFMADD213PS(Y3, Y0, Y4)
	g.VMULPS(Y10, Y1, Y1)
	g.VFMADD231PS(Y2, Y1, Y0)
	g.VMAXPS(Y4, Y14, Y4)
	g.VMINPS(Y4, Y13, Y4)
	g.VCMPPS(operand.U8(13), Y12, Y4, Y2)
	g.VANDPS(Y13, Y2, Y2)
	g.VMULPS(Y2, Y0, Y1)
	g.VFMADD231PS(Y14, Y0, Y15)
}

// maskedStep: w0 Y0, g Y1, a Y2 → w Y0, c Y1 (α Y10, 0.0 Y14).
func maskedStep() {
	g.VMULPS(Y10, Y1, Y1)
	g.VFMADD231PS(Y2, Y1, Y0)
	g.VMULPS(Y2, Y0, Y1)
	g.VFMADD231PS(Y14, Y0, Y15)
}

// update writes the loop of a fused update: eight elements per step, then
// a masked tail. loads are the (pointer, register) pairs read before step,
// stores those written after it, in order.
type pr struct {
	p Register
	y VecPhysical
}

func update(p string, loads []pr, step func(), stores []pr) {
	g.XORQ(i, i)
	g.Label(p + "8")
	g.LEAQ(atd(i, 8), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl(p + "Tail"))
	for _, l := range loads {
		g.VMOVUPS(ix(l.p, i, 4), l.y)
	}
	step()
	for _, s := range stores {
		g.VMOVUPS(s.y, ix(s.p, i, 4))
	}
	g.MOVQ(RDX, i)
	g.JMP(lbl(p + "8"))
	g.Label(p + "Tail")
	g.MOVQ(n, RDX)
	g.SUBQ(i, RDX)
	g.JZ(lbl(p + "Done"))
	tailMask(RDX, 0, X9, Y9)
	for _, l := range loads {
		g.VMASKMOVPS(ix(l.p, i, 4), Y9, l.y)
	}
	step()
	for _, s := range stores {
		g.VMASKMOVPS(s.y, Y9, ix(s.p, i, 4))
	}
	g.Label(p + "Done")
	hsum()
	g.VZEROUPPER()
	g.RET()
}

func updateNCG() {
	text("updateNCGAVX2", "func(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32",
		"updateNCGAVX2 computes, for k < len(w),",
		"",
		"	w0 := w[k]",
		"	w[k] = w0 + alpha*g[k]*a[k]",
		"	ap[k] = min(max(ap[k]+alphaA*g[k]*w0, 0), 1)",
		"	a[k] = 1 if ap[k] >= gamma else 0",
		"	c[k] = w[k]*a[k]; g[k] = 0",
		"",
		"and returns Σ w[k]*0 (0, or NaN if some w[k] is not finite).")
	// One pass over the five arrays, eight elements per step (the loop is
	// bound by memory traffic: four streams read, five written).
	loadBase("w", w)
	loadLen("w", n)
	loadBase("ap", ap)
	loadBase("a", a)
	loadBase("c", c)
	loadBase("g", gr)
	g.VBROADCASTSS(arg("alpha"), Y10)
	g.VBROADCASTSS(arg("alphaA"), Y11)
	g.VBROADCASTSS(arg("gamma"), Y12)
	g.VMOVUPS(one, Y13)
	g.VXORPS(Y14, Y14, Y14)
	g.VXORPS(Y15, Y15, Y15)
	update("ncg",
		[]pr{{w, Y0}, {gr, Y1}, {a, Y2}, {ap, Y3}},
		ncgStep,
		[]pr{{w, Y0}, {ap, Y4}, {a, Y2}, {c, Y1}, {gr, Y14}})
}

func updateMasked() {
	text("updateMaskedAVX2", "func(w, a, c, g []float32, alpha float32) float32",
		"updateMaskedAVX2 computes w[k] += alpha*g[k]*a[k]; c[k] = w[k]*a[k];",
		"g[k] = 0 and returns Σ w[k]*0.")
	loadBase("w", w)
	loadLen("w", n)
	loadBase("a", a)
	loadBase("c", c)
	loadBase("g", gr)
	g.VBROADCASTSS(arg("alpha"), Y10)
	g.VXORPS(Y14, Y14, Y14)
	g.VXORPS(Y15, Y15, Y15)
	update("msk",
		[]pr{{w, Y0}, {gr, Y1}, {a, Y2}},
		maskedStep,
		[]pr{{w, Y0}, {c, Y1}, {gr, Y14}})
}

func updateDense() {
	text("updateDenseAVX2", "func(w, c, g []float32, alpha float32) float32",
		"updateDenseAVX2 computes w[k] += alpha*g[k]; c[k] = w[k]; g[k] = 0 and",
		"returns Σ w[k]*0. c is never nil (c = w means no copy).")
	// c must not be nil: the wrapper passes w itself for "no copy" (storing
	// the new weight twice to the same place). The full steps take g as a
	// memory operand of the FMA; the tail loads it masked first.
	loadBase("w", w)
	loadLen("w", n)
	loadBase("c", c)
	loadBase("g", gr)
	g.VBROADCASTSS(arg("alpha"), Y10)
	g.VXORPS(Y14, Y14, Y14)
	g.VXORPS(Y15, Y15, Y15)
	g.XORQ(i, i)
	g.Label("dns8")
	g.LEAQ(atd(i, 8), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl("dnsTail"))
	g.VMOVUPS(ix(w, i, 4), Y0)
	g.VFMADD231PS(ix(gr, i, 4), Y10, Y0)
	g.VFMADD231PS(Y14, Y0, Y15)
	g.VMOVUPS(Y0, ix(w, i, 4))
	g.VMOVUPS(Y0, ix(c, i, 4))
	g.VMOVUPS(Y14, ix(gr, i, 4))
	g.MOVQ(RDX, i)
	g.JMP(lbl("dns8"))
	g.Label("dnsTail")
	g.MOVQ(n, RDX)
	g.SUBQ(i, RDX)
	g.JZ(lbl("dnsDone"))
	tailMask(RDX, 0, X9, Y9)
	g.VMASKMOVPS(ix(w, i, 4), Y9, Y0)
	g.VMASKMOVPS(ix(gr, i, 4), Y9, Y1)
	g.VFMADD231PS(Y1, Y10, Y0)
	g.VFMADD231PS(Y14, Y0, Y15)
	g.VMASKMOVPS(Y0, Y9, ix(w, i, 4))
	g.VMASKMOVPS(Y0, Y9, ix(c, i, 4))
	g.VMASKMOVPS(Y14, Y9, ix(gr, i, 4))
	g.Label("dnsDone")
	hsum()
	g.VZEROUPPER()
	g.RET()
}

func transpose() {
	text("transposeAVX2", "func(dst, src []float32, rows, cols, ldd, lds int)",
		"transposeAVX2 computes dst[j*ldd+i] = src[i*lds+j] for i < rows&^7,",
		"j < cols&^7.")
	// The 8×8 blocks of the top-left (rows&^7)×(cols&^7) corner: eight row
	// loads, an in-register transpose (unpack pairs, shuffle quads, swap
	// 128-bit halves), eight column stores. The wrapper does the edges.
	dp, sp, cs, rs, r8x, c8x, i, j, p, q, t := RDI, RSI, R8, R9, R10, R11, RAX, RBX, RDX, R12, R13
	loadBase("dst", dp)
	loadBase("src", sp)
	load("rows", r8x)
	g.ANDQ(operand.I8(-8), r8x)
	load("cols", c8x)
	g.ANDQ(operand.I8(-8), c8x)
	load("ldd", rs)
	load("lds", cs)
	g.SHLQ(operand.U8(2), rs)
	g.SHLQ(operand.U8(2), cs)
	g.XORQ(i, i)
	g.Label("trRows")
	g.CMPQ(i, r8x)
	g.JGE(lbl("trDone"))
	g.XORQ(j, j)
	g.Label("trCols")
	g.CMPQ(j, c8x)
	g.JGE(lbl("trNext"))
	g.LEAQ(ix(sp, j, 4), p)
	// Rows k = 0..7 of the block at p + k·cs, addressed from p and t as
	// base + {0, 1, 2}·cs.
	rowsOf := func(base Register, y []VecPhysical, store bool, stride Register) {
		ops := []mem{at(base), ix(base, stride, 1), ix(base, stride, 2)}
		for k, v := range y {
			if store {
				g.VMOVUPS(v, ops[k])
			} else {
				g.VMOVUPS(ops[k], v)
			}
		}
	}
	rowsOf(p, []VecPhysical{Y0, Y1, Y2}, false, cs)
	g.LEAQ(ix(p, cs, 2), t)
	g.ADDQ(cs, t)
	rowsOf(t, []VecPhysical{Y3, Y4, Y5}, false, cs)
	g.LEAQ(ix(t, cs, 2), t)
	g.ADDQ(cs, t)
	rowsOf(t, []VecPhysical{Y6, Y7}, false, cs)
	for k := 0; k < 4; k++ {
		lo, hi := VecPhysical(ymm(2*k)), VecPhysical(ymm(2*k+1))
		g.VUNPCKLPS(hi, lo, ymm(8+2*k))
		g.VUNPCKHPS(hi, lo, ymm(9+2*k))
	}
	for k := 0; k < 4; k++ {
		x, y := ymm(8+4*(k/2)+k%2), ymm(10+4*(k/2)+k%2)
		g.VSHUFPS(operand.U8(0x44), y, x, ymm(2*k))
		g.VSHUFPS(operand.U8(0xEE), y, x, ymm(2*k+1))
	}
	for k := 0; k < 4; k++ {
		g.VPERM2F128(operand.U8(0x20), ymm(4+k), ymm(k), ymm(8+k))
	}
	for k := 0; k < 4; k++ {
		g.VPERM2F128(operand.U8(0x31), ymm(4+k), ymm(k), ymm(12+k))
	}
	g.MOVQ(j, q)
	g.IMULQ(rs, q)
	g.ADDQ(dp, q)
	rowsOf(q, []VecPhysical{Y8, Y9, Y10}, true, rs)
	g.LEAQ(ix(q, rs, 2), t)
	g.ADDQ(rs, t)
	rowsOf(t, []VecPhysical{Y11, Y12, Y13}, true, rs)
	g.LEAQ(ix(t, rs, 2), t)
	g.ADDQ(rs, t)
	rowsOf(t, []VecPhysical{Y14, Y15}, true, rs)
	g.ADDQ(operand.U8(8), j)
	g.JMP(lbl("trCols"))
	g.Label("trNext")
	g.LEAQ(ix(sp, cs, 8), sp)
	g.ADDQ(operand.U8(32), dp)
	g.ADDQ(operand.U8(8), i)
	g.JMP(lbl("trRows"))
	g.Label("trDone")
	g.VZEROUPPER()
	g.RET()
}

// ymm is register Yk.
func ymm(k int) VecPhysical {
	return []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}[k]
}

func taylorSums() {
	text("taylorSumsAVX2", "func(a, p []float32, s *[3][4]float64, lohi *[2][4]float32)",
		"taylorSumsAVX2 computes taylorSumsGeneric's partial sums for n = len(a), a",
		"positive multiple of 4, len(p) ≥ n. No FMA (the products are rounded",
		"as in the generic code): both x86 tiers use it.")
	// Four elements a step: lane k of Y0–Y2 is partial sum k of s1–s3 and
	// takes element i ≡ k (mod 4), in order, with the generic code's
	// operations one by one (products rounded, then added; no FMA), so the
	// bits are the same. X3/X4 keep each lane's least and greatest a:
	// VMINPS X3, X7, X3 is X3 = X7 < X3 ? X7 : X3, min32's rule (a NaN
	// leaves X3).
	loadBase("a", RSI)
	loadBase("p", RDI)
	loadLen("a", RCX)
	load("s", RDX)
	load("lohi", R8)
	g.VXORPD(Y0, Y0, Y0) // s1 lanes
	g.VXORPD(Y1, Y1, Y1) // s2 lanes
	g.VXORPD(Y2, Y2, Y2) // s3 lanes
	g.VXORPS(X3, X3, X3) // lo lanes
	g.VXORPS(X4, X4, X4) // hi lanes
	g.MOVQ(operand.U64(0x3ff0000000000000), RAX)
	g.MOVQ(RAX, X5)
	g.VBROADCASTSD(X5, Y5) // 1.0 (the register form is AVX2)
	g.XORQ(RAX, RAX)

	g.Label("tsloop")
	g.VMOVUPS(ix(RSI, RAX, 4), X7)
	g.VMINPS(X3, X7, X3)
	g.VMAXPS(X4, X7, X4)
	g.VCVTPS2PD(X7, Y7)              // x
	g.VCVTPS2PD(ix(RDI, RAX, 4), Y8) // q
	g.VMULPD(Y7, Y7, Y9)             // x·x
	g.VMULPD(Y8, Y8, Y10)            // q·q
	g.VSUBPD(Y10, Y8, Y10)           // q − q·q
	g.VMULPD(Y10, Y9, Y9)            // t
	g.VMULPD(Y8, Y7, Y10)            // x·q
	g.VADDPD(Y10, Y0, Y0)
	g.VADDPD(Y9, Y1, Y1)
	g.VMULPD(Y7, Y9, Y11)  // t·x
	g.VADDPD(Y8, Y8, Y12)  // 2q (exact, as 2·q)
	g.VSUBPD(Y12, Y5, Y12) // 1 − 2q
	g.VMULPD(Y12, Y11, Y11)
	g.VADDPD(Y11, Y2, Y2)
	g.ADDQ(operand.U8(4), RAX)
	g.CMPQ(RAX, RCX)
	g.JLT(lbl("tsloop"))

	g.VMOVUPD(Y0, at(RDX))
	g.VMOVUPD(Y1, atd(RDX, 32))
	g.VMOVUPD(Y2, atd(RDX, 64))
	g.VMOVUPS(X3, at(R8))
	g.VMOVUPS(X4, atd(R8, 16))
	g.VZEROUPPER()
	g.RET()
}
