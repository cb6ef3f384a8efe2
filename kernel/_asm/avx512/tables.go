package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// lanes is the read-only table of the lane numbers 0..15, one 32-bit
// integer each (64 bytes, one ZMM).
var lanes Mem

// constants defines the read-only tables.
func constants() {
	lanes = GLOBL("lanesAVX512", RODATA|NOPTR)
	for i := 0; i < 16; i++ {
		DATA(4*i, U32(i))
	}
}

// bcast fills every lane of r with the 32-bit pattern bits. Clobbers AX.
func bcast(bits uint32, r Op) {
	MOVL(U32(bits), EAX)
	VPBROADCASTD(EAX, r)
}

// Constants of expV and logV, kept in registers by the kernels that use them.
var (
	cONE, cLOG2E, cEXPC1, cEXPC2 = Z31, Z30, Z29, Z28
	cP                           = []VecPhysical{Z27, Z26, Z25, Z24, Z23, Z22} // P0..P5
	cLO, cHI, cSIGN              = Z21, Z20, Z19
	cSQRT2, cHALF                = Z18, Z17
	cL                           = []VecPhysical{Z16, Z15, Z14, Z13, Z12, Z11, Z10, Z9, Z8} // L0..L8
)

// expConsts loads the constants of expV and sigmoidV (Z19-Z31). Clobbers
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

// logConsts loads the constants of logV (Z8-Z18): sqrt(2), 0.5 and the
// Cephes logf polynomial L0..L8. Clobbers AX.
func logConsts() {
	bcast(0x3fb504f3, cSQRT2)
	bcast(0x3f000000, cHALF)
	for i, bits := range []uint32{0x3d9021bb, 0xbdebd1b8, 0x3def251a, 0xbdfe5d4f, 0x3e11e9bf, 0xbe2aae50, 0x3e4cceac, 0xbe7ffffc, 0x3eaaaaaa} {
		bcast(bits, cL[i])
	}
}
