// Command avx512 generates the AVX-512 (F, DQ, BW, VL) kernels of package
// kernel: kernel_avx512_amd64.s and their Go declarations,
// kernel_avx512_stubs_amd64.go. Run it with `go generate ./kernel`.
//
// Every loop steps 16 float32 lanes (one ZMM) at a time and covers its tail
// with an opmask: the mask of a step has the low min(left, 16) bits set,
// loads zero the masked-off lanes and stores skip them, so a kernel has one
// code path for every length and never touches memory outside its slices
// (masked-off lanes do not fault). The element loops return at once for an
// empty input; kernel.go's exported functions check the lengths of the
// other slices, which this code trusts.
//
// Registers are physical: AX and CX are scratch (laneMask), BP and R15 are
// not touched; Z0-Z31 and K1-K6 are free in ABI0 assembly (the ABI wrapper
// restores X15 and R14 on return to Go).
//
// Operand order is Go's: sources first, destination last; a mask comes just
// before the destination (VADDPS(Z1, Z2, K1, Z3) is Z3 = Z2 + Z1 on K1).
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	// The signatures name Stream: this package's stand-in for it.
	Package("github.com/ncg-rbm/ncg/kernel/_asm/avx512")
	ConstraintExpr("!purego,!noasm,gc")

	lanes := GLOBL("lanesAVX512", RODATA|NOPTR)
	for i := 0; i < 16; i++ {
		DATA(4*i, U32(i))
	}

	sigmoid()
	softplus()
	bernoulli()
	sigmoidBernoulli()
	indices(lanes)
	sumRows()
	affine()
	axpy()
	updateNCG()
	updateMasked()
	updateDense()
	updateMom()
	updateMomNCG()
	changes(lanes)
	sumRowsBlock()
	sparseAffine(1)
	sparseAffine(2)
	gatherSum()
	packBits()
	sparseBits(1)
	sparseBits(2)

	Generate()
}

// Stream stands for kernel.Stream in the signatures, which only take a
// *Stream. The kernels address the state by offset, as kernel.Stream lays
// it out: word w of lane l at byte 64·w + 4·l.
type Stream struct {
	s [4][16]uint32
}

// text starts the function name with the given signature, documented by
// doc, and declares it //go:noescape.
func text(name, signature string, doc ...string) {
	TEXT(name, NOSPLIT|NOFRAME, signature)
	Doc(doc...)
	Pragma("noescape")
}

// z returns vector register Zi.
func z(i int) VecPhysical {
	return []VecPhysical{
		Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
		Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31,
	}[i]
}

// masks are the opmasks of the four vectors of a 64-column chunk.
var masks = []OpmaskPhysical{K1, K2, K3, K4}

// at returns the memory operand disp(base).
func at(base Register, disp int) Mem { return Mem{Base: base, Disp: disp} }

// ix returns the memory operand disp(base)(index*scale).
func ix(base, index Register, scale uint8, disp int) Mem {
	return Mem{Base: base, Index: index, Scale: scale, Disp: disp}
}

// arg returns the stack slot of a Go argument or result.
func arg(c gotypes.Component) Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// imm is the immediate x, typed as avo's operand checks want it: 8 bits
// where it fits a sign-extended byte, else 32.
func imm(x int) Constant {
	if x == int(int8(x)) {
		return I8(x)
	}
	return I32(x)
}

// vzeroRet leaves the function: VZEROUPPER (the upper halves of the vector
// registers must be clean for SSE code), RET.
func vzeroRet() {
	VZEROUPPER()
	RET()
}

// laneMask sets mask register k to the low clamp(CX, 0, 16) bits: the
// lanes of a vector that starts CX elements before the end of the data.
// Clobbers AX and CX.
func laneMask(k Op) {
	XORL(EAX, EAX)
	CMPQ(RCX, RAX)
	CMOVQLT(RAX, RCX)
	MOVQ(U32(16), RAX)
	CMPQ(RCX, RAX)
	CMOVQGT(RAX, RCX)
	MOVL(U32(1), EAX)
	SHLL(CL, EAX)
	DECL(EAX)
	KMOVW(EAX, k)
}

// chunkMasks sets K1-K4 to the lanes of the four vectors of a chunk of
// columns: vector i masked by clamp(left − 16·(first+i), 0, 16), where
// left is in register left. Clobbers AX and CX.
func chunkMasks(left Register, first int) {
	for i, k := range masks {
		if d := 16 * (first + i); d == 0 {
			MOVQ(left, RCX)
		} else {
			LEAQ(at(left, -d), RCX)
		}
		laneMask(k)
	}
}

// bcast fills every lane of r with the 32-bit pattern bits. Clobbers AX.
func bcast(bits uint32, r Op) {
	MOVL(U32(bits), EAX)
	VPBROADCASTD(EAX, r)
}

// Constants of expf and logf, kept in registers by the kernels that use them.
var (
	cONE, cLOG2E, cEXPC1, cEXPC2 = Z31, Z30, Z29, Z28
	cP                           = []VecPhysical{Z27, Z26, Z25, Z24, Z23, Z22} // P0..P5
	cLO, cHI, cSIGN              = Z21, Z20, Z19
	cSQRT2, cHALF                = Z18, Z17
	cL                           = []VecPhysical{Z16, Z15, Z14, Z13, Z12, Z11, Z10, Z9, Z8} // L0..L8
)

// expConsts loads the constants of expf and sigmoid (Z19-Z31). Clobbers
// AX. Cephes expf: ln2 = C1 + C2 (C1 exact in 9 bits), degree-5
// polynomial P0..P5 in r; inputs are clamped to [LO, HI] = [-88, 88].
func expConsts() {
	bcast(0x3f800000, cONE)
	bcast(0x3fb8aa3b, cLOG2E)
	bcast(0x3f318000, cEXPC1)
	bcast(0xb95e8083, cEXPC2)
	for i, bits := range []uint32{0x39506967, 0x3ab743ce, 0x3c088908, 0x3d2aa9c1, 0x3e2aaaaa, 0x3f000000} {
		bcast(bits, cP[i])
	}
	bcast(0xc2b00000, cLO)
	bcast(0x42b00000, cHI)
	bcast(0x80000000, cSIGN)
}

// logConsts loads the constants of logf (Z8-Z18): sqrt(2), 0.5 and the
// Cephes logf polynomial L0..L8. Clobbers AX.
func logConsts() {
	bcast(0x3fb504f3, cSQRT2)
	bcast(0x3f000000, cHALF)
	for i, bits := range []uint32{0x3d9021bb, 0xbdebd1b8, 0x3def251a, 0xbdfe5d4f, 0x3e11e9bf, 0xbe2aae50, 0x3e4cceac, 0xbe7ffffc, 0x3eaaaaaa} {
		bcast(bits, cL[i])
	}
}

// expf sets x = exp(x) for x in [-104, 88] (Cephes expf; below about
// -103.3 the result rounds to 0):
//
//	n = round(x·log2e); r = x − n·C1 − n·C2  (|r| ≤ ln2/2)
//	p = ((((P0·r + P1)·r + P2)·r + P3)·r + P4)·r + P5
//	x = (p·r² + r + 1) · 2^n                 (VSCALEFPS: exact, subnormal-safe)
//
// n, r and p are temporaries.
func expf(x, n, r, p Op) {
	VMULPS(cLOG2E, x, n)
	VRNDSCALEPS(imm(0), n, n)
	VMOVAPS(x, r)
	VFNMADD231PS(cEXPC1, n, r)
	VFNMADD231PS(cEXPC2, n, r)
	VMOVAPS(cP[0], p)
	for _, c := range cP[1:] {
		VFMADD213PS(c, r, p)
	}
	VMULPS(r, r, x)
	VFMADD213PS(r, x, p)
	VADDPS(cONE, p, p)
	VSCALEFPS(n, p, x)
}

