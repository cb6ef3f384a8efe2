//go:build !purego && !noasm && gc

#include "textflag.h"

// AVX-512 (F, DQ, BW, VL) kernels. Every loop steps 16 float32 lanes (one
// ZMM) at a time and covers its tail with an opmask: the mask of a step has
// the low min(left, 16) bits set, loads zero the masked-off lanes and stores
// skip them, so a kernel has one code path for every length and never
// touches memory outside its slices (masked-off lanes do not fault).
// The Go stubs in kernel_avx512_amd64.go check lengths and call with n ≥ 1
// (and for avx512Affine 1 ≤ k ≤ 6, nout ≥ 1); this code trusts them. The
// element loops also return at once for n ≤ 0.
//
// Registers: AX and CX are scratch (LANEMASK), BP, R14 and R15 are not
// touched; Z0-Z31 and K1-K4 are free in ABI0 assembly (the ABI wrapper
// restores X15 and R14 on return to Go).
//
// Operand order is Go's: sources first, destination last; a mask comes just
// before the destination (VADDPS Z1, Z2, K1, Z3 is Z3 = Z2 + Z1 on K1).

// LANEMASK sets mask register k to the low clamp(CX, 0, 16) bits: the lanes
// of a vector that starts CX elements before the end of the data.
// Clobbers AX and CX.
// PFDIST is how many rows ahead SumRows prefetches.
#define PFDIST 6

// PFROW is how many rows ahead the 512-column chunks of SumRows prefetch.
#define PFROW 2

#define LANEMASK(k) \
	XORL    AX, AX; \
	CMPQ    CX, AX; \
	CMOVQLT AX, CX; \
	MOVQ    $16, AX; \
	CMPQ    CX, AX; \
	CMOVQGT AX, CX; \
	MOVL    $1, AX; \
	SHLL    CX, AX; \
	DECL    AX; \
	KMOVW   AX, k

// BCAST fills every lane of reg with the 32-bit pattern bits. Clobbers AX.
#define BCAST(bits, reg) \
	MOVL         $bits, AX; \
	VPBROADCASTD AX, reg

// Constants of expf and logf, kept in registers by the kernels that use them.
#define CONE   Z31
#define CLOG2E Z30
#define CEXPC1 Z29
#define CEXPC2 Z28
#define CP0    Z27
#define CP1    Z26
#define CP2    Z25
#define CP3    Z24
#define CP4    Z23
#define CP5    Z22
#define CLO    Z21
#define CHI    Z20
#define CSIGN  Z19
#define CSQRT2 Z18
#define CHALF  Z17
#define CL0    Z16
#define CL1    Z15
#define CL2    Z14
#define CL3    Z13
#define CL4    Z12
#define CL5    Z11
#define CL6    Z10
#define CL7    Z9
#define CL8    Z8

// EXPCONSTS loads the constants of EXPF and SIGMOID (Z19-Z31). Clobbers AX.
// Cephes expf: ln2 = C1 + C2 (C1 exact in 9 bits), degree-5 polynomial
// P0..P5 in r; inputs are clamped to [LO, HI] = [-88, 88].
#define EXPCONSTS \
	BCAST(0x3f800000, CONE); \
	BCAST(0x3fb8aa3b, CLOG2E); \
	BCAST(0x3f318000, CEXPC1); \
	BCAST(0xb95e8083, CEXPC2); \
	BCAST(0x39506967, CP0); \
	BCAST(0x3ab743ce, CP1); \
	BCAST(0x3c088908, CP2); \
	BCAST(0x3d2aa9c1, CP3); \
	BCAST(0x3e2aaaaa, CP4); \
	BCAST(0x3f000000, CP5); \
	BCAST(0xc2b00000, CLO); \
	BCAST(0x42b00000, CHI); \
	BCAST(0x80000000, CSIGN)

// LOGCONSTS loads the constants of LOGF (Z8-Z18): sqrt(2), 0.5 and the
// Cephes logf polynomial L0..L8. Clobbers AX.
#define LOGCONSTS \
	BCAST(0x3fb504f3, CSQRT2); \
	BCAST(0x3f000000, CHALF); \
	BCAST(0x3d9021bb, CL0); \
	BCAST(0xbdebd1b8, CL1); \
	BCAST(0x3def251a, CL2); \
	BCAST(0xbdfe5d4f, CL3); \
	BCAST(0x3e11e9bf, CL4); \
	BCAST(0xbe2aae50, CL5); \
	BCAST(0x3e4cceac, CL6); \
	BCAST(0xbe7ffffc, CL7); \
	BCAST(0x3eaaaaaa, CL8)

// EXPF sets x = exp(x) for x in [-104, 88] (Cephes expf; below about -103.3
// the result rounds to 0):
//	n = round(x·log2e); r = x − n·C1 − n·C2  (|r| ≤ ln2/2)
//	p = ((((P0·r + P1)·r + P2)·r + P3)·r + P4)·r + P5
//	x = (p·r² + r + 1) · 2^n                 (VSCALEFPS: exact, subnormal-safe)
// n, r and p are temporaries.
#define EXPF(x, n, r, p) \
	VMULPS       CLOG2E, x, n; \
	VRNDSCALEPS  $0, n, n; \
	VMOVAPS      x, r; \
	VFNMADD231PS CEXPC1, n, r; \
	VFNMADD231PS CEXPC2, n, r; \
	VMOVAPS      CP0, p; \
	VFMADD213PS  CP1, r, p; \
	VFMADD213PS  CP2, r, p; \
	VFMADD213PS  CP3, r, p; \
	VFMADD213PS  CP4, r, p; \
	VFMADD213PS  CP5, r, p; \
	VMULPS       r, r, x; \
	VFMADD213PS  r, x, p; \
	VADDPS       CONE, p, p; \
	VSCALEFPS    n, p, x

// SIGMOID sets s = 1/(1+exp(-x)) on the lanes of K1 where x ≥ -88 (or x is
// NaN, which propagates), and s = 0 elsewhere. exp's argument -x is clamped
// to [-88, 88]: σ is then exactly 1 for x ≥ 88 (and +Inf). Uses K2 and the
// temporaries n, r, p.
#define SIGMOID(x, s, n, r, p) \
	VPXORD   CSIGN, x, s; \
	VMAXPS   s, CLO, s; \
	VMINPS   s, CHI, s; \
	EXPF(s, n, r, p); \
	VADDPS   CONE, s, s; \
	VCMPPS   $0x15, CLO, x, K1, K2; \
	VDIVPS.Z s, CONE, K2, s

// LOGF sets m = log(u) for normal u > 0 (Cephes logf). u = mant·2^k with
// mant in [1, 2); if mant > sqrt(2) it is halved and k incremented, so that
// x = mant − 1 lies in [sqrt(1/2)−1, sqrt(2)−1]; then
//	log u = x − x²/2 + x³·L(x) + k·ln2   (ln2 = C1 + C2).
// Uses K3 and the temporaries k, z, y.
#define LOGF(u, m, k, z, y) \
	VGETMANTPS   $0, u, m; \
	VGETEXPPS    u, k; \
	VCMPPS       $0x1e, CSQRT2, m, K3; \
	VMULPS       CHALF, m, K3, m; \
	VADDPS       CONE, k, K3, k; \
	VSUBPS       CONE, m, m; \
	VMULPS       m, m, z; \
	VMOVAPS      CL0, y; \
	VFMADD213PS  CL1, m, y; \
	VFMADD213PS  CL2, m, y; \
	VFMADD213PS  CL3, m, y; \
	VFMADD213PS  CL4, m, y; \
	VFMADD213PS  CL5, m, y; \
	VFMADD213PS  CL6, m, y; \
	VFMADD213PS  CL7, m, y; \
	VFMADD213PS  CL8, m, y; \
	VMULPS       m, y, y; \
	VMULPS       z, y, y; \
	VFMADD231PS  CEXPC2, k, y; \
	VFNMADD231PS CHALF, z, y; \
	VADDPS       y, m, m; \
	VFMADD231PS  CEXPC1, k, m

