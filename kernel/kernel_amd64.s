//go:build !purego && !noasm && gc

// AVX2+FMA3 kernels (the "avx2" tier). Every function is a NOSPLIT|NOFRAME
// leaf that trusts the lengths the Go wrappers in kernel_avx2_amd64.go have
// checked; loads and stores are unaligned; partial vectors at the end of a
// slice use VMASKMOVPS so that nothing outside the slices is read or written.
// BP is never touched. The scalar meaning of each function is the doc comment
// on its Go stub.

#include "textflag.h"

// VCONST defines a 32-byte constant: one float32/int32 bit pattern in all
// eight lanes, so that it can be a memory operand of a YMM instruction.
#define VCONST(sym, v) \
	DATA sym<>+0x00(SB)/4, v; DATA sym<>+0x04(SB)/4, v; DATA sym<>+0x08(SB)/4, v; DATA sym<>+0x0c(SB)/4, v; \
	DATA sym<>+0x10(SB)/4, v; DATA sym<>+0x14(SB)/4, v; DATA sym<>+0x18(SB)/4, v; DATA sym<>+0x1c(SB)/4, v; \
	GLOBL sym<>(SB), RODATA|NOPTR, $32

VCONST(one, $0x3f800000)      // 1.0
VCONST(half, $0x3f000000)     // 0.5
VCONST(mhalf, $0xbf000000)    // -0.5
VCONST(signbit, $0x80000000)  // -0.0
VCONST(absmask, $0x7fffffff)
VCONST(eight, $8)             // int32
VCONST(expBias, $0x3f800000)  // int32 127<<23
VCONST(twoM24, $0x33800000)   // 2^-24

// expf: Cephes' range reduction and polynomial (1 ulp in float32).
VCONST(log2e, $0x3fb8aa3b)    // 1.4426950408889634
VCONST(ln2hi, $0x3f318000)    // 0.693359375 (exact: 9 bits)
VCONST(ln2lo, $0xb95e8083)    // -2.12194440e-4 (ln2 - ln2hi)
VCONST(expP0, $0x39506967)    // 1.9875691500e-4
VCONST(expP1, $0x3ab743ce)    // 1.3981999507e-3
VCONST(expP2, $0x3c088908)    // 8.3334519073e-3
VCONST(expP3, $0x3d2aa9c1)    // 4.1665795894e-2
VCONST(expP4, $0x3e2aaaaa)    // 1.6666665459e-1
VCONST(expP5, $0x3f000000)    // 5.0000001201e-1
VCONST(expLo, $0xc2ae0000)    // -87: keeps 2^n normal
VCONST(expHi, $0x42b00000)    // 88: keeps 2^n·p finite
VCONST(sigFloor, $0xc2b00000) // -88: σ(x) = 0 below (kernel.go)

// logf on (1, 2]: Cephes' polynomial.
VCONST(sqrt2, $0x3fb504f3)
VCONST(ln2, $0x3f317218)
VCONST(logP0, $0x3d9021bb)    // 7.0376836292e-2
VCONST(logP1, $0xbdebd1b8)    // -1.1514610310e-1
VCONST(logP2, $0x3def251a)    // 1.1676998740e-1
VCONST(logP3, $0xbdfe5d4f)    // -1.2420140846e-1
VCONST(logP4, $0x3e11e9bf)    // 1.4249322787e-1
VCONST(logP5, $0xbe2aae50)    // -1.6668057665e-1
VCONST(logP6, $0x3e4cceac)    // 2.0000714765e-1
VCONST(logP7, $0xbe7ffffc)    // -2.4999993993e-1
VCONST(logP8, $0x3eaaaaaa)    // 3.3333331174e-1

// iota: lane numbers 0..23 as int32, for tail masks (lane l < count).
DATA iota<>+0x00(SB)/4, $0
DATA iota<>+0x04(SB)/4, $1
DATA iota<>+0x08(SB)/4, $2
DATA iota<>+0x0c(SB)/4, $3
DATA iota<>+0x10(SB)/4, $4
DATA iota<>+0x14(SB)/4, $5
DATA iota<>+0x18(SB)/4, $6
DATA iota<>+0x1c(SB)/4, $7
DATA iota<>+0x20(SB)/4, $8
DATA iota<>+0x24(SB)/4, $9
DATA iota<>+0x28(SB)/4, $10
DATA iota<>+0x2c(SB)/4, $11
DATA iota<>+0x30(SB)/4, $12
DATA iota<>+0x34(SB)/4, $13
DATA iota<>+0x38(SB)/4, $14
DATA iota<>+0x3c(SB)/4, $15
GLOBL iota<>(SB), RODATA|NOPTR, $64