// sigmoidf sets s = 1/(1+exp(-x)) on the lanes of K1 where x ≥ -88 (or x
// is NaN, which propagates), and s = 0 elsewhere. exp's argument -x is
// clamped to [-88, 88]: σ is then exactly 1 for x ≥ 88 (and +Inf). Uses K2
// and the temporaries n, r, p.
func sigmoidf(x, s, n, r, p Op) {
	VPXORD(cSIGN, x, s)
	VMAXPS(s, cLO, s)
	VMINPS(s, cHI, s)
	expf(s, n, r, p)
	VADDPS(cONE, s, s)
	VCMPPS(imm(0x15), cLO, x, K1, K2) // NLT_UQ: x ≥ -88 or NaN
	VDIVPS_Z(s, cONE, K2, s)
}

// logf sets m = log(u) for normal u > 0 (Cephes logf). u = mant·2^k with
// mant in [1, 2); if mant > sqrt(2) it is halved and k incremented, so that
// x = mant − 1 lies in [sqrt(1/2)−1, sqrt(2)−1]; then
//
//	log u = x − x²/2 + x³·L(x) + k·ln2   (ln2 = C1 + C2).
//
// Uses K3 and the temporaries k, z, y.
func logf(u, m, k, zz, y Op) {
	VGETMANTPS(imm(0), u, m)
	VGETEXPPS(u, k)
	VCMPPS(imm(0x1e), cSQRT2, m, K3) // GT_OQ
	VMULPS(cHALF, m, K3, m)
	VADDPS(cONE, k, K3, k)
	VSUBPS(cONE, m, m)
	VMULPS(m, m, zz)
	VMOVAPS(cL[0], y)
	for _, c := range cL[1:] {
		VFMADD213PS(c, m, y)
	}
	VMULPS(m, y, y)
	VMULPS(zz, y, y)
	VFMADD231PS(cEXPC2, k, y)
	VFNMADD231PS(cHALF, zz, y)
	VADDPS(y, m, m)
	VFMADD231PS(cEXPC1, k, m)
}

// xoshiro128++ state of the 16 lanes: word w of every lane in one register
// (Stream.s[w] is 64 contiguous bytes); cSCALE is 2^-24.
var (
	ss     = []VecPhysical{Z8, Z9, Z10, Z11}
	cSCALE = Z12
)

// loadState loads the stream at (DX) into ss; storeState writes it back.
func loadState() {
	for w, r := range ss {
		VMOVDQU32(at(RDX, 64*w), r)
	}
}

func storeState() {
	for w, r := range ss {
		VMOVDQU32(r, at(RDX, 64*w))
	}
}

// xoshiro sets r to the next block of 16 draws and steps the state, as
// Stream.next: r = rotl(s0+s3, 7) + s0; t = s1<<9; s2 ^= s0; s3 ^= s1;
// s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11).
func xoshiro(r, t Op) {
	VPADDD(ss[3], ss[0], r)
	VPROLD(imm(7), r, r)
	VPADDD(ss[0], r, r)
	VPSLLD(imm(9), ss[1], t)
	VPXORD(ss[0], ss[2], ss[2])
	VPXORD(ss[1], ss[3], ss[3])
	VPXORD(ss[2], ss[1], ss[1])
	VPXORD(ss[3], ss[0], ss[0])
	VPXORD(t, ss[2], ss[2])
	VPROLD(imm(11), ss[3], ss[3])
}

// uniform turns draws r into uniforms in place: float32(r>>8)·2^-24 (exact).
func uniform(r Op) {
	VPSRLD(imm(8), r, r)
	VCVTDQ2PS(r, r)
	VMULPS(cSCALE, r, r)
}

// elementLoop emits the loop shared by the element-wise kernels: BX
// elements left, K1 the lanes of this step, body the work of one step;
// ptrs advance by 64 bytes a step. The loop is entered with BX ≥ 1.
func elementLoop(name string, ptrs []Register, body func()) {
	Label(name)
	MOVQ(RBX, RCX)
	laneMask(K1)
	body()
	for _, p := range ptrs {
		ADDQ(imm(64), p)
	}
	SUBQ(imm(16), RBX)
	JG(LabelRef(name))
}

func sigmoid() {
	text("sigmoidAVX512", "func(dst, src []float32)",
		"sigmoidAVX512: for i < len(src): dst[i] = sigmoidRef(src[i]).",
		"len(dst) ≥ len(src); dst may be src.")
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RBX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("sigdone"))
	expConsts()
	elementLoop("sigloop", []Register{RSI, RDI}, func() {
		VMOVUPS_Z(at(RSI, 0), K1, Z0)
		sigmoidf(Z0, Z1, Z2, Z3, Z4)
		VMOVUPS(Z1, K1, at(RDI, 0))
	})
	Label("sigdone")
	vzeroRet()
}

// softplus(x) = max(x, 0) + log1p(t), t = exp(-|x|) in (0, 1]. log1p(t) is
// log(u)·t/(u−1) with u = 1+t (exact compensation of the rounding of u),
// and t itself where u rounds to 1.
func softplus() {
	text("softplusAVX512", "func(dst, src []float32)",
		"softplusAVX512: for i < len(src): dst[i] = softplusRef(src[i]).",
		"len(dst) ≥ len(src); dst may be src.")
	Load(Param("dst").Base(), RDI)
	Load(Param("src").Base(), RSI)
	Load(Param("src").Len(), RBX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("spdone"))
	expConsts()
	logConsts()
	// Clamp exp's argument at -104 here, where exp rounds to 0:
	// softplus(-Inf) = 0 exactly.
	bcast(0xc2d00000, cLO)
	elementLoop("sploop", []Register{RSI, RDI}, func() {
		VMOVUPS_Z(at(RSI, 0), K1, Z0) // x
		VPORD(cSIGN, Z0, Z1)          // -|x|
		VMAXPS(Z1, cLO, Z1)           // ≥ -104
		expf(Z1, Z2, Z3, Z4)          // Z1 = t = exp(-|x|)
		VADDPS(cONE, Z1, Z2)          // Z2 = u = 1+t
		VSUBPS(cONE, Z2, Z3)          // Z3 = d = u−1 (exact, ≥ 0)
		logf(Z2, Z4, Z5, Z6, Z7)      // Z4 = log(u)
		VPTESTMD(Z3, Z3, K2)          // K2: d ≠ 0
		VDIVPS(Z3, Z1, Z5)            // Z5 = t/d (unused where d = 0)
		VMULPS(Z5, Z4, K2, Z1)        // Z1 = log1p(t): log(u)·t/d, or t where d = 0
		VPXORD(Z6, Z6, Z6)
		VMAXPS(Z0, Z6, Z0) // max(x, 0), NaN propagates
		VADDPS(Z1, Z0, Z0)
		VMOVUPS(Z0, K1, at(RDI, 0))
	})
	Label("spdone")
	vzeroRet()
}

