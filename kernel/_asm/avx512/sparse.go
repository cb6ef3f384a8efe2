package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// sparseAffine is the product of a compressed-row matrix with 16·regs
// interleaved chains, regs ZMM registers an output row (the AVX2
// generator's sparseAffine with 512-bit registers): each entry broadcasts
// its value, multiplies its column's inputs and adds the products, rounded
// before the sum (no FMA), in the order of the entries. A bias of −0
// starts at +0.
func sparseAffine(regs int) {
	lanes := 16 * regs
	name := fmt.Sprintf("sparseAffine%dAVX512", lanes)
	text(name, "func(out, bias, in []float32, ptr, col []int32, val []float32)",
		fmt.Sprintf("%s computes, for o < len(ptr)−1 and l < %d,", name, lanes),
		"",
		fmt.Sprintf("	out[o*%d+l] = bias[o] + Σ_{k=ptr[o]}^{ptr[o+1]−1} float32(val[k]*in[col[k]*%d+l])", lanes, lanes),
		"",
		"the terms added in the order of k, bias[o] read as 0 when bias is nil.")
	csrRows(fmt.Sprintf("sp%d", lanes), regs, "in", func() {
		MOVLQSX(ix(R10, RBX, 4), R13)
		SHLQ(imm(5+regs), R13)
		ADDQ(R8, R13)
		VBROADCASTSS(ix(R11, RBX, 4), Z8)
		for r := 0; r < regs; r++ {
			VMULPS(atd(R13, 64*r), Z8, zmm(4+r))
		}
		for r := 0; r < regs; r++ {
			VADDPS(zmm(4+r), zmm(r), zmm(r))
		}
	})
}

// csrRows writes the loop over the output rows of a compressed-row matrix
// (ptr, col, val) for regs ZMM registers of sums (Z0…): each row's sums
// start at its bias (0 without one, +0 for −0), entry adds the row's entry
// k (in BX, val in R11, col in R10, the inputs named in in R8), and the row
// is stored at out + o·64·regs. Also AX (o), CX (rows), R12 (the row's
// end), R13 (scratch), Z8 and Z9 (zero).
func csrRows(p string, regs int, in string, entry func()) {
	Load(Param("out").Base(), RDI)
	Load(Param("bias").Base(), RSI)
	Load(Param(in).Base(), R8)
	Load(Param("ptr").Base(), R9)
	Load(Param("ptr").Len(), RCX)
	Load(Param("col").Base(), R10)
	Load(Param("val").Base(), R11)
	DECQ(RCX)
	VXORPS(Z9, Z9, Z9)
	XORQ(RAX, RAX) // o
	XORQ(RBX, RBX) // k; ptr[0] = 0 (NewCSR)
	Label(p + "Row")
	CMPQ(RAX, RCX)
	JGE(LabelRef(p + "Done"))
	MOVLQSX(ixd(R9, RAX, 4, 4), R12) // end of the row
	for r := 0; r < regs; r++ {
		VXORPS(zmm(r), zmm(r), zmm(r))
	}
	TESTQ(RSI, RSI)
	JZ(LabelRef(p + "Sum"))
	for r := 0; r < regs; r++ {
		VBROADCASTSS(ix(RSI, RAX, 4), zmm(r))
		VADDPS(Z9, zmm(r), zmm(r)) // −0 + 0 = +0
	}
	Label(p + "Sum")
	CMPQ(RBX, R12)
	JGE(LabelRef(p + "Store"))
	entry()
	INCQ(RBX)
	JMP(LabelRef(p + "Sum"))
	Label(p + "Store")
	MOVQ(RAX, R13)
	SHLQ(imm(5+regs), R13)
	ADDQ(RDI, R13)
	for r := 0; r < regs; r++ {
		VMOVUPS(zmm(r), atd(R13, 64*r))
	}
	INCQ(RAX)
	JMP(LabelRef(p + "Row"))
	Label(p + "Done")
	vzeroRet()
}

