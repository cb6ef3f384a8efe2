package main

import (
	"math/bits"

	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// sparseAffine is the product of a compressed-row matrix with 8·regs
// interleaved chains: regs YMM registers hold an output row's lanes, and
// each entry adds val·in[col] to them, the product rounded before the sum
// (VMULPS then VADDPS, never an FMA, so that real-valued inputs round as
// in the generic code). The entry's column and value are loaded once for
// all the lanes. A bias of −0 starts at +0. A row's sums are one dependency chain; the rows' chains
// are independent, and the out-of-order core overlaps them.
func sparseAffine(regs int) {
	lanes := 8 * regs
	name := sprintf("sparseAffine%dAVX2", lanes)
	text(name, "func(out, bias, in []float32, ptr, col []int32, val []float32)",
		sprintf("%s computes, for o < len(ptr)−1 and l < %d,", name, lanes),
		"",
		sprintf("	out[o*%d+l] = bias[o] + Σ_{k=ptr[o]}^{ptr[o+1]−1} float32(val[k]*in[col[k]*%d+l])", lanes, lanes),
		"",
		"the terms added in the order of k, bias[o] read as 0 when bias is nil.")
	out, bias, in, ptr, col, val := RDI, RSI, R8, R9, R10, R11
	o, nout, k, end, j := RAX, RCX, RBX, R12, R13
	acc := []VecPhysical{Y0, Y1, Y2, Y3}[:regs]
	tmp := []VecPhysical{Y4, Y5, Y6, Y7}[:regs]
	shift := operand.U8(4 + bits.Len(uint(regs))) // log2 of a unit's bytes, 32·regs
	p := sprintf("sp%d", lanes)
	loadBase("out", out)
	loadBase("bias", bias)
	loadBase("in", in)
	loadBase("ptr", ptr)
	loadLen("ptr", nout)
	loadBase("col", col)
	loadBase("val", val)
	g.DECQ(nout)
	g.VXORPS(Y9, Y9, Y9)
	g.XORQ(o, o)
	g.XORQ(k, k) // ptr[0] = 0 (NewCSR)
	g.Label(p + "Row")
	g.CMPQ(o, nout)
	g.JGE(lbl(p + "Done"))
	g.MOVLQSX(ixd(ptr, o, 4, 4), end)
	for _, a := range acc {
		g.VXORPS(a, a, a)
	}
	g.TESTQ(bias, bias)
	g.JZ(lbl(p + "Sum"))
	for _, a := range acc {
		g.VBROADCASTSS(ix(bias, o, 4), a)
		g.VADDPS(Y9, a, a) // −0 + 0 = +0
	}
	g.Label(p + "Sum")
	g.CMPQ(k, end)
	g.JGE(lbl(p + "Store"))
	g.MOVLQSX(ix(col, k, 4), j)
	g.SHLQ(shift, j)
	g.ADDQ(in, j)
	g.VBROADCASTSS(ix(val, k, 4), Y8)
	for r := range acc {
		g.VMULPS(atd(j, 32*r), Y8, tmp[r])
	}
	for r, a := range acc {
		g.VADDPS(tmp[r], a, a)
	}
	g.INCQ(k)
	g.JMP(lbl(p + "Sum"))
	g.Label(p + "Store")
	g.MOVQ(o, j)
	g.SHLQ(shift, j)
	g.ADDQ(out, j)
	for r, a := range acc {
		g.VMOVUPS(a, atd(j, 32*r))
	}
	g.INCQ(o)
	g.JMP(lbl(p + "Row"))
	g.Label(p + "Done")
	g.VZEROUPPER()
	g.RET()
}

// gatherSum sums rows of src at a list of columns, eight columns a step:
// VGATHERDPS fetches src[row*stride + col[k…k+7]] for one row at a time,
// and the rows are added in order, so every lane sums its column as the
// generic loop does. The gather's mask register is consumed by the
// instruction and set again before each one; the destination is cleared
// first, so that masked-off lanes of the tail add zero.
func gatherSum() {
	text("gatherSumAVX2", "func(dst, src []float32, stride int, rows []int32, cols []int32)",
		"gatherSumAVX2 computes, for k < len(cols),",
		"",
		"	dst[k] = Σ_t src[rows[t]*stride+cols[k]]",
		"",
		"adding from 0 in the order of t.")
	dst, src, stride, rows, nrows, cols, n := RDI, RSI, RDX, R8, R9, R11, RCX
	k, t, p, next := RAX, RBX, R12, R13
	loadBase("dst", dst)
	loadBase("src", src)
	load("stride", stride)
	g.SHLQ(operand.U8(2), stride) // bytes
	loadBase("rows", rows)
	loadLen("rows", nrows)
	loadBase("cols", cols)
	loadLen("cols", n)
	g.XORQ(k, k)
	g.VPCMPEQD(Y8, Y8, Y8) // all lanes
	// body sums the rows into Y0 for the column indices in Y2 and the lane
	// mask in Y9 (Y8 or the tail's).
	body := func(p string) {
		g.VXORPS(Y0, Y0, Y0)
		g.XORQ(t, t)
		g.Label(p + "Row")
		g.CMPQ(t, nrows)
		g.JGE(lbl(p + "End"))
		g.MOVLQSX(ix(rows, t, 4), R14)
		g.IMULQ(stride, R14)
		g.ADDQ(src, R14)
		g.VMOVDQU(Y9, Y3)
		g.VXORPS(Y1, Y1, Y1)
		g.VGATHERDPS(Y3, mem{Base: R14, Index: Y2, Scale: 4}, Y1)
		g.VADDPS(Y1, Y0, Y0)
		g.INCQ(t)
		g.JMP(lbl(p + "Row"))
		g.Label(p + "End")
	}
	g.Label("gs8")
	g.LEAQ(atd(k, 8), next)
	g.CMPQ(next, n)
	g.JGT(lbl("gsTail"))
	g.VMOVDQU(ix(cols, k, 4), Y2)
	g.VMOVDQU(Y8, Y9)
	body("gsFull")
	g.VMOVUPS(Y0, ix(dst, k, 4))
	g.MOVQ(next, k)
	g.JMP(lbl("gs8"))
	g.Label("gsTail")
	g.MOVQ(n, p)
	g.SUBQ(k, p)
	g.JZ(lbl("gsDone"))
	tailMask(p, 0, X9, Y9)
	g.VMASKMOVPS(ix(cols, k, 4), Y9, Y2) // masked-off lanes read as 0
	body("gsPart")
	g.VMASKMOVPS(Y0, Y9, ix(dst, k, 4))
	g.Label("gsDone")
	g.VZEROUPPER()
	g.RET()
}

// dotRows is the dot product of a with many rows of m, one YMM register of
// eight partial sums a row (term c into lane c mod 8; len(a) is a multiple
// of 8), each product rounded before it is added, then combined pairwise
// by two VHADDPS and the add of the two halves: ((s₀+s₁)+(s₂+s₃)) +
// ((s₄+s₅)+(s₆+s₇)), as the generic code adds them. The rows' sums are
// independent, and the out-of-order core overlaps them.
func dotRows() {
	text("dotRowsAVX2", "func(dst, a, m []float32, offs []int32)",
		"dotRowsAVX2 computes, for k < len(offs), dst[k] = Σ_c a[c]*m[offs[k]+c]",
		"in 8 interleaved partial sums combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7));",
		"len(a) is a multiple of 8.")
	dst, a, na, m, offs, n := RDI, RSI, RDX, R8, R9, RCX
	k, c, p := RAX, RBX, R10
	loadBase("dst", dst)
	loadBase("a", a)
	loadLen("a", na)
	loadBase("m", m)
	loadBase("offs", offs)
	loadLen("offs", n)
	g.XORQ(k, k)
	g.Label("drRow")
	g.CMPQ(k, n)
	g.JGE(lbl("drDone"))
	g.MOVLQSX(ix(offs, k, 4), p)
	g.LEAQ(ix(m, p, 4), p)
	g.VXORPS(Y0, Y0, Y0)
	g.XORQ(c, c)
	g.Label("drDot")
	g.CMPQ(c, na)
	g.JGE(lbl("drSum"))
	g.VMOVUPS(ix(a, c, 4), Y1)
	g.VMULPS(ix(p, c, 4), Y1, Y1)
	g.VADDPS(Y1, Y0, Y0)
	g.ADDQ(operand.U8(8), c)
	g.JMP(lbl("drDot"))
	g.Label("drSum")
	g.VHADDPS(Y0, Y0, Y0)
	g.VHADDPS(Y0, Y0, Y0)
	g.VEXTRACTF128(operand.U8(1), Y0, X1)
	g.VADDSS(X1, X0, X0)
	g.VMOVSS(X0, ix(dst, k, 4))
	g.INCQ(k)
	g.JMP(lbl("drRow"))
	g.Label("drDone")
	g.VZEROUPPER()
	g.RET()
}