// xoshiro128++ state of the 16 lanes: word w of every lane in one register
// (Stream.s[w] is 64 contiguous bytes).
#define SS0    Z8
#define SS1    Z9
#define SS2    Z10
#define SS3    Z11
#define CSCALE Z12

// XOSHIRO sets r to the next block of 16 draws and steps the state, as
// Stream.next: r = rotl(s0+s3, 7) + s0; t = s1<<9; s2 ^= s0; s3 ^= s1;
// s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11).
#define XOSHIRO(r, t) \
	VPADDD SS3, SS0, r; \
	VPROLD $7, r, r; \
	VPADDD SS0, r, r; \
	VPSLLD $9, SS1, t; \
	VPXORD SS0, SS2, SS2; \
	VPXORD SS1, SS3, SS3; \
	VPXORD SS2, SS1, SS1; \
	VPXORD SS3, SS0, SS0; \
	VPXORD t, SS2, SS2; \
	VPROLD $11, SS3, SS3

// UNIFORM turns draws r into uniforms in place: float32(r>>8)·2^-24 (exact).
#define UNIFORM(r) \
	VPSRLD    $8, r, r; \
	VCVTDQ2PS r, r; \
	VMULPS    CSCALE, r, r

// Lane numbers 0..15.
DATA avx512iota<>+0(SB)/4, $0
DATA avx512iota<>+4(SB)/4, $1
DATA avx512iota<>+8(SB)/4, $2
DATA avx512iota<>+12(SB)/4, $3
DATA avx512iota<>+16(SB)/4, $4
DATA avx512iota<>+20(SB)/4, $5
DATA avx512iota<>+24(SB)/4, $6
DATA avx512iota<>+28(SB)/4, $7
DATA avx512iota<>+32(SB)/4, $8
DATA avx512iota<>+36(SB)/4, $9
DATA avx512iota<>+40(SB)/4, $10
DATA avx512iota<>+44(SB)/4, $11
DATA avx512iota<>+48(SB)/4, $12
DATA avx512iota<>+52(SB)/4, $13
DATA avx512iota<>+56(SB)/4, $14
DATA avx512iota<>+60(SB)/4, $15
GLOBL avx512iota<>(SB), RODATA|NOPTR, $64