func bernoulli() {
	text("bernoulliAVX512", "func(dst, p []float32, s *Stream)",
		"bernoulliAVX512: for each block of 16 of p (the last one partial):",
		"s.next(&blk); dst[i] = b2f(uniform(blk[i%16]) < p[i]). len(dst) ≥ len(p).")
	Load(Param("dst").Base(), RDI)
	Load(Param("p").Base(), RSI)
	Load(Param("p").Len(), RBX)
	Load(Param("s"), RDX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("bedone"))
	bcast(0x3f800000, cONE)
	bcast(0x33800000, cSCALE) // 2^-24
	loadState()
	elementLoop("beloop", []Register{RSI, RDI}, func() {
		xoshiro(Z0, Z1) // one block per 16 outputs, tail included
		uniform(Z0)
		VMOVUPS_Z(at(RSI, 0), K1, Z2)  // p
		VCMPPS(imm(1), Z2, Z0, K1, K2) // K2: u < p (LT_OS)
		VMOVAPS_Z(cONE, K2, Z3)
		VMOVUPS(Z3, K1, at(RDI, 0))
	})
	storeState()
	Label("bedone")
	vzeroRet()
}

func sigmoidBernoulli() {
	text("sigmoidBernoulliAVX512", "func(prob, state, pre []float32, s *Stream)",
		"sigmoidBernoulliAVX512: prob[i] = sigmoidRef(pre[i]); state[i] =",
		"b2f(uniform(draw i) < prob[i]), draws as bernoulliAVX512, for i < len(pre).",
		"prob may be pre.")
	Load(Param("prob").Base(), RDI)
	Load(Param("state").Base(), R8)
	Load(Param("pre").Base(), RSI)
	Load(Param("pre").Len(), RBX)
	Load(Param("s"), RDX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("sbdone"))
	expConsts()
	bcast(0x33800000, cSCALE) // 2^-24
	loadState()
	elementLoop("sbloop", []Register{RSI, RDI, R8}, func() {
		// pre is loaded before prob is stored: they may alias.
		VMOVUPS_Z(at(RSI, 0), K1, Z0)
		sigmoidf(Z0, Z1, Z2, Z3, Z4)
		xoshiro(Z5, Z6)
		uniform(Z5)
		VCMPPS(imm(1), Z1, Z5, K1, K3) // K3: u < prob (LT_OS)
		VMOVAPS_Z(cONE, K3, Z6)
		VMOVUPS(Z1, K1, at(RDI, 0))
		VMOVUPS(Z6, K1, at(R8, 0))
	})
	storeState()
	Label("sbdone")
	vzeroRet()
}

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
func indices(lanes Mem) {
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
	VCMPPS(imm(4), at(RSI, 0), Z3, K2)  // K2: s[i:i+16] ≠ 0
	VCMPPS(imm(4), at(RSI, 64), Z3, K3) // K3: s[i+16:i+32] ≠ 0
	compress(Z1, K2, Z4)
	compress(Z6, K3, Z7)
	KMOVW(K2, EDX)
	KMOVW(K3, ECX)
	POPCNTL(EDX, EDX)
	POPCNTL(ECX, ECX)
	VMOVDQU32(Z4, at(RDI, 0))
	LEAQ(ix(RDI, RDX, 4, 0), RDI)
	VMOVDQU32(Z7, at(RDI, 0))
	LEAQ(ix(RDI, RCX, 4, 0), RDI)
	VPADDD(Z5, Z1, Z1)
	VPADDD(Z5, Z6, Z6)
	ADDQ(imm(128), RSI)
	SUBQ(imm(32), RBX)
	JMP(LabelRef("ix32"))

	Label("ix16")
	CMPQ(RBX, imm(16))
	JLT(LabelRef("ixtail"))
	VCMPPS(imm(4), at(RSI, 0), Z3, K2)
	compress(Z1, K2, Z4)
	KMOVW(K2, EDX)
	POPCNTL(EDX, EDX)
	VMOVDQU32(Z4, at(RDI, 0))
	LEAQ(ix(RDI, RDX, 4, 0), RDI)
	VPADDD(Z2, Z1, Z1)
	ADDQ(imm(64), RSI)
	SUBQ(imm(16), RBX)

	Label("ixtail")
	TESTQ(RBX, RBX)
	JLE(LabelRef("ixdone"))
	MOVQ(RBX, RCX)
	laneMask(K1)
	VMOVUPS_Z(at(RSI, 0), K1, Z0)
	VCMPPS(imm(4), Z3, Z0, K1, K2) // K2: lanes of K1 with s ≠ 0
	compress(Z1, K2, Z4)
	KMOVW(K2, EDX)
	POPCNTL(EDX, EDX) // DX: number of non-zero states
	lowLanes(EDX, K3) // K3: the low DX lanes
	VMOVDQU32(Z4, K3, at(RDI, 0))
	LEAQ(ix(RDI, RDX, 4, 0), RDI)

	Label("ixdone")
	SUBQ(RDI, R8)
	NEGQ(R8)
	SHRQ(imm(2), R8)
	Store(R8, ReturnIndex(0))
	vzeroRet()
}

// lowLanes sets k to the low cnt (≤ 16) bits. Clobbers AX and CX.
func lowLanes(cnt, k Op) {
	MOVL(cnt, ECX)
	MOVL(U32(1), EAX)
	SHLL(CL, EAX)
	DECL(EAX)
	KMOVW(EAX, k)
}

// The 512-column chunks of sumRowsAVX512: registers Z0–Z30 hold columns
// 0–495 of the chunk, Z31 the last 16, full or masked by K1.
const (
	pfDist = 6 // how many rows ahead the 128-column chunks prefetch
	pfRow  = 2 // how many rows ahead the 512-column chunks prefetch
	huge   = 31
)

// hugeRow prefetches the chunk of the row pfRow indices ahead (the last
// row again near the end) into R12, points R11 at the chunk of row idx[BX]
// and adds its columns 0–495 to Z0–Z30.
func hugeRow() {
	LEAQ(at(RBX, pfRow), R12)
	CMPQ(R12, R13)
	CMOVQGT(R13, R12)
	MOVLQSX(ix(R8, R12, 4, 0), R12)
	IMULQ(RDX, R12)
	ADDQ(RSI, R12)
	for i := 0; i <= huge; i++ {
		PREFETCHT0(at(R12, 64*i))
	}
	MOVLQSX(ix(R8, RBX, 4, 0), R11)
	IMULQ(RDX, R11)
	ADDQ(RSI, R11)
	for i := 0; i < huge; i++ {
		VADDPS(at(R11, 64*i), z(i), z(i))
	}
}

