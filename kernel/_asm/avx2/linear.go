package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// affineSig is the signature of both register tiles of the dense product.
const affineSig = "func(o0, o1, o2, o3, i0, i1, i2, i3, m []float32, ldm, nin, %s int)"

var outs = []string{"o0", "o1", "o2", "o3"}

func affine4x24() {
	text("affine4x24AVX2", sprintf(affineSig, "pfd"),
		"affine4x24AVX2 computes, for r < 4 and o < 24,",
		"",
		"	or[o] += Σ_{j<nin} ir[j] * m[j*ldm+o]",
		"",
		"for the four chains (or, ir) = (o0, i0) … (o3, i3); nin ≥ 1. It",
		"prefetches row j+pfd of m while it works on row j.")
	// The register tile of the dense product: four chains × 24 columns,
	// twelve accumulators (Y0–Y11) held across the whole input loop, so
	// that each m row chunk (three loads) feeds twelve FMAs and each input
	// value is one broadcast load. Twelve independent FMA chains cover Zen
	// 3's 4-cycle FMA latency at two FMAs per cycle; 7 loads (+3
	// prefetches) per 12 FMAs stay under its load ports. Row j+pfd of m is
	// prefetched (its 96 bytes span at most three cache lines: offsets 0,
	// 64, 95) because the first chain group of a panel reads m from L3.
	acc := []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11}
	in := []Register{RSI, RDI, R8, R9}
	m, ldm, j, nin := R10, R11, RAX, RCX
	for r, o := range outs {
		loadBase(o, RDX)
		for k := 0; k < 3; k++ {
			g.VMOVUPS(atd(RDX, 32*k), acc[3*r+k])
		}
	}
	for r, p := range in {
		loadBase(sprintf("i%d", r), p)
	}
	loadBase("m", m)
	load("ldm", ldm)
	g.SHLQ(operand.U8(2), ldm)
	load("nin", nin)
	load("pfd", R12)
	g.IMULQ(ldm, R12)
	g.XORQ(j, j)
	g.Label("aff24Loop")
	for _, d := range []int{0, 64, 95} {
		g.PREFETCHT0(mem{Base: m, Index: R12, Scale: 1, Disp: d})
	}
	row := []VecPhysical{Y12, Y13, Y14}
	for k, y := range row {
		g.VMOVUPS(atd(m, 32*k), y)
	}
	for r, p := range in {
		g.VBROADCASTSS(ix(p, j, 4), Y15)
		for k, y := range row {
			g.VFMADD231PS(y, Y15, acc[3*r+k])
		}
	}
	g.ADDQ(ldm, m)
	g.INCQ(j)
	g.CMPQ(j, nin)
	g.JLT(lbl("aff24Loop"))
	// All four rows were loaded before any is stored, so a chain repeated
	// in the tile (the wrapper's way of filling a short block) is harmless.
	for r, o := range outs {
		loadBase(o, RDX)
		for k := 0; k < 3; k++ {
			g.VMOVUPS(acc[3*r+k], atd(RDX, 32*k))
		}
	}
	g.VZEROUPPER()
	g.RET()
}

