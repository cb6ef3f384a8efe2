package main

import (
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The updates with momentum and weight decay repeat updateMomGeneric's
// float32 operations one by one, in its order: every product rounded on
// its own (VMULPS, never an FMA), the sums left to right, so the bits are
// the generic code's. Registers: Y8 lr, Y9 invB, Y10 mu, Y11 l2, Y12 l1,
// Y13 1.0, Y14 0.0, Y15 the finiteness accumulator (w·0 summed, by a
// product and a sum); Y7 the lanes of the tail; Y0–Y6 the work (NCG: Y6
// is lrA). v lives in R11.
var v = R11

// momConsts broadcasts the coefficients shared by both updates and zeroes
// the accumulator.
func momConsts() {
	for _, c := range []struct {
		name string
		y    VecPhysical
	}{{"lr", Y8}, {"invB", Y9}, {"mu", Y10}, {"l2", Y11}, {"l1", Y12}} {
		g.VBROADCASTSS(arg(c.name), c.y)
	}
	g.VMOVUPS(one, Y13)
	g.VXORPS(Y14, Y14, Y14)
	g.VXORPS(Y15, Y15, Y15)
}

// memOps moves whole vectors (ld, st) or, in the tail, the lanes of Y7.
type memOps struct {
	ld func(p Register, y VecPhysical)
	st func(y VecPhysical, p Register)
}

var (
	fullOps = memOps{
		ld: func(p Register, y VecPhysical) { g.VMOVUPS(ix(p, i, 4), y) },
		st: func(y VecPhysical, p Register) { g.VMOVUPS(y, ix(p, i, 4)) },
	}
	tailOps = memOps{
		ld: func(p Register, y VecPhysical) { g.VMASKMOVPS(ix(p, i, 4), Y7, y) },
		st: func(y VecPhysical, p Register) { g.VMASKMOVPS(y, Y7, ix(p, i, 4)) },
	}
)

// momLoop writes a loop of eight elements a step from i (zero on entry),
// then the tail of fewer than eight under the mask Y7, each running body;
// it ends with a jump to done.
func momLoop(p, done string, body func(m memOps)) {
	g.Label(p + "8")
	g.LEAQ(atd(i, 8), RDX)
	g.CMPQ(RDX, n)
	g.JGT(lbl(p + "Tail"))
	body(fullOps)
	g.MOVQ(RDX, i)
	g.JMP(lbl(p + "8"))
	g.Label(p + "Tail")
	g.MOVQ(n, RDX)
	g.SUBQ(i, RDX)
	g.JZ(lbl(done))
	tailMask(RDX, 0, X7, Y7)
	body(tailOps)
	g.JMP(lbl(done))
}

// momRest finishes the step from t1 = g·invB in Y4 and w0 in Y0:
//
//	Y4 = s = t1 − l2·w0 − l1·sign(w0) + mu·v
//	Y5 = nw = w0 + (lr·s)·a,  Y4 = nv = s·a
//
// with a in Y3 (loaded from a, or 1.0 for a nil a); Y2 and Y5 are
// scratch. It stores w and v and folds nw·0 into Y15.
func momRest(m memOps, hasA bool) {
	g.VMULPS(Y0, Y11, Y5) // l2·w0
	g.VSUBPS(Y5, Y4, Y4)
	g.VCMPPS(operand.U8(1), Y0, Y14, Y5) // 0 < w0 (LT_OS)
	g.VANDPS(Y13, Y5, Y5)
	g.VCMPPS(operand.U8(1), Y14, Y0, Y2) // w0 < 0
	g.VANDPS(Y13, Y2, Y2)
	g.VSUBPS(Y2, Y5, Y5)  // sign(w0): 1, −1 or +0
	g.VMULPS(Y5, Y12, Y5) // l1·sign(w0)
	g.VSUBPS(Y5, Y4, Y4)
	m.ld(v, Y2)
	g.VMULPS(Y2, Y10, Y2) // mu·v
	g.VADDPS(Y2, Y4, Y4)  // s
	if hasA {
		m.ld(a, Y3)
	} else {
		g.VMOVAPS(Y13, Y3)
	}
	g.VMULPS(Y4, Y8, Y5) // lr·s
	g.VMULPS(Y3, Y5, Y5) // ·a
	g.VADDPS(Y5, Y0, Y5) // nw = w0 + ·
	g.VMULPS(Y3, Y4, Y4) // nv = s·a
	g.VMULPS(Y14, Y5, Y2)
	g.VADDPS(Y2, Y15, Y15) // acc += nw·0
	m.st(Y5, w)
	m.st(Y4, v)
	m.st(Y14, gr)
}

func updateMom() {
	text("updateMomAVX2", "func(w, a, c, g, v []float32, lr, invB, mu, l2, l1 float32) float32",
		"updateMomAVX2 computes, for k < len(w), with ak = a[k] (1 if a is nil),",
		"every product rounded (no FMA) and the sums left to right:",
		"",
		"	w0 := w[k]",
		"	s := g[k]*invB - l2*w0 - l1*sign(w0) + mu*v[k]",
		"	w[k] = w0 + lr*s*ak; v[k] = s*ak; g[k] = 0",
		"	if c != nil { c[k] = w[k]*ak }",
		"",
		"and returns Σ w[k]*0 (0, or NaN if some w[k] is not finite).")
	// Four loops, for a and c present or nil, chosen once.
	loadBase("w", w)
	loadLen("w", n)
	loadBase("a", a)
	loadBase("c", c)
	loadBase("g", gr)
	loadBase("v", v)
	momConsts()
	g.XORQ(i, i)
	g.TESTQ(a, a)
	g.JZ(lbl("momNoA"))
	g.TESTQ(c, c)
	g.JZ(lbl("momA8"))
	for _, k := range []struct {
		p          string
		hasA, hasC bool
	}{{"momAC", true, true}, {"momA", true, false}, {"momC", false, true}, {"momN", false, false}} {
		if k.p == "momC" {
			g.Label("momNoA")
			g.TESTQ(c, c)
			g.JZ(lbl("momN8"))
		}
		hasA, hasC := k.hasA, k.hasC
		momLoop(k.p, "momDone", func(m memOps) {
			m.ld(gr, Y1)
			m.ld(w, Y0)
			g.VMULPS(Y9, Y1, Y4) // t1 = g·invB
			momRest(m, hasA)
			if hasC {
				g.VMULPS(Y3, Y5, Y1) // c = nw·a
				m.st(Y1, c)
			}
		})
	}
	g.Label("momDone")
	hsum()
	g.VZEROUPPER()
	g.RET()
}

func updateMomNCG() {
	text("updateMomNCGAVX2", "func(w, ap, a, c, g, v []float32, lr, invB, mu, l2, l1, lrA, gamma float32) float32",
		"updateMomNCGAVX2 computes, for k < len(w), every product rounded (no",
		"FMA) and the sums left to right:",
		"",
		"	w0, gk := w[k], g[k]",
		"	s := gk*invB - l2*w0 - l1*sign(w0) + mu*v[k]",
		"	nw := w0 + lr*s*a[k]; v[k] = s*a[k]",
		"	q := ap[k] + lrA*gk*w0; if q < 0 { q = 0 }; if q > 1 { q = 1 }",
		"	ap[k] = q; a[k] = 1 if q >= gamma else 0",
		"	w[k] = nw; c[k] = nw*a[k]; g[k] = 0",
		"",
		"and returns Σ w[k]*0 (0, or NaN if some w[k] is not finite).")
	// VMAXPS/VMINPS take q as the second operand, which they return when
	// the compare fails: (0 > q) ? 0 : q and (1 < q) ? 1 : q, Go's
	// branches exactly (a NaN or −0 q is kept). γ is broadcast from its
	// argument each step (the registers are all taken).
	loadBase("w", w)
	loadLen("w", n)
	loadBase("ap", ap)
	loadBase("a", a)
	loadBase("c", c)
	loadBase("g", gr)
	loadBase("v", v)
	momConsts()
	g.VBROADCASTSS(arg("lrA"), Y6)
	g.XORQ(i, i)
	momLoop("mncg", "mncgDone", func(m memOps) {
		m.ld(gr, Y1)
		m.ld(w, Y0)
		g.VMULPS(Y9, Y1, Y4) // t1 = g·invB
		g.VMULPS(Y6, Y1, Y1) // lrA·g
		g.VMULPS(Y0, Y1, Y1) // ·w0
		m.ld(ap, Y2)
		g.VADDPS(Y1, Y2, Y1) // q = ap + ·
		g.VMAXPS(Y1, Y14, Y1)
		g.VMINPS(Y1, Y13, Y1)
		m.st(Y1, ap)
		g.VBROADCASTSS(arg("gamma"), Y2)
		g.VCMPPS(operand.U8(13), Y2, Y1, Y1) // q >= gamma (GE_OS)
		g.VANDPS(Y13, Y1, Y1)                // new a
		momRest(m, true)
		g.VMULPS(Y1, Y5, Y3) // c = nw·(new a)
		m.st(Y1, a)
		m.st(Y3, c)
	})
	g.Label("mncgDone")
	hsum()
	g.VZEROUPPER()
	g.RET()
}
