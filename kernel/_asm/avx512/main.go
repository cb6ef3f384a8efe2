// Command avx512 generates the AVX-512 (F, DQ, BW, VL) kernels of package
// kernel: kernel_avx512_amd64.s and their Go declarations,
// kernel_avx512_stubs_amd64.go. Run it with `go generate ./kernel`.
//
// Every loop steps 16 float32 lanes (one ZMM) at a time and covers its tail
// with an opmask: the mask of a step has the low min(left, 16) bits set,
// loads zero the masked-off lanes and stores skip them, so a kernel has one
// code path for every length and never touches memory outside its slices
// (masked-off lanes do not fault). The element loops return at once for an
// empty input; package kernel's exported functions check the lengths of the
// other slices, which this code trusts.
//
// Registers are physical: AX and CX are scratch (tailMask), BP and R15 are
// not touched; Z0-Z31 and K1-K6 are free in ABI0 assembly (the ABI wrapper
// restores X15 and R14 on return to Go).
//
// Operand order is Go's: sources first, destination last; a mask comes just
// before the destination (VADDPS(Z1, Z2, K1, Z3) is Z3 = Z2 + Z1 on K1).
//
// Helpers have the same names and meanings in both generators (avx2 and
// avx512): text starts a function; at, atd, ix and ixd are the memory
// operands (base), disp(base), (base)(index*scale) and
// disp(base)(index*scale); arg is the stack slot of a parameter or of the
// result ("ret"); ymm and zmm return a vector register by number; tailMask
// masks the lanes of a vector that lie before the end of the data; expV,
// sigmoidV, softplusV and logV compute a function on vector registers;
// elementwise is the loop of the element-wise kernels; loadState,
// storeState, xoshiro and uniform draw from the random streams; constants
// defines the read-only tables. A kernel's generator is named after the
// function it emits, less the tier suffix (sigmoid emits sigmoidAVX2 and
// sigmoidAVX512), and each sits in the file of its theme: elementwise.go,
// linear.go (products and row sums), math.go, momentum.go, softmax.go
// (categorical sampling), sparse.go, tables.go, update.go (updates, index
// lists) and, for AVX2, prefetch.go.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	// The signatures name Stream: this package's stand-in for it.
	Package("github.com/ncg-rbm/ncg/kernel/_asm/avx512")
	ConstraintExpr("!purego,!noasm,gc")

	constants()
	gaussTable()
	sigmoid()
	softplus()
	bernoulli()
	sigmoidBernoulli()
	gaussian()
	softmaxExp()
	softmaxFinish()
	softmaxBlocks(true)
	softmaxBlocks(false)
	groupsValid()
	indices()
	sumRows()
	affine6()
	affineSigmoid6()
	bothOn()
	packBits64()
	axpy()
	updateNCG()
	updateMasked()
	updateDense()
	updateMom()
	updateMomNCG()
	changes()
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

// zmm returns vector register Zi.
func zmm(i int) VecPhysical {
	return []VecPhysical{
		Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
		Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31,
	}[i]
}

// masks are the opmasks of the four vectors of a 64-column chunk.
var masks = []OpmaskPhysical{K1, K2, K3, K4}

// at is (base), atd is disp(base); ix is (base)(index*scale), ixd is
// disp(base)(index*scale).
func at(base Register) Mem                 { return Mem{Base: base} }
func atd(base Register, disp int) Mem      { return Mem{Base: base, Disp: disp} }
func ix(base, index Register, s uint8) Mem { return Mem{Base: base, Index: index, Scale: s} }
func ixd(base, index Register, s uint8, disp int) Mem {
	return Mem{Base: base, Index: index, Scale: s, Disp: disp}
}

// arg is the stack slot of a parameter or result ("ret").
func arg(name string) Mem {
	var c gotypes.Component
	if name == "ret" {
		c = ReturnIndex(0)
	} else {
		c = Param(name)
	}
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
