package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// mapFunc is sigmoidV or softplusV.
type mapFunc func(x, t0, t1, t2, t3, o VecPhysical)

// elementwise writes the body of sigmoidAVX2 or softplusAVX2: dst[i] =
// f(src[i]), two independent vectors per step so that the long latencies
// (the divide) overlap, then one vector, then a masked tail.
func elementwise(p string, f mapFunc) {
	dst, src, n, i := RDI, RSI, RCX, RAX
	loadBase("dst", dst)
	loadBase("src", src)
	loadLen("src", n)
	g.VMOVUPS(one, Y15)
	g.XORQ(i, i)
	g.Label(p + "16")
	g.LEAQ(atd(i, 16), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl(p + "8"))
	g.VMOVUPS(ix(src, i, 4), Y0)
	g.VMOVUPS(ixd(src, i, 4, 32), Y5)
	f(Y0, Y1, Y2, Y3, Y4, Y15)
	f(Y5, Y6, Y7, Y8, Y9, Y15)
	g.VMOVUPS(Y0, ix(dst, i, 4))
	g.VMOVUPS(Y5, ixd(dst, i, 4, 32))
	g.MOVQ(RDX, i)
	g.JMP(lbl(p + "16"))
	g.Label(p + "8")
	g.LEAQ(atd(i, 8), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl(p + "Tail"))
	g.VMOVUPS(ix(src, i, 4), Y0)
	f(Y0, Y1, Y2, Y3, Y4, Y15)
	g.VMOVUPS(Y0, ix(dst, i, 4))
	g.MOVQ(RDX, i)
	g.Label(p + "Tail")
	g.MOVQ(n, RDX)
	g.SUBQ(i, RDX)
	g.JZ(lbl(p + "Done"))
	tailMask(RDX, 0, X10, Y10)
	g.VMASKMOVPS(ix(src, i, 4), Y10, Y0)
	f(Y0, Y1, Y2, Y3, Y4, Y15)
	g.VMASKMOVPS(Y0, Y10, ix(dst, i, 4))
	g.Label(p + "Done")
	g.VZEROUPPER()
	g.RET()
}

func sigmoid() {
	text("sigmoidAVX2", "func(dst, src []float32)",
		"sigmoidAVX2 computes dst[i] = σ(src[i]) = 1/(1+exp(-src[i])) (0 below",
		"−88), len(dst) = len(src). Measured worst error against the float64",
		"definition: relative 1.62e−7 on TestSigmoidDense's grid, 1.57e−7 over",
		"every 251st float32 (TestAVX2SigmoidSweep); 1.4e−45 absolute (one",
		"subnormal step) where σ < 1.2e−38; exactly 1 from x ≈ 17; σ(NaN) = NaN.")
	elementwise("sig", sigmoidV)
}

func softplus() {
	text("softplusAVX2", "func(dst, src []float32)",
		"softplusAVX2 computes dst[i] = max(x,0) + log1p(exp(-|x|)), x = src[i].",
		"Measured worst error 1.19e−7·max(1, result) (both sweeps).")
	elementwise("sp", softplusV)
}

func bernoulli() {
	text("bernoulliAVX2", "func(dst, p []float32, s *Stream)",
		"bernoulliAVX2 computes, one 16-lane block of s per 16 elements,",
		"",
		"	dst[i] = 1 if float32(r_i>>8)*2^-24 < p[i] else 0")
	dst, p, n, i, st := RDI, RSI, RCX, RAX, RBX
	loadBase("dst", dst)
	loadBase("p", p)
	loadLen("p", n)
	load("s", st)
	loadState(st)
	g.VMOVUPS(one, Y15)
	g.XORQ(i, i)
	g.Label("bern16")
	g.LEAQ(atd(i, 16), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl("bernTail"))
	xoshiro(Y0, Y2, Y4, Y6, Y8, Y9)
	xoshiro(Y1, Y3, Y5, Y7, Y10, Y11)
	uniform(Y8)
	uniform(Y10)
	g.VCMPPS(operand.U8(1), ix(p, i, 4), Y8, Y8)
	g.VCMPPS(operand.U8(1), ixd(p, i, 4, 32), Y10, Y10)
	g.VANDPS(Y15, Y8, Y8)
	g.VANDPS(Y15, Y10, Y10)
	g.VMOVUPS(Y8, ix(dst, i, 4))
	g.VMOVUPS(Y10, ixd(dst, i, 4, 32))
	g.MOVQ(RDX, i)
	g.JMP(lbl("bern16"))
	g.Label("bernTail")
	g.MOVQ(n, RDX)
	g.SUBQ(i, RDX)
	g.JZ(lbl("bernDone"))
	tailMask(RDX, 0, X12, Y12)
	tailMask(RDX, 32, X13, Y13)
	xoshiro(Y0, Y2, Y4, Y6, Y8, Y9)
	xoshiro(Y1, Y3, Y5, Y7, Y10, Y11)
	uniform(Y8)
	uniform(Y10)
	g.VMASKMOVPS(ix(p, i, 4), Y12, Y9)
	g.VMASKMOVPS(ixd(p, i, 4, 32), Y13, Y11)
	g.VCMPPS(operand.U8(1), Y9, Y8, Y8)
	g.VCMPPS(operand.U8(1), Y11, Y10, Y10)
	g.VANDPS(Y15, Y8, Y8)
	g.VANDPS(Y15, Y10, Y10)
	g.VMASKMOVPS(Y8, Y12, ix(dst, i, 4))
	g.VMASKMOVPS(Y10, Y13, ixd(dst, i, 4, 32))
	g.Label("bernDone")
	storeState(st)
	g.VZEROUPPER()
	g.RET()
}