// compress<>[mask] lists the set bits of an 8-bit mask, one byte each,
// packed low; popcnt8<>[mask] counts them (indicesAVX2).
DATA compress<>+0x000(SB)/8, $0x0000000000000000
DATA compress<>+0x008(SB)/8, $0x0000000000000000
DATA compress<>+0x010(SB)/8, $0x0000000000000001
DATA compress<>+0x018(SB)/8, $0x0000000000000100
DATA compress<>+0x020(SB)/8, $0x0000000000000002
DATA compress<>+0x028(SB)/8, $0x0000000000000200
DATA compress<>+0x030(SB)/8, $0x0000000000000201
DATA compress<>+0x038(SB)/8, $0x0000000000020100
DATA compress<>+0x040(SB)/8, $0x0000000000000003
DATA compress<>+0x048(SB)/8, $0x0000000000000300
DATA compress<>+0x050(SB)/8, $0x0000000000000301
DATA compress<>+0x058(SB)/8, $0x0000000000030100
DATA compress<>+0x060(SB)/8, $0x0000000000000302
DATA compress<>+0x068(SB)/8, $0x0000000000030200
DATA compress<>+0x070(SB)/8, $0x0000000000030201
DATA compress<>+0x078(SB)/8, $0x0000000003020100
DATA compress<>+0x080(SB)/8, $0x0000000000000004
DATA compress<>+0x088(SB)/8, $0x0000000000000400
DATA compress<>+0x090(SB)/8, $0x0000000000000401
DATA compress<>+0x098(SB)/8, $0x0000000000040100
DATA compress<>+0x0a0(SB)/8, $0x0000000000000402
DATA compress<>+0x0a8(SB)/8, $0x0000000000040200
DATA compress<>+0x0b0(SB)/8, $0x0000000000040201
DATA compress<>+0x0b8(SB)/8, $0x0000000004020100
DATA compress<>+0x0c0(SB)/8, $0x0000000000000403
DATA compress<>+0x0c8(SB)/8, $0x0000000000040300
DATA compress<>+0x0d0(SB)/8, $0x0000000000040301
DATA compress<>+0x0d8(SB)/8, $0x0000000004030100
DATA compress<>+0x0e0(SB)/8, $0x0000000000040302
DATA compress<>+0x0e8(SB)/8, $0x0000000004030200
DATA compress<>+0x0f0(SB)/8, $0x0000000004030201
DATA compress<>+0x0f8(SB)/8, $0x0000000403020100
DATA compress<>+0x100(SB)/8, $0x0000000000000005
DATA compress<>+0x108(SB)/8, $0x0000000000000500
DATA compress<>+0x110(SB)/8, $0x0000000000000501
DATA compress<>+0x118(SB)/8, $0x0000000000050100
DATA compress<>+0x120(SB)/8, $0x0000000000000502
DATA compress<>+0x128(SB)/8, $0x0000000000050200
DATA compress<>+0x130(SB)/8, $0x0000000000050201
DATA compress<>+0x138(SB)/8, $0x0000000005020100
DATA compress<>+0x140(SB)/8, $0x0000000000000503
DATA compress<>+0x148(SB)/8, $0x0000000000050300
DATA compress<>+0x150(SB)/8, $0x0000000000050301
DATA compress<>+0x158(SB)/8, $0x0000000005030100
DATA compress<>+0x160(SB)/8, $0x0000000000050302
DATA compress<>+0x168(SB)/8, $0x0000000005030200
DATA compress<>+0x170(SB)/8, $0x0000000005030201
DATA compress<>+0x178(SB)/8, $0x0000000503020100
DATA compress<>+0x180(SB)/8, $0x0000000000000504
DATA compress<>+0x188(SB)/8, $0x0000000000050400
DATA compress<>+0x190(SB)/8, $0x0000000000050401
DATA compress<>+0x198(SB)/8, $0x0000000005040100
DATA compress<>+0x1a0(SB)/8, $0x0000000000050402
DATA compress<>+0x1a8(SB)/8, $0x0000000005040200
DATA compress<>+0x1b0(SB)/8, $0x0000000005040201
DATA compress<>+0x1b8(SB)/8, $0x0000000504020100
DATA compress<>+0x1c0(SB)/8, $0x0000000000050403
DATA compress<>+0x1c8(SB)/8, $0x0000000005040300
DATA compress<>+0x1d0(SB)/8, $0x0000000005040301
DATA compress<>+0x1d8(SB)/8, $0x0000000504030100
DATA compress<>+0x1e0(SB)/8, $0x0000000005040302
DATA compress<>+0x1e8(SB)/8, $0x0000000504030200
DATA compress<>+0x1f0(SB)/8, $0x0000000504030201
DATA compress<>+0x1f8(SB)/8, $0x0000050403020100
DATA compress<>+0x200(SB)/8, $0x0000000000000006
DATA compress<>+0x208(SB)/8, $0x0000000000000600
DATA compress<>+0x210(SB)/8, $0x0000000000000601
DATA compress<>+0x218(SB)/8, $0x0000000000060100
DATA compress<>+0x220(SB)/8, $0x0000000000000602
DATA compress<>+0x228(SB)/8, $0x0000000000060200
DATA compress<>+0x230(SB)/8, $0x0000000000060201
DATA compress<>+0x238(SB)/8, $0x0000000006020100
DATA compress<>+0x240(SB)/8, $0x0000000000000603
DATA compress<>+0x248(SB)/8, $0x0000000000060300
DATA compress<>+0x250(SB)/8, $0x0000000000060301
DATA compress<>+0x258(SB)/8, $0x0000000006030100
DATA compress<>+0x260(SB)/8, $0x0000000000060302
DATA compress<>+0x268(SB)/8, $0x0000000006030200
DATA compress<>+0x270(SB)/8, $0x0000000006030201
DATA compress<>+0x278(SB)/8, $0x0000000603020100
DATA compress<>+0x280(SB)/8, $0x0000000000000604
DATA compress<>+0x288(SB)/8, $0x0000000000060400
DATA compress<>+0x290(SB)/8, $0x0000000000060401
DATA compress<>+0x298(SB)/8, $0x0000000006040100
DATA compress<>+0x2a0(SB)/8, $0x0000000000060402
DATA compress<>+0x2a8(SB)/8, $0x0000000006040200
DATA compress<>+0x2b0(SB)/8, $0x0000000006040201
DATA compress<>+0x2b8(SB)/8, $0x0000000604020100
DATA compress<>+0x2c0(SB)/8, $0x0000000000060403
DATA compress<>+0x2c8(SB)/8, $0x0000000006040300
DATA compress<>+0x2d0(SB)/8, $0x0000000006040301
DATA compress<>+0x2d8(SB)/8, $0x0000000604030100
DATA compress<>+0x2e0(SB)/8, $0x0000000006040302
DATA compress<>+0x2e8(SB)/8, $0x0000000604030200
DATA compress<>+0x2f0(SB)/8, $0x0000000604030201
DATA compress<>+0x2f8(SB)/8, $0x0000060403020100
DATA compress<>+0x300(SB)/8, $0x0000000000000605
DATA compress<>+0x308(SB)/8, $0x0000000000060500
DATA compress<>+0x310(SB)/8, $0x0000000000060501
DATA compress<>+0x318(SB)/8, $0x0000000006050100
DATA compress<>+0x320(SB)/8, $0x0000000000060502
DATA compress<>+0x328(SB)/8, $0x0000000006050200
DATA compress<>+0x330(SB)/8, $0x0000000006050201
DATA compress<>+0x338(SB)/8, $0x0000000605020100
DATA compress<>+0x340(SB)/8, $0x0000000000060503
DATA compress<>+0x348(SB)/8, $0x0000000006050300
DATA compress<>+0x350(SB)/8, $0x0000000006050301
DATA compress<>+0x358(SB)/8, $0x0000000605030100
DATA compress<>+0x360(SB)/8, $0x0000000006050302
DATA compress<>+0x368(SB)/8, $0x0000000605030200
DATA compress<>+0x370(SB)/8, $0x0000000605030201
DATA compress<>+0x378(SB)/8, $0x0000060503020100
DATA compress<>+0x380(SB)/8, $0x0000000000060504
DATA compress<>+0x388(SB)/8, $0x0000000006050400
DATA compress<>+0x390(SB)/8, $0x0000000006050401
DATA compress<>+0x398(SB)/8, $0x0000000605040100
DATA compress<>+0x3a0(SB)/8, $0x0000000006050402
DATA compress<>+0x3a8(SB)/8, $0x0000000605040200
DATA compress<>+0x3b0(SB)/8, $0x0000000605040201
DATA compress<>+0x3b8(SB)/8, $0x0000060504020100
DATA compress<>+0x3c0(SB)/8, $0x0000000006050403
DATA compress<>+0x3c8(SB)/8, $0x0000000605040300
DATA compress<>+0x3d0(SB)/8, $0x0000000605040301
DATA compress<>+0x3d8(SB)/8, $0x0000060504030100
DATA compress<>+0x3e0(SB)/8, $0x0000000605040302
DATA compress<>+0x3e8(SB)/8, $0x0000060504030200
DATA compress<>+0x3f0(SB)/8, $0x0000060504030201
DATA compress<>+0x3f8(SB)/8, $0x0006050403020100
DATA compress<>+0x400(SB)/8, $0x0000000000000007
DATA compress<>+0x408(SB)/8, $0x0000000000000700
DATA compress<>+0x410(SB)/8, $0x0000000000000701
DATA compress<>+0x418(SB)/8, $0x0000000000070100
DATA compress<>+0x420(SB)/8, $0x0000000000000702
DATA compress<>+0x428(SB)/8, $0x0000000000070200
DATA compress<>+0x430(SB)/8, $0x0000000000070201
DATA compress<>+0x438(SB)/8, $0x0000000007020100
DATA compress<>+0x440(SB)/8, $0x0000000000000703
DATA compress<>+0x448(SB)/8, $0x0000000000070300
DATA compress<>+0x450(SB)/8, $0x0000000000070301
DATA compress<>+0x458(SB)/8, $0x0000000007030100
DATA compress<>+0x460(SB)/8, $0x0000000000070302
DATA compress<>+0x468(SB)/8, $0x0000000007030200
DATA compress<>+0x470(SB)/8, $0x0000000007030201
DATA compress<>+0x478(SB)/8, $0x0000000703020100
DATA compress<>+0x480(SB)/8, $0x0000000000000704
DATA compress<>+0x488(SB)/8, $0x0000000000070400
DATA compress<>+0x490(SB)/8, $0x0000000000070401
DATA compress<>+0x498(SB)/8, $0x0000000007040100
DATA compress<>+0x4a0(SB)/8, $0x0000000000070402
DATA compress<>+0x4a8(SB)/8, $0x0000000007040200
DATA compress<>+0x4b0(SB)/8, $0x0000000007040201
DATA compress<>+0x4b8(SB)/8, $0x0000000704020100
DATA compress<>+0x4c0(SB)/8, $0x0000000000070403
DATA compress<>+0x4c8(SB)/8, $0x0000000007040300
DATA compress<>+0x4d0(SB)/8, $0x0000000007040301
DATA compress<>+0x4d8(SB)/8, $0x0000000704030100
DATA compress<>+0x4e0(SB)/8, $0x0000000007040302
DATA compress<>+0x4e8(SB)/8, $0x0000000704030200
DATA compress<>+0x4f0(SB)/8, $0x0000000704030201
DATA compress<>+0x4f8(SB)/8, $0x0000070403020100
DATA compress<>+0x500(SB)/8, $0x0000000000000705
DATA compress<>+0x508(SB)/8, $0x0000000000070500
DATA compress<>+0x510(SB)/8, $0x0000000000070501
DATA compress<>+0x518(SB)/8, $0x0000000007050100
DATA compress<>+0x520(SB)/8, $0x0000000000070502
DATA compress<>+0x528(SB)/8, $0x0000000007050200
DATA compress<>+0x530(SB)/8, $0x0000000007050201
DATA compress<>+0x538(SB)/8, $0x0000000705020100
DATA compress<>+0x540(SB)/8, $0x0000000000070503
DATA compress<>+0x548(SB)/8, $0x0000000007050300
DATA compress<>+0x550(SB)/8, $0x0000000007050301
DATA compress<>+0x558(SB)/8, $0x0000000705030100
DATA compress<>+0x560(SB)/8, $0x0000000007050302
DATA compress<>+0x568(SB)/8, $0x0000000705030200
DATA compress<>+0x570(SB)/8, $0x0000000705030201
DATA compress<>+0x578(SB)/8, $0x0000070503020100
DATA compress<>+0x580(SB)/8, $0x0000000000070504
DATA compress<>+0x588(SB)/8, $0x0000000007050400
DATA compress<>+0x590(SB)/8, $0x0000000007050401
DATA compress<>+0x598(SB)/8, $0x0000000705040100
DATA compress<>+0x5a0(SB)/8, $0x0000000007050402
DATA compress<>+0x5a8(SB)/8, $0x0000000705040200
DATA compress<>+0x5b0(SB)/8, $0x0000000705040201
DATA compress<>+0x5b8(SB)/8, $0x0000070504020100
DATA compress<>+0x5c0(SB)/8, $0x0000000007050403
DATA compress<>+0x5c8(SB)/8, $0x0000000705040300
DATA compress<>+0x5d0(SB)/8, $0x0000000705040301
DATA compress<>+0x5d8(SB)/8, $0x0000070504030100
DATA compress<>+0x5e0(SB)/8, $0x0000000705040302
DATA compress<>+0x5e8(SB)/8, $0x0000070504030200
DATA compress<>+0x5f0(SB)/8, $0x0000070504030201
DATA compress<>+0x5f8(SB)/8, $0x0007050403020100
DATA compress<>+0x600(SB)/8, $0x0000000000000706
DATA compress<>+0x608(SB)/8, $0x0000000000070600
DATA compress<>+0x610(SB)/8, $0x0000000000070601
DATA compress<>+0x618(SB)/8, $0x0000000007060100
DATA compress<>+0x620(SB)/8, $0x0000000000070602
DATA compress<>+0x628(SB)/8, $0x0000000007060200
DATA compress<>+0x630(SB)/8, $0x0000000007060201
DATA compress<>+0x638(SB)/8, $0x0000000706020100
DATA compress<>+0x640(SB)/8, $0x0000000000070603
DATA compress<>+0x648(SB)/8, $0x0000000007060300
DATA compress<>+0x650(SB)/8, $0x0000000007060301
DATA compress<>+0x658(SB)/8, $0x0000000706030100
DATA compress<>+0x660(SB)/8, $0x0000000007060302
DATA compress<>+0x668(SB)/8, $0x0000000706030200
DATA compress<>+0x670(SB)/8, $0x0000000706030201
DATA compress<>+0x678(SB)/8, $0x0000070603020100
DATA compress<>+0x680(SB)/8, $0x0000000000070604
DATA compress<>+0x688(SB)/8, $0x0000000007060400
DATA compress<>+0x690(SB)/8, $0x0000000007060401
DATA compress<>+0x698(SB)/8, $0x0000000706040100
DATA compress<>+0x6a0(SB)/8, $0x0000000007060402
DATA compress<>+0x6a8(SB)/8, $0x0000000706040200
DATA compress<>+0x6b0(SB)/8, $0x0000000706040201
DATA compress<>+0x6b8(SB)/8, $0x0000070604020100
DATA compress<>+0x6c0(SB)/8, $0x0000000007060403
DATA compress<>+0x6c8(SB)/8, $0x0000000706040300
DATA compress<>+0x6d0(SB)/8, $0x0000000706040301
DATA compress<>+0x6d8(SB)/8, $0x0000070604030100
DATA compress<>+0x6e0(SB)/8, $0x0000000706040302
DATA compress<>+0x6e8(SB)/8, $0x0000070604030200
DATA compress<>+0x6f0(SB)/8, $0x0000070604030201
DATA compress<>+0x6f8(SB)/8, $0x0007060403020100
DATA compress<>+0x700(SB)/8, $0x0000000000070605
DATA compress<>+0x708(SB)/8, $0x0000000007060500
DATA compress<>+0x710(SB)/8, $0x0000000007060501
DATA compress<>+0x718(SB)/8, $0x0000000706050100
DATA compress<>+0x720(SB)/8, $0x0000000007060502
DATA compress<>+0x728(SB)/8, $0x0000000706050200
DATA compress<>+0x730(SB)/8, $0x0000000706050201
DATA compress<>+0x738(SB)/8, $0x0000070605020100
DATA compress<>+0x740(SB)/8, $0x0000000007060503
DATA compress<>+0x748(SB)/8, $0x0000000706050300
DATA compress<>+0x750(SB)/8, $0x0000000706050301
DATA compress<>+0x758(SB)/8, $0x0000070605030100
DATA compress<>+0x760(SB)/8, $0x0000000706050302
DATA compress<>+0x768(SB)/8, $0x0000070605030200
DATA compress<>+0x770(SB)/8, $0x0000070605030201
DATA compress<>+0x778(SB)/8, $0x0007060503020100
DATA compress<>+0x780(SB)/8, $0x0000000007060504
DATA compress<>+0x788(SB)/8, $0x0000000706050400
DATA compress<>+0x790(SB)/8, $0x0000000706050401
DATA compress<>+0x798(SB)/8, $0x0000070605040100
DATA compress<>+0x7a0(SB)/8, $0x0000000706050402
DATA compress<>+0x7a8(SB)/8, $0x0000070605040200
DATA compress<>+0x7b0(SB)/8, $0x0000070605040201
DATA compress<>+0x7b8(SB)/8, $0x0007060504020100
DATA compress<>+0x7c0(SB)/8, $0x0000000706050403
DATA compress<>+0x7c8(SB)/8, $0x0000070605040300
DATA compress<>+0x7d0(SB)/8, $0x0000070605040301
DATA compress<>+0x7d8(SB)/8, $0x0007060504030100
DATA compress<>+0x7e0(SB)/8, $0x0000070605040302
DATA compress<>+0x7e8(SB)/8, $0x0007060504030200
DATA compress<>+0x7f0(SB)/8, $0x0007060504030201
DATA compress<>+0x7f8(SB)/8, $0x0706050403020100
GLOBL compress<>(SB), RODATA|NOPTR, $2048
DATA popcnt8<>+0x00(SB)/8, $0x0302020102010100
DATA popcnt8<>+0x08(SB)/8, $0x0403030203020201
DATA popcnt8<>+0x10(SB)/8, $0x0403030203020201
DATA popcnt8<>+0x18(SB)/8, $0x0504040304030302
DATA popcnt8<>+0x20(SB)/8, $0x0403030203020201
DATA popcnt8<>+0x28(SB)/8, $0x0504040304030302
DATA popcnt8<>+0x30(SB)/8, $0x0504040304030302
DATA popcnt8<>+0x38(SB)/8, $0x0605050405040403
DATA popcnt8<>+0x40(SB)/8, $0x0403030203020201
DATA popcnt8<>+0x48(SB)/8, $0x0504040304030302
DATA popcnt8<>+0x50(SB)/8, $0x0504040304030302
DATA popcnt8<>+0x58(SB)/8, $0x0605050405040403
DATA popcnt8<>+0x60(SB)/8, $0x0504040304030302
DATA popcnt8<>+0x68(SB)/8, $0x0605050405040403
DATA popcnt8<>+0x70(SB)/8, $0x0605050405040403
DATA popcnt8<>+0x78(SB)/8, $0x0706060506050504
DATA popcnt8<>+0x80(SB)/8, $0x0403030203020201
DATA popcnt8<>+0x88(SB)/8, $0x0504040304030302
DATA popcnt8<>+0x90(SB)/8, $0x0504040304030302
DATA popcnt8<>+0x98(SB)/8, $0x0605050405040403
DATA popcnt8<>+0xa0(SB)/8, $0x0504040304030302
DATA popcnt8<>+0xa8(SB)/8, $0x0605050405040403
DATA popcnt8<>+0xb0(SB)/8, $0x0605050405040403
DATA popcnt8<>+0xb8(SB)/8, $0x0706060506050504
DATA popcnt8<>+0xc0(SB)/8, $0x0504040304030302
DATA popcnt8<>+0xc8(SB)/8, $0x0605050405040403
DATA popcnt8<>+0xd0(SB)/8, $0x0605050405040403
DATA popcnt8<>+0xd8(SB)/8, $0x0706060506050504
DATA popcnt8<>+0xe0(SB)/8, $0x0605050405040403
DATA popcnt8<>+0xe8(SB)/8, $0x0706060506050504
DATA popcnt8<>+0xf0(SB)/8, $0x0706060506050504
DATA popcnt8<>+0xf8(SB)/8, $0x0807070607060605
GLOBL popcnt8<>(SB), RODATA|NOPTR, $256

