// Command avx2 generates the AVX2+FMA3 kernels of package kernel (the
// "avx2" tier): kernel_avx2_amd64.s and the Go declarations in
// kernel_avx2_stubs_amd64.go. Run it through `go generate ./kernel`.
//
// Every function is a NOSPLIT|NOFRAME leaf that trusts the lengths the Go
// wrappers in kernel_avx2_amd64.go have checked; loads and stores are
// unaligned; partial vectors at the end of a slice use VMASKMOVPS so that
// nothing outside the slices is read or written. BP is never touched.
// Registers are physical, chosen by hand: the generator writes the
// instruction sequence it is given, nothing is allocated. The scalar meaning
// of each function is its Doc, which becomes the stub's doc comment.
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
	"flag"
	"fmt"
	"go/token"
	"go/types"
	"log"
	"os"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// g is the build context every generator function writes to.
var g = build.NewContext()

// kernelPkg stands in for package kernel when signatures are parsed: it
// declares the one named type the signatures use, Stream (only pointers to
// it are passed, so its fields do not matter).
var kernelPkg = func() *types.Package {
	p := types.NewPackage("github.com/ncg-rbm/ncg/kernel", "kernel")
	tn := types.NewTypeName(token.NoPos, p, "Stream", nil)
	types.NewNamed(tn, types.NewStruct(nil, nil), nil)
	p.Scope().Insert(tn)
	return p
}()

// text starts the function name with the Go signature sig ("func(...)")
// and the doc comment doc of its stub.
func text(name, sig string, doc ...string) {
	s, err := gotypes.ParseSignatureInPackage(kernelPkg, sig)
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	g.Function(name)
	g.Attributes(attr.NOSPLIT | attr.NOFRAME)
	g.Signature(s)
	g.Doc(doc...)
	g.Pragma("noescape")
}

// Operands.

type mem = operand.Mem

// at is (base), at+d is d(base); ix is (base)(index*scale).
func at(base reg.Register) mem                 { return mem{Base: base} }
func atd(base reg.Register, d int) mem         { return mem{Base: base, Disp: d} }
func ix(base, index reg.Register, s uint8) mem { return mem{Base: base, Index: index, Scale: s} }
func ixd(base, index reg.Register, s uint8, d int) mem {
	return mem{Base: base, Index: index, Scale: s, Disp: d}
}

func lbl(name string) operand.LabelRef { return operand.LabelRef(name) }

// arg is the address of a parameter or result ("ret").
func arg(name string) mem {
	var c gotypes.Component
	if name == "ret" {
		c = g.ReturnIndex(0)
	} else {
		c = g.Param(name)
	}
	b, err := c.Resolve()
	if err != nil {
		log.Fatal(err)
	}
	return b.Addr
}

// loadBase, loadLen and load move a slice's base, its length, or a scalar
// parameter into r (MOVQ).
func loadBase(name string, r reg.Register) { g.Load(g.Param(name).Base(), r) }
func loadLen(name string, r reg.Register)  { g.Load(g.Param(name).Len(), r) }
func load(name string, r reg.Register)     { g.Load(g.Param(name), r) }

func main() {
	// The build package registers its flags on flag.CommandLine for its
	// global context; this program uses its own context and flag set.
	fs := flag.NewFlagSet(os.Args[0], flag.ExitOnError)
	flags := build.NewFlags(fs)
	fs.Parse(os.Args[1:])
	g.ConstraintExpr("!purego,!noasm,gc") // !purego && !noasm && gc

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
	affine4x24()
	affine4x16Mask()
	sumRows()
	bothOn8()
	packBits64x8()
	indices()
	axpy()
	updateNCG()
	updateMasked()
	updateDense()
	updateMom()
	updateMomNCG()
	transpose()
	sumRowsBlock()
	taylorSums()
	prefetchW()
	cpuidPRFCHW()
	sparseAffine(1)
	sparseAffine(2)
	sparseAffine(4)
	gatherSum()
	dotRows()

	os.Exit(build.Main(flags.Config(), g))
}

var sprintf = fmt.Sprintf
