package main

import (
	"fmt"

	"github.com/mmcloughlin/avo/gotypes"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

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
	LEAQ(atd(RBX, pfRow), R12)
	CMPQ(R12, R13)
	CMOVQGT(R13, R12)
	MOVLQSX(ix(R8, R12, 4), R12)
	IMULQ(RDX, R12)
	ADDQ(RSI, R12)
	for i := 0; i <= huge; i++ {
		PREFETCHT0(atd(R12, 64*i))
	}
	MOVLQSX(ix(R8, RBX, 4), R11)
	IMULQ(RDX, R11)
	ADDQ(RSI, R11)
	for i := 0; i < huge; i++ {
		VADDPS(atd(R11, 64*i), zmm(i), zmm(i))
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
	Load(Param("n"), R10)  // R10: columns left; DI, SI: their start
	LEAQ(atd(R9, -1), R13) // R13: the last index

	// Chunks of 512 columns: the whole chunk in the 32 vector registers, so
	// each row is read once, front to back (its lines in order for the
	// prefetchers), with one index load per 2 KB instead of one per 512 B.
	Label("srhuge")
	CMPQ(R10, imm(512))
	JLT(LabelRef("srhugetail"))
	for i := 0; i < huge; i++ {
		VMOVUPS(atd(RDI, 64*i), zmm(i))
	}
	VMOVUPS(atd(RDI, 64*huge), Z31)
	XORQ(RBX, RBX)
	CMPQ(RBX, R9)
	JGE(LabelRef("srhugestore"))
	Label("srhugerow")
	hugeRow()
	VADDPS(atd(R11, 64*huge), Z31, Z31)
	INCQ(RBX)
	CMPQ(RBX, R9)
	JLT(LabelRef("srhugerow"))
	Label("srhugestore")
	for i := 0; i < huge; i++ {
		VMOVUPS(zmm(i), atd(RDI, 64*i))
	}
	VMOVUPS(Z31, atd(RDI, 64*huge))
	ADDQ(imm(2048), RDI)
	ADDQ(imm(2048), RSI)
	SUBQ(imm(512), R10)
	JMP(LabelRef("srhuge"))

	// 497–511 columns left (H = 500): 31 registers and a masked one.
	Label("srhugetail")
	CMPQ(R10, imm(16*huge))
	JLE(LabelRef("srbig"))
	LEAQ(atd(R10, -16*huge), RCX)
	tailMask(K1)
	for i := 0; i < huge; i++ {
		VMOVUPS(atd(RDI, 64*i), zmm(i))
	}
	VMOVUPS_Z(atd(RDI, 64*huge), K1, Z31)
	XORQ(RBX, RBX)
	CMPQ(RBX, R9)
	JGE(LabelRef("srhugetstore"))
	Label("srhugetrow")
	hugeRow()
	VADDPS(atd(R11, 64*huge), Z31, K1, Z31)
	INCQ(RBX)
	CMPQ(RBX, R9)
	JLT(LabelRef("srhugetrow"))
	Label("srhugetstore")
	for i := 0; i < huge; i++ {
		VMOVUPS(zmm(i), atd(RDI, 64*i))
	}
	VMOVUPS(Z31, K1, atd(RDI, 64*huge))
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
		VMOVUPS_Z(atd(RDI, 64*i), k, zmm(i))
	}
	XORQ(RBX, RBX)
	CMPQ(RBX, R9)
	JGE(LabelRef("srnarrowstore"))
	Label("srnarrowrow")
	MOVLQSX(ix(R8, RBX, 4), R11)
	IMULQ(RDX, R11)
	ADDQ(RSI, R11)
	for i, k := range masks {
		VMOVUPS_Z(atd(R11, 64*i), k, zmm(8+i))
	}
	for i := 0; i < 4; i++ {
		VADDPS(zmm(8+i), zmm(i), zmm(i))
	}
	INCQ(RBX)
	CMPQ(RBX, R9)
	JLT(LabelRef("srnarrowrow"))
	Label("srnarrowstore")
	for i, k := range masks {
		VMOVUPS(zmm(i), k, atd(RDI, 64*i))
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
// cannot predict them.
func wideChunk(name string, full int, next string) {
	vecs := full + 4
	Label(name)
	CMPQ(R10, imm(16*full))
	JLE(LabelRef(next))
	chunkMasks(R10, full)
	for i := 0; i < full; i++ {
		VMOVUPS(atd(RDI, 64*i), zmm(i))
	}
	for i, k := range masks {
		VMOVUPS_Z(atd(RDI, 64*(full+i)), k, zmm(full+i))
	}
	XORQ(RBX, RBX)
	CMPQ(RBX, R9)
	JGE(LabelRef(name + "store"))
	Label(name + "row")
	LEAQ(atd(RBX, pfDist), R12)
	CMPQ(R12, R13)
	CMOVQGT(R13, R12)
	MOVLQSX(ix(R8, R12, 4), R12)
	IMULQ(RDX, R12)
	ADDQ(RSI, R12)
	for i := 0; i < vecs; i++ {
		PREFETCHT0(atd(R12, 64*i))
	}
	MOVLQSX(ix(R8, RBX, 4), R11)
	IMULQ(RDX, R11)
	ADDQ(RSI, R11) // R11: this chunk of row idx[BX]
	for i := 0; i < full; i++ {
		VADDPS(atd(R11, 64*i), zmm(i), zmm(i))
	}
	for i, k := range masks {
		VMOVUPS_Z(atd(R11, 64*(full+i)), k, zmm(vecs+i))
	}
	for i := 0; i < 4; i++ {
		VADDPS(zmm(vecs+i), zmm(full+i), zmm(full+i))
	}
	INCQ(RBX)
	CMPQ(RBX, R9)
	JLT(LabelRef(name + "row"))
	Label(name + "store")
	for i := 0; i < full; i++ {
		VMOVUPS(zmm(i), atd(RDI, 64*i))
	}
	for i, k := range masks {
		VMOVUPS(zmm(full+i), k, atd(RDI, 64*(full+i)))
	}
	ADDQ(imm(64*vecs), RDI)
	ADDQ(imm(64*vecs), RSI)
	SUBQ(imm(16*vecs), R10)
	JMP(LabelRef(name))
}

// affineChains is how many chains affine6AVX512 takes at most.
const affineChains = 6

// affine6: k ≤ 6 chains at once, in tiles of 64 outputs: 6 chains × 4
// vectors = 24 accumulators (Z0-Z23; chain c owns Z4c..Z4c+3), the tile's
// row of m in Z24-Z27, broadcast inputs in Z28/Z29. Each tile runs one of
// twelve row loops, chosen once per tile: one per chain count k (no test
// of k inside the loop: each would take an issue slot of the FMA ports),
// with plain loads of m for a full tile and loads masked by K1-K4 for the
// last, narrower one (a masked load adds a vector uop). Chains past k read
// chain 0's row when the tile starts and their accumulators are not
// stored.
func affine6() {
	text("affine6AVX512", "func(out, bias, in, m []float32, k, nin, nout int)",
		"affine6AVX512 computes 1 ≤ k ≤ 6 chains of the dense product:",
		"",
		"\tfor c < k, o < nout: out[c*nout+o] = bias[o] (0 if bias == nil) + Σ_{j<nin} in[c*nin+j] * m[j*nout+o]",
		"",
		"nout ≥ 1; in and m are not read when nin == 0.")
	affineTiles("af", false)
}

// affineSigmoid6 is affine6 with the mean field's step in the tile's
// store: each chain's sums, from 0 as affine6's, plus its row of add, go
// through the sigmoid of sigmoidAVX512 (the same instructions, hence the
// same bits as affine6AVX512, axpyAVX512 and sigmoidAVX512 in turn) into
// rows of out ldo floats apart. The sums are stored first and read back
// from L1: the sigmoid's constants and temporaries need the registers the
// accumulators hold. Each step of the row loop also prefetches one line
// of pf into L2 (R14, then its last line again once past it): the next
// tile's weights arrive while this one computes.
func affineSigmoid6() {
	text("affineSigmoid6AVX512", "func(out, add, in, m, pf []float32, k, nin, nout, ldo, lda int)",
		"affineSigmoid6AVX512 computes 1 ≤ k ≤ 6 chains of",
		"",
		"\tfor c < k, o < nout: out[c*ldo+o] = sigmoidAVX512(add[c*lda+o] + Σ_{j<nin} in[c*nin+j] * m[j*nout+o])",
		"",
		"with the sums of affine6AVX512 (no bias), prefetching pf (len ≥ 1) into",
		"L2. nout ≥ 1; in and m are not read when nin == 0. Overwrites its",
		"arguments ldo, lda (bytes) and pf's cap (pf's last float's address).")
	affineTiles("as", true)
}

// slot is the stack slot of a component of a parameter.
func slot(c gotypes.Component) Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// affineTiles emits affine6's tile loop (labels prefixed p); with sig, the
// store of affineSigmoid6.
func affineTiles(p string, sig bool) {
	rows := []GPPhysical{R8, R9, R10, R11, R12, R13} // input rows of chains 0..5
	Load(Param("in").Base(), R8)
	Load(Param("k"), RBX)
	Load(Param("nin"), RAX)
	SHLQ(imm(2), RAX) // AX: bytes per input row
	for c := 1; c < affineChains; c++ {
		LEAQ(ixd(rows[c-1], RAX, 1, 0), rows[c])
		CMPQ(RBX, imm(c))
		CMOVQLE(R8, rows[c]) // chains past k read chain 0's row
	}
	Load(Param("nout"), RDX)
	SHLQ(imm(2), RDX) // DX: bytes per row of m (and of out, without sig)
	XORQ(RDI, RDI)    // DI: byte offset of the tile
	if sig {
		for _, ld := range []string{"ldo", "lda"} {
			Load(Param(ld), RCX)
			SHLQ(imm(2), RCX)
			MOVQ(RCX, arg(ld)) // in bytes from here on
		}
		Load(Param("pf").Base(), R14) // R14: the next line to prefetch
		Load(Param("pf").Len(), RCX)
		LEAQ(Mem{Base: R14, Index: RCX, Scale: 4, Disp: -4}, RCX)
		MOVQ(RCX, slot(Param("pf").Cap())) // the address of pf's last float
	}

	Label(p + "tile")
	MOVQ(RDX, RSI)
	SUBQ(RDI, RSI)
	SHRQ(imm(2), RSI) // SI: columns left (≥ 1)
	chunkMasks(RSI, 0)
	row := []VecPhysical{Z24, Z25, Z26, Z27}
	for _, r := range row {
		VPXORD(r, r, r)
	}
	if !sig {
		Load(Param("bias").Base(), RSI)
		TESTQ(RSI, RSI)
		JZ(LabelRef(p + "init"))
		for v, r := range row {
			VMOVUPS_Z(ixd(RSI, RDI, 1, 64*v), masks[v], r)
		}
		Label(p + "init")
	}
	for c := 0; c < affineChains; c++ {
		for v, r := range row {
			VMOVAPS(r, zmm(4*c+v))
		}
	}
	Load(Param("m").Base(), RSI)
	ADDQ(RDI, RSI) // SI: row 0 of m, this tile
	XORQ(RAX, RAX) // AX: input index j
	CMPQ(RAX, arg("nin"))
	JGE(LabelRef(p + "store"))
	// The row loop for k chains, a full tile (unmasked loads: a masked
	// load costs a vector uop beside its load) or the last, narrower one.
	CMPQ(arg("nout"), imm(64))
	JL(LabelRef(p + "masked"))
	MOVQ(RDX, RCX)
	SUBQ(RDI, RCX)
	CMPQ(RCX, imm(256))
	JL(LabelRef(p + "masked"))
	for c := affineChains; c > 1; c-- {
		CMPQ(RBX, imm(c))
		JGE(LabelRef(fmt.Sprintf("%sfull%d", p, c)))
	}
	JMP(LabelRef(p + "full1"))
	Label(p + "masked")
	for c := affineChains; c > 1; c-- {
		CMPQ(RBX, imm(c))
		JGE(LabelRef(fmt.Sprintf("%srow%d", p, c)))
	}
	for _, full := range []bool{true, false} {
		for kc := 1; kc <= affineChains; kc++ {
			name := fmt.Sprintf("%srow%d", p, kc)
			if full {
				name = fmt.Sprintf("%sfull%d", p, kc)
			}
			Label(name)
			for v, r := range row {
				if full {
					VMOVUPS(atd(RSI, 64*v), r)
				} else {
					VMOVUPS_Z(atd(RSI, 64*v), masks[v], r)
				}
			}
			for c := 0; c < kc; c++ {
				in := []VecPhysical{Z28, Z29}[c%2]
				VBROADCASTSS(ixd(rows[c], RAX, 4, 0), in)
				for v, r := range row {
					VFMADD231PS(r, in, zmm(4*c+v))
				}
			}
			if sig {
				pfLast := slot(Param("pf").Cap())
				PREFETCHT1(at(R14))
				ADDQ(imm(64), R14)
				CMPQ(R14, pfLast)
				CMOVQHI(pfLast, R14)
			}
			ADDQ(RDX, RSI)
			INCQ(RAX)
			CMPQ(RAX, arg("nin"))
			JLT(LabelRef(name))
			JMP(LabelRef(p + "store"))
		}
	}

	Label(p + "store")
	Load(Param("out").Base(), RSI)
	ADDQ(RDI, RSI) // SI: chain 0's output, this tile
	for c := 0; c < affineChains; c++ {
		if c > 0 {
			CMPQ(RBX, imm(c))
			JLE(LabelRef(p + "stored"))
			if sig {
				ADDQ(arg("ldo"), RSI)
			} else {
				ADDQ(RDX, RSI)
			}
		}
		for v := range row {
			VMOVUPS(zmm(4*c+v), masks[v], atd(RSI, 64*v))
		}
	}
	Label(p + "stored")
	if sig {
		// out = σ(sums + add), chain by chain, on the tile's lanes (the
		// sigmoid on every lane under K5, stores under K1-K4).
		expConsts()
		KXNORW(K5, K5, K5)
		Load(Param("out").Base(), RSI)
		ADDQ(RDI, RSI)
		Load(Param("add").Base(), RAX)
		ADDQ(RDI, RAX) // AX: chain 0's row of add, this tile
		for c := 0; c < affineChains; c++ {
			if c > 0 {
				CMPQ(RBX, imm(c))
				JLE(LabelRef(p + "next"))
				ADDQ(arg("ldo"), RSI)
				ADDQ(arg("lda"), RAX) // 0: one row of add for all
			}
			for v := range row {
				VMOVUPS_Z(atd(RSI, 64*v), masks[v], Z0)
				VMOVUPS_Z(atd(RAX, 64*v), masks[v], Z1)
				VADDPS(Z1, Z0, Z0)
				sigmoidVK(Z0, Z1, Z2, Z3, Z4, K5, K6)
				VMOVUPS(Z1, masks[v], atd(RSI, 64*v))
			}
		}
	}

	Label(p + "next")
	ADDQ(imm(256), RDI)
	CMPQ(RDI, RDX)
	JLT(LabelRef(p + "tile"))
	vzeroRet()
}

// The chain loop of sumRowsBlockAVX512, shared by its wide and narrow
// paths. Registers: R8 this chain's indices, R10 its count, R11 its
// cursor, R12 r1, R13 chains left, DI its row of out, DX/SI/R9 strides and
// m; AX the next index's address, BX the end of the chain's indices, CX
// the row.

// sbStart jumps to skip when the chain has no row left below r1; else it
// leaves AX, BX and CX (the first row) set.
func sbStart(skip string) {
	MOVLQSX(at(R11), RAX)
	MOVLQSX(at(R10), RBX)
	CMPQ(RAX, RBX)
	JGE(LabelRef(skip))
	LEAQ(ix(R8, RAX, 4), RAX)
	LEAQ(ix(R8, RBX, 4), RBX)
	MOVLQSX(at(RAX), RCX)
	CMPQ(RCX, R12)
	JGE(LabelRef(skip))
}

// sbStep moves to the next index and jumps to row while it names a row
// below r1, else to done.
func sbStep(row, done string) {
	ADDQ(imm(4), RAX)
	CMPQ(RAX, RBX)
	JGE(LabelRef(done))
	MOVLQSX(at(RAX), RCX)
	CMPQ(RCX, R12)
	JLT(LabelRef(row))
}

// sbCursor stores the position of AX as the chain's cursor.
func sbCursor() {
	SUBQ(R8, RAX)
	SHRQ(imm(2), RAX)
	MOVL(EAX, at(R11))
}

// sbNext moves to the next chain (CX: out's row stride, in floats) and
// jumps to chain while one is left.
func sbNext(chain string) {
	ADDQ(imm(4), R10)
	ADDQ(imm(4), R11)
	ADDQ(R9, R8)
	LEAQ(ix(RDI, RCX, 4), RDI)
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
			VMOVUPS(atd(RDI, 64*i), zmm(i))
		} else {
			VMOVUPS_Z(atd(RDI, 64*i), masks[i-full], zmm(i))
		}
	}
	Label(p + "row")
	IMULQ(RDX, RCX)
	ADDQ(RSI, RCX)
	for i := 0; i < vecs; i++ {
		if i < full {
			VADDPS(atd(RCX, 64*i), zmm(i), zmm(i))
		} else {
			VADDPS(atd(RCX, 64*i), zmm(i), masks[i-full], zmm(i))
		}
	}
	sbStep(p+"row", p+"store")
	Label(p + "store")
	for i := 0; i < vecs; i++ {
		if i < full {
			VMOVUPS(zmm(i), atd(RDI, 64*i))
		} else {
			VMOVUPS(zmm(i), masks[i-full], atd(RDI, 64*i))
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

// bothOn: for each unit i of a, the counts of its chains' bits in common
// with each unit of b, 16 units of b a step (two vectors of 8 words), one
// VPOPCNTQ per word, converted to float32 (exact: counts < 2²⁴). Registers:
// R8 a (unit i, word 0), R9 out's row, R10 b at the step, R11 i left, R12
// j, R13 words left; Z0/Z1 the counts, Z2 the broadcast word of a.
func bothOn() {
	text("bothOnAVX512", "func(out []float32, a []uint64, lda int, b []uint64, ldb, words, ni, no int)",
		"bothOnAVX512: for i < ni, o < no: out[i*no+o] = Σ_{w<words} popcount(a[w*lda+i] & b[w*ldb+o]).",
		"ni, no, words ≥ 1.")
	Load(Param("out").Base(), R9)
	Load(Param("a").Base(), R8)
	Load(Param("ni"), R11)
	Load(Param("lda"), RDX)
	SHLQ(imm(3), RDX) // DX: bytes between a's words of a unit
	Load(Param("ldb"), RSI)
	SHLQ(imm(3), RSI) // SI: bytes between b's words of a unit
	Label("bounit")
	XORQ(R12, R12) // j
	Label("bostep")
	Load(Param("no"), RCX)
	SUBQ(R12, RCX) // CX: units of b left
	CMPQ(RCX, imm(16))
	JL(LabelRef("botail"))
	for _, full := range []bool{true, false} {
		p := "bofull"
		if !full {
			Label("botail")
			MOVQ(RCX, RBX)
			tailMask(K1) // units j…j+7 (low 8 bits of the 16)
			LEAQ(Mem{Base: RBX, Disp: -8}, RCX)
			tailMask(K2) // units j+8…j+15
			p = "bomask"
		}
		VPXORQ(Z0, Z0, Z0)
		VPXORQ(Z1, Z1, Z1)
		Load(Param("b").Base(), R10)
		LEAQ(ix(R10, R12, 8), R10)
		MOVQ(R8, RAX)
		Load(Param("words"), R13)
		Label(p + "word")
		VPBROADCASTQ(at(RAX), Z2)
		if full {
			VPANDQ(at(R10), Z2, Z3)
			VPANDQ(atd(R10, 64), Z2, Z4)
		} else {
			VPANDQ_Z(at(R10), Z2, K1, Z3)
			VPANDQ_Z(atd(R10, 64), Z2, K2, Z4)
		}
		VPOPCNTQ(Z3, Z3)
		VPOPCNTQ(Z4, Z4)
		VPADDQ(Z3, Z0, Z0)
		VPADDQ(Z4, Z1, Z1)
		ADDQ(RDX, RAX)
		ADDQ(RSI, R10)
		DECQ(R13)
		JNZ(LabelRef(p + "word"))
		VCVTQQ2PS(Z0, Y0)
		VCVTQQ2PS(Z1, Y1)
		if full {
			VMOVUPS(Y0, ix(R9, R12, 4))
			VMOVUPS(Y1, Mem{Base: R9, Index: R12, Scale: 4, Disp: 32})
			ADDQ(imm(16), R12)
			JMP(LabelRef("bostep"))
		} else {
			VMOVUPS(Y0, K1, ix(R9, R12, 4))
			VMOVUPS(Y1, K2, Mem{Base: R9, Index: R12, Scale: 4, Disp: 32})
		}
	}
	// The unit's row is done (the tail step, possibly empty, is the last).
	Load(Param("no"), RCX)
	LEAQ(ix(R9, RCX, 4), R9)
	ADDQ(imm(8), R8)
	DECQ(R11)
	JNZ(LabelRef("bounit"))
	vzeroRet()
}

// packBits64: PackBits (sparse.go's packBits is the one-word form of the
// sparse products' lanes), 16 units a step (the last masked by K1), each word's 64
// chains a row of s at a time: VCMPPS sets K3 where the state is not ±0
// (NaN too), and the chain's bit, broadcast in Z3, is ORed into the low 8
// units' words (Z0, under K3) and the high 8 (Z1, under K3 >> 8).
// Registers: SI s at the unit step, DI bits at the unit step, R8 units
// left, R9 word, R10 chain, R11 the chain's row, R12 the bit, R13 chains
// in the word; DX and BX the strides of s and bits in bytes.
func packBits64() {
	text("packBits64AVX512", "func(bits []uint64, ldb int, s []float32, lds, nc, n int)",
		"packBits64AVX512: for c < nc, u < n: bit c%64 of bits[(c/64)*ldb+u] = (s[c*lds+u] != ±0),",
		"the bits of chains past nc 0. nc, n ≥ 1.")
	Load(Param("bits").Base(), RDI)
	Load(Param("s").Base(), RSI)
	Load(Param("n"), R8)
	Load(Param("lds"), RDX)
	SHLQ(imm(2), RDX)
	Load(Param("ldb"), RBX)
	SHLQ(imm(3), RBX)
	VPXORD(Z5, Z5, Z5) // 0.0
	Label("pbunits")
	MOVQ(R8, RCX)
	tailMask(K1)
	KSHIFTRW(imm(8), K1, K2)
	MOVQ(RDI, R14) // this step's word row
	XORQ(R10, R10) // c
	MOVQ(RSI, R11) // chain c's row
	Label("pbword")
	VPXORQ(Z0, Z0, Z0)
	VPXORQ(Z1, Z1, Z1)
	MOVL(U32(1), R12L)
	Load(Param("nc"), R13)
	SUBQ(R10, R13)
	CMPQ(R13, imm(64))
	MOVL(U32(64), EAX)
	CMOVQGT(RAX, R13) // chains in this word
	ADDQ(R13, R10)
	Label("pbchain")
	VMOVUPS_Z(at(R11), K1, Z2)
	VCMPPS(imm(4), Z5, Z2, K1, K3) // NEQ_UQ: not ±0, or NaN
	KSHIFTRW(imm(8), K3, K4)
	VPBROADCASTQ(R12, Z3)
	VPORQ(Z3, Z0, K3, Z0)
	VPORQ(Z3, Z1, K4, Z1)
	SHLQ(imm(1), R12)
	ADDQ(RDX, R11)
	DECQ(R13)
	JNZ(LabelRef("pbchain"))
	VMOVDQU64(Z0, K1, at(R14))
	VMOVDQU64(Z1, K2, atd(R14, 64))
	ADDQ(RBX, R14)
	CMPQ(R10, arg("nc"))
	JLT(LabelRef("pbword"))
	ADDQ(imm(64), RSI)
	ADDQ(imm(128), RDI)
	SUBQ(imm(16), R8)
	JG(LabelRef("pbunits"))
	vzeroRet()
}