// TAILMASK sets M to the lane mask "lane+off/4 < count" (count in a GPR),
// using X as scratch for the broadcast (X may be M's low half). VEX
// encodings only (VMOVQ, not MOVQ): legacy SSE instructions with dirty
// upper YMM halves are slow on Intel CPUs.
#define TAILMASK(count, off, X, M) \
	VMOVQ count, X; \
	VPBROADCASTD X, M; \
	VPCMPGTD iota<>+off(SB), M, M

// EXPF: E = e^T for T in [-87, 88] (T, N, R2 clobbered).
// n = round(t·log2e); r = t − n·ln2 (two-part, Cephes); e^r = 1 + r + r²·P(r);
// 2^n is built in the exponent field (n ∈ [−126, 127] thanks to the clamp).
#define EXPF(T, N, E, R2) \
	VMULPS log2e<>(SB), T, N; \
	VROUNDPS $8, N, N; \
	VFNMADD231PS ln2hi<>(SB), N, T; \
	VFNMADD231PS ln2lo<>(SB), N, T; \
	VMOVUPS expP0<>(SB), E; \
	VFMADD213PS expP1<>(SB), T, E; \
	VFMADD213PS expP2<>(SB), T, E; \
	VFMADD213PS expP3<>(SB), T, E; \
	VFMADD213PS expP4<>(SB), T, E; \
	VFMADD213PS expP5<>(SB), T, E; \
	VMULPS T, T, R2; \
	VFMADD213PS T, R2, E; \
	VADDPS one<>(SB), E, E; \
	VCVTTPS2DQ N, N; \
	VPSLLD $23, N, N; \
	VPADDD expBias<>(SB), N, N; \
	VMULPS N, E, E

