package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// sparseAffine8 is the product of a compressed-row matrix with eight
// interleaved chains: one YMM register holds an output row's eight lanes,
// and each entry adds val·in[col] to it, the product rounded before the
// sum (VMULPS then VADDPS, never an FMA, so that real-valued inputs round
// as in the generic code). A row's sums are one dependency chain; the
// rows' chains are independent, and the out-of-order core overlaps them.
func sparseAffine8() {
	text("sparseAffine8AVX2", "func(out, bias, in []float32, ptr, col []int32, val []float32)",
		"sparseAffine8AVX2 computes, for o < len(ptr)−1 and l < 8,",
		"",
		"	out[o*8+l] = bias[o] + Σ_{k=ptr[o]}^{ptr[o+1]−1} float32(val[k]*in[col[k]*8+l])",
		"",
		"the terms added in the order of k, bias[o] read as 0 when bias is nil.")
	out, bias, in, ptr, col, val := RDI, RSI, R8, R9, R10, R11
	o, nout, k, end, j := RAX, RCX, RBX, R12, R13
	loadBase("out", out)
	loadBase("bias", bias)
	loadBase("in", in)
	loadBase("ptr", ptr)
	loadLen("ptr", nout)
	loadBase("col", col)
	loadBase("val", val)
	g.DECQ(nout)
	g.XORQ(o, o)
	g.XORQ(k, k) // ptr[0] = 0 (NewCSR)
	g.Label("spRow")
	g.CMPQ(o, nout)
	g.JGE(lbl("spDone"))
	g.MOVLQSX(ixd(ptr, o, 4, 4), end)
	g.VXORPS(Y0, Y0, Y0)
	g.TESTQ(bias, bias)
	g.JZ(lbl("spSum"))
	g.VBROADCASTSS(ix(bias, o, 4), Y0)
	g.Label("spSum")
	// Two entries a step while two are left, then one.
	g.LEAQ(atd(k, 2), R14)
	g.CMPQ(R14, end)
	g.JGT(lbl("spOne"))
	g.MOVLQSX(ix(col, k, 4), j)
	g.SHLQ(operand.U8(5), j)
	g.VBROADCASTSS(ix(val, k, 4), Y1)
	g.VMULPS(ix(in, j, 1), Y1, Y1)
	g.MOVLQSX(ixd(col, k, 4, 4), j)
	g.SHLQ(operand.U8(5), j)
	g.VBROADCASTSS(ixd(val, k, 4, 4), Y2)
	g.VMULPS(ix(in, j, 1), Y2, Y2)
	g.VADDPS(Y1, Y0, Y0)
	g.VADDPS(Y2, Y0, Y0)
	g.MOVQ(R14, k)
	g.JMP(lbl("spSum"))
	g.Label("spOne")
	g.CMPQ(k, end)
	g.JGE(lbl("spStore"))
	g.MOVLQSX(ix(col, k, 4), j)
	g.SHLQ(operand.U8(5), j)
	g.VBROADCASTSS(ix(val, k, 4), Y1)
	g.VMULPS(ix(in, j, 1), Y1, Y1)
	g.VADDPS(Y1, Y0, Y0)
	g.INCQ(k)
	g.Label("spStore")
	g.MOVQ(o, j)
	g.SHLQ(operand.U8(5), j)
	g.VMOVUPS(Y0, ix(out, j, 1))
	g.INCQ(o)
	g.JMP(lbl("spRow"))
	g.Label("spDone")
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
	text("gatherSumAVX2", "func(dst, src []float32, stride int, rows []int32, weight []float32, cols []int32)",
		"gatherSumAVX2 computes, for k < len(cols),",
		"",
		"	dst[k] = Σ_t src[rows[t]*stride+cols[k]]                     (weight nil)",
		"	dst[k] = Σ_t float32(weight[t]*src[rows[t]*stride+cols[k]])",
		"",
		"adding from 0 in the order of t.")
	dst, src, stride, rows, nrows, wt, cols, n := RDI, RSI, RDX, R8, R9, R10, R11, RCX
	k, t, p, next := RAX, RBX, R12, R13
	loadBase("dst", dst)
	loadBase("src", src)
	load("stride", stride)
	g.SHLQ(operand.U8(2), stride) // bytes
	loadBase("rows", rows)
	loadLen("rows", nrows)
	loadBase("weight", wt)
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
		g.TESTQ(wt, wt)
		g.JZ(lbl(p + "Add"))
		g.VBROADCASTSS(ix(wt, t, 4), Y4)
		g.VMULPS(Y4, Y1, Y1)
		g.Label(p + "Add")
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
	tailmask(p, 0, X9, Y9)
	g.VMASKMOVPS(ix(cols, k, 4), Y9, Y2) // masked-off lanes read as 0
	body("gsPart")
	g.VMASKMOVPS(Y0, Y9, ix(dst, k, 4))
	g.Label("gsDone")
	g.VZEROUPPER()
	g.RET()
}