func affine4x16Mask() {
	text("affine4x16MaskAVX2", sprintf(affineSig, "w"),
		"affine4x16MaskAVX2 is affine4x24AVX2 for o < w ≤ 16 columns, touching no",
		"memory at or past column w.")
	// The column tail: four chains × w ≤ 16 columns with masked loads and
	// stores (masks in Y13, Y14), so nothing past column w is touched.
	acc := []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7}
	mask := []VecPhysical{Y13, Y14}
	in := []Register{RSI, RDI, R8, R9}
	m, ldm, j, nin := R10, R11, RAX, RCX
	load("w", RDX)
	tailMask(RDX, 0, X13, Y13)
	tailMask(RDX, 32, X14, Y14)
	for r, o := range outs {
		loadBase(o, RDX)
		for k := 0; k < 2; k++ {
			g.VMASKMOVPS(atd(RDX, 32*k), mask[k], acc[2*r+k])
		}
	}
	for r, p := range in {
		loadBase(sprintf("i%d", r), p)
	}
	loadBase("m", m)
	load("ldm", ldm)
	g.SHLQ(operand.U8(2), ldm)
	load("nin", nin)
	g.XORQ(j, j)
	g.Label("aff16Loop")
	row := []VecPhysical{Y8, Y9}
	for k, y := range row {
		g.VMASKMOVPS(atd(m, 32*k), mask[k], y)
	}
	for r, p := range in {
		g.VBROADCASTSS(ix(p, j, 4), Y15)
		for k, y := range row {
			g.VFMADD231PS(y, Y15, acc[2*r+k])
		}
	}
	g.ADDQ(ldm, m)
	g.INCQ(j)
	g.CMPQ(j, nin)
	g.JLT(lbl("aff16Loop"))
	for r, o := range outs {
		loadBase(o, RDX)
		for k := 0; k < 2; k++ {
			g.VMASKMOVPS(acc[2*r+k], mask[k], atd(RDX, 32*k))
		}
	}
	g.VZEROUPPER()
	g.RET()
}

// sum8 is Y0..Y7, the 64 column sums of sumRowsAVX2 and sumRowsBlockAVX2.
var sum8 = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7}

func sumRows() {
	text("sumRowsAVX2", "func(out, m []float32, stride int, idx []int32)",
		"sumRowsAVX2 computes",
		"",
		"	for _, j := range idx { for o := range out { out[o] += m[int(j)*stride+o] } }")
	// Column chunks of 64 (eight accumulators, one VADDPS from memory per
	// row and register), then of 8, then a masked tail. Rows are added in
	// idx order, as in the generic code, so the sums are bit-identical.
	out, mb, stride, idx, nidx, n, o, k, row := RDI, RSI, R8, R9, R10, RCX, RAX, RBX, RDX
	loadBase("out", out)
	loadLen("out", n)
	loadBase("m", mb)
	load("stride", stride)
	loadBase("idx", idx)
	loadLen("idx", nidx)
	g.XORQ(o, o)
	g.Label("sr64")
	g.LEAQ(atd(o, 64), R11)
	g.CMPQ(R11, n)
	g.JGT(lbl("sr8"))
	for q, y := range sum8 {
		g.VMOVUPS(ixd(out, o, 4, 32*q), y)
	}
	g.LEAQ(ix(mb, o, 4), R12)
	g.XORQ(k, k)
	g.CMPQ(k, nidx)
	g.JGE(lbl("sr64Store"))
	g.Label("sr64Row")
	g.MOVLQSX(ix(idx, k, 4), row)
	g.IMULQ(stride, row)
	g.LEAQ(ix(R12, row, 4), row)
	for q, y := range sum8 {
		g.VADDPS(atd(row, 32*q), y, y)
	}
	g.INCQ(k)
	g.CMPQ(k, nidx)
	g.JLT(lbl("sr64Row"))
	g.Label("sr64Store")
	for q, y := range sum8 {
		g.VMOVUPS(y, ixd(out, o, 4, 32*q))
	}
	g.MOVQ(R11, o)
	g.JMP(lbl("sr64"))
	g.Label("sr8")
	g.LEAQ(atd(o, 8), R11)
	g.CMPQ(R11, n)
	g.JGT(lbl("srTail"))
	g.VMOVUPS(ix(out, o, 4), Y0)
	g.LEAQ(ix(mb, o, 4), R12)
	g.XORQ(k, k)
	g.CMPQ(k, nidx)
	g.JGE(lbl("sr8Store"))
	g.Label("sr8Row")
	g.MOVLQSX(ix(idx, k, 4), row)
	g.IMULQ(stride, row)
	g.VADDPS(ix(R12, row, 4), Y0, Y0)
	g.INCQ(k)
	g.CMPQ(k, nidx)
	g.JLT(lbl("sr8Row"))
	g.Label("sr8Store")
	g.VMOVUPS(Y0, ix(out, o, 4))
	g.MOVQ(R11, o)
	g.JMP(lbl("sr8"))
	g.Label("srTail")
	g.MOVQ(n, R11)
	g.SUBQ(o, R11)
	g.JZ(lbl("srDone"))
	tailMask(R11, 0, X15, Y15)
	g.VMASKMOVPS(ix(out, o, 4), Y15, Y0)
	g.LEAQ(ix(mb, o, 4), R12)
	g.XORQ(k, k)
	g.CMPQ(k, nidx)
	g.JGE(lbl("srTailStore"))
	g.Label("srTailRow")
	g.MOVLQSX(ix(idx, k, 4), row)
	g.IMULQ(stride, row)
	g.VMASKMOVPS(ix(R12, row, 4), Y15, Y1)
	g.VADDPS(Y1, Y0, Y0)
	g.INCQ(k)
	g.CMPQ(k, nidx)
	g.JLT(lbl("srTailRow"))
	g.Label("srTailStore")
	g.VMASKMOVPS(Y0, Y15, ix(out, o, 4))
	g.Label("srDone")
	g.VZEROUPPER()
	g.RET()
}