func sigmoidBernoulli() {
	text("sigmoidBernoulliAVX2", "func(prob, state, pre []float32, s *Stream)",
		"sigmoidBernoulliAVX2 computes prob[i] = σ(pre[i]) and",
		"state[i] = 1 if u_i < prob[i] else 0 (u_i as in bernoulliAVX2).")
	prob, stt, pre, n, i, st := RDI, R8, RSI, RCX, RAX, RBX
	loadBase("prob", prob)
	loadBase("state", stt)
	loadBase("pre", pre)
	loadLen("pre", n)
	load("s", st)
	loadState(st)
	g.VMOVUPS(one, Y15)
	g.XORQ(i, i)
	g.Label("sb16")
	g.LEAQ(atd(i, 16), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl("sbTail"))
	// Lanes 0–7 from state words in Y0, Y2, Y4, Y6; lanes 8–15 from Y1,
	// Y3, Y5, Y7.
	for h := 0; h < 2; h++ {
		d := 32 * h
		g.VMOVUPS(ixd(pre, i, 4, d), Y9)
		sigmoidV(Y9, Y10, Y11, Y12, Y13, Y15)
		xoshiro(state[h], state[h+2], state[h+4], state[h+6], Y8, Y14)
		uniform(Y8)
		g.VMOVUPS(Y9, ixd(prob, i, 4, d))
		g.VCMPPS(operand.U8(1), Y9, Y8, Y8)
		g.VANDPS(Y15, Y8, Y8)
		g.VMOVUPS(Y8, ixd(stt, i, 4, d))
	}
	g.MOVQ(RDX, i)
	g.JMP(lbl("sb16"))
	g.Label("sbTail")
	g.MOVQ(n, RDX)
	g.SUBQ(i, RDX)
	g.JZ(lbl("sbDone"))
	// Both halves of the last block are drawn whatever the count (⌈n/16⌉
	// blocks); masks keep loads and stores inside the slices.
	for h := 0; h < 2; h++ {
		d := 32 * h
		tailMask(RDX, d, X14, Y14)
		g.VMASKMOVPS(ixd(pre, i, 4, d), Y14, Y9)
		sigmoidV(Y9, Y10, Y11, Y12, Y13, Y15)
		xoshiro(state[h], state[h+2], state[h+4], state[h+6], Y8, Y10)
		uniform(Y8)
		g.VMASKMOVPS(Y9, Y14, ixd(prob, i, 4, d))
		g.VCMPPS(operand.U8(1), Y9, Y8, Y8)
		g.VANDPS(Y15, Y8, Y8)
		g.VMASKMOVPS(Y8, Y14, ixd(stt, i, 4, d))
	}
	g.Label("sbDone")
	storeState(st)
	g.VZEROUPPER()
	g.RET()
}

func axpy() {
	text("axpyAVX2", "func(y []float32, a float32, x []float32)",
		"axpyAVX2 computes y[i] += a*x[i] for i < len(x).")
	yp, xp, n, i := RDI, RSI, RCX, RAX
	loadBase("y", yp)
	g.VBROADCASTSS(arg("a"), Y8)
	loadBase("x", xp)
	loadLen("x", n)
	g.XORQ(i, i)
	g.Label("ax32")
	g.LEAQ(atd(i, 32), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl("ax8"))
	acc := []VecPhysical{Y0, Y1, Y2, Y3}
	for q, y := range acc {
		g.VMOVUPS(ixd(yp, i, 4, 32*q), y)
	}
	for q, y := range acc {
		g.VFMADD231PS(ixd(xp, i, 4, 32*q), Y8, y)
	}
	for q, y := range acc {
		g.VMOVUPS(y, ixd(yp, i, 4, 32*q))
	}
	g.MOVQ(RDX, i)
	g.JMP(lbl("ax32"))
	g.Label("ax8")
	g.LEAQ(atd(i, 8), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl("axTail"))
	g.VMOVUPS(ix(yp, i, 4), Y0)
	g.VFMADD231PS(ix(xp, i, 4), Y8, Y0)
	g.VMOVUPS(Y0, ix(yp, i, 4))
	g.MOVQ(RDX, i)
	g.JMP(lbl("ax8"))
	g.Label("axTail")
	g.MOVQ(n, RDX)
	g.SUBQ(i, RDX)
	g.JZ(lbl("axDone"))
	tailMask(RDX, 0, X15, Y15)
	g.VMASKMOVPS(ix(yp, i, 4), Y15, Y0)
	g.VMASKMOVPS(ix(xp, i, 4), Y15, Y1)
	g.VFMADD231PS(Y1, Y8, Y0)
	g.VMASKMOVPS(Y0, Y15, ix(yp, i, 4))
	g.Label("axDone")
	g.VZEROUPPER()
	g.RET()
}