// SIGMOID: X = σ(X) = 1/(1+e^−x) with an exact divide. ONE holds 1.0.
// e^−x is clamped to [e^−87, e^88]: below x = −87, σ is exactly 1 anyway;
// at x = −88, 1/(1+e^88) ≈ 6e−39 is subnormal and the divide rounds it once.
// x < −88 gives 0 as the generic code; a NaN input gives a NaN.
#define SIGMOID(X, T0, T1, T2, T3, ONE) \
	VXORPS signbit<>(SB), X, T0; \
	VMAXPS expLo<>(SB), T0, T0; \
	VMINPS expHi<>(SB), T0, T0; \
	EXPF(T0, T1, T2, T3); \
	VADDPS ONE, T2, T2; \
	VDIVPS T2, ONE, T2; \
	VCMPPS $1, sigFloor<>(SB), X, T0; \
	VANDNPS T2, T0, T2; \
	VCMPPS $3, X, X, T0; \
	VORPS T0, T2, X

// SOFTPLUS: X = max(x,0) + log1p(e^−|x|). z = 1+e^−|x| ∈ (1, 2] is reduced
// to m ∈ [√½, √2) (m = z or z/2), f = m−1, log z = f − f²/2 + f³·P(f) + k·ln2.
// The rounding of 1+e^−|x| costs at most 6e−8 absolute, well inside the
// 1e−6 budget. softplus(+Inf) = +Inf, softplus(−Inf) ≈ 1.6e−38, NaN → NaN.
#define SOFTPLUS(X, T0, T1, T2, T3, ONE) \
	VANDPS absmask<>(SB), X, T0; \
	VXORPS signbit<>(SB), T0, T0; \
	VMAXPS expLo<>(SB), T0, T0; \
	EXPF(T0, T1, T2, T3); \
	VADDPS ONE, T2, T2; \
	VCMPPS $14, sqrt2<>(SB), T2, T1; \
	VMULPS half<>(SB), T2, T3; \
	VBLENDVPS T1, T3, T2, T2; \
	VSUBPS ONE, T2, T2; \
	VANDPS ln2<>(SB), T1, T1; \
	VMOVUPS logP0<>(SB), T0; \
	VFMADD213PS logP1<>(SB), T2, T0; \
	VFMADD213PS logP2<>(SB), T2, T0; \
	VFMADD213PS logP3<>(SB), T2, T0; \
	VFMADD213PS logP4<>(SB), T2, T0; \
	VFMADD213PS logP5<>(SB), T2, T0; \
	VFMADD213PS logP6<>(SB), T2, T0; \
	VFMADD213PS logP7<>(SB), T2, T0; \
	VFMADD213PS logP8<>(SB), T2, T0; \
	VFMADD213PS mhalf<>(SB), T2, T0; \
	VMULPS T2, T2, T3; \
	VFMADD213PS T2, T3, T0; \
	VADDPS T1, T0, T0; \
	VXORPS T1, T1, T1; \
	VMAXPS T1, X, T1; \
	VADDPS T1, T0, T0; \
	VCMPPS $3, X, X, T1; \
	VORPS T1, T0, X

// XOSHIRO steps eight xoshiro128++ lanes (state words S0..S3) and leaves
// their outputs in R (T is scratch):
//	R = rotl(s0+s3, 7) + s0; t = s1<<9; s2 ^= s0; s3 ^= s1; s1 ^= s2;
//	s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11)
#define XOSHIRO(S0, S1, S2, S3, R, T) \
	VPADDD S3, S0, R; \
	VPSLLD $7, R, T; \
	VPSRLD $25, R, R; \
	VPOR T, R, R; \
	VPADDD S0, R, R; \
	VPSLLD $9, S1, T; \
	VPXOR S0, S2, S2; \
	VPXOR S1, S3, S3; \
	VPXOR S2, S1, S1; \
	VPXOR S3, S0, S0; \
	VPXOR T, S2, S2; \
	VPSLLD $11, S3, T; \
	VPSRLD $21, S3, S3; \
	VPOR T, S3, S3

// UNIFORM turns draws r into u = float32(r>>8)·2^−24 ∈ [0, 1) (exact).
#define UNIFORM(R) \
	VPSRLD $8, R, R; \
	VCVTDQ2PS R, R; \
	VMULPS twoM24<>(SB), R, R

// The stream state s[4][16]uint32 lives in Y0..Y7 while a kernel runs:
// word w, lanes 0–7 in Y(2w), lanes 8–15 in Y(2w+1).
#define LOADSTATE(p) \
	VMOVDQU 0(p), Y0; VMOVDQU 32(p), Y1; VMOVDQU 64(p), Y2; VMOVDQU 96(p), Y3; \
	VMOVDQU 128(p), Y4; VMOVDQU 160(p), Y5; VMOVDQU 192(p), Y6; VMOVDQU 224(p), Y7
#define STORESTATE(p) \
	VMOVDQU Y0, 0(p); VMOVDQU Y1, 32(p); VMOVDQU Y2, 64(p); VMOVDQU Y3, 96(p); \
	VMOVDQU Y4, 128(p); VMOVDQU Y5, 160(p); VMOVDQU Y6, 192(p); VMOVDQU Y7, 224(p)

// func sigmoidAVX2(dst, src []float32)
TEXT ·sigmoidAVX2(SB), NOSPLIT|NOFRAME, $0-48
#define DST DI
#define SRC SI
#define N CX
#define I AX
	MOVQ dst_base+0(FP), DST
	MOVQ src_base+24(FP), SRC
	MOVQ src_len+32(FP), N
	VMOVUPS one<>(SB), Y15
	XORQ I, I
	// Two independent vectors per step so that the divides overlap.
sig16:
	LEAQ 16(I), DX
	CMPQ DX, N
	JGT  sig8
	VMOVUPS (SRC)(I*4), Y0
	VMOVUPS 32(SRC)(I*4), Y5
	SIGMOID(Y0, Y1, Y2, Y3, Y4, Y15)
	SIGMOID(Y5, Y6, Y7, Y8, Y9, Y15)
	VMOVUPS Y0, (DST)(I*4)
	VMOVUPS Y5, 32(DST)(I*4)
	MOVQ DX, I
	JMP  sig16
sig8:
	LEAQ 8(I), DX
	CMPQ DX, N
	JGT  sigTail
	VMOVUPS (SRC)(I*4), Y0
	SIGMOID(Y0, Y1, Y2, Y3, Y4, Y15)
	VMOVUPS Y0, (DST)(I*4)
	MOVQ DX, I
sigTail:
	MOVQ N, DX
	SUBQ I, DX
	JZ   sigDone
	TAILMASK(DX, 0, X10, Y10)
	VMASKMOVPS (SRC)(I*4), Y10, Y0
	SIGMOID(Y0, Y1, Y2, Y3, Y4, Y15)
	VMASKMOVPS Y0, Y10, (DST)(I*4)
sigDone:
	VZEROUPPER
	RET

// func softplusAVX2(dst, src []float32)
TEXT ·softplusAVX2(SB), NOSPLIT|NOFRAME, $0-48
	MOVQ dst_base+0(FP), DST
	MOVQ src_base+24(FP), SRC
	MOVQ src_len+32(FP), N
	VMOVUPS one<>(SB), Y15
	XORQ I, I
sp16:
	LEAQ 16(I), DX
	CMPQ DX, N
	JGT  sp8
	VMOVUPS (SRC)(I*4), Y0
	VMOVUPS 32(SRC)(I*4), Y5
	SOFTPLUS(Y0, Y1, Y2, Y3, Y4, Y15)
	SOFTPLUS(Y5, Y6, Y7, Y8, Y9, Y15)
	VMOVUPS Y0, (DST)(I*4)
	VMOVUPS Y5, 32(DST)(I*4)
	MOVQ DX, I
	JMP  sp16
sp8:
	LEAQ 8(I), DX
	CMPQ DX, N
	JGT  spTail
	VMOVUPS (SRC)(I*4), Y0
	SOFTPLUS(Y0, Y1, Y2, Y3, Y4, Y15)
	VMOVUPS Y0, (DST)(I*4)
	MOVQ DX, I
spTail:
	MOVQ N, DX
	SUBQ I, DX
	JZ   spDone
	TAILMASK(DX, 0, X10, Y10)
	VMASKMOVPS (SRC)(I*4), Y10, Y0
	SOFTPLUS(Y0, Y1, Y2, Y3, Y4, Y15)
	VMASKMOVPS Y0, Y10, (DST)(I*4)
spDone:
	VZEROUPPER
	RET
#undef DST
#undef SRC
#undef N
#undef I

// func bernoulliAVX2(dst, p []float32, s *Stream)
TEXT ·bernoulliAVX2(SB), NOSPLIT|NOFRAME, $0-56
#define DST DI
#define P SI
#define N CX
#define I AX
#define ST BX
	MOVQ dst_base+0(FP), DST
	MOVQ p_base+24(FP), P
	MOVQ p_len+32(FP), N
	MOVQ s+48(FP), ST
	LOADSTATE(ST)
	VMOVUPS one<>(SB), Y15
	XORQ I, I