func sumRowsBlock() {
	text("sumRowsBlockAVX2",
		"func(out []float32, ldo int, m []float32, ldm int, idx []int32, ldi int, counts, cursors []int32, r1, nc int)",
		"sumRowsBlockAVX2: for c < nc: for the indices j = idx[c*ldi+k],",
		"cursors[c] ≤ k < counts[c], while j < r1: out[c*ldo+o] += m[j*ldm+o] for",
		"o < 64; cursors[c] = the first k not taken. nc ≥ 1.")
	// One row block of the blocked binary product on a 64-column tile: for
	// each chain c < nc, the rows idx[c*ldi+k], k from cursors[c] while <
	// counts[c] and the row < r1 (they increase), are added to
	// out[c*ldo : c*ldo+64] in Y0-Y7, and cursors[c] moves past them.
	loadBase("out", RDI)
	loadBase("m", RSI)
	load("ldm", RDX)
	g.SHLQ(operand.U8(2), RDX) // DX: bytes per row of m
	loadBase("idx", R8)        // R8: this chain's indices
	load("ldi", R9)
	g.SHLQ(operand.U8(2), R9) // R9: bytes per chain of idx
	loadBase("counts", R10)
	loadBase("cursors", R11)
	load("r1", R12)
	load("nc", R13)

	g.Label("sbaChain")
	g.MOVLQSX(at(R11), RAX)
	g.MOVLQSX(at(R10), RBX)
	g.CMPQ(RAX, RBX)
	g.JGE(lbl("sbaNext"))
	g.LEAQ(ix(R8, RAX, 4), RAX) // AX: next index
	g.LEAQ(ix(R8, RBX, 4), RBX) // BX: end of the chain's indices
	g.MOVLQSX(at(RAX), RCX)
	g.CMPQ(RCX, R12)
	g.JGE(lbl("sbaNext"))
	for q, y := range sum8 {
		g.VMOVUPS(atd(RDI, 32*q), y)
	}

	g.Label("sbaRow")
	g.IMULQ(RDX, RCX)
	g.ADDQ(RSI, RCX)
	for q, y := range sum8 {
		g.VADDPS(atd(RCX, 32*q), y, y)
	}
	g.ADDQ(operand.U8(4), RAX)
	g.CMPQ(RAX, RBX)
	g.JGE(lbl("sbaStore"))
	g.MOVLQSX(at(RAX), RCX)
	g.CMPQ(RCX, R12)
	g.JLT(lbl("sbaRow"))

	g.Label("sbaStore")
	for q, y := range sum8 {
		g.VMOVUPS(y, atd(RDI, 32*q))
	}
	g.SUBQ(R8, RAX)
	g.SHRQ(operand.U8(2), RAX)
	g.MOVL(EAX, at(R11))

	g.Label("sbaNext")
	g.ADDQ(operand.U8(4), R10)
	g.ADDQ(operand.U8(4), R11)
	g.ADDQ(R9, R8)
	load("ldo", RCX)
	g.LEAQ(ix(RDI, RCX, 4), RDI)
	g.DECQ(R13)
	g.JNZ(lbl("sbaChain"))
	g.VZEROUPPER()
	g.RET()
}