// func avx512Sigmoid(dst, src *float32, n int)
TEXT ·avx512Sigmoid(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ  dst+0(FP), DI
	MOVQ  src+8(FP), SI
	MOVQ  n+16(FP), BX
	TESTQ BX, BX
	JLE   sigdone
	EXPCONSTS

sigloop:
	MOVQ    BX, CX
	LANEMASK(K1)
	VMOVUPS.Z (SI), K1, Z0
	SIGMOID(Z0, Z1, Z2, Z3, Z4)
	VMOVUPS Z1, K1, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, BX
	JG      sigloop

sigdone:
	VZEROUPPER
	RET

// func avx512Softplus(dst, src *float32, n int)
//
// softplus(x) = max(x, 0) + log1p(t), t = exp(-|x|) in (0, 1]. log1p(t) is
// log(u)·t/(u−1) with u = 1+t (exact compensation of the rounding of u), and
// t itself where u rounds to 1.
TEXT ·avx512Softplus(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ  dst+0(FP), DI
	MOVQ  src+8(FP), SI
	MOVQ  n+16(FP), BX
	TESTQ BX, BX
	JLE   spdone
	EXPCONSTS
	LOGCONSTS
	BCAST(0xc2d00000, CLO)     // clamp exp's argument at -104 here, where
	                           // exp rounds to 0: softplus(-Inf) = 0 exactly

sploop:
	MOVQ      BX, CX
	LANEMASK(K1)
	VMOVUPS.Z (SI), K1, Z0     // x
	VPORD     CSIGN, Z0, Z1    // -|x|
	VMAXPS    Z1, CLO, Z1      // ≥ -104
	EXPF(Z1, Z2, Z3, Z4)       // Z1 = t = exp(-|x|)
	VADDPS    CONE, Z1, Z2     // Z2 = u = 1+t
	VSUBPS    CONE, Z2, Z3     // Z3 = d = u−1 (exact, ≥ 0)
	LOGF(Z2, Z4, Z5, Z6, Z7)   // Z4 = log(u)
	VPTESTMD  Z3, Z3, K2       // K2: d ≠ 0
	VDIVPS    Z3, Z1, Z5       // Z5 = t/d (unused where d = 0)
	VMULPS    Z5, Z4, K2, Z1   // Z1 = log1p(t): log(u)·t/d, or t where d = 0
	VPXORD    Z6, Z6, Z6
	VMAXPS    Z0, Z6, Z0       // max(x, 0), NaN propagates
	VADDPS    Z1, Z0, Z0
	VMOVUPS   Z0, K1, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $16, BX
	JG        sploop

spdone:
	VZEROUPPER
	RET

// func avx512Bernoulli(dst, p *float32, n int, s *Stream)
TEXT ·avx512Bernoulli(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ  dst+0(FP), DI
	MOVQ  p+8(FP), SI
	MOVQ  n+16(FP), BX
	MOVQ  s+24(FP), DX
	TESTQ BX, BX
	JLE   bedone
	BCAST(0x3f800000, CONE)
	BCAST(0x33800000, CSCALE)  // 2^-24
	VMOVDQU32 (DX), SS0
	VMOVDQU32 64(DX), SS1
	VMOVDQU32 128(DX), SS2
	VMOVDQU32 192(DX), SS3

beloop:
	MOVQ      BX, CX
	LANEMASK(K1)
	XOSHIRO(Z0, Z1)            // one block per 16 outputs, tail included
	UNIFORM(Z0)
	VMOVUPS.Z (SI), K1, Z2     // p
	VCMPPS    $1, Z2, Z0, K1, K2 // K2: u < p (LT_OS)
	VMOVAPS.Z CONE, K2, Z3
	VMOVUPS   Z3, K1, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $16, BX
	JG        beloop

	VMOVDQU32 SS0, (DX)
	VMOVDQU32 SS1, 64(DX)
	VMOVDQU32 SS2, 128(DX)
	VMOVDQU32 SS3, 192(DX)

bedone:
	VZEROUPPER
	RET

// func avx512SigmoidBernoulli(prob, state, pre *float32, n int, s *Stream)
TEXT ·avx512SigmoidBernoulli(SB), NOSPLIT|NOFRAME, $0-40
	MOVQ  prob+0(FP), DI
	MOVQ  state+8(FP), R8
	MOVQ  pre+16(FP), SI
	MOVQ  n+24(FP), BX
	MOVQ  s+32(FP), DX
	TESTQ BX, BX
	JLE   sbdone
	EXPCONSTS
	BCAST(0x33800000, CSCALE)  // 2^-24
	VMOVDQU32 (DX), SS0
	VMOVDQU32 64(DX), SS1
	VMOVDQU32 128(DX), SS2
	VMOVDQU32 192(DX), SS3

sbloop:
	MOVQ      BX, CX
	LANEMASK(K1)
	VMOVUPS.Z (SI), K1, Z0     // pre (loaded before prob is stored: they may alias)
	SIGMOID(Z0, Z1, Z2, Z3, Z4)
	XOSHIRO(Z5, Z6)
	UNIFORM(Z5)
	VCMPPS    $1, Z1, Z5, K1, K3 // K3: u < prob (LT_OS)
	VMOVAPS.Z CONE, K3, Z6
	VMOVUPS   Z1, K1, (DI)
	VMOVUPS   Z6, K1, (R8)
	ADDQ      $64, SI
	ADDQ      $64, DI
	ADDQ      $64, R8
	SUBQ      $16, BX
	JG        sbloop

	VMOVDQU32 SS0, (DX)
	VMOVDQU32 SS1, 64(DX)
	VMOVDQU32 SS2, 128(DX)
	VMOVDQU32 SS3, 192(DX)

sbdone:
	VZEROUPPER
	RET

// func avx512Indices(idx *int32, s *float32, n int) int
//
// Each step compares 16 states with 0 (NEQ_UQ: NaN counts as non-zero, like
// Go's !=) and compresses the matching lane numbers to the bottom of a
// register (a register compress: VPCOMPRESSD to memory is microcoded on
// some CPUs). Whole steps store all 16 lanes at idx[count] and move count
// on by the number of matches: as count ≤ i and i+16 ≤ n, the store stays
// inside idx[:n], and what it writes past the new count is overwritten by
// later steps or left as garbage in idx[count:n] (as indicesAVX2 does).
// Two steps a loop, so the loop's own instructions are paid once per 32
// states. The last partial step stores exactly its matches with a mask.
TEXT ·avx512Indices(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ  idx+0(FP), DI
	MOVQ  s+8(FP), SI
	MOVQ  n+16(FP), BX
	MOVQ  DI, R8               // start of idx, for the count
	TESTQ BX, BX
	JLE   ixdone
	VMOVDQU32 avx512iota<>(SB), Z1 // Z1: positions of the current 16 states
	BCAST(16, Z2)
	VPXORD    Z3, Z3, Z3
	BCAST(32, Z5)
	VPADDD    Z2, Z1, Z6       // Z6: positions of the next 16

ix32:
	CMPQ        BX, $32
	JLT         ix16
	VCMPPS      $4, (SI), Z3, K2   // K2: s[i:i+16] ≠ 0
	VCMPPS      $4, 64(SI), Z3, K3 // K3: s[i+16:i+32] ≠ 0
	VPCOMPRESSD Z1, K2, Z4
	VPCOMPRESSD Z6, K3, Z7
	KMOVW       K2, DX
	KMOVW       K3, CX
	POPCNTL     DX, DX
	POPCNTL     CX, CX
	VMOVDQU32   Z4, (DI)
	LEAQ        (DI)(DX*4), DI
	VMOVDQU32   Z7, (DI)
	LEAQ        (DI)(CX*4), DI
	VPADDD      Z5, Z1, Z1
	VPADDD      Z5, Z6, Z6
	ADDQ        $128, SI
	SUBQ        $32, BX
	JMP         ix32

ix16:
	CMPQ        BX, $16
	JLT         ixtail
	VCMPPS      $4, (SI), Z3, K2
	VPCOMPRESSD Z1, K2, Z4
	KMOVW       K2, DX
	POPCNTL     DX, DX
	VMOVDQU32   Z4, (DI)
	LEAQ        (DI)(DX*4), DI
	VPADDD      Z2, Z1, Z1
	ADDQ        $64, SI
	SUBQ        $16, BX

ixtail:
	TESTQ       BX, BX
	JLE         ixdone
	MOVQ        BX, CX
	LANEMASK(K1)
	VMOVUPS.Z   (SI), K1, Z0
	VCMPPS      $4, Z3, Z0, K1, K2 // K2: lanes of K1 with s ≠ 0
	VPCOMPRESSD Z1, K2, Z4
	KMOVW       K2, DX
	POPCNTL     DX, DX             // DX: number of non-zero states
	MOVL        DX, CX
	MOVL        $1, AX
	SHLL        CX, AX
	DECL        AX
	KMOVW       AX, K3             // K3: the low DX lanes
	VMOVDQU32   Z4, K3, (DI)
	LEAQ        (DI)(DX*4), DI

ixdone:
	SUBQ DI, R8
	NEGQ R8
	SHRQ $2, R8
	MOVQ R8, ret+24(FP)
	VZEROUPPER
	RET

// The 512-column chunks of SumRows: registers Z0–Z30 hold columns 0–495
// of the chunk (HUGE31*), Z31 the last 16, full or masked by K1.
#define HUGE31LOAD \
	VMOVUPS   0(DI), Z0; \
	VMOVUPS   64(DI), Z1; \
	VMOVUPS   128(DI), Z2; \
	VMOVUPS   192(DI), Z3; \
	VMOVUPS   256(DI), Z4; \
	VMOVUPS   320(DI), Z5; \
	VMOVUPS   384(DI), Z6; \
	VMOVUPS   448(DI), Z7; \
	VMOVUPS   512(DI), Z8; \
	VMOVUPS   576(DI), Z9; \
	VMOVUPS   640(DI), Z10; \
	VMOVUPS   704(DI), Z11; \
	VMOVUPS   768(DI), Z12; \
	VMOVUPS   832(DI), Z13; \
	VMOVUPS   896(DI), Z14; \
	VMOVUPS   960(DI), Z15; \
	VMOVUPS   1024(DI), Z16; \
	VMOVUPS   1088(DI), Z17; \
	VMOVUPS   1152(DI), Z18; \
	VMOVUPS   1216(DI), Z19; \
	VMOVUPS   1280(DI), Z20; \
	VMOVUPS   1344(DI), Z21; \
	VMOVUPS   1408(DI), Z22; \
	VMOVUPS   1472(DI), Z23; \
	VMOVUPS   1536(DI), Z24; \
	VMOVUPS   1600(DI), Z25; \
	VMOVUPS   1664(DI), Z26; \
	VMOVUPS   1728(DI), Z27; \
	VMOVUPS   1792(DI), Z28; \
	VMOVUPS   1856(DI), Z29; \
	VMOVUPS   1920(DI), Z30

#define HUGE31ADD \
	VADDPS    0(R11), Z0, Z0; \
	VADDPS    64(R11), Z1, Z1; \
	VADDPS    128(R11), Z2, Z2; \
	VADDPS    192(R11), Z3, Z3; \
	VADDPS    256(R11), Z4, Z4; \
	VADDPS    320(R11), Z5, Z5; \
	VADDPS    384(R11), Z6, Z6; \
	VADDPS    448(R11), Z7, Z7; \
	VADDPS    512(R11), Z8, Z8; \
	VADDPS    576(R11), Z9, Z9; \
	VADDPS    640(R11), Z10, Z10; \
	VADDPS    704(R11), Z11, Z11; \
	VADDPS    768(R11), Z12, Z12; \
	VADDPS    832(R11), Z13, Z13; \
	VADDPS    896(R11), Z14, Z14; \
	VADDPS    960(R11), Z15, Z15; \
	VADDPS    1024(R11), Z16, Z16; \
	VADDPS    1088(R11), Z17, Z17; \
	VADDPS    1152(R11), Z18, Z18; \
	VADDPS    1216(R11), Z19, Z19; \
	VADDPS    1280(R11), Z20, Z20; \
	VADDPS    1344(R11), Z21, Z21; \
	VADDPS    1408(R11), Z22, Z22; \
	VADDPS    1472(R11), Z23, Z23; \
	VADDPS    1536(R11), Z24, Z24; \
	VADDPS    1600(R11), Z25, Z25; \
	VADDPS    1664(R11), Z26, Z26; \
	VADDPS    1728(R11), Z27, Z27; \
	VADDPS    1792(R11), Z28, Z28; \
	VADDPS    1856(R11), Z29, Z29; \
	VADDPS    1920(R11), Z30, Z30

#define HUGE31STORE \
	VMOVUPS   Z0, 0(DI); \
	VMOVUPS   Z1, 64(DI); \
	VMOVUPS   Z2, 128(DI); \
	VMOVUPS   Z3, 192(DI); \
	VMOVUPS   Z4, 256(DI); \
	VMOVUPS   Z5, 320(DI); \
	VMOVUPS   Z6, 384(DI); \
	VMOVUPS   Z7, 448(DI); \
	VMOVUPS   Z8, 512(DI); \
	VMOVUPS   Z9, 576(DI); \
	VMOVUPS   Z10, 640(DI); \
	VMOVUPS   Z11, 704(DI); \
	VMOVUPS   Z12, 768(DI); \
	VMOVUPS   Z13, 832(DI); \
	VMOVUPS   Z14, 896(DI); \
	VMOVUPS   Z15, 960(DI); \
	VMOVUPS   Z16, 1024(DI); \
	VMOVUPS   Z17, 1088(DI); \
	VMOVUPS   Z18, 1152(DI); \
	VMOVUPS   Z19, 1216(DI); \
	VMOVUPS   Z20, 1280(DI); \
	VMOVUPS   Z21, 1344(DI); \
	VMOVUPS   Z22, 1408(DI); \
	VMOVUPS   Z23, 1472(DI); \
	VMOVUPS   Z24, 1536(DI); \
	VMOVUPS   Z25, 1600(DI); \
	VMOVUPS   Z26, 1664(DI); \
	VMOVUPS   Z27, 1728(DI); \
	VMOVUPS   Z28, 1792(DI); \
	VMOVUPS   Z29, 1856(DI); \
	VMOVUPS   Z30, 1920(DI)

#define HUGE31PREFETCH \
	PREFETCHT0 0(R12); \
	PREFETCHT0 64(R12); \
	PREFETCHT0 128(R12); \
	PREFETCHT0 192(R12); \
	PREFETCHT0 256(R12); \
	PREFETCHT0 320(R12); \
	PREFETCHT0 384(R12); \
	PREFETCHT0 448(R12); \
	PREFETCHT0 512(R12); \
	PREFETCHT0 576(R12); \
	PREFETCHT0 640(R12); \
	PREFETCHT0 704(R12); \
	PREFETCHT0 768(R12); \
	PREFETCHT0 832(R12); \
	PREFETCHT0 896(R12); \
	PREFETCHT0 960(R12); \
	PREFETCHT0 1024(R12); \
	PREFETCHT0 1088(R12); \
	PREFETCHT0 1152(R12); \
	PREFETCHT0 1216(R12); \
	PREFETCHT0 1280(R12); \
	PREFETCHT0 1344(R12); \
	PREFETCHT0 1408(R12); \
	PREFETCHT0 1472(R12); \
	PREFETCHT0 1536(R12); \
	PREFETCHT0 1600(R12); \
	PREFETCHT0 1664(R12); \
	PREFETCHT0 1728(R12); \
	PREFETCHT0 1792(R12); \
	PREFETCHT0 1856(R12); \
	PREFETCHT0 1920(R12)

// HUGEROW prefetches the chunk of the row PFROW indices ahead (the last
// row again near the end) into R12, points R11 at the chunk of row idx[BX]
// and adds its columns 0–495 to Z0–Z30.
#define HUGEROW \
	LEAQ      PFROW(BX), R12; \
	CMPQ      R12, R13; \
	CMOVQGT   R13, R12; \
	MOVLQSX   (R8)(R12*4), R12; \
	IMULQ     DX, R12; \
	ADDQ      SI, R12; \
	HUGE31PREFETCH; \
	PREFETCHT0 1984(R12); \
	MOVLQSX   (R8)(BX*4), R11; \
	IMULQ     DX, R11; \
	ADDQ      SI, R11; \
	HUGE31ADD

// func avx512SumRows(out, m *float32, stride int, idx *int32, nidx, n int)
//
// Columns are taken in chunks: while more than 64 are left, a chunk of up
// to 128 (8 accumulators; vectors 0-3 are full, 4-7 masked by K1-K4); then
// at most one chunk of up to 64 (4 accumulators masked by K1-K4). Each
// chunk of out stays in registers while every row of idx is added to it.
TEXT ·avx512SumRows(SB), NOSPLIT|NOFRAME, $0-48
	MOVQ out+0(FP), DI
	MOVQ m+8(FP), SI
	MOVQ stride+16(FP), DX
	SHLQ $2, DX                // DX: bytes per row of m
	MOVQ idx+24(FP), R8
	MOVQ nidx+32(FP), R9
	MOVQ n+40(FP), R10         // R10: columns left; DI, SI: their start
	LEAQ -1(R9), R13           // R13: the last index

	// Chunks of 512 columns: the whole chunk in the 32 vector registers, so
	// each row is read once, front to back (its lines in order for the
	// prefetchers), with one index load per 2 KB instead of one per 512 B.
srhuge:
	CMPQ R10, $512
	JLT  srhugetail
	HUGE31LOAD
	VMOVUPS   1984(DI), Z31
	XORQ BX, BX
	CMPQ BX, R9
	JGE  srhugestore

srhugerow:
	HUGEROW
	VADDPS    1984(R11), Z31, Z31
	INCQ      BX
	CMPQ      BX, R9
	JLT       srhugerow

srhugestore:
	HUGE31STORE
	VMOVUPS   Z31, 1984(DI)
	ADDQ $2048, DI
	ADDQ $2048, SI
	SUBQ $512, R10
	JMP  srhuge

	// 497–511 columns left (H = 500): 31 registers and a masked one.
srhugetail:
	CMPQ R10, $496
	JLE  srwide
	LEAQ -496(R10), CX
	LANEMASK(K1)
	HUGE31LOAD
	VMOVUPS.Z 1984(DI), K1, Z31
	XORQ BX, BX
	CMPQ BX, R9
	JGE  srhugetstore

srhugetrow:
	HUGEROW
	VADDPS    1984(R11), Z31, K1, Z31
	INCQ      BX
	CMPQ      BX, R9
	JLT       srhugetrow

srhugetstore:
	HUGE31STORE
	VMOVUPS   Z31, K1, 1984(DI)
	JMP srdone

srwide:
	CMPQ R10, $64
	JLE  srnarrow
	LEAQ -64(R10), CX
	LANEMASK(K1)
	LEAQ -80(R10), CX
	LANEMASK(K2)
	LEAQ -96(R10), CX
	LANEMASK(K3)
	LEAQ -112(R10), CX
	LANEMASK(K4)
	VMOVUPS   (DI), Z0
	VMOVUPS   64(DI), Z1
	VMOVUPS   128(DI), Z2
	VMOVUPS   192(DI), Z3
	VMOVUPS.Z 256(DI), K1, Z4
	VMOVUPS.Z 320(DI), K2, Z5
	VMOVUPS.Z 384(DI), K3, Z6
	VMOVUPS.Z 448(DI), K4, Z7
	XORQ BX, BX
	CMPQ BX, R9
	JGE  srwidestore

srwiderow:
	// Prefetch the chunk of the row PFDIST indices ahead (the last row
	// again near the end): the rows are scattered, so the hardware
	// prefetchers cannot predict them. binary13 at 8 chains: 302–318 →
	// 358–398 GFLOP/s (3 interleaved runs); distances 2 and 4 gained less.
	LEAQ      PFDIST(BX), R12
	CMPQ      R12, R13
	CMOVQGT   R13, R12
	MOVLQSX   (R8)(R12*4), R12
	IMULQ     DX, R12
	ADDQ      SI, R12
	PREFETCHT0 (R12)
	PREFETCHT0 64(R12)
	PREFETCHT0 128(R12)
	PREFETCHT0 192(R12)
	PREFETCHT0 256(R12)
	PREFETCHT0 320(R12)
	PREFETCHT0 384(R12)
	PREFETCHT0 448(R12)
	MOVLQSX   (R8)(BX*4), R11
	IMULQ     DX, R11
	ADDQ      SI, R11          // R11: this chunk of row idx[BX]
	VADDPS    (R11), Z0, Z0
	VADDPS    64(R11), Z1, Z1
	VADDPS    128(R11), Z2, Z2
	VADDPS    192(R11), Z3, Z3
	VMOVUPS.Z 256(R11), K1, Z8
	VMOVUPS.Z 320(R11), K2, Z9
	VMOVUPS.Z 384(R11), K3, Z10
	VMOVUPS.Z 448(R11), K4, Z11
	VADDPS    Z8, Z4, Z4
	VADDPS    Z9, Z5, Z5
	VADDPS    Z10, Z6, Z6
	VADDPS    Z11, Z7, Z7
	INCQ      BX
	CMPQ      BX, R9
	JLT       srwiderow

srwidestore:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, K1, 256(DI)
	VMOVUPS Z5, K2, 320(DI)
	VMOVUPS Z6, K3, 384(DI)
	VMOVUPS Z7, K4, 448(DI)
	ADDQ    $512, DI
	ADDQ    $512, SI
	SUBQ    $128, R10
	JMP     srwide

srnarrow:
	TESTQ R10, R10
	JLE   srdone
	MOVQ  R10, CX
	LANEMASK(K1)
	LEAQ  -16(R10), CX
	LANEMASK(K2)
	LEAQ  -32(R10), CX
	LANEMASK(K3)
	LEAQ  -48(R10), CX
	LANEMASK(K4)
	VMOVUPS.Z (DI), K1, Z0
	VMOVUPS.Z 64(DI), K2, Z1
	VMOVUPS.Z 128(DI), K3, Z2
	VMOVUPS.Z 192(DI), K4, Z3
	XORQ BX, BX
	CMPQ BX, R9
	JGE  srnarrowstore

srnarrowrow:
	MOVLQSX   (R8)(BX*4), R11
	IMULQ     DX, R11
	ADDQ      SI, R11
	VMOVUPS.Z (R11), K1, Z8
	VMOVUPS.Z 64(R11), K2, Z9
	VMOVUPS.Z 128(R11), K3, Z10
	VMOVUPS.Z 192(R11), K4, Z11
	VADDPS    Z8, Z0, Z0
	VADDPS    Z9, Z1, Z1
	VADDPS    Z10, Z2, Z2
	VADDPS    Z11, Z3, Z3
	INCQ      BX
	CMPQ      BX, R9
	JLT       srnarrowrow

srnarrowstore:
	VMOVUPS Z0, K1, (DI)
	VMOVUPS Z1, K2, 64(DI)
	VMOVUPS Z2, K3, 128(DI)
	VMOVUPS Z3, K4, 192(DI)

srdone:
	VZEROUPPER
	RET

// func avx512Affine(out, bias, in, m *float32, k, nin, nout int)
//
// k ≤ 6 chains at once, in tiles of 64 outputs: 6 chains × 4 vectors = 24
// accumulators (Z0-Z23; chain c owns Z4c..Z4c+3), the tile's row of m in
// Z24-Z27 (masked by K1-K4), broadcast inputs in Z28/Z29. Chains c ≥ k are
// skipped by a branch after chain k−1 (taken the same way on every row, so
// predicted): without it a call for 2 chains cost as much as one for 6.
TEXT ·avx512Affine(SB), NOSPLIT|NOFRAME, $0-56
	MOVQ in+16(FP), R8
	MOVQ k+32(FP), BX
	MOVQ nin+40(FP), AX
	SHLQ $2, AX                // AX: bytes per input row
	LEAQ (R8)(AX*1), R9        // R8..R13: input rows of chains 0..5
	CMPQ BX, $1
	CMOVQLE R8, R9
	LEAQ (R9)(AX*1), R10
	CMPQ BX, $2
	CMOVQLE R8, R10
	LEAQ (R10)(AX*1), R11
	CMPQ BX, $3
	CMOVQLE R8, R11
	LEAQ (R11)(AX*1), R12
	CMPQ BX, $4
	CMOVQLE R8, R12
	LEAQ (R12)(AX*1), R13
	CMPQ BX, $5
	CMOVQLE R8, R13
	MOVQ nout+48(FP), DX
	SHLQ $2, DX                // DX: bytes per row of m and of out
	XORQ DI, DI                // DI: byte offset of the tile

aftile:
	MOVQ DX, SI
	SUBQ DI, SI
	SHRQ $2, SI                // SI: columns left (≥ 1)
	MOVQ SI, CX
	LANEMASK(K1)
	LEAQ -16(SI), CX
	LANEMASK(K2)
	LEAQ -32(SI), CX
	LANEMASK(K3)
	LEAQ -48(SI), CX
	LANEMASK(K4)
	VPXORD Z24, Z24, Z24
	VPXORD Z25, Z25, Z25
	VPXORD Z26, Z26, Z26
	VPXORD Z27, Z27, Z27
	MOVQ   bias+8(FP), SI
	TESTQ  SI, SI
	JZ     afinit
	VMOVUPS.Z (SI)(DI*1), K1, Z24
	VMOVUPS.Z 64(SI)(DI*1), K2, Z25
	VMOVUPS.Z 128(SI)(DI*1), K3, Z26
	VMOVUPS.Z 192(SI)(DI*1), K4, Z27

afinit:
	VMOVAPS Z24, Z0
	VMOVAPS Z25, Z1
	VMOVAPS Z26, Z2
	VMOVAPS Z27, Z3
	VMOVAPS Z24, Z4
	VMOVAPS Z25, Z5
	VMOVAPS Z26, Z6
	VMOVAPS Z27, Z7
	VMOVAPS Z24, Z8
	VMOVAPS Z25, Z9
	VMOVAPS Z26, Z10
	VMOVAPS Z27, Z11
	VMOVAPS Z24, Z12
	VMOVAPS Z25, Z13
	VMOVAPS Z26, Z14
	VMOVAPS Z27, Z15
	VMOVAPS Z24, Z16
	VMOVAPS Z25, Z17
	VMOVAPS Z26, Z18
	VMOVAPS Z27, Z19
	VMOVAPS Z24, Z20
	VMOVAPS Z25, Z21
	VMOVAPS Z26, Z22
	VMOVAPS Z27, Z23
	MOVQ m+24(FP), SI
	ADDQ DI, SI                // SI: row 0 of m, this tile
	XORQ AX, AX                // AX: input index j
	CMPQ AX, nin+40(FP)
	JGE  afstore

afrow:
	VMOVUPS.Z    (SI), K1, Z24
	VMOVUPS.Z    64(SI), K2, Z25
	VMOVUPS.Z    128(SI), K3, Z26
	VMOVUPS.Z    192(SI), K4, Z27
	VBROADCASTSS (R8)(AX*4), Z28
	VFMADD231PS  Z24, Z28, Z0
	VFMADD231PS  Z25, Z28, Z1
	VFMADD231PS  Z26, Z28, Z2
	VFMADD231PS  Z27, Z28, Z3
	CMPQ         BX, $1
	JLE          afrowend
	VBROADCASTSS (R9)(AX*4), Z29
	VFMADD231PS  Z24, Z29, Z4
	VFMADD231PS  Z25, Z29, Z5
	VFMADD231PS  Z26, Z29, Z6
	VFMADD231PS  Z27, Z29, Z7
	CMPQ         BX, $2
	JLE          afrowend
	VBROADCASTSS (R10)(AX*4), Z28
	VFMADD231PS  Z24, Z28, Z8
	VFMADD231PS  Z25, Z28, Z9
	VFMADD231PS  Z26, Z28, Z10
	VFMADD231PS  Z27, Z28, Z11
	CMPQ         BX, $3
	JLE          afrowend
	VBROADCASTSS (R11)(AX*4), Z29
	VFMADD231PS  Z24, Z29, Z12
	VFMADD231PS  Z25, Z29, Z13
	VFMADD231PS  Z26, Z29, Z14
	VFMADD231PS  Z27, Z29, Z15
	CMPQ         BX, $4
	JLE          afrowend
	VBROADCASTSS (R12)(AX*4), Z28
	VFMADD231PS  Z24, Z28, Z16
	VFMADD231PS  Z25, Z28, Z17
	VFMADD231PS  Z26, Z28, Z18
	VFMADD231PS  Z27, Z28, Z19
	CMPQ         BX, $5
	JLE          afrowend
	VBROADCASTSS (R13)(AX*4), Z29
	VFMADD231PS  Z24, Z29, Z20
	VFMADD231PS  Z25, Z29, Z21
	VFMADD231PS  Z26, Z29, Z22
	VFMADD231PS  Z27, Z29, Z23

afrowend:
	ADDQ         DX, SI
	INCQ         AX
	CMPQ         AX, nin+40(FP)
	JLT          afrow

afstore:
	MOVQ    out+0(FP), SI
	ADDQ    DI, SI             // SI: chain 0's output, this tile
	VMOVUPS Z0, K1, (SI)
	VMOVUPS Z1, K2, 64(SI)
	VMOVUPS Z2, K3, 128(SI)
	VMOVUPS Z3, K4, 192(SI)
	CMPQ    BX, $1
	JLE     afnext
	ADDQ    DX, SI
	VMOVUPS Z4, K1, (SI)
	VMOVUPS Z5, K2, 64(SI)
	VMOVUPS Z6, K3, 128(SI)
	VMOVUPS Z7, K4, 192(SI)
	CMPQ    BX, $2
	JLE     afnext
	ADDQ    DX, SI
	VMOVUPS Z8, K1, (SI)
	VMOVUPS Z9, K2, 64(SI)
	VMOVUPS Z10, K3, 128(SI)
	VMOVUPS Z11, K4, 192(SI)
	CMPQ    BX, $3
	JLE     afnext
	ADDQ    DX, SI
	VMOVUPS Z12, K1, (SI)
	VMOVUPS Z13, K2, 64(SI)
	VMOVUPS Z14, K3, 128(SI)
	VMOVUPS Z15, K4, 192(SI)
	CMPQ    BX, $4
	JLE     afnext
	ADDQ    DX, SI
	VMOVUPS Z16, K1, (SI)
	VMOVUPS Z17, K2, 64(SI)
	VMOVUPS Z18, K3, 128(SI)
	VMOVUPS Z19, K4, 192(SI)
	CMPQ    BX, $5
	JLE     afnext
	ADDQ    DX, SI
	VMOVUPS Z20, K1, (SI)
	VMOVUPS Z21, K2, 64(SI)
	VMOVUPS Z22, K3, 128(SI)
	VMOVUPS Z23, K4, 192(SI)

afnext:
	ADDQ $256, DI
	CMPQ DI, DX
	JLT  aftile
	VZEROUPPER
	RET

// AXPYMASKED does y += a·x (a in Z31) on the lanes of mask k at (DI), (SI).
#define AXPYMASKED(k) \
	VMOVUPS.Z (SI), k, Z0; \
	VMOVUPS.Z (DI), k, Z1; \
	VMULPS    Z31, Z0, Z0; \
	VADDPS    Z0, Z1, Z1; \
	VMOVUPS   Z1, k, (DI)

// func avx512Axpy(y *float32, a float32, x *float32, n int)
//
// Multiply, then add (not fused), as the Go loop rounds. Four full vectors
// a step, then single vectors, then one masked tail: computing a lane mask
// and masking every vector made this slower than the AVX2 kernel. A masked
// head first aligns y to 64 bytes: rows of 500 floats start at 16-byte
// offsets, and a 64-byte store across two cache lines costs about double.
TEXT ·avx512Axpy(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ  y+0(FP), DI
	MOVQ  x+16(FP), SI
	MOVQ  n+24(FP), BX
	TESTQ BX, BX
	JLE   axdone
	VBROADCASTSS a+8(FP), Z31
	MOVQ  DI, CX
	NEGQ  CX
	ANDQ  $63, CX
	SHRQ  $2, CX               // CX: floats before y is 64-byte aligned
	JZ    axaligned
	CMPQ  CX, BX
	CMOVQGT BX, CX
	MOVQ  CX, DX
	LANEMASK(K1)
	AXPYMASKED(K1)
	LEAQ  (SI)(DX*4), SI
	LEAQ  (DI)(DX*4), DI
	SUBQ  DX, BX

axaligned:
	CMPQ  BX, $64
	JLT   axone

axfour:
	VMULPS  (SI), Z31, Z0
	VMULPS  64(SI), Z31, Z1
	VMULPS  128(SI), Z31, Z2
	VMULPS  192(SI), Z31, Z3
	VADDPS  (DI), Z0, Z0
	VADDPS  64(DI), Z1, Z1
	VADDPS  128(DI), Z2, Z2
	VADDPS  192(DI), Z3, Z3
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	ADDQ    $256, SI
	ADDQ    $256, DI
	SUBQ    $64, BX
	CMPQ    BX, $64
	JGE     axfour

axone:
	CMPQ    BX, $16
	JLT     axtail
	VMULPS  (SI), Z31, Z0
	VADDPS  (DI), Z0, Z0
	VMOVUPS Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, BX
	JMP     axone

axtail:
	TESTQ     BX, BX
	JLE       axdone
	MOVQ      BX, CX
	LANEMASK(K1)
	AXPYMASKED(K1)

axdone:
	VZEROUPPER
	RET

// NANRESULT sets BX to the updates' result: 0 if no lane of the accumulator
// acc (the sum of w·0 over the new weights) is NaN, else a NaN. Clobbers
// AX, CX and K2.
#define NANRESULT(acc) \
	VCMPPS  $3, acc, acc, K2; \
	KMOVW   K2, AX; \
	XORL    BX, BX; \
	MOVL    $0x7fc00000, CX; \
	TESTL   AX, AX; \
	CMOVLNE CX, BX

// func avx512UpdateNCG(w, ap, a, c, grad *float32, n int, alpha, alphaA, gamma float32) float32
//
// Products and sums in the Go code's order, unfused, so that w, ap and c
// round as in the generic kernel.
TEXT ·avx512UpdateNCG(SB), NOSPLIT|NOFRAME, $0-68
	MOVQ  w+0(FP), DI
	MOVQ  ap+8(FP), SI
	MOVQ  a+16(FP), DX
	MOVQ  c+24(FP), R8
	MOVQ  grad+32(FP), R9
	MOVQ  n+40(FP), BX
	VBROADCASTSS alpha+48(FP), Z31
	VBROADCASTSS alphaA+52(FP), Z30
	VBROADCASTSS gamma+56(FP), Z29
	BCAST(0x3f800000, Z28)     // 1
	VPXORD Z27, Z27, Z27       // 0
	VPXORD Z26, Z26, Z26       // NaN accumulator
	XORQ   R10, R10            // R10: byte offset
	TESTQ  BX, BX
	JLE    uncdone

uncloop:
	MOVQ      BX, CX
	LANEMASK(K1)
	VMOVUPS.Z (DI)(R10*1), K1, Z0 // w0
	VMOVUPS.Z (SI)(R10*1), K1, Z1 // ap
	VMOVUPS.Z (DX)(R10*1), K1, Z2 // a
	VMOVUPS.Z (R9)(R10*1), K1, Z3 // g
	VMULPS    Z31, Z3, Z4      // alpha·g
	VMULPS    Z2, Z4, Z4       // ·a
	VADDPS    Z4, Z0, Z5       // Z5: nw = w0 + alpha·g·a
	VMULPS    Z30, Z3, Z6      // alphaA·g
	VMULPS    Z0, Z6, Z6       // ·w0
	VADDPS    Z6, Z1, Z1       // ap + alphaA·g·w0
	VMAXPS    Z1, Z27, Z1      // max(·, 0)
	VMINPS    Z1, Z28, Z1      // min(·, 1)
	VCMPPS    $13, Z29, Z1, K1, K2 // K2: ap ≥ gamma (GE_OS)
	VMOVAPS.Z Z28, K2, Z7      // Z7: new a
	VMULPS    Z7, Z5, Z6       // Z6: c = nw·a
	VFMADD231PS Z27, Z5, Z26   // acc += nw·0
	VMOVUPS   Z5, K1, (DI)(R10*1)
	VMOVUPS   Z1, K1, (SI)(R10*1)
	VMOVUPS   Z7, K1, (DX)(R10*1)
	VMOVUPS   Z6, K1, (R8)(R10*1)
	VMOVUPS   Z27, K1, (R9)(R10*1)
	ADDQ      $64, R10
	SUBQ      $16, BX
	JG        uncloop

uncdone:
	NANRESULT(Z26)
	MOVL BX, ret+64(FP)
	VZEROUPPER
	RET

// func avx512UpdateMasked(w, a, c, grad *float32, n int, alpha float32) float32
TEXT ·avx512UpdateMasked(SB), NOSPLIT|NOFRAME, $0-52
	MOVQ  w+0(FP), DI
	MOVQ  a+8(FP), DX
	MOVQ  c+16(FP), R8
	MOVQ  grad+24(FP), R9
	MOVQ  n+32(FP), BX
	VBROADCASTSS alpha+40(FP), Z31
	VPXORD Z27, Z27, Z27       // 0
	VPXORD Z26, Z26, Z26       // NaN accumulator
	XORQ   R10, R10
	TESTQ  BX, BX
	JLE    umdone

umloop:
	MOVQ      BX, CX
	LANEMASK(K1)
	VMOVUPS.Z (DI)(R10*1), K1, Z0 // w
	VMOVUPS.Z (DX)(R10*1), K1, Z2 // a
	VMOVUPS.Z (R9)(R10*1), K1, Z3 // g
	VMULPS    Z31, Z3, Z4      // alpha·g
	VMULPS    Z2, Z4, Z4       // ·a
	VADDPS    Z4, Z0, Z5       // nw
	VMULPS    Z2, Z5, Z6       // c = nw·a
	VFMADD231PS Z27, Z5, Z26   // acc += nw·0
	VMOVUPS   Z5, K1, (DI)(R10*1)
	VMOVUPS   Z6, K1, (R8)(R10*1)
	VMOVUPS   Z27, K1, (R9)(R10*1)
	ADDQ      $64, R10
	SUBQ      $16, BX
	JG        umloop

umdone:
	NANRESULT(Z26)
	MOVL BX, ret+48(FP)
	VZEROUPPER
	RET

// func avx512UpdateDense(w, c, grad *float32, n int, alpha float32) float32
//
// c may be nil (biases): then only w and g are written.
TEXT ·avx512UpdateDense(SB), NOSPLIT|NOFRAME, $0-44
	MOVQ  w+0(FP), DI
	MOVQ  c+8(FP), R8
	MOVQ  grad+16(FP), R9
	MOVQ  n+24(FP), BX
	VBROADCASTSS alpha+32(FP), Z31
	VPXORD Z27, Z27, Z27       // 0
	VPXORD Z26, Z26, Z26       // NaN accumulator
	XORQ   R10, R10
	TESTQ  BX, BX
	JLE    uddone

udloop:
	MOVQ      BX, CX
	LANEMASK(K1)
	VMOVUPS.Z (DI)(R10*1), K1, Z0 // w
	VMOVUPS.Z (R9)(R10*1), K1, Z3 // g
	VMULPS    Z31, Z3, Z4      // alpha·g
	VADDPS    Z4, Z0, Z5       // nw
	VFMADD231PS Z27, Z5, Z26   // acc += nw·0
	VMOVUPS   Z5, K1, (DI)(R10*1)
	VMOVUPS   Z27, K1, (R9)(R10*1)
	TESTQ     R8, R8
	JZ        udnext
	VMOVUPS   Z5, K1, (R8)(R10*1)

udnext:
	ADDQ      $64, R10
	SUBQ      $16, BX
	JG        udloop

uddone:
	NANRESULT(Z26)
	MOVL BX, ret+40(FP)
	VZEROUPPER
	RET

// COMPRESSSTORE stores the lane numbers in Z1 of the lanes set in mask k
// to the int32s at ptr, contiguously, and advances ptr past them.
// Clobbers AX, CX, DX, K3, Z4.
#define COMPRESSSTORE(k, ptr) \
	VPCOMPRESSD Z1, k, Z4; \
	KMOVW       k, DX; \
	POPCNTL     DX, DX; \
	MOVL        DX, CX; \
	MOVL        $1, AX; \
	SHLL        CX, AX; \
	DECL        AX; \
	KMOVW       AX, K3; \
	VMOVDQU32   Z4, K3, (ptr); \
	LEAQ        (ptr)(DX*4), ptr

// func avx512Changes(idx, on, off *int32, ref, s *float32, n int) (ones, non, noff int)
//
// One pass over 16 states at a time: compare s and ref with 0 (NEQ_UQ, as
// Indices), derive the masks of ones, of units switched on (s ≠ 0, ref = 0)
// and off (s = 0, ref ≠ 0), compress-store the three lists, copy s to ref.
// It replaces two Indices, an Axpy, a copy and a Go loop splitting the
// flips (15% of a training minibatch).
TEXT ·avx512Changes(SB), NOSPLIT|NOFRAME, $0-72
	MOVQ  idx+0(FP), DI
	MOVQ  on+8(FP), R10
	MOVQ  off+16(FP), R11
	MOVQ  ref+24(FP), R9
	MOVQ  s+32(FP), SI
	MOVQ  n+40(FP), BX
	MOVQ  DI, R12              // the starts, for the counts
	MOVQ  R10, R13
	MOVQ  R11, R14
	TESTQ BX, BX
	JLE   chdone
	VMOVDQU32 avx512iota<>(SB), Z1 // Z1: positions of the current 16 states
	BCAST(16, Z2)
	VPXORD    Z3, Z3, Z3

chloop:
	MOVQ      BX, CX
	LANEMASK(K1)
	VMOVUPS.Z (SI), K1, Z0
	VMOVUPS.Z (R9), K1, Z5
	VMOVUPS   Z0, K1, (R9)     // ref = s
	VCMPPS    $4, Z3, Z0, K1, K2 // K2: s ≠ 0
	VCMPPS    $4, Z3, Z5, K1, K4 // K4: ref ≠ 0
	KANDNW    K2, K4, K5       // K5: s ≠ 0 and not ref ≠ 0: switched on
	KANDNW    K4, K2, K6       // K6: ref ≠ 0 and not s ≠ 0: switched off
	COMPRESSSTORE(K2, DI)
	COMPRESSSTORE(K5, R10)
	COMPRESSSTORE(K6, R11)
	VPADDD    Z2, Z1, Z1
	ADDQ      $64, SI
	ADDQ      $64, R9
	SUBQ      $16, BX
	JG        chloop

chdone:
	SUBQ R12, DI
	SHRQ $2, DI
	MOVQ DI, ones+48(FP)
	SUBQ R13, R10
	SHRQ $2, R10
	MOVQ R10, non+56(FP)
	SUBQ R14, R11
	SHRQ $2, R11
	MOVQ R11, noff+64(FP)
	VZEROUPPER
	RET

// The chain loop of avx512SumRowsBlock, shared by its wide and narrow
// paths. Registers: R8 this chain's indices, R10 its count, R11 its
// cursor, R12 r1, R13 chains left, DI its row of out, DX/SI/R9 strides and
// m; AX the next index's address, BX the end of the chain's indices, CX
// the row.
//
// SBSTART jumps to skip when the chain has no row left below r1; else it
// leaves AX, BX and CX (the first row) set.
#define SBSTART(skip) \
	MOVLQSX (R11), AX; \
	MOVLQSX (R10), BX; \
	CMPQ    AX, BX; \
	JGE     skip; \
	LEAQ    (R8)(AX*4), AX; \
	LEAQ    (R8)(BX*4), BX; \
	MOVLQSX (AX), CX; \
	CMPQ    CX, R12; \
	JGE     skip

// SBSTEP moves to the next index and jumps to row while it names a row
// below r1, else to done.
#define SBSTEP(row, done) \
	ADDQ    $4, AX; \
	CMPQ    AX, BX; \
	JGE     done; \
	MOVLQSX (AX), CX; \
	CMPQ    CX, R12; \
	JLT     row

// SBCURSOR stores the position of AX as the chain's cursor.
#define SBCURSOR \
	SUBQ R8, AX; \
	SHRQ $2, AX; \
	MOVL AX, (R11)

// SBNEXT moves to the next chain (CX: out's row stride, in floats) and
// jumps to chain while one is left.
#define SBNEXT(chain) \
	ADDQ $4, R10; \
	ADDQ $4, R11; \
	ADDQ R9, R8; \
	LEAQ (DI)(CX*4), DI; \
	DECQ R13; \
	JNZ  chain

// func avx512SumRowsBlock(out *float32, ldo int, m *float32, ldm int, idx *int32, ldi int, counts, cursors *int32, r1, nc, n int)
//
// One row block of the blocked binary product: for each chain c < nc, the
// rows idx[c*ldi+cursors[c] ...] that are < r1 (they are increasing) are
// added to out[c*ldo : c*ldo+n] (n ≤ 128 columns, kept in Z0-Z7 while the
// chain's rows are added), and cursors[c] moves past them. Called once per
// block of rows, so the block's rows stay in L1 while every chain of the
// group adds from them.
TEXT ·avx512SumRowsBlock(SB), NOSPLIT|NOFRAME, $0-88
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
	MOVQ n+80(FP), BX
	TESTQ R13, R13
	JLE  sbdone
	CMPQ BX, $64
	JLE  sbnarrow
	LEAQ -64(BX), CX
	LANEMASK(K1)
	LEAQ -80(BX), CX
	LANEMASK(K2)
	LEAQ -96(BX), CX
	LANEMASK(K3)
	LEAQ -112(BX), CX
	LANEMASK(K4)

sbwchain:
	SBSTART(sbwnext)
	VMOVUPS   (DI), Z0
	VMOVUPS   64(DI), Z1
	VMOVUPS   128(DI), Z2
	VMOVUPS   192(DI), Z3
	VMOVUPS.Z 256(DI), K1, Z4
	VMOVUPS.Z 320(DI), K2, Z5
	VMOVUPS.Z 384(DI), K3, Z6
	VMOVUPS.Z 448(DI), K4, Z7

sbwrow:
	IMULQ  DX, CX
	ADDQ   SI, CX
	VADDPS (CX), Z0, Z0
	VADDPS 64(CX), Z1, Z1
	VADDPS 128(CX), Z2, Z2
	VADDPS 192(CX), Z3, Z3
	VADDPS 256(CX), Z4, K1, Z4
	VADDPS 320(CX), Z5, K2, Z5
	VADDPS 384(CX), Z6, K3, Z6
	VADDPS 448(CX), Z7, K4, Z7
	SBSTEP(sbwrow, sbwstore)

sbwstore:
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, 128(DI)
	VMOVUPS Z3, 192(DI)
	VMOVUPS Z4, K1, 256(DI)
	VMOVUPS Z5, K2, 320(DI)
	VMOVUPS Z6, K3, 384(DI)
	VMOVUPS Z7, K4, 448(DI)
	SBCURSOR

sbwnext:
	MOVQ ldo+8(FP), CX
	SBNEXT(sbwchain)
	JMP  sbdone

sbnarrow:
	MOVQ BX, CX
	LANEMASK(K1)
	LEAQ -16(BX), CX
	LANEMASK(K2)
	LEAQ -32(BX), CX
	LANEMASK(K3)
	LEAQ -48(BX), CX
	LANEMASK(K4)

sbnchain:
	SBSTART(sbnnext)
	VMOVUPS.Z (DI), K1, Z0
	VMOVUPS.Z 64(DI), K2, Z1
	VMOVUPS.Z 128(DI), K3, Z2
	VMOVUPS.Z 192(DI), K4, Z3

sbnrow:
	IMULQ  DX, CX
	ADDQ   SI, CX
	VADDPS (CX), Z0, K1, Z0
	VADDPS 64(CX), Z1, K2, Z1
	VADDPS 128(CX), Z2, K3, Z2
	VADDPS 192(CX), Z3, K4, Z3
	SBSTEP(sbnrow, sbnstore)

sbnstore:
	VMOVUPS Z0, K1, (DI)
	VMOVUPS Z1, K2, 64(DI)
	VMOVUPS Z2, K3, 128(DI)
	VMOVUPS Z3, K4, 192(DI)
	SBCURSOR

sbnnext:
	MOVQ ldo+8(FP), CX
	SBNEXT(sbnchain)

sbdone:
	VZEROUPPER
	RET