// sumRows takes the columns in chunks: 512 at a time while at least 512
// are left, then one chunk of 497–511 if left; then, while more than 224
// are left, chunks of up to 288 (18 accumulators; vectors 0-13 full,
// 14-17 masked by K1-K4); then, while more than 64 are left, chunks of up
// to 128 (vectors 0-3 full, 4-7 masked); then at most one chunk of up to
// 64 (4 accumulators masked by K1-K4). Each chunk of out stays in
// registers while every row of idx is added to it.
func sumRows() {
	text("sumRowsAVX512", "func(out, m []float32, stride int, idx []int32, n int)",
		"sumRowsAVX512: for _, j := range idx: for o < n: out[o] += m[j*stride+o].",
		"n ≤ len(out); nothing is read or written for n ≤ 0.")
	Load(Param("out").Base(), RDI)
	Load(Param("m").Base(), RSI)
	Load(Param("stride"), RDX)
	SHLQ(imm(2), RDX) // DX: bytes per row of m
	Load(Param("idx").Base(), R8)
	Load(Param("idx").Len(), R9)
	Load(Param("n"), R10) // R10: columns left; DI, SI: their start
	LEAQ(at(R9, -1), R13) // R13: the last index

	// Chunks of 512 columns: the whole chunk in the 32 vector registers, so
	// each row is read once, front to back (its lines in order for the
	// prefetchers), with one index load per 2 KB instead of one per 512 B.
	Label("srhuge")
	CMPQ(R10, imm(512))
	JLT(LabelRef("srhugetail"))
	for i := 0; i < huge; i++ {
		VMOVUPS(at(RDI, 64*i), z(i))
	}
	VMOVUPS(at(RDI, 64*huge), Z31)
	XORQ(RBX, RBX)
	CMPQ(RBX, R9)
	JGE(LabelRef("srhugestore"))
	Label("srhugerow")
	hugeRow()
	VADDPS(at(R11, 64*huge), Z31, Z31)
	INCQ(RBX)
	CMPQ(RBX, R9)
	JLT(LabelRef("srhugerow"))
	Label("srhugestore")
	for i := 0; i < huge; i++ {
		VMOVUPS(z(i), at(RDI, 64*i))
	}
	VMOVUPS(Z31, at(RDI, 64*huge))
	ADDQ(imm(2048), RDI)
	ADDQ(imm(2048), RSI)
	SUBQ(imm(512), R10)
	JMP(LabelRef("srhuge"))

	// 497–511 columns left (H = 500): 31 registers and a masked one.
	Label("srhugetail")
	CMPQ(R10, imm(16*huge))
	JLE(LabelRef("srbig"))
	LEAQ(at(R10, -16*huge), RCX)
	laneMask(K1)
	for i := 0; i < huge; i++ {
		VMOVUPS(at(RDI, 64*i), z(i))
	}
	VMOVUPS_Z(at(RDI, 64*huge), K1, Z31)
	XORQ(RBX, RBX)
	CMPQ(RBX, R9)
	JGE(LabelRef("srhugetstore"))
	Label("srhugetrow")
	hugeRow()
	VADDPS(at(R11, 64*huge), Z31, K1, Z31)
	INCQ(RBX)
	CMPQ(RBX, R9)
	JLT(LabelRef("srhugetrow"))
	Label("srhugetstore")
	for i := 0; i < huge; i++ {
		VMOVUPS(z(i), at(RDI, 64*i))
	}
	VMOVUPS(Z31, K1, at(RDI, 64*huge))
	JMP(LabelRef("srdone"))

	// 784 columns (the down product of MNIST) are a 512-column chunk and
	// one of 272, not 512 + 128 + 128 + 16: each chunk reads every row's
	// index and its first lines again.
	wideChunk("srbig", bigFull, "srwide")
	wideChunk("srwide", 4, "srnarrow")

	Label("srnarrow")
	TESTQ(R10, R10)
	JLE(LabelRef("srdone"))
	chunkMasks(R10, 0)
	for i, k := range masks {
		VMOVUPS_Z(at(RDI, 64*i), k, z(i))
	}
	XORQ(RBX, RBX)
	CMPQ(RBX, R9)
	JGE(LabelRef("srnarrowstore"))
	Label("srnarrowrow")
	MOVLQSX(ix(R8, RBX, 4, 0), R11)
	IMULQ(RDX, R11)
	ADDQ(RSI, R11)
	for i, k := range masks {
		VMOVUPS_Z(at(R11, 64*i), k, z(8+i))
	}
	for i := 0; i < 4; i++ {
		VADDPS(z(8+i), z(i), z(i))
	}
	INCQ(RBX)
	CMPQ(RBX, R9)
	JLT(LabelRef("srnarrowrow"))
	Label("srnarrowstore")
	for i, k := range masks {
		VMOVUPS(z(i), k, at(RDI, 64*i))
	}

	Label("srdone")
	vzeroRet()
}

// bigFull is the number of full vectors of sumRows' big chunks (14 + 4
// masked: 225–288 columns).
const bigFull = 14

// wideChunk emits sumRows' chunks of full+1 to full+4 vectors, taken while
// more than 16·full columns are left (else it jumps to next): vectors
// 0…full−1 whole, the last four masked by K1-K4, accumulated in Z0…
// Z(full+3); Z(full+4)… hold the masked loads. It prefetches each chunk
// pfDist rows ahead: the rows are scattered, so the hardware prefetchers
// cannot predict them (binary13 at 8 chains: 302–318 → 358–398 GFLOP/s,
// 3 interleaved runs; distances 2 and 4 gained less).
func wideChunk(name string, full int, next string) {
	vecs := full + 4
	Label(name)
	CMPQ(R10, imm(16*full))
	JLE(LabelRef(next))
	chunkMasks(R10, full)
	for i := 0; i < full; i++ {
		VMOVUPS(at(RDI, 64*i), z(i))
	}
	for i, k := range masks {
		VMOVUPS_Z(at(RDI, 64*(full+i)), k, z(full+i))
	}
	XORQ(RBX, RBX)
	CMPQ(RBX, R9)
	JGE(LabelRef(name + "store"))
	Label(name + "row")
	LEAQ(at(RBX, pfDist), R12)
	CMPQ(R12, R13)
	CMOVQGT(R13, R12)
	MOVLQSX(ix(R8, R12, 4, 0), R12)
	IMULQ(RDX, R12)
	ADDQ(RSI, R12)
	for i := 0; i < vecs; i++ {
		PREFETCHT0(at(R12, 64*i))
	}
	MOVLQSX(ix(R8, RBX, 4, 0), R11)
	IMULQ(RDX, R11)
	ADDQ(RSI, R11) // R11: this chunk of row idx[BX]
	for i := 0; i < full; i++ {
		VADDPS(at(R11, 64*i), z(i), z(i))
	}
	for i, k := range masks {
		VMOVUPS_Z(at(R11, 64*(full+i)), k, z(vecs+i))
	}
	for i := 0; i < 4; i++ {
		VADDPS(z(vecs+i), z(full+i), z(full+i))
	}
	INCQ(RBX)
	CMPQ(RBX, R9)
	JLT(LabelRef(name + "row"))
	Label(name + "store")
	for i := 0; i < full; i++ {
		VMOVUPS(z(i), at(RDI, 64*i))
	}
	for i, k := range masks {
		VMOVUPS(z(full+i), k, at(RDI, 64*(full+i)))
	}
	ADDQ(imm(64*vecs), RDI)
	ADDQ(imm(64*vecs), RSI)
	SUBQ(imm(16*vecs), R10)
	JMP(LabelRef(name))
}

// affineChains is how many chains affine6AVX512 takes at most.
const affineChains = 6