// bitConsts sets Y15 to bytes 0x0f, Y14 to the population counts of the
// nibbles 0…15 in each lane (VPSHUFB's table) and Y13 to 0. Clobbers AX.
func bitConsts() {
	g.MOVQ(operand.U64(0x0f0f0f0f0f0f0f0f), RAX)
	g.VMOVQ(RAX, X15)
	g.VPBROADCASTQ(X15, Y15)
	g.MOVQ(operand.U64(0x0302020102010100), RAX)
	g.VMOVQ(RAX, X14)
	g.MOVQ(operand.U64(0x0403030203020201), RAX)
	g.VPINSRQ(operand.U8(1), RAX, X14, X14)
	g.VINSERTI128(operand.U8(1), X14, Y14, Y14)
	g.VPXOR(Y13, Y13, Y13)
}

// bothOn8: BothOn for units o < n8 (a multiple of 8) of b, 8 a step:
// the bits in common of four words at a time counted by nibble (VPSHUFB
// on Y14, Muła's method), summed per word by VPSADBW, and the two
// vectors' four 64-bit counts interleaved into dwords and put in order by
// VPERMD (Y12: 0, 2, 4, 6, 1, 3, 5, 7) before VCVTDQ2PS. Registers: R8 a
// at unit i, R9 out's row, R10 b at the step, R11 units of a left, R12 o,
// R13 words left, AX a's word; DX and SI the strides of a and b in bytes.
func bothOn8() {
	text("bothOn8AVX2", "func(out []float32, ldo int, a []uint64, lda int, b []uint64, ldb, words, ni, n8 int)",
		"bothOn8AVX2: for i < ni, o < n8: out[i*ldo+o] = Σ_{w<words} popcount(a[w*lda+i] & b[w*ldb+o]).",
		"ni, words ≥ 1; n8 a multiple of 8, ≥ 8.")
	bitConsts()
	g.MOVQ(operand.U64(2<<32|0), RAX)
	g.VMOVQ(RAX, X12)
	g.MOVQ(operand.U64(6<<32|4), RAX)
	g.VPINSRQ(operand.U8(1), RAX, X12, X12)
	g.MOVQ(operand.U64(3<<32|1), RAX)
	g.VMOVQ(RAX, X11)
	g.MOVQ(operand.U64(7<<32|5), RAX)
	g.VPINSRQ(operand.U8(1), RAX, X11, X11)
	g.VINSERTI128(operand.U8(1), X11, Y12, Y12)
	loadBase("out", R9)
	loadBase("a", R8)
	load("ni", R11)
	load("lda", RDX)
	g.SHLQ(operand.U8(3), RDX)
	load("ldb", RSI)
	g.SHLQ(operand.U8(3), RSI)
	g.Label("bo8unit")
	g.XORQ(R12, R12)
	g.Label("bo8step")
	g.VPXOR(Y0, Y0, Y0)
	g.VPXOR(Y1, Y1, Y1)
	loadBase("b", R10)
	g.LEAQ(ix(R10, R12, 8), R10)
	g.MOVQ(R8, RAX)
	load("words", R13)
	g.Label("bo8word")
	g.VPBROADCASTQ(at(RAX), Y2)
	for v, acc := range []VecPhysical{Y0, Y1} {
		g.VPAND(atd(R10, 32*v), Y2, Y3)
		g.VPAND(Y15, Y3, Y4) // low nibbles
		g.VPSRLW(operand.U8(4), Y3, Y3)
		g.VPAND(Y15, Y3, Y3) // high nibbles
		g.VPSHUFB(Y4, Y14, Y4)
		g.VPSHUFB(Y3, Y14, Y3)
		g.VPADDB(Y4, Y3, Y3)
		g.VPSADBW(Y13, Y3, Y3) // per 64-bit word
		g.VPADDQ(Y3, acc, acc)
	}
	g.ADDQ(RDX, RAX)
	g.ADDQ(RSI, R10)
	g.DECQ(R13)
	g.JNZ(lbl("bo8word"))
	g.VPSLLQ(operand.U8(32), Y1, Y1)
	g.VPOR(Y0, Y1, Y0)
	g.VPERMD(Y0, Y12, Y0)
	g.VCVTDQ2PS(Y0, Y0)
	g.VMOVUPS(Y0, ix(R9, R12, 4))
	g.ADDQ(operand.U8(8), R12)
	g.CMPQ(R12, arg("n8"))
	g.JLT(lbl("bo8step"))
	load("ldo", RCX)
	g.LEAQ(ix(R9, RCX, 4), R9)
	g.ADDQ(operand.U8(8), R8)
	g.DECQ(R11)
	g.JNZ(lbl("bo8unit"))
	g.VZEROUPPER()
	g.RET()
}

