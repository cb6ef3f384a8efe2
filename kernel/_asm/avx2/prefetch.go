package main

import (
	"github.com/mmcloughlin/avo/ir"
	"github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// PREFETCHW is not an AVX2 instruction: both amd64 tiers use it, on CPUs
// whose CPUID reports it (cpuidPRFCHW).

func prefetchW() {
	text("prefetchW", "func(p *float32, n, stride int)",
		"prefetchW asks for the cache lines holding p[0], p[stride], …,",
		"p[(n−1)·stride] in a state that can be written (PREFETCHW): a hint",
		"that changes no value. n ≤ 0 prefetches nothing.")
	// The Go assembler has no PREFETCHW mnemonic: the instruction is
	// written as its bytes, 0F 0D /1 with ModRM 0x08, that is (AX).
	p, n, s := RAX, RCX, RDX
	g.MOVQ(arg("p"), p)
	load("n", n)
	load("stride", s)
	g.SHLQ(operand.U8(2), s)
	g.Label("pfLoop")
	g.TESTQ(n, n)
	g.JLE(lbl("pfDone"))
	for _, b := range []uint8{0x0f, 0x0d, 0x08} {
		g.Instruction(&ir.Instruction{Opcode: "BYTE", Operands: []operand.Op{operand.U8(b)}})
	}
	g.ADDQ(s, p)
	g.DECQ(n)
	g.JMP(lbl("pfLoop"))
	g.Label("pfDone")
	g.RET()
}

func cpuidPRFCHW() {
	text("cpuidPRFCHW", "func() bool",
		"cpuidPRFCHW reports bit 8 of ECX of CPUID leaf 0x80000001 (PRFCHW:",
		"the CPU has PREFETCHW). Every x86-64 CPU has that leaf.")
	g.MOVL(operand.U32(0x80000001), EAX)
	g.XORL(ECX, ECX)
	g.CPUID()
	g.SHRL(operand.U8(8), ECX)
	g.ANDL(operand.U8(1), ECX)
	g.MOVB(CL, arg("ret"))
	g.RET()
}