// affine: k ≤ 6 chains at once, in tiles of 64 outputs: 6 chains × 4
// vectors = 24 accumulators (Z0-Z23; chain c owns Z4c..Z4c+3), the tile's
// row of m in Z24-Z27 (masked by K1-K4), broadcast inputs in Z28/Z29.
// Chains c ≥ k are skipped by a branch after chain k−1 (taken the same way
// on every row, so predicted): without it a call for 2 chains cost as much
// as one for 6.
func affine() {
	text("affine6AVX512", "func(out, bias, in, m []float32, k, nin, nout int)",
		"affine6AVX512 computes 1 ≤ k ≤ 6 chains of the dense product:",
		"",
		"\tfor c < k, o < nout: out[c*nout+o] = bias[o] (0 if bias == nil) + Σ_{j<nin} in[c*nin+j] * m[j*nout+o]",
		"",
		"nout ≥ 1; in and m are not read when nin == 0.")
	rows := []GPPhysical{R8, R9, R10, R11, R12, R13} // input rows of chains 0..5
	Load(Param("in").Base(), R8)
	Load(Param("k"), RBX)
	Load(Param("nin"), RAX)
	SHLQ(imm(2), RAX) // AX: bytes per input row
	for c := 1; c < affineChains; c++ {
		LEAQ(ix(rows[c-1], RAX, 1, 0), rows[c])
		CMPQ(RBX, imm(c))
		CMOVQLE(R8, rows[c]) // chains past k read chain 0's row
	}
	Load(Param("nout"), RDX)
	SHLQ(imm(2), RDX) // DX: bytes per row of m and of out
	XORQ(RDI, RDI)    // DI: byte offset of the tile

	Label("aftile")
	MOVQ(RDX, RSI)
	SUBQ(RDI, RSI)
	SHRQ(imm(2), RSI) // SI: columns left (≥ 1)
	chunkMasks(RSI, 0)
	row := []VecPhysical{Z24, Z25, Z26, Z27}
	for _, r := range row {
		VPXORD(r, r, r)
	}
	Load(Param("bias").Base(), RSI)
	TESTQ(RSI, RSI)
	JZ(LabelRef("afinit"))
	for v, r := range row {
		VMOVUPS_Z(ix(RSI, RDI, 1, 64*v), masks[v], r)
	}

	Label("afinit")
	for c := 0; c < affineChains; c++ {
		for v, r := range row {
			VMOVAPS(r, z(4*c+v))
		}
	}
	Load(Param("m").Base(), RSI)
	ADDQ(RDI, RSI) // SI: row 0 of m, this tile
	XORQ(RAX, RAX) // AX: input index j
	CMPQ(RAX, arg(Param("nin")))
	JGE(LabelRef("afstore"))

	Label("afrow")
	for v, r := range row {
		VMOVUPS_Z(at(RSI, 64*v), masks[v], r)
	}
	for c := 0; c < affineChains; c++ {
		if c > 0 {
			CMPQ(RBX, imm(c))
			JLE(LabelRef("afrowend"))
		}
		in := []VecPhysical{Z28, Z29}[c%2]
		VBROADCASTSS(ix(rows[c], RAX, 4, 0), in)
		for v, r := range row {
			VFMADD231PS(r, in, z(4*c+v))
		}
	}

	Label("afrowend")
	ADDQ(RDX, RSI)
	INCQ(RAX)
	CMPQ(RAX, arg(Param("nin")))
	JLT(LabelRef("afrow"))

	Label("afstore")
	Load(Param("out").Base(), RSI)
	ADDQ(RDI, RSI) // SI: chain 0's output, this tile
	for c := 0; c < affineChains; c++ {
		if c > 0 {
			CMPQ(RBX, imm(c))
			JLE(LabelRef("afnext"))
			ADDQ(RDX, RSI)
		}
		for v := range row {
			VMOVUPS(z(4*c+v), masks[v], at(RSI, 64*v))
		}
	}

	Label("afnext")
	ADDQ(imm(256), RDI)
	CMPQ(RDI, RDX)
	JLT(LabelRef("aftile"))
	vzeroRet()
}

// axpyMasked does y += a·x (a in Z31) on the lanes of mask k at (DI), (SI).
func axpyMasked(k Op) {
	VMOVUPS_Z(at(RSI, 0), k, Z0)
	VMOVUPS_Z(at(RDI, 0), k, Z1)
	VMULPS(Z31, Z0, Z0)
	VADDPS(Z0, Z1, Z1)
	VMOVUPS(Z1, k, at(RDI, 0))
}