// packBits64x8: PackBits for units u < n8 (a multiple of 8), 8 a step:
// VCMPPS gives each unit's mask of a chain as a dword, VPMOVSXDQ widens
// the two halves to the units' words, and the chain's bit (Y5) is ANDed
// in and ORed into Y0 (units 0–3) and Y1 (4–7). Registers: SI s at the
// step, DI bits at the step, R8 units left, R10 chain, R11 its row, R12
// the bit, R13 chains left in the word, R14 the word's row of bits; DX,
// BX the strides of s and bits in bytes.
func packBits64x8() {
	text("packBits64x8AVX2", "func(bits []uint64, ldb int, s []float32, lds, nc, n8 int)",
		"packBits64x8AVX2: for c < nc, u < n8: bit c%64 of bits[(c/64)*ldb+u] = (s[c*lds+u] != ±0),",
		"the bits of chains past nc 0. nc ≥ 1; n8 a multiple of 8, ≥ 8.")
	loadBase("bits", RDI)
	loadBase("s", RSI)
	load("n8", R8)
	load("lds", RDX)
	g.SHLQ(operand.U8(2), RDX)
	load("ldb", RBX)
	g.SHLQ(operand.U8(3), RBX)
	g.VPXOR(Y13, Y13, Y13) // 0.0
	g.Label("pb8units")
	g.MOVQ(RDI, R14)
	g.XORQ(R10, R10)
	g.MOVQ(RSI, R11)
	g.Label("pb8word")
	g.VPXOR(Y0, Y0, Y0)
	g.VPXOR(Y1, Y1, Y1)
	g.MOVL(operand.U32(1), R12L)
	load("nc", R13)
	g.SUBQ(R10, R13)
	g.CMPQ(R13, operand.U8(64))
	g.MOVL(operand.U32(64), EAX)
	g.CMOVQGT(RAX, R13)
	g.ADDQ(R13, R10)
	g.Label("pb8chain")
	g.VCMPPS(operand.U8(4), at(R11), Y13, Y2) // NEQ_UQ: not ±0, or NaN
	g.VMOVQ(R12, X5)
	g.VPBROADCASTQ(X5, Y5)
	g.VPMOVSXDQ(X2, Y3)
	g.VEXTRACTI128(operand.U8(1), Y2, X4)
	g.VPMOVSXDQ(X4, Y4)
	g.VPAND(Y5, Y3, Y3)
	g.VPAND(Y5, Y4, Y4)
	g.VPOR(Y3, Y0, Y0)
	g.VPOR(Y4, Y1, Y1)
	g.SHLQ(operand.U8(1), R12)
	g.ADDQ(RDX, R11)
	g.DECQ(R13)
	g.JNZ(lbl("pb8chain"))
	g.VMOVDQU(Y0, at(R14))
	g.VMOVDQU(Y1, atd(R14, 32))
	g.ADDQ(RBX, R14)
	g.CMPQ(R10, arg("nc"))
	g.JLT(lbl("pb8word"))
	g.ADDQ(operand.U8(32), RSI)
	g.ADDQ(operand.U8(64), RDI)
	g.SUBQ(operand.U8(8), R8)
	g.JNZ(lbl("pb8units"))
	g.VZEROUPPER()
	g.RET()
}