bern16:
	LEAQ 16(I), DX
	CMPQ DX, N
	JGT  bernTail
	XOSHIRO(Y0, Y2, Y4, Y6, Y8, Y9)
	XOSHIRO(Y1, Y3, Y5, Y7, Y10, Y11)
	UNIFORM(Y8)
	UNIFORM(Y10)
	VCMPPS $1, (P)(I*4), Y8, Y8
	VCMPPS $1, 32(P)(I*4), Y10, Y10
	VANDPS Y15, Y8, Y8
	VANDPS Y15, Y10, Y10
	VMOVUPS Y8, (DST)(I*4)
	VMOVUPS Y10, 32(DST)(I*4)
	MOVQ DX, I
	JMP  bern16
bernTail:
	MOVQ N, DX
	SUBQ I, DX
	JZ   bernDone
	TAILMASK(DX, 0, X12, Y12)
	TAILMASK(DX, 32, X13, Y13)
	XOSHIRO(Y0, Y2, Y4, Y6, Y8, Y9)
	XOSHIRO(Y1, Y3, Y5, Y7, Y10, Y11)
	UNIFORM(Y8)
	UNIFORM(Y10)
	VMASKMOVPS (P)(I*4), Y12, Y9
	VMASKMOVPS 32(P)(I*4), Y13, Y11
	VCMPPS $1, Y9, Y8, Y8
	VCMPPS $1, Y11, Y10, Y10
	VANDPS Y15, Y8, Y8
	VANDPS Y15, Y10, Y10
	VMASKMOVPS Y8, Y12, (DST)(I*4)
	VMASKMOVPS Y10, Y13, 32(DST)(I*4)
bernDone:
	STORESTATE(ST)
	VZEROUPPER
	RET
#undef DST
#undef P
#undef N
#undef I
#undef ST

// func sigmoidBernoulliAVX2(prob, state, pre []float32, s *Stream)
TEXT ·sigmoidBernoulliAVX2(SB), NOSPLIT|NOFRAME, $0-80
#define PROB DI
#define STATE R8
#define PRE SI
#define N CX
#define I AX
#define ST BX
	MOVQ prob_base+0(FP), PROB
	MOVQ state_base+24(FP), STATE
	MOVQ pre_base+48(FP), PRE
	MOVQ pre_len+56(FP), N
	MOVQ s+72(FP), ST
	LOADSTATE(ST)
	VMOVUPS one<>(SB), Y15
	XORQ I, I
sb16:
	LEAQ 16(I), DX
	CMPQ DX, N
	JGT  sbTail
	// lanes 0–7
	VMOVUPS (PRE)(I*4), Y9
	SIGMOID(Y9, Y10, Y11, Y12, Y13, Y15)
	XOSHIRO(Y0, Y2, Y4, Y6, Y8, Y14)
	UNIFORM(Y8)
	VMOVUPS Y9, (PROB)(I*4)
	VCMPPS $1, Y9, Y8, Y8
	VANDPS Y15, Y8, Y8
	VMOVUPS Y8, (STATE)(I*4)
	// lanes 8–15
	VMOVUPS 32(PRE)(I*4), Y9
	SIGMOID(Y9, Y10, Y11, Y12, Y13, Y15)
	XOSHIRO(Y1, Y3, Y5, Y7, Y8, Y14)
	UNIFORM(Y8)
	VMOVUPS Y9, 32(PROB)(I*4)
	VCMPPS $1, Y9, Y8, Y8
	VANDPS Y15, Y8, Y8
	VMOVUPS Y8, 32(STATE)(I*4)
	MOVQ DX, I
	JMP  sb16
sbTail:
	MOVQ N, DX
	SUBQ I, DX
	JZ   sbDone
	// Both halves of the last block are drawn whatever the count (⌈n/16⌉
	// blocks); masks keep loads and stores inside the slices.
	TAILMASK(DX, 0, X14, Y14)
	VMASKMOVPS (PRE)(I*4), Y14, Y9
	SIGMOID(Y9, Y10, Y11, Y12, Y13, Y15)
	XOSHIRO(Y0, Y2, Y4, Y6, Y8, Y10)
	UNIFORM(Y8)
	VMASKMOVPS Y9, Y14, (PROB)(I*4)
	VCMPPS $1, Y9, Y8, Y8
	VANDPS Y15, Y8, Y8
	VMASKMOVPS Y8, Y14, (STATE)(I*4)
	TAILMASK(DX, 32, X14, Y14)
	VMASKMOVPS 32(PRE)(I*4), Y14, Y9
	SIGMOID(Y9, Y10, Y11, Y12, Y13, Y15)
	XOSHIRO(Y1, Y3, Y5, Y7, Y8, Y10)
	UNIFORM(Y8)
	VMASKMOVPS Y9, Y14, 32(PROB)(I*4)
	VCMPPS $1, Y9, Y8, Y8
	VANDPS Y15, Y8, Y8
	VMASKMOVPS Y8, Y14, 32(STATE)(I*4)
sbDone:
	STORESTATE(ST)
	VZEROUPPER
	RET
#undef PROB
#undef STATE
#undef PRE
#undef N
#undef I
#undef ST

// func affine4x24AVX2(o0, o1, o2, o3, i0, i1, i2, i3, m *float32, ldm, nin, pfd int)
//
// The register tile of the dense product: four chains × 24 columns, twelve
// accumulators (Y0–Y11) held across the whole input loop, so that each m
// row chunk (three loads) feeds twelve FMAs and each input value is one
// broadcast load. Twelve independent FMA chains cover Zen 3's 4-cycle FMA
// latency at two FMAs per cycle; 7 loads (+3 prefetches) per 12 FMAs stay
// under its load ports. Row j+pfd of m is prefetched (its 96 bytes span at
// most three cache lines: offsets 0, 64, 95) because the first chain group
// of a panel reads m from L3. nin ≥ 1. Measured 92 GFLOP/s of a 100 GFLOP/s
// peak with m in cache, 82–86 at the MNIST shapes (thread CPU time).
TEXT ·affine4x24AVX2(SB), NOSPLIT|NOFRAME, $0-96
#define I0 SI
#define I1 DI
#define I2 R8
#define I3 R9
#define M R10
#define LDM R11
#define J AX
#define NIN CX
	MOVQ o0+0(FP), DX
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS 64(DX), Y2
	MOVQ o1+8(FP), DX
	VMOVUPS (DX), Y3
	VMOVUPS 32(DX), Y4
	VMOVUPS 64(DX), Y5
	MOVQ o2+16(FP), DX
	VMOVUPS (DX), Y6
	VMOVUPS 32(DX), Y7
	VMOVUPS 64(DX), Y8
	MOVQ o3+24(FP), DX
	VMOVUPS (DX), Y9
	VMOVUPS 32(DX), Y10
	VMOVUPS 64(DX), Y11
	MOVQ i0+32(FP), I0
	MOVQ i1+40(FP), I1
	MOVQ i2+48(FP), I2
	MOVQ i3+56(FP), I3
	MOVQ m+64(FP), M
	MOVQ ldm+72(FP), LDM
	SHLQ $2, LDM
	MOVQ nin+80(FP), NIN
	MOVQ pfd+88(FP), R12
	IMULQ LDM, R12
	XORQ J, J
aff24Loop:
	PREFETCHT0 (M)(R12*1)
	PREFETCHT0 64(M)(R12*1)
	PREFETCHT0 95(M)(R12*1)
	VMOVUPS (M), Y12
	VMOVUPS 32(M), Y13
	VMOVUPS 64(M), Y14
	VBROADCASTSS (I0)(J*4), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VBROADCASTSS (I1)(J*4), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VBROADCASTSS (I2)(J*4), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VBROADCASTSS (I3)(J*4), Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	ADDQ LDM, M
	INCQ J
	CMPQ J, NIN
	JLT  aff24Loop
	// All four rows were loaded before any is stored, so a chain repeated
	// in the tile (the wrapper's way of filling a short block) is harmless.
	MOVQ o0+0(FP), DX
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, 64(DX)
	MOVQ o1+8(FP), DX
	VMOVUPS Y3, (DX)
	VMOVUPS Y4, 32(DX)
	VMOVUPS Y5, 64(DX)
	MOVQ o2+16(FP), DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	VMOVUPS Y8, 64(DX)
	MOVQ o3+24(FP), DX
	VMOVUPS Y9, (DX)
	VMOVUPS Y10, 32(DX)
	VMOVUPS Y11, 64(DX)
	VZEROUPPER
	RET

