package main

import (
	"math/bits"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/operand"
)

// The read-only tables. Each vector constant is one 32-bit pattern in all
// eight lanes (32 bytes), so that it can be a memory operand of a YMM
// instruction.
var (
	one, half, mhalf, signbit, absmask, eight, expBias, twoM24 mem

	// expV: Cephes' range reduction and polynomial (1 ulp in float32).
	log2e, ln2hi, ln2lo                      mem
	expP0, expP1, expP2, expP3, expP4, expP5 mem
	expLo, expHi, sigFloor                   mem
	sqrt2, ln2                               mem
	logP0, logP1, logP2, logP3, logP4, logP5 mem
	logP6, logP7, logP8                      mem
	iota, compress, popcnt8                  mem
	negInf, smSteps, smMaxGroup              mem
)

// vconst defines the 32-byte constant name<> holding bits in every lane.
func vconst(name string, bits uint32) mem {
	m := g.StaticGlobal(name)
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 8; l++ {
		g.AddDatum(4*l, operand.U32(bits))
	}
	return m
}

func constants() {
	one = vconst("one", 0x3f800000)         // 1.0
	half = vconst("half", 0x3f000000)       // 0.5
	mhalf = vconst("mhalf", 0xbf000000)     // -0.5
	signbit = vconst("signbit", 0x80000000) // -0.0
	absmask = vconst("absmask", 0x7fffffff)
	eight = vconst("eight", 8)                // int32
	expBias = vconst("expBias", 0x3f800000)   // int32 127<<23
	twoM24 = vconst("twoM24", 0x33800000)     // 2^-24
	negInf = vconst("negInf", 0xff800000)     // −Inf
	smSteps = vconst("smSteps", softmaxSteps) // int32: softmaxBlocks' largest group
	smMaxGroup = vconst("smMaxGroup", 1<<24)  // int32: the largest group (checkGroups)

	log2e = vconst("log2e", 0x3fb8aa3b)       // 1.4426950408889634
	ln2hi = vconst("ln2hi", 0x3f318000)       // 0.693359375 (exact: 9 bits)
	ln2lo = vconst("ln2lo", 0xb95e8083)       // -2.12194440e-4 (ln2 - ln2hi)
	expP0 = vconst("expP0", 0x39506967)       // 1.9875691500e-4
	expP1 = vconst("expP1", 0x3ab743ce)       // 1.3981999507e-3
	expP2 = vconst("expP2", 0x3c088908)       // 8.3334519073e-3
	expP3 = vconst("expP3", 0x3d2aa9c1)       // 4.1665795894e-2
	expP4 = vconst("expP4", 0x3e2aaaaa)       // 1.6666665459e-1
	expP5 = vconst("expP5", 0x3f000000)       // 5.0000001201e-1
	expLo = vconst("expLo", 0xc2ae0000)       // -87: keeps 2^n normal
	expHi = vconst("expHi", 0x42b00000)       // 88: keeps 2^n·p finite
	sigFloor = vconst("sigFloor", 0xc2b00000) // -88: σ(x) = 0 below (kernel.go)

	// logf on (1, 2]: Cephes' polynomial.
	sqrt2 = vconst("sqrt2", 0x3fb504f3)
	ln2 = vconst("ln2", 0x3f317218)
	logP0 = vconst("logP0", 0x3d9021bb) // 7.0376836292e-2
	logP1 = vconst("logP1", 0xbdebd1b8) // -1.1514610310e-1
	logP2 = vconst("logP2", 0x3def251a) // 1.1676998740e-1
	logP3 = vconst("logP3", 0xbdfe5d4f) // -1.2420140846e-1
	logP4 = vconst("logP4", 0x3e11e9bf) // 1.4249322787e-1
	logP5 = vconst("logP5", 0xbe2aae50) // -1.6668057665e-1
	logP6 = vconst("logP6", 0x3e4cceac) // 2.0000714765e-1
	logP7 = vconst("logP7", 0xbe7ffffc) // -2.4999993993e-1
	logP8 = vconst("logP8", 0x3eaaaaaa) // 3.3333331174e-1

	// iota: lane numbers 0..15 as int32, for tail masks (lane l < count).
	iota = g.StaticGlobal("iota")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for l := 0; l < 16; l++ {
		g.AddDatum(4*l, operand.U32(l))
	}

	// compress<>[mask] lists the set bits of an 8-bit mask, one byte each,
	// packed low (8 bytes a row); popcnt8<>[mask] counts them (indicesAVX2).
	compress = g.StaticGlobal("compress")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for mask := 0; mask < 256; mask++ {
		var row uint64
		n := 0
		for lane := 0; lane < 8; lane++ {
			if mask>>lane&1 != 0 {
				row |= uint64(lane) << (8 * n)
				n++
			}
		}
		g.AddDatum(8*mask, operand.U64(row))
	}
	popcnt8 = g.StaticGlobal("popcnt8")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for m0 := 0; m0 < 256; m0 += 8 {
		var word uint64
		for k := 0; k < 8; k++ {
			word |= uint64(bits.OnesCount8(uint8(m0+k))) << (8 * k)
		}
		g.AddDatum(m0, operand.U64(word))
	}
}