// gatherSum sums rows of src at a list of columns, 16 columns a step:
// VGATHERDPS fetches src[row*stride + col[k…k+15]] for one row at a time
// and the rows are added in order, so every lane sums its column as the
// generic loop does. The opmask of the gather is consumed by the
// instruction and set again from K2 (the step's lanes) before each one;
// the destination is cleared first, so that masked-off lanes add zero.
func gatherSum() {
	text("gatherSumAVX512", "func(dst, src []float32, stride int, rows []int32, cols []int32)",
		"gatherSumAVX512 computes, for k < len(cols),",
		"",
		"	dst[k] = Σ_t src[rows[t]*stride+cols[k]]",
		"",
		"adding from 0 in the order of t.")
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("stride"), RDX)
	SHLQ(imm(2), RDX) // bytes
	Load(Param("rows").Base(), R8)
	Load(Param("rows").Len(), R9)
	Load(Param("cols").Base(), R11)
	Load(Param("cols").Len(), R12)
	XORQ(RAX, RAX) // k
	Label("gsStep")
	MOVQ(R12, RCX)
	SUBQ(RAX, RCX)
	JLE(LabelRef("gsDone"))
	MOVQ(RAX, R13)
	tailMask(K2) // clobbers AX and CX
	MOVQ(R13, RAX)
	VMOVDQU32_Z(ix(R11, RAX, 4), K2, Z2)
	VXORPS(Z0, Z0, Z0)
	XORQ(RBX, RBX) // t
	Label("gsRow")
	CMPQ(RBX, R9)
	JGE(LabelRef("gsStore"))
	MOVLQSX(ix(R8, RBX, 4), R14)
	IMULQ(RDX, R14)
	ADDQ(RSI, R14)
	KMOVW(K2, K1)
	VXORPS(Z1, Z1, Z1)
	VGATHERDPS(Mem{Base: R14, Index: Z2, Scale: 4}, K1, Z1)
	VADDPS(Z1, Z0, Z0)
	INCQ(RBX)
	JMP(LabelRef("gsRow"))
	Label("gsStore")
	VMOVUPS(Z0, K2, ix(RDI, RAX, 4))
	ADDQ(imm(16), RAX)
	JMP(LabelRef("gsStep"))
	Label("gsDone")
	vzeroRet()
}

// packBits packs the 0/1 inputs of nc ≤ 32 chains (chain-major rows of n
// floats) into one word per unit, bit c for chain c, 16 units a step: each
// chain's 16 inputs are compared with 0 (a masked load at the end of a
// row, so nothing past it is read) and OR the chain's bit into the lanes
// of the units that are on.
func packBits() {
	text("packBitsAVX512", "func(bits []uint32, in []float32, nc, n int)",
		"packBitsAVX512 sets bits[j] to the word whose bit c is in[c*n+j] != 0,",
		"for c < nc ≤ 32 and j < n.")
	Load(Param("bits").Base(), RDI)
	Load(Param("in").Base(), RSI)
	Load(Param("nc"), R8)
	Load(Param("n"), R9)
	MOVQ(R9, R10)
	SHLQ(imm(2), R10) // R10: bytes of a chain's row
	VXORPS(Z3, Z3, Z3)
	XORQ(R11, R11) // j
	Label("pbStep")
	MOVQ(R9, RCX)
	SUBQ(R11, RCX)
	JLE(LabelRef("pbDone"))
	tailMask(K2) // clobbers AX and CX
	VPXORD(Z0, Z0, Z0)
	LEAQ(ix(RSI, R11, 4), R12) // chain 0's inputs j…
	XORQ(RBX, RBX)             // c
	MOVL(U32(1), EDX)          // 1 << c
	Label("pbChain")
	CMPQ(RBX, R8)
	JGE(LabelRef("pbStore"))
	VMOVUPS_Z(at(R12), K2, Z1)
	VCMPPS(imm(4), Z3, Z1, K2, K1) // K1: inputs ≠ 0 (NEQ_UQ)
	VPBROADCASTD(EDX, Z2)
	VPORD(Z2, Z0, K1, Z0)
	ADDQ(R10, R12)
	SHLL(imm(1), EDX)
	INCQ(RBX)
	JMP(LabelRef("pbChain"))
	Label("pbStore")
	VMOVDQU32(Z0, K2, ix(RDI, R11, 4))
	ADDQ(imm(16), R11)
	JMP(LabelRef("pbStep"))
	Label("pbDone")
	vzeroRet()
}

// sparseBits is the product of a compressed-row matrix with 16 or 32
// chains whose inputs are packed one bit a chain (packBits): each entry
// loads its unit's word as an opmask and adds its value to the selected
// lanes of one or two ZMM registers (merge-masked VADDPS: the other lanes
// keep their sums, as a skipped term would). A bias of −0 starts at +0.
func sparseBits(regs int) {
	lanes := 16 * regs
	name := fmt.Sprintf("sparseBits%dAVX512", lanes)
	text(name, "func(out, bias []float32, bits []uint32, ptr, col []int32, val []float32)",
		fmt.Sprintf("%s computes, for o < len(ptr)−1 and l < %d,", name, lanes),
		"",
		fmt.Sprintf("	out[o*%d+l] = bias[o] + Σ_{k=ptr[o]…ptr[o+1]−1, bit l of bits[col[k]] set} val[k]", lanes),
		"",
		"the terms added in the order of k; a nil bias is 0 and a −0 bias is +0.")
	csrRows(fmt.Sprintf("sb%d", lanes), regs, "bits", func() {
		MOVLQSX(ix(R10, RBX, 4), R13)
		VBROADCASTSS(ix(R11, RBX, 4), Z8)
		if regs == 1 {
			KMOVW(ix(R8, R13, 4), K1)
			VADDPS(Z8, Z0, K1, Z0)
			return
		}
		KMOVD(ix(R8, R13, 4), K1)
		KSHIFTRD(imm(16), K1, K2)
		VADDPS(Z8, Z0, K1, Z0)
		VADDPS(Z8, Z1, K2, Z1)
	})
}