// func affine4x16MaskAVX2(o0, o1, o2, o3, i0, i1, i2, i3, m *float32, ldm, nin, w int)
//
// The column tail: four chains × w ≤ 16 columns with masked loads and
// stores (masks in Y13, Y14), so nothing past column w is touched.
TEXT ·affine4x16MaskAVX2(SB), NOSPLIT|NOFRAME, $0-96
	MOVQ w+88(FP), DX
	TAILMASK(DX, 0, X13, Y13)
	TAILMASK(DX, 32, X14, Y14)
	MOVQ o0+0(FP), DX
	VMASKMOVPS (DX), Y13, Y0
	VMASKMOVPS 32(DX), Y14, Y1
	MOVQ o1+8(FP), DX
	VMASKMOVPS (DX), Y13, Y2
	VMASKMOVPS 32(DX), Y14, Y3
	MOVQ o2+16(FP), DX
	VMASKMOVPS (DX), Y13, Y4
	VMASKMOVPS 32(DX), Y14, Y5
	MOVQ o3+24(FP), DX
	VMASKMOVPS (DX), Y13, Y6
	VMASKMOVPS 32(DX), Y14, Y7
	MOVQ i0+32(FP), I0
	MOVQ i1+40(FP), I1
	MOVQ i2+48(FP), I2
	MOVQ i3+56(FP), I3
	MOVQ m+64(FP), M
	MOVQ ldm+72(FP), LDM
	SHLQ $2, LDM
	MOVQ nin+80(FP), NIN
	XORQ J, J
aff16Loop:
	VMASKMOVPS (M), Y13, Y8
	VMASKMOVPS 32(M), Y14, Y9
	VBROADCASTSS (I0)(J*4), Y15
	VFMADD231PS Y8, Y15, Y0
	VFMADD231PS Y9, Y15, Y1
	VBROADCASTSS (I1)(J*4), Y15
	VFMADD231PS Y8, Y15, Y2
	VFMADD231PS Y9, Y15, Y3
	VBROADCASTSS (I2)(J*4), Y15
	VFMADD231PS Y8, Y15, Y4
	VFMADD231PS Y9, Y15, Y5
	VBROADCASTSS (I3)(J*4), Y15
	VFMADD231PS Y8, Y15, Y6
	VFMADD231PS Y9, Y15, Y7
	ADDQ LDM, M
	INCQ J
	CMPQ J, NIN
	JLT  aff16Loop
	MOVQ o0+0(FP), DX
	VMASKMOVPS Y0, Y13, (DX)
	VMASKMOVPS Y1, Y14, 32(DX)
	MOVQ o1+8(FP), DX
	VMASKMOVPS Y2, Y13, (DX)
	VMASKMOVPS Y3, Y14, 32(DX)
	MOVQ o2+16(FP), DX
	VMASKMOVPS Y4, Y13, (DX)
	VMASKMOVPS Y5, Y14, 32(DX)
	MOVQ o3+24(FP), DX
	VMASKMOVPS Y6, Y13, (DX)
	VMASKMOVPS Y7, Y14, 32(DX)
	VZEROUPPER
	RET
#undef I0
#undef I1
#undef I2
#undef I3
#undef M
#undef LDM
#undef J
#undef NIN

// func sumRowsAVX2(out, m []float32, stride int, idx []int32)
//
// Column chunks of 64 (eight accumulators, one VADDPS from memory per row
// and register), then of 8, then a masked tail. Rows are added in idx
// order, as in the generic code, so the sums are bit-identical.
TEXT ·sumRowsAVX2(SB), NOSPLIT|NOFRAME, $0-80
#define OUT DI
#define MB SI
#define STRIDE R8
#define IDX R9
#define NIDX R10
#define N CX
#define O AX
#define K BX
#define ROW DX
	MOVQ out_base+0(FP), OUT
	MOVQ out_len+8(FP), N
	MOVQ m_base+24(FP), MB
	MOVQ stride+48(FP), STRIDE
	MOVQ idx_base+56(FP), IDX
	MOVQ idx_len+64(FP), NIDX
	XORQ O, O
sr64:
	LEAQ 64(O), R11
	CMPQ R11, N
	JGT  sr8
	VMOVUPS (OUT)(O*4), Y0
	VMOVUPS 32(OUT)(O*4), Y1
	VMOVUPS 64(OUT)(O*4), Y2
	VMOVUPS 96(OUT)(O*4), Y3
	VMOVUPS 128(OUT)(O*4), Y4
	VMOVUPS 160(OUT)(O*4), Y5
	VMOVUPS 192(OUT)(O*4), Y6
	VMOVUPS 224(OUT)(O*4), Y7
	LEAQ (MB)(O*4), R12
	XORQ K, K
	CMPQ K, NIDX
	JGE  sr64Store
sr64Row:
	MOVLQSX (IDX)(K*4), ROW
	IMULQ STRIDE, ROW
	LEAQ (R12)(ROW*4), ROW
	VADDPS (ROW), Y0, Y0
	VADDPS 32(ROW), Y1, Y1
	VADDPS 64(ROW), Y2, Y2
	VADDPS 96(ROW), Y3, Y3
	VADDPS 128(ROW), Y4, Y4
	VADDPS 160(ROW), Y5, Y5
	VADDPS 192(ROW), Y6, Y6
	VADDPS 224(ROW), Y7, Y7
	INCQ K
	CMPQ K, NIDX
	JLT  sr64Row
sr64Store:
	VMOVUPS Y0, (OUT)(O*4)
	VMOVUPS Y1, 32(OUT)(O*4)
	VMOVUPS Y2, 64(OUT)(O*4)
	VMOVUPS Y3, 96(OUT)(O*4)
	VMOVUPS Y4, 128(OUT)(O*4)
	VMOVUPS Y5, 160(OUT)(O*4)
	VMOVUPS Y6, 192(OUT)(O*4)
	VMOVUPS Y7, 224(OUT)(O*4)
	MOVQ R11, O
	JMP  sr64
sr8:
	LEAQ 8(O), R11
	CMPQ R11, N
	JGT  srTail
	VMOVUPS (OUT)(O*4), Y0
	LEAQ (MB)(O*4), R12
	XORQ K, K
	CMPQ K, NIDX
	JGE  sr8Store
sr8Row:
	MOVLQSX (IDX)(K*4), ROW
	IMULQ STRIDE, ROW
	VADDPS (R12)(ROW*4), Y0, Y0
	INCQ K
	CMPQ K, NIDX
	JLT  sr8Row
sr8Store:
	VMOVUPS Y0, (OUT)(O*4)
	MOVQ R11, O
	JMP  sr8
srTail:
	MOVQ N, R11
	SUBQ O, R11
	JZ   srDone
	TAILMASK(R11, 0, X15, Y15)
	VMASKMOVPS (OUT)(O*4), Y15, Y0
	LEAQ (MB)(O*4), R12
	XORQ K, K
	CMPQ K, NIDX
	JGE  srTailStore
srTailRow:
	MOVLQSX (IDX)(K*4), ROW
	IMULQ STRIDE, ROW
	VMASKMOVPS (R12)(ROW*4), Y15, Y1
	VADDPS Y1, Y0, Y0
	INCQ K
	CMPQ K, NIDX
	JLT  srTailRow
srTailStore:
	VMASKMOVPS Y0, Y15, (OUT)(O*4)
srDone:
	VZEROUPPER
	RET
#undef OUT
#undef MB
#undef STRIDE
#undef IDX
#undef NIDX
#undef N
#undef O
#undef K
#undef ROW

// func indicesAVX2(idx []int32, s []float32) int
//
// Branch-free stream compaction, 8 floats per step: the compare mask
// selects an 8-byte row of compress<> (the set lanes' numbers, packed low)
// that is widened to int32, offset by the block's base and stored whole at
// idx[count]; count grows by popcnt8<>[mask]. The store may write up to 8
// values past the new count but, as count ≤ i, never past idx[i+8] ≤
// idx[len(s)]. The last partial block is done bit by bit. NaN counts as
// non-zero (v != 0), −0 as zero, as in the generic code. The tables avoid
// the POPCNT and BMI features, so the AVX2+FMA3 gate is enough.
TEXT ·indicesAVX2(SB), NOSPLIT|NOFRAME, $0-56
#define IDX DI
#define S SI
#define N CX
#define I AX
#define CNT BX
#define LUT R8
#define POPC R9
	MOVQ idx_base+0(FP), IDX
	MOVQ s_base+24(FP), S
	MOVQ s_len+32(FP), N
	LEAQ compress<>(SB), LUT
	LEAQ popcnt8<>(SB), POPC
	XORQ I, I
	XORQ CNT, CNT
	VXORPS Y15, Y15, Y15 // 0.0
	VPXOR Y14, Y14, Y14  // base: i in every lane
	VMOVDQU eight<>(SB), Y13
ix8:
	LEAQ 8(I), R10
	CMPQ R10, N
	JGT  ixTail
	VCMPPS $4, (S)(I*4), Y15, Y0 // NEQ_UQ: 0 != s (true for NaN)
	VMOVMSKPS Y0, DX
	VPMOVZXBD (LUT)(DX*8), Y1
	VPADDD Y14, Y1, Y1
	VMOVDQU Y1, (IDX)(CNT*4)
	MOVBQZX (POPC)(DX*1), DX
	ADDQ DX, CNT
	VPADDD Y13, Y14, Y14
	MOVQ R10, I
	JMP  ix8
ixTail:
	MOVQ N, R10
	SUBQ I, R10
	JZ   ixDone
	TAILMASK(R10, 0, X2, Y2)
	VMASKMOVPS (S)(I*4), Y2, Y0 // masked lanes read as 0
	VCMPPS $4, Y0, Y15, Y0
	VMOVMSKPS Y0, DX
	TESTQ DX, DX
	JZ   ixDone