// axpy multiplies, then adds (not fused), as the Go loop rounds. Four full
// vectors a step, then single vectors, then one masked tail: computing a
// lane mask and masking every vector made this slower than the AVX2
// kernel. A masked head first aligns y to 64 bytes: rows of 500 floats
// start at 16-byte offsets, and a 64-byte store across two cache lines
// costs about double.
func axpy() {
	text("axpyAVX512", "func(y []float32, a float32, x []float32)",
		"axpyAVX512: for i < len(x): y[i] += a * x[i]. len(y) ≥ len(x).")
	Load(Param("y").Base(), RDI)
	Load(Param("x").Base(), RSI)
	Load(Param("x").Len(), RBX)
	TESTQ(RBX, RBX)
	JLE(LabelRef("axdone"))
	VBROADCASTSS(arg(Param("a")), Z31)
	MOVQ(RDI, RCX)
	NEGQ(RCX)
	ANDQ(imm(63), RCX)
	SHRQ(imm(2), RCX) // CX: floats before y is 64-byte aligned
	JZ(LabelRef("axaligned"))
	CMPQ(RCX, RBX)
	CMOVQGT(RBX, RCX)
	MOVQ(RCX, RDX)
	laneMask(K1)
	axpyMasked(K1)
	LEAQ(ix(RSI, RDX, 4, 0), RSI)
	LEAQ(ix(RDI, RDX, 4, 0), RDI)
	SUBQ(RDX, RBX)

	Label("axaligned")
	CMPQ(RBX, imm(64))
	JLT(LabelRef("axone"))

	Label("axfour")
	for i := 0; i < 4; i++ {
		VMULPS(at(RSI, 64*i), Z31, z(i))
	}
	for i := 0; i < 4; i++ {
		VADDPS(at(RDI, 64*i), z(i), z(i))
	}
	for i := 0; i < 4; i++ {
		VMOVUPS(z(i), at(RDI, 64*i))
	}
	ADDQ(imm(256), RSI)
	ADDQ(imm(256), RDI)
	SUBQ(imm(64), RBX)
	CMPQ(RBX, imm(64))
	JGE(LabelRef("axfour"))

	Label("axone")
	CMPQ(RBX, imm(16))
	JLT(LabelRef("axtail"))
	VMULPS(at(RSI, 0), Z31, Z0)
	VADDPS(at(RDI, 0), Z0, Z0)
	VMOVUPS(Z0, at(RDI, 0))
	ADDQ(imm(64), RSI)
	ADDQ(imm(64), RDI)
	SUBQ(imm(16), RBX)
	JMP(LabelRef("axone"))

	Label("axtail")
	TESTQ(RBX, RBX)
	JLE(LabelRef("axdone"))
	MOVQ(RBX, RCX)
	laneMask(K1)
	axpyMasked(K1)

	Label("axdone")
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
	MOVL(EBX, arg(ReturnIndex(0)))
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
	VBROADCASTSS(arg(Param("alpha")), Z31)
	VBROADCASTSS(arg(Param("alphaA")), Z30)
	VBROADCASTSS(arg(Param("gamma")), Z29)
	bcast(0x3f800000, Z28) // 1
	updateStart("uncdone")
	elementLoop("uncloop", []Register{R10}, func() {
		VMOVUPS_Z(ix(RDI, R10, 1, 0), K1, Z0) // w0
		VMOVUPS_Z(ix(RSI, R10, 1, 0), K1, Z1) // ap
		VMOVUPS_Z(ix(RDX, R10, 1, 0), K1, Z2) // a
		VMOVUPS_Z(ix(R9, R10, 1, 0), K1, Z3)  // g
		VMULPS(Z31, Z3, Z4)                   // alpha·g
		VMULPS(Z2, Z4, Z4)                    // ·a
		VADDPS(Z4, Z0, Z5)                    // Z5: nw = w0 + alpha·g·a
		VMULPS(Z30, Z3, Z6)                   // alphaA·g
		VMULPS(Z0, Z6, Z6)                    // ·w0
		VADDPS(Z6, Z1, Z1)                    // ap + alphaA·g·w0
		VMAXPS(Z1, Z27, Z1)                   // max(·, 0)
		VMINPS(Z1, Z28, Z1)                   // min(·, 1)
		VCMPPS(imm(13), Z29, Z1, K1, K2)      // K2: ap ≥ gamma (GE_OS)
		VMOVAPS_Z(Z28, K2, Z7)                // Z7: new a
		VMULPS(Z7, Z5, Z6)                    // Z6: c = nw·a
		VFMADD231PS(Z27, Z5, Z26)             // acc += nw·0
		VMOVUPS(Z5, K1, ix(RDI, R10, 1, 0))
		VMOVUPS(Z1, K1, ix(RSI, R10, 1, 0))
		VMOVUPS(Z7, K1, ix(RDX, R10, 1, 0))
		VMOVUPS(Z6, K1, ix(R8, R10, 1, 0))
		VMOVUPS(Z27, K1, ix(R9, R10, 1, 0))
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
	VBROADCASTSS(arg(Param("alpha")), Z31)
	updateStart("umdone")
	elementLoop("umloop", []Register{R10}, func() {
		VMOVUPS_Z(ix(RDI, R10, 1, 0), K1, Z0) // w
		VMOVUPS_Z(ix(RDX, R10, 1, 0), K1, Z2) // a
		VMOVUPS_Z(ix(R9, R10, 1, 0), K1, Z3)  // g
		VMULPS(Z31, Z3, Z4)                   // alpha·g
		VMULPS(Z2, Z4, Z4)                    // ·a
		VADDPS(Z4, Z0, Z5)                    // nw
		VMULPS(Z2, Z5, Z6)                    // c = nw·a
		VFMADD231PS(Z27, Z5, Z26)             // acc += nw·0
		VMOVUPS(Z5, K1, ix(RDI, R10, 1, 0))
		VMOVUPS(Z6, K1, ix(R8, R10, 1, 0))
		VMOVUPS(Z27, K1, ix(R9, R10, 1, 0))
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
	VBROADCASTSS(arg(Param("alpha")), Z31)
	updateStart("uddone")
	Label("udloop")
	MOVQ(RBX, RCX)
	laneMask(K1)
	VMOVUPS_Z(ix(RDI, R10, 1, 0), K1, Z0) // w
	VMOVUPS_Z(ix(R9, R10, 1, 0), K1, Z3)  // g
	VMULPS(Z31, Z3, Z4)                   // alpha·g
	VADDPS(Z4, Z0, Z5)                    // nw
	VFMADD231PS(Z27, Z5, Z26)             // acc += nw·0
	VMOVUPS(Z5, K1, ix(RDI, R10, 1, 0))
	VMOVUPS(Z27, K1, ix(R9, R10, 1, 0))
	TESTQ(R8, R8)
	JZ(LabelRef("udnext"))
	VMOVUPS(Z5, K1, ix(R8, R10, 1, 0))
	Label("udnext")
	ADDQ(imm(64), R10)
	SUBQ(imm(16), RBX)
	JG(LabelRef("udloop"))
	updateEnd("uddone")
}

// The updates with momentum and weight decay repeat updateMomGeneric's
// float32 operations one by one, in its order: every product rounded on
// its own (VMULPS, never an FMA), the sums left to right, so the bits are
// the generic code's. Beside updateStart's Z27 (0) and Z26: Z25 lr, Z24
// invB, Z23 mu, Z22 l2, Z21 l1, Z28 1.0; NCG also Z20 lrA and Z19 γ. RDI
// w, RSI ap, RDX a, R8 c, R9 g, R11 v.

// momConsts broadcasts the coefficients both updates use.
func momConsts() {
	for _, c := range []struct {
		name string
		z    VecPhysical
	}{{"lr", Z25}, {"invB", Z24}, {"mu", Z23}, {"l2", Z22}, {"l1", Z21}} {
		VBROADCASTSS(arg(Param(c.name)), c.z)
	}
	bcast(0x3f800000, Z28) // 1
}

// momStep is one step of 16 lanes (K1) from w0 in Z0, a in Z2 and g in
// Z3:
//
//	Z4 = s = g·invB − l2·w0 − l1·sign(w0) + mu·v
//	Z5 = nw = w0 + (lr·s)·a,  Z4 = nv = s·a
//
// It loads v, stores w, v and g (0) and adds nw·0 to Z26 on the
// lanes of K1. sign(w0) is 1 on K2 (0 < w0), then less 1 on K3 (w0 < 0):
// 1, −1 or +0.
func momStep() {
	VMOVUPS_Z(ix(R11, R10, 1, 0), K1, Z7) // v
	VMULPS(Z24, Z3, Z4)                   // g·invB
	VMULPS(Z0, Z22, Z5)                   // l2·w0
	VSUBPS(Z5, Z4, Z4)
	VCMPPS(imm(1), Z0, Z27, K2) // 0 < w0 (LT_OS)
	VCMPPS(imm(1), Z27, Z0, K3) // w0 < 0
	VMOVAPS_Z(Z28, K2, Z6)
	VSUBPS(Z28, Z6, K3, Z6) // sign(w0)
	VMULPS(Z6, Z21, Z6)     // l1·sign(w0)
	VSUBPS(Z6, Z4, Z4)
	VMULPS(Z7, Z23, Z7) // mu·v
	VADDPS(Z7, Z4, Z4)  // s
	VMULPS(Z4, Z25, Z5) // lr·s
	VMULPS(Z2, Z5, Z5)  // ·a
	VADDPS(Z5, Z0, Z5)  // nw = w0 + ·
	VMULPS(Z2, Z4, Z4)  // nv = s·a
	VMULPS(Z27, Z5, Z6)
	VADDPS(Z6, Z26, K1, Z26) // acc += nw·0
	VMOVUPS(Z5, K1, ix(RDI, R10, 1, 0))
	VMOVUPS(Z4, K1, ix(R11, R10, 1, 0))
	VMOVUPS(Z27, K1, ix(R9, R10, 1, 0))
}

func updateMom() {
	text("updateMomAVX512", "func(w, a, c, g, v []float32, lr, invB, mu, l2, l1 float32) float32",
		"updateMomAVX512: for k < len(w), as updateMomGeneric, with ak = a[k] (1 if a",
		"is nil), every product rounded (no FMA) and the sums left to right:",
		"",
		"\tw0 := w[k]",
		"\ts := g[k]*invB - l2*w0 - l1*sign(w0) + mu*v[k]",
		"\tw[k] = w0 + lr*s*ak; v[k] = s*ak; g[k] = 0",
		"\tif c != nil { c[k] = w[k]*ak }",
		"",
		"It returns 0 if every w[k] is finite, else NaN. a and c (unless nil), g and v",
		"are at least as long as w.")
	// Four loops, for a and c present or nil, chosen once.
	Load(Param("w").Base(), RDI)
	Load(Param("a").Base(), RDX)
	Load(Param("c").Base(), R8)
	Load(Param("g").Base(), R9)
	Load(Param("v").Base(), R11)
	Load(Param("w").Len(), RBX)
	momConsts()
	updateStart("mmdone")
	TESTQ(RDX, RDX)
	JZ(LabelRef("mmnoa"))
	TESTQ(R8, R8)
	JZ(LabelRef("mma"))
	for _, k := range []struct {
		p          string
		hasA, hasC bool
	}{{"mmac", true, true}, {"mma", true, false}, {"mmc", false, true}, {"mmn", false, false}} {
		if k.p == "mmc" {
			Label("mmnoa")
			TESTQ(R8, R8)
			JZ(LabelRef("mmn"))
		}
		hasA, hasC := k.hasA, k.hasC
		elementLoop(k.p, []Register{R10}, func() {
			VMOVUPS_Z(ix(RDI, R10, 1, 0), K1, Z0) // w0
			if hasA {
				VMOVUPS_Z(ix(RDX, R10, 1, 0), K1, Z2) // a
			} else {
				VMOVAPS(Z28, Z2)
			}
			VMOVUPS_Z(ix(R9, R10, 1, 0), K1, Z3) // g
			momStep()
			if hasC {
				VMULPS(Z2, Z5, Z6) // c = nw·a
				VMOVUPS(Z6, K1, ix(R8, R10, 1, 0))
			}
		})
		JMP(LabelRef("mmdone"))
	}
	updateEnd("mmdone")
}

func updateMomNCG() {
	text("updateMomNCGAVX512", "func(w, ap, a, c, g, v []float32, lr, invB, mu, l2, l1, lrA, gamma float32) float32",
		"updateMomNCGAVX512: for k < len(w), as updateMomNCGGeneric, every product",
		"rounded (no FMA) and the sums left to right:",
		"",
		"\tw0, gk := w[k], g[k]",
		"\ts := gk*invB - l2*w0 - l1*sign(w0) + mu*v[k]",
		"\tnw := w0 + lr*s*a[k]; v[k] = s*a[k]",
		"\tq := ap[k] + lrA*gk*w0; if q < 0 { q = 0 }; if q > 1 { q = 1 }",
		"\tap[k] = q; a[k] = 1 if q >= gamma else 0",
		"\tw[k] = nw; c[k] = nw*a[k]; g[k] = 0",
		"",
		"It returns 0 if every w[k] is finite, else NaN. ap, a, c, g and v are at least",
		"as long as w.")
	// VMAXPS/VMINPS take q as the second operand, which they return when
	// the compare fails: (0 > q) ? 0 : q and (1 < q) ? 1 : q, Go's
	// branches exactly (a NaN or −0 q is kept).
	Load(Param("w").Base(), RDI)
	Load(Param("ap").Base(), RSI)
	Load(Param("a").Base(), RDX)
	Load(Param("c").Base(), R8)
	Load(Param("g").Base(), R9)
	Load(Param("v").Base(), R11)
	Load(Param("w").Len(), RBX)
	momConsts()
	VBROADCASTSS(arg(Param("lrA")), Z20)
	VBROADCASTSS(arg(Param("gamma")), Z19)
	updateStart("mncdone")
	elementLoop("mncloop", []Register{R10}, func() {
		VMOVUPS_Z(ix(RDI, R10, 1, 0), K1, Z0) // w0
		VMOVUPS_Z(ix(RDX, R10, 1, 0), K1, Z2) // a
		VMOVUPS_Z(ix(RSI, R10, 1, 0), K1, Z1) // ap
		VMOVUPS_Z(ix(R9, R10, 1, 0), K1, Z3)  // g
		VMULPS(Z20, Z3, Z8)                   // lrA·g
		VMULPS(Z0, Z8, Z8)                    // ·w0
		VADDPS(Z8, Z1, Z1)                    // q = ap + ·
		VMAXPS(Z1, Z27, Z1)
		VMINPS(Z1, Z28, Z1)
		VCMPPS(imm(13), Z19, Z1, K1, K4) // q >= gamma (GE_OS)
		VMOVAPS_Z(Z28, K4, Z9)           // new a
		momStep()
		VMULPS(Z9, Z5, Z6) // c = nw·(new a)
		VMOVUPS(Z1, K1, ix(RSI, R10, 1, 0))
		VMOVUPS(Z9, K1, ix(RDX, R10, 1, 0))
		VMOVUPS(Z6, K1, ix(R8, R10, 1, 0))
	})
	updateEnd("mncdone")
}

// changes: one pass over 16 states at a time: compare s and ref with 0
// (NEQ_UQ, as indices), derive the masks of ones, of units switched on
// (s ≠ 0, ref = 0) and off (s = 0, ref ≠ 0), compress the three lists'
// lane numbers into registers and store them, copy s to ref. It replaces
// two Indices, an Axpy, a copy and a Go loop splitting the flips (15% of
// a training minibatch). As in indices, each compress goes to a register
// of its own, zeroed first, and whole vectors store all 16 lanes (the
// lists' entries past their counts are scratch, and 16 more stay within
// len(s)); only the tail masks its stores.
func changes(lanes Mem) {
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
			VMOVDQU32(z, at(ptr, 0))
		} else {
			lowLanes(EDX, K3)
			VMOVDQU32(z, K3, at(ptr, 0))
		}
		LEAQ(ix(ptr, RDX, 4, 0), ptr)
	}
	body := func(whole bool) {
		if whole {
			VMOVUPS(at(RSI, 0), Z0)
			VMOVUPS(at(R9, 0), Z5)
			VMOVUPS(Z0, at(R9, 0))     // ref = s
			VCMPPS(imm(4), Z3, Z0, K2) // K2: s ≠ 0
			VCMPPS(imm(4), Z3, Z5, K4) // K4: ref ≠ 0
		} else {
			MOVQ(RBX, RCX)
			laneMask(K1)
			VMOVUPS_Z(at(RSI, 0), K1, Z0)
			VMOVUPS_Z(at(R9, 0), K1, Z5)
			VMOVUPS(Z0, K1, at(R9, 0))
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
// A register XORed with itself waits for nothing. In a one-worker MNIST
// minibatch profile Changes fell from 0.68 to 0.29 s per 3,000 minibatches
// (2-vCPU Zen 5 VM).
func compress(src, k, dst Op) {
	VPXORD(dst, dst, dst)
	VPCOMPRESSD(src, k, dst)
}

// The chain loop of sumRowsBlockAVX512, shared by its wide and narrow
// paths. Registers: R8 this chain's indices, R10 its count, R11 its
// cursor, R12 r1, R13 chains left, DI its row of out, DX/SI/R9 strides and
// m; AX the next index's address, BX the end of the chain's indices, CX
// the row.

// sbStart jumps to skip when the chain has no row left below r1; else it
// leaves AX, BX and CX (the first row) set.
func sbStart(skip string) {
	MOVLQSX(at(R11, 0), RAX)
	MOVLQSX(at(R10, 0), RBX)
	CMPQ(RAX, RBX)
	JGE(LabelRef(skip))
	LEAQ(ix(R8, RAX, 4, 0), RAX)
	LEAQ(ix(R8, RBX, 4, 0), RBX)
	MOVLQSX(at(RAX, 0), RCX)
	CMPQ(RCX, R12)
	JGE(LabelRef(skip))
}

// sbStep moves to the next index and jumps to row while it names a row
// below r1, else to done.
func sbStep(row, done string) {
	ADDQ(imm(4), RAX)
	CMPQ(RAX, RBX)
	JGE(LabelRef(done))
	MOVLQSX(at(RAX, 0), RCX)
	CMPQ(RCX, R12)
	JLT(LabelRef(row))
}

// sbCursor stores the position of AX as the chain's cursor.
func sbCursor() {
	SUBQ(R8, RAX)
	SHRQ(imm(2), RAX)
	MOVL(EAX, at(R11, 0))
}

// sbNext moves to the next chain (CX: out's row stride, in floats) and
// jumps to chain while one is left.
func sbNext(chain string) {
	ADDQ(imm(4), R10)
	ADDQ(imm(4), R11)
	ADDQ(R9, R8)
	LEAQ(ix(RDI, RCX, 4, 0), RDI)
	DECQ(R13)
	JNZ(LabelRef(chain))
}

// sumRowsBlockPath emits the chain loop for n columns in vectors; the first
// full of them unmasked, the others masked by K1-K4 (labels prefixed p).
func sumRowsBlockPath(p string, full int) {
	vecs := full + len(masks)
	Label(p + "chain")
	sbStart(p + "next")
	for i := 0; i < vecs; i++ {
		if i < full {
			VMOVUPS(at(RDI, 64*i), z(i))
		} else {
			VMOVUPS_Z(at(RDI, 64*i), masks[i-full], z(i))
		}
	}
	Label(p + "row")
	IMULQ(RDX, RCX)
	ADDQ(RSI, RCX)
	for i := 0; i < vecs; i++ {
		if i < full {
			VADDPS(at(RCX, 64*i), z(i), z(i))
		} else {
			VADDPS(at(RCX, 64*i), z(i), masks[i-full], z(i))
		}
	}
	sbStep(p+"row", p+"store")
	Label(p + "store")
	for i := 0; i < vecs; i++ {
		if i < full {
			VMOVUPS(z(i), at(RDI, 64*i))
		} else {
			VMOVUPS(z(i), masks[i-full], at(RDI, 64*i))
		}
	}
	sbCursor()
	Label(p + "next")
	Load(Param("ldo"), RCX)
	sbNext(p + "chain")
}

// sumRowsBlock: one row block of the blocked binary product: for each
// chain c < nc, the rows idx[c*ldi+cursors[c] ...] that are < r1 (they are
// increasing) are added to out[c*ldo : c*ldo+n] (n ≤ 128 columns, kept in
// Z0-Z7 while the chain's rows are added), and cursors[c] moves past them.
// Called once per block of rows, so the block's rows stay in L1 while
// every chain of the group adds from them.
func sumRowsBlock() {
	text("sumRowsBlockAVX512", "func(out []float32, ldo int, m []float32, ldm int, idx []int32, ldi int, counts, cursors []int32, r1, nc, n int)",
		"sumRowsBlockAVX512: for c < nc: for the indices j = idx[c*ldi+k],",
		"cursors[c] ≤ k < counts[c], while j < r1: out[c*ldo+o] += m[j*ldm+o] for",
		"o < n (n ≤ 128); cursors[c] = the first k not taken.")
	Load(Param("out").Base(), RDI)
	Load(Param("m").Base(), RSI)
	Load(Param("ldm"), RDX)
	SHLQ(imm(2), RDX) // DX: bytes per row of m
	Load(Param("idx").Base(), R8)
	Load(Param("ldi"), R9)
	SHLQ(imm(2), R9) // R9: bytes per chain of idx
	Load(Param("counts").Base(), R10)
	Load(Param("cursors").Base(), R11)
	Load(Param("r1"), R12)
	Load(Param("nc"), R13)
	Load(Param("n"), RBX)
	TESTQ(R13, R13)
	JLE(LabelRef("sbdone"))
	CMPQ(RBX, imm(64))
	JLE(LabelRef("sbnarrow"))
	chunkMasks(RBX, 4)
	sumRowsBlockPath("sbw", 4)
	JMP(LabelRef("sbdone"))

	Label("sbnarrow")
	chunkMasks(RBX, 0)
	sumRowsBlockPath("sbn", 0)

	Label("sbdone")
	vzeroRet()
}

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
		MOVLQSX(ix(R10, RBX, 4, 0), R13)
		SHLQ(imm(5+regs), R13)
		ADDQ(R8, R13)
		VBROADCASTSS(ix(R11, RBX, 4, 0), Z8)
		for r := 0; r < regs; r++ {
			VMULPS(at(R13, 64*r), Z8, z(4+r))
		}
		for r := 0; r < regs; r++ {
			VADDPS(z(4+r), z(r), z(r))
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
	MOVLQSX(ix(R9, RAX, 4, 4), R12) // end of the row
	for r := 0; r < regs; r++ {
		VXORPS(z(r), z(r), z(r))
	}
	TESTQ(RSI, RSI)
	JZ(LabelRef(p + "Sum"))
	for r := 0; r < regs; r++ {
		VBROADCASTSS(ix(RSI, RAX, 4, 0), z(r))
		VADDPS(Z9, z(r), z(r)) // −0 + 0 = +0
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
		VMOVUPS(z(r), at(R13, 64*r))
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
	laneMask(K2) // clobbers AX and CX
	MOVQ(R13, RAX)
	VMOVDQU32_Z(ix(R11, RAX, 4, 0), K2, Z2)
	VXORPS(Z0, Z0, Z0)
	XORQ(RBX, RBX) // t
	Label("gsRow")
	CMPQ(RBX, R9)
	JGE(LabelRef("gsStore"))
	MOVLQSX(ix(R8, RBX, 4, 0), R14)
	IMULQ(RDX, R14)
	ADDQ(RSI, R14)
	KMOVW(K2, K1)
	VXORPS(Z1, Z1, Z1)
	VGATHERDPS(Mem{Base: R14, Index: Z2, Scale: 4}, K1, Z1)
	VADDPS(Z1, Z0, Z0)
	INCQ(RBX)
	JMP(LabelRef("gsRow"))
	Label("gsStore")
	VMOVUPS(Z0, K2, ix(RDI, RAX, 4, 0))
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
	laneMask(K2) // clobbers AX and CX
	VPXORD(Z0, Z0, Z0)
	LEAQ(ix(RSI, R11, 4, 0), R12) // chain 0's inputs j…
	XORQ(RBX, RBX)                // c
	MOVL(U32(1), EDX)             // 1 << c
	Label("pbChain")
	CMPQ(RBX, R8)
	JGE(LabelRef("pbStore"))
	VMOVUPS_Z(at(R12, 0), K2, Z1)
	VCMPPS(imm(4), Z3, Z1, K2, K1) // K1: inputs ≠ 0 (NEQ_UQ)
	VPBROADCASTD(EDX, Z2)
	VPORD(Z2, Z0, K1, Z0)
	ADDQ(R10, R12)
	SHLL(imm(1), EDX)
	INCQ(RBX)
	JMP(LabelRef("pbChain"))
	Label("pbStore")
	VMOVDQU32(Z0, K2, ix(RDI, R11, 4, 0))
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
		MOVLQSX(ix(R10, RBX, 4, 0), R13)
		VBROADCASTSS(ix(R11, RBX, 4, 0), Z8)
		if regs == 1 {
			KMOVW(ix(R8, R13, 4, 0), K1)
			VADDPS(Z8, Z0, K1, Z0)
			return
		}
		KMOVD(ix(R8, R13, 4, 0), K1)
		KSHIFTRD(imm(16), K1, K2)
		VADDPS(Z8, Z0, K1, Z0)
		VADDPS(Z8, Z1, K2, Z1)
	})
}