ixBit:
	BSFQ DX, R10
	ADDQ I, R10
	MOVL R10, (IDX)(CNT*4)
	INCQ CNT
	LEAQ -1(DX), R10
	ANDQ R10, DX
	JNZ  ixBit
ixDone:
	MOVQ CNT, ret+48(FP)
	VZEROUPPER
	RET
#undef IDX
#undef S
#undef N
#undef I
#undef CNT
#undef LUT
#undef POPC

// func axpyAVX2(y []float32, a float32, x []float32)
TEXT ·axpyAVX2(SB), NOSPLIT|NOFRAME, $0-56
#define YP DI
#define XP SI
#define N CX
#define I AX
	MOVQ y_base+0(FP), YP
	VBROADCASTSS a+24(FP), Y8
	MOVQ x_base+32(FP), XP
	MOVQ x_len+40(FP), N
	XORQ I, I
ax32:
	LEAQ 32(I), DX
	CMPQ DX, N
	JGT  ax8
	VMOVUPS (YP)(I*4), Y0
	VMOVUPS 32(YP)(I*4), Y1
	VMOVUPS 64(YP)(I*4), Y2
	VMOVUPS 96(YP)(I*4), Y3
	VFMADD231PS (XP)(I*4), Y8, Y0
	VFMADD231PS 32(XP)(I*4), Y8, Y1
	VFMADD231PS 64(XP)(I*4), Y8, Y2
	VFMADD231PS 96(XP)(I*4), Y8, Y3
	VMOVUPS Y0, (YP)(I*4)
	VMOVUPS Y1, 32(YP)(I*4)
	VMOVUPS Y2, 64(YP)(I*4)
	VMOVUPS Y3, 96(YP)(I*4)
	MOVQ DX, I
	JMP  ax32
ax8:
	LEAQ 8(I), DX
	CMPQ DX, N
	JGT  axTail
	VMOVUPS (YP)(I*4), Y0
	VFMADD231PS (XP)(I*4), Y8, Y0
	VMOVUPS Y0, (YP)(I*4)
	MOVQ DX, I
	JMP  ax8
axTail:
	MOVQ N, DX
	SUBQ I, DX
	JZ   axDone
	TAILMASK(DX, 0, X15, Y15)
	VMASKMOVPS (YP)(I*4), Y15, Y0
	VMASKMOVPS (XP)(I*4), Y15, Y1
	VFMADD231PS Y1, Y8, Y0
	VMASKMOVPS Y0, Y15, (YP)(I*4)
axDone:
	VZEROUPPER
	RET
#undef YP
#undef XP
#undef N
#undef I

// HSUM stores the sum of Y15's lanes (the finiteness accumulator) at ret.
#define HSUM(ret) \
	VEXTRACTF128 $1, Y15, X0; \
	VADDPS X15, X0, X0; \
	VHADDPS X0, X0, X0; \
	VHADDPS X0, X0, X0; \
	VMOVSS X0, ret

// NCGSTEP is the NCG update of eight elements held in registers: w0 in Y0,
// g in Y1, a in Y2, ap in Y3. It leaves w in Y0, ap in Y4, a in Y2, c in Y1
// and folds w·0 into the finiteness accumulator Y15. Constants: α Y10,
// αA Y11, γ Y12, 1.0 Y13, 0.0 Y14. VMAXPS/VMINPS take p as the second
// operand so that a NaN p stays NaN (and gives a = 0), as math.Max/Min do.
#define NCGSTEP \
	VMULPS Y11, Y1, Y4; \
	VFMADD213PS Y3, Y0, Y4; \
	VMULPS Y10, Y1, Y1; \
	VFMADD231PS Y2, Y1, Y0; \
	VMAXPS Y4, Y14, Y4; \
	VMINPS Y4, Y13, Y4; \
	VCMPPS $13, Y12, Y4, Y2; \
	VANDPS Y13, Y2, Y2; \
	VMULPS Y2, Y0, Y1; \
	VFMADD231PS Y14, Y0, Y15

// func updateNCGAVX2(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32
//
// One pass over the five arrays, eight elements per step (the loop is
// bound by memory traffic: four streams read, five written).
TEXT ·updateNCGAVX2(SB), NOSPLIT|NOFRAME, $0-140
#define W DI
#define AP SI
#define A R8
#define C R9
#define G R10
#define N CX
#define I AX
	MOVQ w_base+0(FP), W
	MOVQ w_len+8(FP), N
	MOVQ ap_base+24(FP), AP
	MOVQ a_base+48(FP), A
	MOVQ c_base+72(FP), C
	MOVQ g_base+96(FP), G
	VBROADCASTSS alpha+120(FP), Y10
	VBROADCASTSS alphaA+124(FP), Y11
	VBROADCASTSS gamma+128(FP), Y12
	VMOVUPS one<>(SB), Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15
	XORQ I, I
ncg8:
	LEAQ 8(I), DX
	CMPQ DX, N
	JGT  ncgTail
	VMOVUPS (W)(I*4), Y0
	VMOVUPS (G)(I*4), Y1
	VMOVUPS (A)(I*4), Y2
	VMOVUPS (AP)(I*4), Y3
	NCGSTEP
	VMOVUPS Y0, (W)(I*4)
	VMOVUPS Y4, (AP)(I*4)
	VMOVUPS Y2, (A)(I*4)
	VMOVUPS Y1, (C)(I*4)
	VMOVUPS Y14, (G)(I*4)
	MOVQ DX, I
	JMP  ncg8
ncgTail:
	MOVQ N, DX
	SUBQ I, DX
	JZ   ncgDone
	TAILMASK(DX, 0, X9, Y9)
	VMASKMOVPS (W)(I*4), Y9, Y0
	VMASKMOVPS (G)(I*4), Y9, Y1
	VMASKMOVPS (A)(I*4), Y9, Y2
	VMASKMOVPS (AP)(I*4), Y9, Y3
	NCGSTEP
	VMASKMOVPS Y0, Y9, (W)(I*4)
	VMASKMOVPS Y4, Y9, (AP)(I*4)
	VMASKMOVPS Y2, Y9, (A)(I*4)
	VMASKMOVPS Y1, Y9, (C)(I*4)
	VMASKMOVPS Y14, Y9, (G)(I*4)
ncgDone:
	HSUM(ret+136(FP))
	VZEROUPPER
	RET

// MASKEDSTEP: w0 Y0, g Y1, a Y2 → w Y0, c Y1 (α Y10, 0.0 Y14).
#define MASKEDSTEP \
	VMULPS Y10, Y1, Y1; \
	VFMADD231PS Y2, Y1, Y0; \
	VMULPS Y2, Y0, Y1; \
	VFMADD231PS Y14, Y0, Y15

// func updateMaskedAVX2(w, a, c, g []float32, alpha float32) float32
TEXT ·updateMaskedAVX2(SB), NOSPLIT|NOFRAME, $0-108
	MOVQ w_base+0(FP), W
	MOVQ w_len+8(FP), N
	MOVQ a_base+24(FP), A
	MOVQ c_base+48(FP), C
	MOVQ g_base+72(FP), G
	VBROADCASTSS alpha+96(FP), Y10
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15
	XORQ I, I
msk8:
	LEAQ 8(I), DX
	CMPQ DX, N
	JGT  mskTail
	VMOVUPS (W)(I*4), Y0
	VMOVUPS (G)(I*4), Y1
	VMOVUPS (A)(I*4), Y2
	MASKEDSTEP
	VMOVUPS Y0, (W)(I*4)
	VMOVUPS Y1, (C)(I*4)
	VMOVUPS Y14, (G)(I*4)
	MOVQ DX, I
	JMP  msk8
mskTail:
	MOVQ N, DX
	SUBQ I, DX
	JZ   mskDone
	TAILMASK(DX, 0, X9, Y9)
	VMASKMOVPS (W)(I*4), Y9, Y0
	VMASKMOVPS (G)(I*4), Y9, Y1
	VMASKMOVPS (A)(I*4), Y9, Y2
	MASKEDSTEP
	VMASKMOVPS Y0, Y9, (W)(I*4)
	VMASKMOVPS Y1, Y9, (C)(I*4)
	VMASKMOVPS Y14, Y9, (G)(I*4)
mskDone:
	HSUM(ret+104(FP))
	VZEROUPPER
	RET

// func updateDenseAVX2(w, c, g []float32, alpha float32) float32
//
// c must not be nil: the wrapper passes w itself for "no copy" (storing the
// new weight twice to the same place).
TEXT ·updateDenseAVX2(SB), NOSPLIT|NOFRAME, $0-84
	MOVQ w_base+0(FP), W
	MOVQ w_len+8(FP), N
	MOVQ c_base+24(FP), C
	MOVQ g_base+48(FP), G
	VBROADCASTSS alpha+72(FP), Y10
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15
	XORQ I, I
dns8:
	LEAQ 8(I), DX
	CMPQ DX, N
	JGT  dnsTail
	VMOVUPS (W)(I*4), Y0
	VFMADD231PS (G)(I*4), Y10, Y0
	VFMADD231PS Y14, Y0, Y15
	VMOVUPS Y0, (W)(I*4)
	VMOVUPS Y0, (C)(I*4)
	VMOVUPS Y14, (G)(I*4)
	MOVQ DX, I
	JMP  dns8
dnsTail:
	MOVQ N, DX
	SUBQ I, DX
	JZ   dnsDone
	TAILMASK(DX, 0, X9, Y9)
	VMASKMOVPS (W)(I*4), Y9, Y0
	VMASKMOVPS (G)(I*4), Y9, Y1
	VFMADD231PS Y1, Y10, Y0
	VFMADD231PS Y14, Y0, Y15
	VMASKMOVPS Y0, Y9, (W)(I*4)
	VMASKMOVPS Y0, Y9, (C)(I*4)
	VMASKMOVPS Y14, Y9, (G)(I*4)
dnsDone:
	HSUM(ret+80(FP))
	VZEROUPPER
	RET
#undef W
#undef AP
#undef A
#undef C
#undef G
#undef N
#undef I

// func transposeAVX2(dst, src []float32, rows, cols int)
//
// The 8×8 blocks of the top-left (rows&^7)×(cols&^7) corner: eight row
// loads, an in-register transpose (unpack pairs, shuffle quads, swap
// 128-bit halves), eight column stores. The wrapper does the edges.
TEXT ·transposeAVX2(SB), NOSPLIT|NOFRAME, $0-80
#define DP DI
#define SP SI
#define CS R8
#define RS R9
#define R8X R10
#define C8X R11
#define I AX
#define J BX
#define P DX
#define Q R12
#define T R13
	MOVQ dst_base+0(FP), DP
	MOVQ src_base+24(FP), SP
	MOVQ rows+48(FP), R8X
	ANDQ $-8, R8X
	MOVQ cols+56(FP), C8X
	ANDQ $-8, C8X
	MOVQ ldd+64(FP), RS
	MOVQ lds+72(FP), CS
	SHLQ $2, RS
	SHLQ $2, CS
	XORQ I, I
trRows:
	CMPQ I, R8X
	JGE  trDone
	XORQ J, J
trCols:
	CMPQ J, C8X
	JGE  trNext
	LEAQ (SP)(J*4), P
	VMOVUPS (P), Y0
	VMOVUPS (P)(CS*1), Y1
	VMOVUPS (P)(CS*2), Y2
	LEAQ (P)(CS*2), T
	ADDQ CS, T
	VMOVUPS (T), Y3
	VMOVUPS (T)(CS*1), Y4
	VMOVUPS (T)(CS*2), Y5
	LEAQ (T)(CS*2), T
	ADDQ CS, T
	VMOVUPS (T), Y6
	VMOVUPS (T)(CS*1), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	MOVQ J, Q
	IMULQ RS, Q
	ADDQ DP, Q
	VMOVUPS Y8, (Q)
	VMOVUPS Y9, (Q)(RS*1)
	VMOVUPS Y10, (Q)(RS*2)
	LEAQ (Q)(RS*2), T
	ADDQ RS, T
	VMOVUPS Y11, (T)
	VMOVUPS Y12, (T)(RS*1)
	VMOVUPS Y13, (T)(RS*2)
	LEAQ (T)(RS*2), T
	ADDQ RS, T
	VMOVUPS Y14, (T)
	VMOVUPS Y15, (T)(RS*1)
	ADDQ $8, J
	JMP  trCols
trNext:
	LEAQ (SP)(CS*8), SP
	ADDQ $32, DP
	ADDQ $8, I
	JMP  trRows
trDone:
	VZEROUPPER
	RET
#undef DP
#undef SP
#undef CS
#undef RS
#undef R8X
#undef C8X
#undef I
#undef J
#undef P
#undef Q
#undef T

// func sumRowsBlockAVX2(out *float32, ldo int, m *float32, ldm int, idx *int32, ldi int, counts, cursors *int32, r1, nc int)
//
// One row block of the blocked binary product on a 64-column tile (the
// AVX2 form of avx512SumRowsBlock): for each chain c < nc, the rows
// idx[c*ldi+k], k from cursors[c] while < counts[c] and the row < r1
// (they increase), are added to out[c*ldo : c*ldo+64] in Y0-Y7, and
// cursors[c] moves past them. nc ≥ 1.
TEXT ·sumRowsBlockAVX2(SB), NOSPLIT|NOFRAME, $0-80
	MOVQ out+0(FP), DI
	MOVQ m+16(FP), SI
	MOVQ ldm+24(FP), DX
	SHLQ $2, DX                // DX: bytes per row of m
	MOVQ idx+32(FP), R8        // R8: this chain's indices
	MOVQ ldi+40(FP), R9
	SHLQ $2, R9                // R9: bytes per chain of idx
	MOVQ counts+48(FP), R10
	MOVQ cursors+56(FP), R11
	MOVQ r1+64(FP), R12
	MOVQ nc+72(FP), R13

sbaChain:
	MOVLQSX (R11), AX
	MOVLQSX (R10), BX
	CMPQ    AX, BX
	JGE     sbaNext
	LEAQ    (R8)(AX*4), AX     // AX: next index
	LEAQ    (R8)(BX*4), BX     // BX: end of the chain's indices
	MOVLQSX (AX), CX
	CMPQ    CX, R12
	JGE     sbaNext
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7

sbaRow:
	IMULQ  DX, CX
	ADDQ   SI, CX
	VADDPS (CX), Y0, Y0
	VADDPS 32(CX), Y1, Y1
	VADDPS 64(CX), Y2, Y2
	VADDPS 96(CX), Y3, Y3
	VADDPS 128(CX), Y4, Y4
	VADDPS 160(CX), Y5, Y5
	VADDPS 192(CX), Y6, Y6
	VADDPS 224(CX), Y7, Y7
	ADDQ   $4, AX
	CMPQ   AX, BX
	JGE    sbaStore
	MOVLQSX (AX), CX
	CMPQ   CX, R12
	JLT    sbaRow

sbaStore:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	SUBQ    R8, AX
	SHRQ    $2, AX
	MOVL    AX, (R11)

sbaNext:
	ADDQ $4, R10
	ADDQ $4, R11
	ADDQ R9, R8
	MOVQ ldo+8(FP), CX
	LEAQ (DI)(CX*4), DI
	DECQ R13
	JNZ  sbaChain
	VZEROUPPER
	RET

// func taylorSumsAVX(a, p *float32, n int, s *[3][4]float64, lohi *[2][4]float32)
//
// TaylorSums' partial sums, four elements a step: lane k of Y0–Y2 is
// partial sum k of s1–s3 and takes element i ≡ k (mod 4), in order, with
// the generic code's operations one by one (products rounded, then added;
// no FMA), so the bits are the same. X3/X4 keep each lane's least and
// greatest a: VMINPS X3, X7, X3 is X3 = X7 < X3 ? X7 : X3, min32's rule
// (a NaN leaves X3). n is a positive multiple of 4. AVX only: both x86
// tiers use it.
TEXT ·taylorSumsAVX(SB), NOSPLIT|NOFRAME, $0-40
	MOVQ   a+0(FP), SI
	MOVQ   p+8(FP), DI
	MOVQ   n+16(FP), CX
	MOVQ   s+24(FP), DX
	MOVQ   lohi+32(FP), R8
	VXORPD Y0, Y0, Y0 // s1 lanes
	VXORPD Y1, Y1, Y1 // s2 lanes
	VXORPD Y2, Y2, Y2 // s3 lanes
	VXORPS X3, X3, X3 // lo lanes
	VXORPS X4, X4, X4 // hi lanes
	MOVQ   $0x3ff0000000000000, AX
	MOVQ   AX, X5
	VBROADCASTSD X5, Y5 // 1.0
	XORQ   AX, AX

tsloop:
	VMOVUPS   (SI)(AX*4), X7
	VMINPS    X3, X7, X3
	VMAXPS    X4, X7, X4
	VCVTPS2PD X7, Y7           // x
	VCVTPS2PD (DI)(AX*4), Y8   // q
	VMULPD    Y7, Y7, Y9       // x·x
	VMULPD    Y8, Y8, Y10      // q·q
	VSUBPD    Y10, Y8, Y10     // q − q·q
	VMULPD    Y10, Y9, Y9      // t
	VMULPD    Y8, Y7, Y10      // x·q
	VADDPD    Y10, Y0, Y0
	VADDPD    Y9, Y1, Y1
	VMULPD    Y7, Y9, Y11      // t·x
	VADDPD    Y8, Y8, Y12      // 2q (exact, as 2·q)
	VSUBPD    Y12, Y5, Y12     // 1 − 2q
	VMULPD    Y12, Y11, Y11
	VADDPD    Y11, Y2, Y2
	ADDQ      $4, AX
	CMPQ      AX, CX
	JLT       tsloop

	VMOVUPD Y0, (DX)
	VMOVUPD Y1, 32(DX)
	VMOVUPD Y2, 64(DX)
	VMOVUPS X3, (R8)
	VMOVUPS X4, 16(R8)
	VZEROUPPER
	RET
