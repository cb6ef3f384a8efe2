//go:build !purego && !noasm && gc

#include "textflag.h"

// NEON kernels of the "neon" tier. The scalar meaning of each function is
// the doc comment of its stub in kernel_arm64.go; lengths are checked in Go.
//
// Conventions of this file:
//   - Loops run 16 or 32 floats wide where registers allow, then 4 wide, then
//     one element at a time. The one-element tails load with FMOVS, which
//     clears lanes 1–3, and run the same vector code as the 4-wide loop, so
//     every element of a call gets the same arithmetic.
//   - Vector constants are broadcast once per call into the high registers.

// NEON instructions the Go assembler lacks (Go 1.26), as WORD macros. The
// arguments are register numbers 0–31 in Arm operand order, destination
// first; every form works on the 4S arrangement (four float32 lanes). The
// encodings follow the Arm ARM and were checked against llvm-mc.

// FADD Vd.4S, Vn.4S, Vm.4S
#define FADD4S(d, n, m) WORD $(0x4E20D400 | (m)<<16 | (n)<<5 | (d))
// FMUL Vd.4S, Vn.4S, Vm.4S
#define FMUL4S(d, n, m) WORD $(0x6E20DC00 | (m)<<16 | (n)<<5 | (d))
// FDIV Vd.4S, Vn.4S, Vm.4S
#define FDIV4S(d, n, m) WORD $(0x6E20FC00 | (m)<<16 | (n)<<5 | (d))
// FMAX Vd.4S, Vn.4S, Vm.4S (NaN if either input is NaN)
#define FMAX4S(d, n, m) WORD $(0x4E20F400 | (m)<<16 | (n)<<5 | (d))
// FMIN Vd.4S, Vn.4S, Vm.4S (NaN if either input is NaN)
#define FMIN4S(d, n, m) WORD $(0x4EA0F400 | (m)<<16 | (n)<<5 | (d))
// FADDP Vd.4S, Vn.4S, Vm.4S (pairwise: d = n0+n1, n2+n3, m0+m1, m2+m3)
#define FADDP4S(d, n, m) WORD $(0x6E20D400 | (m)<<16 | (n)<<5 | (d))
// FCMGE Vd.4S, Vn.4S, Vm.4S (lane = all ones if n >= m)
#define FCMGE4S(d, n, m) WORD $(0x6E20E400 | (m)<<16 | (n)<<5 | (d))
// FCMGT Vd.4S, Vn.4S, Vm.4S (lane = all ones if n > m)
#define FCMGT4S(d, n, m) WORD $(0x6EA0E400 | (m)<<16 | (n)<<5 | (d))
// FCMEQ Vd.4S, Vn.4S, #0.0 (lane = all ones if n == ±0)
#define FCMEQZ4S(d, n) WORD $(0x4EA0D800 | (n)<<5 | (d))
// FMLA Vd.4S, Vn.4S, Vm.S[i] (d += n·m[i])
#define FMLAE4S(d, n, m, i) WORD $(0x4F801000 | ((i)&1)<<21 | ((i)>>1)<<11 | (m)<<16 | (n)<<5 | (d))
// FCVTNS Vd.4S, Vn.4S (float to int32, round to nearest even)
#define FCVTNS4S(d, n) WORD $(0x4E21A800 | (n)<<5 | (d))
// SCVTF Vd.4S, Vn.4S (int32 to float)
#define SCVTF4S(d, n) WORD $(0x4E21D800 | (n)<<5 | (d))
// UCVTF Vd.4S, Vn.4S, #24 (uint32 fixed point with 24 fraction bits to float)
#define UCVTF4S24(d, n) WORD $(0x6F28E400 | (n)<<5 | (d))

// BCAST sets every lane of V to the 32-bit pattern bits (R9 is clobbered).
#define BCAST(bits, V) MOVW $bits, R9; VDUP R9, V.S4

// ---------------------------------------------------------------------------
// Dense block product.

// FMA16 adds in[c][j+i]·(row of m) to the 4×16 accumulator tile: chain c's
// input values are in V0–V3 (one register per chain), the m row in V4–V7,
// chain c's accumulators in V(16+4c)…V(19+4c).
#define FMA16(i) \
	FMLAE4S(16, 4, 0, i); FMLAE4S(17, 5, 0, i); FMLAE4S(18, 6, 0, i); FMLAE4S(19, 7, 0, i); \
	FMLAE4S(20, 4, 1, i); FMLAE4S(21, 5, 1, i); FMLAE4S(22, 6, 1, i); FMLAE4S(23, 7, 1, i); \
	FMLAE4S(24, 4, 2, i); FMLAE4S(25, 5, 2, i); FMLAE4S(26, 6, 2, i); FMLAE4S(27, 7, 2, i); \
	FMLAE4S(28, 4, 3, i); FMLAE4S(29, 5, 3, i); FMLAE4S(30, 6, 3, i); FMLAE4S(31, 7, 3, i)

// FMA4 adds in[c][j]·m[j][o…o+3] (inputs in lane 0 of V0–V3, the m values
// in V4) to the accumulators V16–V19 of chains 0–3.
#define FMA4 \
	FMLAE4S(16, 4, 0, 0); FMLAE4S(17, 4, 1, 0); FMLAE4S(18, 4, 2, 0); FMLAE4S(19, 4, 3, 0)

#define OUT R0
#define BIAS R1
#define IN R2
#define M R3
#define NIN R4
#define NOUT R5
#define ROWB R6
#define INB R7
#define BSTEP R8
#define IN0 R10
#define IN1 R11
#define IN2 R12
#define IN3 R13
#define MP R14
#define J R15
#define COLS R16
#define OP R17

// SETIN points IN0–IN3 at the current input column of chains 0–3 and MP at
// the first row of the current column tile of m; J counts the inputs.
#define SETIN \
	MOVD IN, IN0; ADD INB, IN0, IN1; ADD INB, IN1, IN2; ADD INB, IN2, IN3; \
	MOVD M, MP; MOVD NIN, J

// LOADIN1 loads the next input of each chain into lane 0 of V0–V3.
#define LOADIN1 \
	FMOVS.P 4(IN0), F0; FMOVS.P 4(IN1), F1; FMOVS.P 4(IN2), F2; FMOVS.P 4(IN3), F3

// func affine4NEON(out, bias, in, m []float32, nin, nout int)
TEXT ·affine4NEON(SB), NOSPLIT|NOFRAME, $0-112
	MOVD out_base+0(FP), OUT
	MOVD bias_base+24(FP), BIAS
	MOVD in_base+48(FP), IN
	MOVD m_base+72(FP), M
	MOVD nin+96(FP), NIN
	MOVD nout+104(FP), NOUT
	LSL  $2, NOUT, ROWB
	LSL  $2, NIN, INB
	MOVD NOUT, COLS
	// A nil bias reads zeros and never advances.
	MOVD $1, BSTEP
	CBNZ BIAS, cols16
	MOVD $·zeros<>(SB), BIAS
	MOVD ZR, BSTEP

cols16:
	CMP  $16, COLS
	BLT  cols4
	VLD1 (BIAS), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD  BSTEP<<6, BIAS, BIAS
	VMOV V4.B16, V16.B16
	VMOV V5.B16, V17.B16
	VMOV V6.B16, V18.B16
	VMOV V7.B16, V19.B16
	VMOV V4.B16, V20.B16
	VMOV V5.B16, V21.B16
	VMOV V6.B16, V22.B16
	VMOV V7.B16, V23.B16
	VMOV V4.B16, V24.B16
	VMOV V5.B16, V25.B16
	VMOV V6.B16, V26.B16
	VMOV V7.B16, V27.B16
	VMOV V4.B16, V28.B16
	VMOV V5.B16, V29.B16
	VMOV V6.B16, V30.B16
	VMOV V7.B16, V31.B16
	SETIN

c16j4:
	CMP    $4, J
	BLT    c16j1
	VLD1.P 16(IN0), [V0.S4]
	VLD1.P 16(IN1), [V1.S4]
	VLD1.P 16(IN2), [V2.S4]
	VLD1.P 16(IN3), [V3.S4]
	VLD1   (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD    ROWB, MP
	FMA16(0)
	VLD1   (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD    ROWB, MP
	FMA16(1)
	VLD1   (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD    ROWB, MP
	FMA16(2)
	VLD1   (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD    ROWB, MP
	FMA16(3)
	SUB    $4, J
	B      c16j4

c16j1:
	CBZ  J, c16store
	LOADIN1
	VLD1 (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD  ROWB, MP
	FMA16(0)
	SUB  $1, J
	B    c16j1

c16store:
	MOVD OUT, OP
	VST1 [V16.S4, V17.S4, V18.S4, V19.S4], (OP)
	ADD  ROWB, OP
	VST1 [V20.S4, V21.S4, V22.S4, V23.S4], (OP)
	ADD  ROWB, OP
	VST1 [V24.S4, V25.S4, V26.S4, V27.S4], (OP)
	ADD  ROWB, OP
	VST1 [V28.S4, V29.S4, V30.S4, V31.S4], (OP)
	ADD  $64, OUT
	ADD  $64, M
	SUB  $16, COLS
	B    cols16

cols4:
	CMP  $4, COLS
	BLT  cols1
	VLD1 (BIAS), [V4.S4]
	ADD  BSTEP<<4, BIAS, BIAS
	VMOV V4.B16, V16.B16
	VMOV V4.B16, V17.B16
	VMOV V4.B16, V18.B16
	VMOV V4.B16, V19.B16
	SETIN

c4j:
	CBZ  J, c4store
	LOADIN1
	VLD1 (MP), [V4.S4]
	ADD  ROWB, MP
	FMA4
	SUB  $1, J
	B    c4j

c4store:
	MOVD OUT, OP
	VST1 [V16.S4], (OP)
	ADD  ROWB, OP
	VST1 [V17.S4], (OP)
	ADD  ROWB, OP
	VST1 [V18.S4], (OP)
	ADD  ROWB, OP
	VST1 [V19.S4], (OP)
	ADD  $16, OUT
	ADD  $16, M
	SUB  $4, COLS
	B    cols4

cols1:
	CBZ   COLS, done
	FMOVS (BIAS), F4
	ADD   BSTEP<<2, BIAS, BIAS
	VMOV  V4.B16, V16.B16
	VMOV  V4.B16, V17.B16
	VMOV  V4.B16, V18.B16
	VMOV  V4.B16, V19.B16
	SETIN

c1j:
	CBZ   J, c1store
	LOADIN1
	FMOVS (MP), F4
	ADD   ROWB, MP
	FMA4
	SUB   $1, J
	B     c1j

c1store:
	MOVD  OUT, OP
	FMOVS F16, (OP)
	ADD   ROWB, OP
	FMOVS F17, (OP)
	ADD   ROWB, OP
	FMOVS F18, (OP)
	ADD   ROWB, OP
	FMOVS F19, (OP)
	ADD   $4, OUT
	ADD   $4, M
	SUB   $1, COLS
	B     cols1

done:
	RET

// ONE16 adds in[j+i]·(row of m) to the 1×16 tile V16–V19 (inputs in V0).
#define ONE16(i) \
	FMLAE4S(16, 4, 0, i); FMLAE4S(17, 5, 0, i); FMLAE4S(18, 6, 0, i); FMLAE4S(19, 7, 0, i)

// func affine1NEON(out, bias, in, m []float32, nin, nout int)
TEXT ·affine1NEON(SB), NOSPLIT|NOFRAME, $0-112
	MOVD out_base+0(FP), OUT
	MOVD bias_base+24(FP), BIAS
	MOVD in_base+48(FP), IN
	MOVD m_base+72(FP), M
	MOVD nin+96(FP), NIN
	MOVD nout+104(FP), NOUT
	LSL  $2, NOUT, ROWB
	MOVD NOUT, COLS
	MOVD $1, BSTEP
	CBNZ BIAS, cols16
	MOVD $·zeros<>(SB), BIAS
	MOVD ZR, BSTEP

cols16:
	CMP  $16, COLS
	BLT  cols4
	VLD1 (BIAS), [V16.S4, V17.S4, V18.S4, V19.S4]
	ADD  BSTEP<<6, BIAS, BIAS
	MOVD IN, IN0
	MOVD M, MP
	MOVD NIN, J

c16j4:
	CMP    $4, J
	BLT    c16j1
	VLD1.P 16(IN0), [V0.S4]
	VLD1   (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD    ROWB, MP
	ONE16(0)
	VLD1   (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD    ROWB, MP
	ONE16(1)
	VLD1   (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD    ROWB, MP
	ONE16(2)
	VLD1   (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD    ROWB, MP
	ONE16(3)
	SUB    $4, J
	B      c16j4

c16j1:
	CBZ     J, c16store
	FMOVS.P 4(IN0), F0
	VLD1    (MP), [V4.S4, V5.S4, V6.S4, V7.S4]
	ADD     ROWB, MP
	ONE16(0)
	SUB     $1, J
	B       c16j1

c16store:
	VST1.P [V16.S4, V17.S4, V18.S4, V19.S4], 64(OUT)
	ADD    $64, M
	SUB    $16, COLS
	B      cols16

cols4:
	CMP  $4, COLS
	BLT  cols1
	VLD1 (BIAS), [V16.S4]
	ADD  BSTEP<<4, BIAS, BIAS
	MOVD IN, IN0
	MOVD M, MP
	MOVD NIN, J

c4j:
	CBZ     J, c4store
	FMOVS.P 4(IN0), F0
	VLD1    (MP), [V4.S4]
	ADD     ROWB, MP
	FMLAE4S(16, 4, 0, 0)
	SUB     $1, J
	B       c4j

c4store:
	VST1.P [V16.S4], 16(OUT)
	ADD    $16, M
	SUB    $4, COLS
	B      cols4

cols1:
	CBZ   COLS, done
	FMOVS (BIAS), F16
	ADD   BSTEP<<2, BIAS, BIAS
	MOVD  IN, IN0
	MOVD  M, MP
	MOVD  NIN, J

c1j:
	CBZ     J, c1store
	FMOVS.P 4(IN0), F0
	FMOVS   (MP), F4
	ADD     ROWB, MP
	FMLAE4S(16, 4, 0, 0)
	SUB     $1, J
	B       c1j

c1store:
	FMOVS.P F16, 4(OUT)
	ADD     $4, M
	SUB     $1, COLS
	B       cols1

done:
	RET

#undef OUT
#undef BIAS
#undef IN
#undef M
#undef NIN
#undef NOUT
#undef ROWB
#undef INB
#undef BSTEP
#undef IN0
#undef IN1
#undef IN2
#undef IN3
#undef MP
#undef J
#undef COLS
#undef OP

// zeros stands in for a nil bias: 16 floats, the widest tile.
DATA ·zeros<>+0(SB)/8, $0
DATA ·zeros<>+8(SB)/8, $0
DATA ·zeros<>+16(SB)/8, $0
DATA ·zeros<>+24(SB)/8, $0
DATA ·zeros<>+32(SB)/8, $0
DATA ·zeros<>+40(SB)/8, $0
DATA ·zeros<>+48(SB)/8, $0
DATA ·zeros<>+56(SB)/8, $0
GLOBL ·zeros<>(SB), RODATA|NOPTR, $64

// ---------------------------------------------------------------------------
// Row sums and row updates.

#define OUT R0
#define MB R1
#define STRB R2
#define IDX R3
#define NIDX R4
#define COLS R5
#define IP R6
#define K R7
#define ROW R8
#define RP R9

// NEXTROW loads the next idx entry and points RP at that row of the
// current column chunk of m.
#define NEXTROW \
	MOVW.P 4(IP), ROW; MADD STRB, MB, ROW, RP

// func sumRowsNEON(out, m []float32, stride int, idx []int32, n int)
TEXT ·sumRowsNEON(SB), NOSPLIT|NOFRAME, $0-88
	MOVD out_base+0(FP), OUT
	MOVD m_base+24(FP), MB
	MOVD stride+48(FP), STRB
	MOVD idx_base+56(FP), IDX
	MOVD idx_len+64(FP), NIDX
	MOVD n+80(FP), COLS
	LSL  $2, STRB

c32:
	CMP    $32, COLS
	BLT    c4
	MOVD   OUT, RP
	VLD1.P 64(RP), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1   (RP), [V4.S4, V5.S4, V6.S4, V7.S4]
	MOVD   IDX, IP
	MOVD   NIDX, K

c32row:
	CBZ    K, c32store
	NEXTROW
	VLD1.P 64(RP), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1   (RP), [V20.S4, V21.S4, V22.S4, V23.S4]
	FADD4S(0, 0, 16)
	FADD4S(1, 1, 17)
	FADD4S(2, 2, 18)
	FADD4S(3, 3, 19)
	FADD4S(4, 4, 20)
	FADD4S(5, 5, 21)
	FADD4S(6, 6, 22)
	FADD4S(7, 7, 23)
	SUB    $1, K
	B      c32row

c32store:
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(OUT)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(OUT)
	ADD    $128, MB
	SUB    $32, COLS
	B      c32

c4:
	CMP  $4, COLS
	BLT  c1
	VLD1 (OUT), [V0.S4]
	MOVD IDX, IP
	MOVD NIDX, K

c4row:
	CBZ  K, c4store
	NEXTROW
	VLD1 (RP), [V16.S4]
	FADD4S(0, 0, 16)
	SUB  $1, K
	B    c4row

c4store:
	VST1.P [V0.S4], 16(OUT)
	ADD    $16, MB
	SUB    $4, COLS
	B      c4

c1:
	CBZ   COLS, done
	FMOVS (OUT), F0
	MOVD  IDX, IP
	MOVD  NIDX, K

c1row:
	CBZ   K, c1store
	NEXTROW
	FMOVS (RP), F16
	FADD4S(0, 0, 16)
	SUB   $1, K
	B     c1row

c1store:
	FMOVS.P F0, 4(OUT)
	ADD     $4, MB
	SUB     $1, COLS
	B       c1

done:
	RET

#undef OUT
#undef MB
#undef STRB
#undef IDX
#undef NIDX
#undef COLS
#undef IP
#undef K
#undef ROW
#undef RP
#undef NEXTROW

// ---------------------------------------------------------------------------
// Indices of non-zero entries.

// bitw holds the weights 1, 2, 4, …, 2^15 that turn 16 lane masks into a
// 16-bit integer.
DATA bitw<>+0(SB)/4, $1
DATA bitw<>+4(SB)/4, $2
DATA bitw<>+8(SB)/4, $4
DATA bitw<>+12(SB)/4, $8
DATA bitw<>+16(SB)/4, $16
DATA bitw<>+20(SB)/4, $32
DATA bitw<>+24(SB)/4, $64
DATA bitw<>+28(SB)/4, $128
DATA bitw<>+32(SB)/4, $256
DATA bitw<>+36(SB)/4, $512
DATA bitw<>+40(SB)/4, $1024
DATA bitw<>+44(SB)/4, $2048
DATA bitw<>+48(SB)/4, $4096
DATA bitw<>+52(SB)/4, $8192
DATA bitw<>+56(SB)/4, $16384
DATA bitw<>+60(SB)/4, $32768
GLOBL bitw<>(SB), RODATA|NOPTR, $64

#define IDX R0
#define SRC R1
#define N R2
#define POS R3
#define CNT R4
#define BITS R5
#define T R6

// func indicesNEON(idx []int32, s []float32) int
TEXT ·indicesNEON(SB), NOSPLIT|NOFRAME, $0-56
	MOVD idx_base+0(FP), IDX
	MOVD s_base+24(FP), SRC
	MOVD s_len+32(FP), N
	MOVD ZR, POS
	MOVD ZR, CNT
	MOVD $bitw<>(SB), T
	VLD1 (T), [V20.S4, V21.S4, V22.S4, V23.S4]

loop16:
	CMP    $16, N
	BLT    tail
	VLD1.P 64(SRC), [V0.S4, V1.S4, V2.S4, V3.S4]
	FCMEQZ4S(0, 0)
	FCMEQZ4S(1, 1)
	FCMEQZ4S(2, 2)
	FCMEQZ4S(3, 3)
	VAND   V20.B16, V0.B16, V0.B16
	VAND   V21.B16, V1.B16, V1.B16
	VAND   V22.B16, V2.B16, V2.B16
	VAND   V23.B16, V3.B16, V3.B16
	VORR   V1.B16, V0.B16, V0.B16
	VORR   V3.B16, V2.B16, V2.B16
	VORR   V2.B16, V0.B16, V0.B16
	VADDV  V0.S4, V0
	VMOV   V0.S[0], BITS
	// BITS has a one for each zero entry; flip to the non-zero ones.
	EORW   $0xffff, BITS
	CBZW   BITS, next16

bits:
	RBITW BITS, T
	CLZW  T, T
	ADD   POS, T
	MOVW  T, (IDX)(CNT<<2)
	ADD   $1, CNT
	SUBW  $1, BITS, T
	ANDW  T, BITS
	CBNZW BITS, bits

next16:
	ADD $16, POS
	SUB $16, N
	B   loop16

tail:
	CBZ     N, done
	FMOVS.P 4(SRC), F0
	FCMPS   $(0.0), F0
	BEQ     skip
	MOVW    POS, (IDX)(CNT<<2)
	ADD     $1, CNT

skip:
	ADD $1, POS
	SUB $1, N
	B   tail

done:
	MOVD CNT, ret+48(FP)
	RET

#undef IDX
#undef SRC
#undef N
#undef POS
#undef CNT
#undef BITS
#undef T

// ---------------------------------------------------------------------------
// Sigmoid, softplus and Bernoulli sampling.

// EXP_CONSTANTS loads the constants of EXPNEG and SIGMOID (Cephes expf).
#define EXP_CONSTANTS \
	BCAST(0x3FB8AA3B, V16); \ // log2(e)
	BCAST(0x3F318000, V17); \ // ln2 high part, 0.693359375
	BCAST(0xB95E8083, V18); \ // ln2 low part, -2.12194440e-4
	BCAST(0x39506967, V19); \ // p0 = 1.9875691500e-4
	BCAST(0x3AB743CE, V20); \ // p1 = 1.3981999507e-3
	BCAST(0x3C088908, V21); \ // p2 = 8.3334519073e-3
	BCAST(0x3D2AA9C1, V22); \ // p3 = 4.1665795894e-2
	BCAST(0x3E2AAAAA, V23); \ // p4 = 1.6666665459e-1
	BCAST(0x3F000000, V24); \ // p5 = 5.0000001201e-1
	BCAST(0x3F800000, V25); \ // 1.0
	BCAST(0xC2D00000, V26); \ // -104: exp(-104) already rounds to 0
	BCAST(191, V27);        \ // int32 127+64: exponent bias for 2^(n+64)
	BCAST(0x1F800000, V28); \ // 2^-64
	BCAST(0xC2B00000, V29); \ // -88: sigmoid is 0 below it
	BCAST(0x80000000, V30); \ // sign bit
	VEOR V31.B16, V31.B16, V31.B16 // 0.0

// EXPNEG sets V2 = exp(-|V1|) (relative error about 1 ulp), using V3–V6.
// The argument t = max(-|x|, -104) is split as n·ln2 + r, |r| ≤ ln2/2;
// exp(r) is Cephes' degree-7 form 1 + r + r²·q(r), and 2^n is applied in two
// exact-or-once-rounded steps, 2^(n+64)·2^-64, so that results below 2^-126
// come out as correctly scaled subnormals rather than as 0.
#define EXPNEG \
	VORR  V30.B16, V1.B16, V2.B16; \ // -|x|
	FMAX4S(2, 2, 26);              \ // t (NaN stays NaN)
	FMUL4S(3, 2, 16);              \
	FCVTNS4S(4, 3);                \ // n = round(t·log2 e), int
	SCVTF4S(3, 4);                 \ // n as float
	VFMLS V17.S4, V3.S4, V2.S4;    \
	VFMLS V18.S4, V3.S4, V2.S4;    \ // r = t - n·ln2
	VMOV  V20.B16, V5.B16;         \
	VFMLA V19.S4, V2.S4, V5.S4;    \ // q = p1 + p0·r
	VMOV  V21.B16, V6.B16;         \
	VFMLA V5.S4, V2.S4, V6.S4;     \ // q = p2 + q·r
	VMOV  V22.B16, V5.B16;         \
	VFMLA V6.S4, V2.S4, V5.S4;     \ // q = p3 + q·r
	VMOV  V23.B16, V6.B16;         \
	VFMLA V5.S4, V2.S4, V6.S4;     \ // q = p4 + q·r
	VMOV  V24.B16, V5.B16;         \
	VFMLA V6.S4, V2.S4, V5.S4;     \ // q = p5 + q·r
	FMUL4S(6, 2, 2);               \ // r²
	VMOV  V2.B16, V3.B16;          \
	VFMLA V6.S4, V5.S4, V3.S4;     \ // r + r²·q
	FADD4S(3, 3, 25);              \ // y = exp(r)
	VADD  V27.S4, V4.S4, V4.S4;    \
	VSHL  $23, V4.S4, V4.S4;       \ // 2^(n+64)
	FMUL4S(3, 3, 4);               \ // exact
	FMUL4S(2, 3, 28)                 // e = y·2^n, rounded once

// SIGMOID sets V2 = σ(V1) from V2 = exp(-|V1|), using V3–V4:
// σ(x) = 1/(1+e) for x ≥ 0 and e/(1+e) for x < 0 (one exact division),
// and 0 for x < -88.
#define SIGMOID \
	FADD4S(3, 2, 25);              \ // 1 + e
	FCMGE4S(4, 1, 31);             \ // x >= 0
	VBIT  V4.B16, V25.B16, V2.B16; \ // numerator: 1 or e
	FDIV4S(2, 2, 3);               \
	FCMGT4S(4, 29, 1);             \ // x < -88
	VBIT  V4.B16, V31.B16, V2.B16

// func sigmoidNEON(dst, src []float32)
TEXT ·sigmoidNEON(SB), NOSPLIT|NOFRAME, $0-48
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD src_len+32(FP), R2
	EXP_CONSTANTS

loop4:
	CMP    $4, R2
	BLT    tail
	VLD1.P 16(R1), [V1.S4]
	EXPNEG
	SIGMOID
	VST1.P [V2.S4], 16(R0)
	SUB    $4, R2
	B      loop4

tail:
	CBZ     R2, done
	FMOVS.P 4(R1), F1
	EXPNEG
	SIGMOID
	FMOVS.P F2, 4(R0)
	SUB     $1, R2
	B       tail

done:
	RET

// logc holds Cephes logf's polynomial P0–P8, then √2−1, 0.5 and −0.5.
DATA logc<>+0(SB)/4, $0x3D9021BB  // 7.0376836292e-2
DATA logc<>+4(SB)/4, $0xBDEBD1B8  // -1.1514610310e-1
DATA logc<>+8(SB)/4, $0x3DEF251A  // 1.1676998740e-1
DATA logc<>+12(SB)/4, $0xBDFE5D4F // -1.2420140846e-1
DATA logc<>+16(SB)/4, $0x3E11E9BF // 1.4249322787e-1
DATA logc<>+20(SB)/4, $0xBE2AAE50 // -1.6668057665e-1
DATA logc<>+24(SB)/4, $0x3E4CCEAC // 2.0000714765e-1
DATA logc<>+28(SB)/4, $0xBE7FFFFC // -2.4999993993e-1
DATA logc<>+32(SB)/4, $0x3EAAAAAA // 3.3333331174e-1
DATA logc<>+36(SB)/4, $0x3ED413CD // √2−1
DATA logc<>+40(SB)/4, $0x3F000000 // 0.5
DATA logc<>+44(SB)/4, $0xBF000000 // -0.5
GLOBL logc<>(SB), RODATA|NOPTR, $48

// LOG1P sets V5 = log1p(V2) for V2 in [0, 1] (absolute error about 1e-7),
// using V2–V6 and the table logc in V12–V14. With u = 1+e written as 2^k·(1+f),
// f in [√½−1, √2−1]: k = 0, f = e for e ≤ √2−1, else k = 1, f = (e−1)/2;
// both f are computed from e directly, so 1+e is never rounded. Then
// log(1+f) = f − f²/2 + f³·P(f) (Cephes logf) and k·ln2 is added in two parts.
#define LOG1P \
	VDUP  V14.S[1], V3.S4;         \
	FCMGT4S(3, 2, 3);              \ // k mask: e > √2−1
	VDUP  V14.S[3], V4.S4;         \
	VDUP  V14.S[2], V5.S4;         \
	VFMLA V5.S4, V2.S4, V4.S4;     \ // (e−1)/2 = −0.5 + 0.5·e
	VBIT  V3.B16, V4.B16, V2.B16;  \ // f
	VAND  V25.B16, V3.B16, V3.B16; \ // k as 0.0 or 1.0
	FMUL4S(4, 2, 2);               \ // z = f²
	VDUP  V12.S[0], V5.S4;         \
	VDUP  V12.S[1], V6.S4;         \
	VFMLA V5.S4, V2.S4, V6.S4;     \
	VDUP  V12.S[2], V5.S4;         \
	VFMLA V6.S4, V2.S4, V5.S4;     \
	VDUP  V12.S[3], V6.S4;         \
	VFMLA V5.S4, V2.S4, V6.S4;     \
	VDUP  V13.S[0], V5.S4;         \
	VFMLA V6.S4, V2.S4, V5.S4;     \
	VDUP  V13.S[1], V6.S4;         \
	VFMLA V5.S4, V2.S4, V6.S4;     \
	VDUP  V13.S[2], V5.S4;         \
	VFMLA V6.S4, V2.S4, V5.S4;     \
	VDUP  V13.S[3], V6.S4;         \
	VFMLA V5.S4, V2.S4, V6.S4;     \
	VDUP  V14.S[0], V5.S4;         \
	VFMLA V6.S4, V2.S4, V5.S4;     \ // P(f)
	FMUL4S(6, 2, 4);               \ // f·z
	FMUL4S(5, 5, 6);               \ // y = f³·P(f)
	VFMLA V3.S4, V18.S4, V5.S4;    \ // y += k·ln2 low
	VDUP  V14.S[2], V6.S4;         \
	VFMLS V6.S4, V4.S4, V5.S4;     \ // y -= z/2
	FADD4S(5, 5, 2);               \ // f + y
	VFMLA V3.S4, V17.S4, V5.S4       // + k·ln2 high

// func softplusNEON(dst, src []float32)
TEXT ·softplusNEON(SB), NOSPLIT|NOFRAME, $0-48
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD src_len+32(FP), R2
	EXP_CONSTANTS
	MOVD $logc<>(SB), R3
	VLD1 (R3), [V12.S4, V13.S4, V14.S4]

loop4:
	CMP    $4, R2
	BLT    tail
	VLD1.P 16(R1), [V1.S4]
	EXPNEG
	LOG1P
	FMAX4S(6, 1, 31)
	FADD4S(2, 6, 5)  // max(x, 0) + log1p(exp(-|x|))
	VST1.P [V2.S4], 16(R0)
	SUB    $4, R2
	B      loop4

tail:
	CBZ     R2, done
	FMOVS.P 4(R1), F1
	EXPNEG
	LOG1P
	FMAX4S(6, 1, 31)
	FADD4S(2, 6, 5)
	FMOVS.P F2, 4(R0)
	SUB     $1, R2
	B       tail

done:
	RET

// XOSTEP advances four xoshiro128++ lanes whose state words are in A, B, C,
// D and leaves their outputs in R; T is clobbered.
//
//	R = rotl(s0+s3, 7) + s0; t = s1<<9
//	s2 ^= s0; s3 ^= s1; s1 ^= s2; s0 ^= s3; s2 ^= t; s3 = rotl(s3, 11)
#define XOSTEP(A, B, C, D, R, T) \
	VADD A.S4, D.S4, R.S4;    \
	VSHL $7, R.S4, T.S4;      \
	VSRI $25, R.S4, T.S4;     \
	VADD A.S4, T.S4, R.S4;    \
	VSHL $9, B.S4, T.S4;      \
	VEOR A.B16, C.B16, C.B16; \
	VEOR B.B16, D.B16, D.B16; \
	VEOR C.B16, B.B16, B.B16; \
	VEOR D.B16, A.B16, A.B16; \
	VEOR T.B16, C.B16, C.B16; \
	VSHL $11, D.S4, T.S4;     \
	VSRI $21, D.S4, T.S4;     \
	VMOV T.B16, D.B16

// UNIFORM turns draws into uniforms: R = float32(R>>8)·2^-24 (exact).
#define UNIFORM(R, r) VUSHR $8, R.S4, R.S4; UCVTF4S24(r, r)

// func bernoulliBlocksNEON(dst, p []float32, s *Stream)
TEXT ·bernoulliBlocksNEON(SB), NOSPLIT|NOFRAME, $0-56
	MOVD   dst_base+0(FP), R0
	MOVD   p_base+24(FP), R1
	MOVD   p_len+32(FP), R2
	MOVD   s+48(FP), R3
	LSR    $4, R2
	CBZ    R2, done
	// The whole state stays in V16–V31: word w of lanes 4g…4g+3 in V(16+4w+g).
	MOVD   R3, R4
	VLD1.P 64(R4), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R4), [V20.S4, V21.S4, V22.S4, V23.S4]
	VLD1.P 64(R4), [V24.S4, V25.S4, V26.S4, V27.S4]
	VLD1   (R4), [V28.S4, V29.S4, V30.S4, V31.S4]
	BCAST(0x3F800000, V9)

loop:
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	XOSTEP(V16, V20, V24, V28, V4, V8)
	XOSTEP(V17, V21, V25, V29, V5, V8)
	XOSTEP(V18, V22, V26, V30, V6, V8)
	XOSTEP(V19, V23, V27, V31, V7, V8)
	UNIFORM(V4, 4)
	UNIFORM(V5, 5)
	UNIFORM(V6, 6)
	UNIFORM(V7, 7)
	FCMGT4S(4, 0, 4) // p > u
	FCMGT4S(5, 1, 5)
	FCMGT4S(6, 2, 6)
	FCMGT4S(7, 3, 7)
	VAND   V9.B16, V4.B16, V4.B16
	VAND   V9.B16, V5.B16, V5.B16
	VAND   V9.B16, V6.B16, V6.B16
	VAND   V9.B16, V7.B16, V7.B16
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)
	SUB    $1, R2
	CBNZ   R2, loop

	VST1.P [V16.S4, V17.S4, V18.S4, V19.S4], 64(R3)
	VST1.P [V20.S4, V21.S4, V22.S4, V23.S4], 64(R3)
	VST1.P [V24.S4, V25.S4, V26.S4, V27.S4], 64(R3)
	VST1   [V28.S4, V29.S4, V30.S4, V31.S4], (R3)

done:
	RET

// func sigmoidBernoulliBlocksNEON(prob, state, pre []float32, s *Stream)
TEXT ·sigmoidBernoulliBlocksNEON(SB), NOSPLIT|NOFRAME, $0-80
	MOVD prob_base+0(FP), R0
	MOVD state_base+24(FP), R1
	MOVD pre_base+48(FP), R2
	MOVD pre_len+56(FP), R3
	MOVD s+72(FP), R4
	LSR  $4, R3
	CBZ  R3, done
	EXP_CONSTANTS

	// The sigmoid needs the high registers, so the stream state stays in
	// memory and is stepped four lanes at a time: R5–R8 point at words 0–3
	// of the current group of lanes.
block:
	MOVD R4, R5
	ADD  $64, R4, R6
	ADD  $128, R4, R7
	ADD  $192, R4, R8
	MOVD $4, R10

group:
	VLD1   (R5), [V7.S4]
	VLD1   (R6), [V8.S4]
	VLD1   (R7), [V9.S4]
	VLD1   (R8), [V10.S4]
	XOSTEP(V7, V8, V9, V10, V11, V12)
	VST1.P [V7.S4], 16(R5)
	VST1.P [V8.S4], 16(R6)
	VST1.P [V9.S4], 16(R7)
	VST1.P [V10.S4], 16(R8)
	VLD1.P 16(R2), [V1.S4]
	EXPNEG
	SIGMOID
	UNIFORM(V11, 11)
	FCMGT4S(3, 2, 11) // prob > u
	VAND   V25.B16, V3.B16, V3.B16
	VST1.P [V2.S4], 16(R0)
	VST1.P [V3.S4], 16(R1)
	SUB    $1, R10
	CBNZ   R10, group
	SUB    $1, R3
	CBNZ   R3, block

done:
	RET

// ---------------------------------------------------------------------------
// Element-wise updates.

// func axpyNEON(y []float32, a float32, x []float32)
TEXT ·axpyNEON(SB), NOSPLIT|NOFRAME, $0-56
	MOVD  y_base+0(FP), R0
	FMOVS a+24(FP), F31
	MOVD  x_base+32(FP), R1
	MOVD  x_len+40(FP), R2
	VDUP  V31.S[0], V31.S4

loop16:
	CMP    $16, R2
	BLT    loop4
	VLD1   (R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA  V31.S4, V4.S4, V0.S4
	VFMLA  V31.S4, V5.S4, V1.S4
	VFMLA  V31.S4, V6.S4, V2.S4
	VFMLA  V31.S4, V7.S4, V3.S4
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB    $16, R2
	B      loop16

loop4:
	CMP    $4, R2
	BLT    tail
	VLD1   (R0), [V0.S4]
	VLD1.P 16(R1), [V4.S4]
	VFMLA  V31.S4, V4.S4, V0.S4
	VST1.P [V0.S4], 16(R0)
	SUB    $4, R2
	B      loop4

tail:
	CBZ     R2, done
	FMOVS   (R0), F0
	FMOVS.P 4(R1), F4
	VFMLA   V31.S4, V4.S4, V0.S4
	FMOVS.P F0, 4(R0)
	SUB     $1, R2
	B       tail

done:
	RET

// FINITE folds nw·0 into the per-lane check V25 (0 while every new weight
// is finite, NaN after a NaN or ±Inf); HSUM_FINITE sums its lanes into F25.
#define FINITE(nw) VFMLA V24.S4, nw.S4, V25.S4
#define HSUM_FINITE FADDP4S(25, 25, 25); FADDP4S(25, 25, 25)

// NCG_BODY: V0 = w, V1 = ap, V2 = a, V3 = g in; V5 = new w, V1 = new ap,
// V7 = new a, V8 = new c out.
#define NCG_BODY \
	FMUL4S(4, 3, 20);            \ // alpha·g
	VMOV  V0.B16, V5.B16;        \
	VFMLA V4.S4, V2.S4, V5.S4;   \ // w0 + alpha·g·a
	FMUL4S(6, 3, 21);            \ // alphaA·g
	VFMLA V6.S4, V0.S4, V1.S4;   \ // ap + alphaA·g·w0
	FMAX4S(1, 1, 24);            \
	FMIN4S(1, 1, 23);            \ // clip to [0, 1]
	FCMGE4S(7, 1, 22);           \ // ap >= gamma
	VAND  V23.B16, V7.B16, V7.B16; \
	FMUL4S(8, 5, 7);             \ // c = w·a
	FINITE(V5)

// func updateNCGNEON(w, ap, a, c, g []float32, alpha, alphaA, gamma float32) float32
TEXT ·updateNCGNEON(SB), NOSPLIT|NOFRAME, $0-140
	MOVD  w_base+0(FP), R0
	MOVD  w_len+8(FP), R5
	MOVD  ap_base+24(FP), R1
	MOVD  a_base+48(FP), R2
	MOVD  c_base+72(FP), R3
	MOVD  g_base+96(FP), R4
	FMOVS alpha+120(FP), F20
	FMOVS alphaA+124(FP), F21
	FMOVS gamma+128(FP), F22
	VDUP  V20.S[0], V20.S4
	VDUP  V21.S[0], V21.S4
	VDUP  V22.S[0], V22.S4
	BCAST(0x3F800000, V23)
	VEOR  V24.B16, V24.B16, V24.B16
	VEOR  V25.B16, V25.B16, V25.B16

loop4:
	CMP    $4, R5
	BLT    tail
	VLD1   (R0), [V0.S4]
	VLD1   (R1), [V1.S4]
	VLD1   (R2), [V2.S4]
	VLD1   (R4), [V3.S4]
	NCG_BODY
	VST1.P [V5.S4], 16(R0)
	VST1.P [V1.S4], 16(R1)
	VST1.P [V7.S4], 16(R2)
	VST1.P [V8.S4], 16(R3)
	VST1.P [V24.S4], 16(R4)
	SUB    $4, R5
	B      loop4

tail:
	CBZ     R5, done
	FMOVS   (R0), F0
	FMOVS   (R1), F1
	FMOVS   (R2), F2
	FMOVS   (R4), F3
	NCG_BODY
	FMOVS.P F5, 4(R0)
	FMOVS.P F1, 4(R1)
	FMOVS.P F7, 4(R2)
	FMOVS.P F8, 4(R3)
	FMOVS.P F24, 4(R4)
	SUB     $1, R5
	B       tail

done:
	HSUM_FINITE
	FMOVS F25, ret+136(FP)
	RET

// MASKED_BODY: V0 = w, V2 = a, V3 = g in; V5 = new w, V8 = new c out.
#define MASKED_BODY \
	FMUL4S(4, 3, 20);          \ // alpha·g
	VMOV  V0.B16, V5.B16;      \
	VFMLA V4.S4, V2.S4, V5.S4; \ // w + alpha·g·a
	FMUL4S(8, 5, 2);           \ // c = w·a
	FINITE(V5)

// func updateMaskedNEON(w, a, c, g []float32, alpha float32) float32
TEXT ·updateMaskedNEON(SB), NOSPLIT|NOFRAME, $0-108
	MOVD  w_base+0(FP), R0
	MOVD  w_len+8(FP), R5
	MOVD  a_base+24(FP), R2
	MOVD  c_base+48(FP), R3
	MOVD  g_base+72(FP), R4
	FMOVS alpha+96(FP), F20
	VDUP  V20.S[0], V20.S4
	VEOR  V24.B16, V24.B16, V24.B16
	VEOR  V25.B16, V25.B16, V25.B16

loop4:
	CMP    $4, R5
	BLT    tail
	VLD1   (R0), [V0.S4]
	VLD1.P 16(R2), [V2.S4]
	VLD1   (R4), [V3.S4]
	MASKED_BODY
	VST1.P [V5.S4], 16(R0)
	VST1.P [V8.S4], 16(R3)
	VST1.P [V24.S4], 16(R4)
	SUB    $4, R5
	B      loop4

tail:
	CBZ     R5, done
	FMOVS   (R0), F0
	FMOVS.P 4(R2), F2
	FMOVS   (R4), F3
	MASKED_BODY
	FMOVS.P F5, 4(R0)
	FMOVS.P F8, 4(R3)
	FMOVS.P F24, 4(R4)
	SUB     $1, R5
	B       tail

done:
	HSUM_FINITE
	FMOVS F25, ret+104(FP)
	RET

// func updateDenseNEON(w, c, g []float32, alpha float32) float32
TEXT ·updateDenseNEON(SB), NOSPLIT|NOFRAME, $0-84
	MOVD  w_base+0(FP), R0
	MOVD  w_len+8(FP), R5
	MOVD  c_base+24(FP), R3
	MOVD  g_base+48(FP), R4
	FMOVS alpha+72(FP), F20
	VDUP  V20.S[0], V20.S4
	VEOR  V24.B16, V24.B16, V24.B16
	VEOR  V25.B16, V25.B16, V25.B16
	// A nil c gets the copy of w written over w itself: the same value to
	// the same place, which keeps one loop.
	CMP   $0, R3
	CSEL  EQ, R0, R3, R3

loop16:
	CMP    $16, R5
	BLT    loop4
	VLD1   (R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1   (R4), [V4.S4, V5.S4, V6.S4, V7.S4]
	VFMLA  V20.S4, V4.S4, V0.S4
	VFMLA  V20.S4, V5.S4, V1.S4
	VFMLA  V20.S4, V6.S4, V2.S4
	VFMLA  V20.S4, V7.S4, V3.S4
	FINITE(V0)
	FINITE(V1)
	FINITE(V2)
	FINITE(V3)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R3)
	VEOR   V4.B16, V4.B16, V4.B16
	VEOR   V5.B16, V5.B16, V5.B16
	VEOR   V6.B16, V6.B16, V6.B16
	VEOR   V7.B16, V7.B16, V7.B16
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R4)
	SUB    $16, R5
	B      loop16

loop4:
	CMP    $4, R5
	BLT    tail
	VLD1   (R0), [V0.S4]
	VLD1   (R4), [V4.S4]
	VFMLA  V20.S4, V4.S4, V0.S4
	FINITE(V0)
	VST1.P [V0.S4], 16(R0)
	VST1.P [V0.S4], 16(R3)
	VST1.P [V24.S4], 16(R4)
	SUB    $4, R5
	B      loop4

tail:
	CBZ     R5, done
	FMOVS   (R0), F0
	FMOVS   (R4), F4
	VFMLA   V20.S4, V4.S4, V0.S4
	FINITE(V0)
	FMOVS.P F0, 4(R0)
	FMOVS.P F0, 4(R3)
	FMOVS.P F24, 4(R4)
	SUB     $1, R5
	B       tail

done:
	HSUM_FINITE
	FMOVS F25, ret+80(FP)
	RET

// ---------------------------------------------------------------------------
// Updates with momentum and weight decay: updateMomGeneric's float32
// operations one by one, in its order (every product rounded on its own,
// never an FMLA; the sums left to right), so the bits are the generic
// code's. Constants: V16 lr, V17 invB, V18 mu, V19 l2, V20 l1, V21 lrA,
// V22 gamma, V23 1.0, V24 0.0, V25 the finiteness check (by a product and
// a sum, not FINITE's FMLA).

// FSUB Vd.4S, Vn.4S, Vm.4S
#define FSUB4S(d, n, m) WORD $(0x4EA0D400 | (m)<<16 | (n)<<5 | (d))
// BIC Vd.16B, Vn.16B, Vm.16B (d = n AND NOT m)
#define BIC16B(d, n, m) WORD $(0x4E601C00 | (m)<<16 | (n)<<5 | (d))
// BIT Vd.16B, Vn.16B, Vm.16B: the bits of n where m is one go into d
#define BIT16B(d, n, m) WORD $(0x6EA01C00 | (m)<<16 | (n)<<5 | (d))

// MOM_BODY: V0 = w0, V2 = a, V3 = g, V6 = v in; V5 = new w, V4 = new v
// out; V7 scratch. sign(w0) = [w0 > 0]·1 − [0 > w0]·1: 1, −1 or +0.
#define MOM_BODY \
	FMUL4S(4, 3, 17);              \ // g·invB
	FMUL4S(5, 19, 0);              \ // l2·w0
	FSUB4S(4, 4, 5);               \
	FCMGT4S(5, 0, 24);             \ // w0 > 0
	VAND  V23.B16, V5.B16, V5.B16; \
	FCMGT4S(7, 24, 0);             \ // 0 > w0
	VAND  V23.B16, V7.B16, V7.B16; \
	FSUB4S(5, 5, 7);               \ // sign(w0)
	FMUL4S(5, 20, 5);              \ // l1·sign(w0)
	FSUB4S(4, 4, 5);               \
	FMUL4S(7, 18, 6);              \ // mu·v
	FADD4S(4, 4, 7);               \ // s
	FMUL4S(5, 16, 4);              \ // lr·s
	FMUL4S(5, 5, 2);               \ // ·a
	FADD4S(5, 0, 5);               \ // nw = w0 + ·
	FMUL4S(4, 4, 2);               \ // nv = s·a
	FMUL4S(7, 5, 24);              \
	FADD4S(25, 25, 7)                // acc += nw·0

// func updateMomNEON(w, a, c, g, v []float32, lr, invB, mu, l2, l1 float32) float32
TEXT ·updateMomNEON(SB), NOSPLIT|NOFRAME, $0-148
	MOVD  w_base+0(FP), R0
	MOVD  w_len+8(FP), R5
	MOVD  a_base+24(FP), R2
	MOVD  c_base+48(FP), R3
	MOVD  g_base+72(FP), R4
	MOVD  v_base+96(FP), R6
	FMOVS lr+120(FP), F16
	FMOVS invB+124(FP), F17
	FMOVS mu+128(FP), F18
	FMOVS l2+132(FP), F19
	FMOVS l1+136(FP), F20
	VDUP  V16.S[0], V16.S4
	VDUP  V17.S[0], V17.S4
	VDUP  V18.S[0], V18.S4
	VDUP  V19.S[0], V19.S4
	VDUP  V20.S[0], V20.S4
	BCAST(0x3F800000, V23)
	VEOR  V24.B16, V24.B16, V24.B16
	VEOR  V25.B16, V25.B16, V25.B16
	// A nil a is all ones: V2 keeps 1.0, loaded over only when a is not
	// nil. A nil c is not written.
	VMOV  V23.B16, V2.B16

loop4:
	CMP    $4, R5
	BLT    tail
	VLD1   (R0), [V0.S4]
	VLD1   (R4), [V3.S4]
	VLD1   (R6), [V6.S4]
	CBZ    R2, noa4
	VLD1.P 16(R2), [V2.S4]

noa4:
	MOM_BODY
	FMUL4S(8, 5, 2) // c = nw·a
	VST1.P [V5.S4], 16(R0)
	VST1.P [V4.S4], 16(R6)
	VST1.P [V24.S4], 16(R4)
	CBZ    R3, noc4
	VST1.P [V8.S4], 16(R3)

noc4:
	SUB $4, R5
	B   loop4

tail:
	CBZ     R5, done
	FMOVS   (R0), F0
	FMOVS   (R4), F3
	FMOVS   (R6), F6
	CBZ     R2, noa1
	FMOVS.P 4(R2), F2

noa1:
	MOM_BODY
	FMUL4S(8, 5, 2)
	FMOVS.P F5, 4(R0)
	FMOVS.P F4, 4(R6)
	FMOVS.P F24, 4(R4)
	CBZ     R3, noc1
	FMOVS.P F8, 4(R3)

noc1:
	SUB $1, R5
	B   tail

done:
	HSUM_FINITE
	FMOVS F25, ret+144(FP)
	RET

// MOM_NCG_Q: V0 = w0, V1 = ap, V3 = g in; V1 = q, V10 = the new a out; V9
// scratch. q < 0 clears q (+0), q > 1 sets it to 1: Go's branches, which
// keep a NaN or −0 q (FMAX/FMIN would not keep −0).
#define MOM_NCG_Q \
	FMUL4S(9, 21, 3);              \ // lrA·g
	FMUL4S(9, 9, 0);               \ // ·w0
	FADD4S(1, 1, 9);               \ // q = ap + ·
	FCMGT4S(9, 24, 1);             \ // 0 > q
	BIC16B(1, 1, 9);               \
	FCMGT4S(9, 1, 23);             \ // q > 1
	BIT16B(1, 23, 9);              \
	FCMGE4S(10, 1, 22);            \ // q >= gamma
	VAND  V23.B16, V10.B16, V10.B16

// func updateMomNCGNEON(w, ap, a, c, g, v []float32, lr, invB, mu, l2, l1, lrA, gamma float32) float32
TEXT ·updateMomNCGNEON(SB), NOSPLIT|NOFRAME, $0-180
	MOVD  w_base+0(FP), R0
	MOVD  w_len+8(FP), R5
	MOVD  ap_base+24(FP), R1
	MOVD  a_base+48(FP), R2
	MOVD  c_base+72(FP), R3
	MOVD  g_base+96(FP), R4
	MOVD  v_base+120(FP), R6
	FMOVS lr+144(FP), F16
	FMOVS invB+148(FP), F17
	FMOVS mu+152(FP), F18
	FMOVS l2+156(FP), F19
	FMOVS l1+160(FP), F20
	FMOVS lrA+164(FP), F21
	FMOVS gamma+168(FP), F22
	VDUP  V16.S[0], V16.S4
	VDUP  V17.S[0], V17.S4
	VDUP  V18.S[0], V18.S4
	VDUP  V19.S[0], V19.S4
	VDUP  V20.S[0], V20.S4
	VDUP  V21.S[0], V21.S4
	VDUP  V22.S[0], V22.S4
	BCAST(0x3F800000, V23)
	VEOR  V24.B16, V24.B16, V24.B16
	VEOR  V25.B16, V25.B16, V25.B16

loop4:
	CMP    $4, R5
	BLT    tail
	VLD1   (R0), [V0.S4]
	VLD1   (R1), [V1.S4]
	VLD1   (R2), [V2.S4]
	VLD1   (R4), [V3.S4]
	VLD1   (R6), [V6.S4]
	MOM_NCG_Q
	MOM_BODY
	FMUL4S(8, 5, 10) // c = nw·(new a)
	VST1.P [V5.S4], 16(R0)
	VST1.P [V1.S4], 16(R1)
	VST1.P [V10.S4], 16(R2)
	VST1.P [V8.S4], 16(R3)
	VST1.P [V24.S4], 16(R4)
	VST1.P [V4.S4], 16(R6)
	SUB    $4, R5
	B      loop4

tail:
	CBZ     R5, done
	FMOVS   (R0), F0
	FMOVS   (R1), F1
	FMOVS   (R2), F2
	FMOVS   (R4), F3
	FMOVS   (R6), F6
	MOM_NCG_Q
	MOM_BODY
	FMUL4S(8, 5, 10)
	FMOVS.P F5, 4(R0)
	FMOVS.P F1, 4(R1)
	FMOVS.P F10, 4(R2)
	FMOVS.P F8, 4(R3)
	FMOVS.P F24, 4(R4)
	FMOVS.P F4, 4(R6)
	SUB     $1, R5
	B       tail

done:
	HSUM_FINITE
	FMOVS F25, ret+176(FP)
	RET

// ---------------------------------------------------------------------------
// Transpose.

// func transposeBlocksNEON(dst, src []float32, rows, cols, ldd, lds int)
TEXT ·transposeBlocksNEON(SB), NOSPLIT|NOFRAME, $0-80
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD rows+48(FP), R2
	MOVD cols+56(FP), R3
	MOVD ldd+64(FP), R4
	MOVD lds+72(FP), R5
	LSL  $2, R4, R4 // dst row stride in bytes
	LSL  $2, R5, R5 // src row stride in bytes
	LSL  $2, R4, R14 // four dst rows
	LSR  $2, R2, R6 // 4-row blocks

rowblock:
	CBZ  R6, done
	MOVD R1, R8
	ADD  R5, R8, R9
	ADD  R5, R9, R10
	ADD  R5, R10, R11
	MOVD R0, R12
	LSR  $2, R3, R7 // 4-column blocks

colblock:
	CBZ    R7, nextrows
	VLD1.P 16(R8), [V0.S4]  // a0 a1 a2 a3
	VLD1.P 16(R9), [V1.S4]  // b
	VLD1.P 16(R10), [V2.S4] // c
	VLD1.P 16(R11), [V3.S4] // d
	VTRN1  V1.S4, V0.S4, V4.S4 // a0 b0 a2 b2
	VTRN2  V1.S4, V0.S4, V5.S4 // a1 b1 a3 b3
	VTRN1  V3.S4, V2.S4, V6.S4 // c0 d0 c2 d2
	VTRN2  V3.S4, V2.S4, V7.S4 // c1 d1 c3 d3
	VTRN1  V6.D2, V4.D2, V0.D2 // a0 b0 c0 d0
	VTRN1  V7.D2, V5.D2, V1.D2 // a1 b1 c1 d1
	VTRN2  V6.D2, V4.D2, V2.D2 // a2 b2 c2 d2
	VTRN2  V7.D2, V5.D2, V3.D2 // a3 b3 c3 d3
	MOVD   R12, R13
	VST1   [V0.S4], (R13)
	ADD    R4, R13
	VST1   [V1.S4], (R13)
	ADD    R4, R13
	VST1   [V2.S4], (R13)
	ADD    R4, R13
	VST1   [V3.S4], (R13)
	ADD    R14, R12
	SUB    $1, R7
	B      colblock

nextrows:
	ADD R5<<2, R1, R1
	ADD $16, R0
	SUB $1, R6
	B   rowblock

done:
	RET

// ---------------------------------------------------------------------------
// TaylorSums' partial sums (float64, two lanes a register).

// FADD, FSUB, FMUL Vd.2D, Vn.2D, Vm.2D
#define FADD2D(d, n, m) WORD $(0x4E60D400 | (m)<<16 | (n)<<5 | (d))
#define FSUB2D(d, n, m) WORD $(0x4EE0D400 | (m)<<16 | (n)<<5 | (d))
#define FMUL2D(d, n, m) WORD $(0x6E60DC00 | (m)<<16 | (n)<<5 | (d))
// FCVTL Vd.2D, Vn.2S (lanes 0–1) and FCVTL2 Vd.2D, Vn.4S (lanes 2–3)
#define FCVTL2D(d, n) WORD $(0x0E617800 | (n)<<5 | (d))
#define FCVTL22D(d, n) WORD $(0x4E617800 | (n)<<5 | (d))
// BIT16B: see the updates with momentum above.

// TAYLOR adds two elements (x in Vx, q in Vq, float64) to the partial sums
// Vs1, Vs2, Vs3, with the generic code's operations one by one (V31 = 1.0;
// V7–V11 scratch): t = x·x·(q − q·q); s1 += x·q; s2 += t; s3 += t·x·(1 − 2q).
#define TAYLOR(x, q, s1, s2, s3) \
	FMUL2D(7, x, x);   \
	FMUL2D(8, q, q);   \
	FSUB2D(8, q, 8);   \
	FMUL2D(7, 7, 8);   \
	FMUL2D(9, x, q);   \
	FADD2D(s1, s1, 9); \
	FADD2D(s2, s2, 7); \
	FMUL2D(10, 7, x);  \
	FADD2D(11, q, q);  \
	FSUB2D(11, 31, 11); \
	FMUL2D(10, 10, 11); \
	FADD2D(s3, s3, 10)

// func taylorSumsNEON(a, p []float32, s *[3][4]float64, lohi *[2][4]float32)
//
// Four elements a step: partial sum k (k = i mod 4) of s1 is lane k mod 2 of
// V16 (k < 2) or V17, of s2 V18/V19, of s3 V20/V21. V22/V23 keep each
// lane's least and greatest a by compare and bit-insert (lo = a < lo ? a :
// lo, min32's rule: a NaN never replaces it; FMIN would propagate it).
// n = len(a)&^3 (len(a) is a multiple of 4 from TaylorSums); for n = 0 it
// returns at once and leaves s and lohi alone.
TEXT ·taylorSumsNEON(SB), NOSPLIT|NOFRAME, $0-64
	MOVD  a_base+0(FP), R0
	MOVD  a_len+8(FP), R2
	MOVD  p_base+24(FP), R1
	MOVD  s+48(FP), R3
	MOVD  lohi+56(FP), R4
	AND   $~3, R2
	CBZ   R2, tsdone
	VEOR  V16.B16, V16.B16, V16.B16
	VEOR  V17.B16, V17.B16, V17.B16
	VEOR  V18.B16, V18.B16, V18.B16
	VEOR  V19.B16, V19.B16, V19.B16
	VEOR  V20.B16, V20.B16, V20.B16
	VEOR  V21.B16, V21.B16, V21.B16
	VEOR  V22.B16, V22.B16, V22.B16
	VEOR  V23.B16, V23.B16, V23.B16
	FMOVD $1.0, F31
	VDUP  V31.D[0], V31.D2

tsloop:
	VLD1.P 16(R0), [V0.S4]
	VLD1.P 16(R1), [V4.S4]
	FCMGT4S(24, 22, 0) // lo > a
	BIT16B(22, 0, 24)
	FCMGT4S(24, 0, 23) // a > hi
	BIT16B(23, 0, 24)
	FCVTL2D(1, 0)      // x, lanes 0–1
	FCVTL22D(2, 0)     // x, lanes 2–3
	FCVTL2D(5, 4)      // q, lanes 0–1
	FCVTL22D(6, 4)     // q, lanes 2–3
	TAYLOR(1, 5, 16, 18, 20)
	TAYLOR(2, 6, 17, 19, 21)
	SUBS   $4, R2
	BGT    tsloop

	VST1.P [V16.D2, V17.D2, V18.D2, V19.D2], 64(R3)
	VST1   [V20.D2, V21.D2], (R3)
	VST1   [V22.S4, V23.S4], (R4)

tsdone:
	RET

// func prefetchWNEON(s []float32, n, stride int)
//
// One PRFM PSTL1KEEP (prefetch for a store, into L1) per line; n ≥ 1 from
// PrefetchW.
TEXT ·prefetchWNEON(SB), NOSPLIT|NOFRAME, $0-40
	MOVD s_base+0(FP), R0
	MOVD n+24(FP), R1
	MOVD stride+32(FP), R2
	LSL  $2, R2, R2

pfwLoop:
	PRFM (R0), PSTL1KEEP
	ADD  R2, R0, R0
	SUBS $1, R1, R1
	BGT  pfwLoop
	RET

// Compressed-row products (SparseAffine): 8, 16 or 32 interleaved chains.

// func sparseAffine8NEON(out, bias, in []float32, ptr, col []int32, val []float32)
//
// One output row's 8 lanes in V0–V1 (a −0 bias made +0); each entry broadcasts its value
// (V8), multiplies its column's inputs and adds the products, rounded before
// the sums (FMUL, FADD: no fused multiply-add), in the order of the entries.
TEXT ·sparseAffine8NEON(SB), NOSPLIT|NOFRAME, $0-144
	MOVD out_base+0(FP), R0
	MOVD bias_base+24(FP), R1
	MOVD in_base+48(FP), R2
	MOVD ptr_base+72(FP), R3
	MOVD ptr_len+80(FP), R4
	MOVD col_base+96(FP), R5
	MOVD val_base+120(FP), R6
	SUB  $1, R4
	VEOR V9.B16, V9.B16, V9.B16 // 0, to turn a −0 bias into +0
	MOVD ZR, R7 // o
	MOVD ZR, R8 // k; ptr[0] = 0 (NewCSR)

sp8Row:
	CMP  R4, R7
	BGE  sp8Done
	ADD  $1, R7, R11
	MOVW (R3)(R11<<2), R9 // end of the row
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	CBZ  R1, sp8Sum
	ADD  R7<<2, R1, R11
	FMOVS (R11), F0
	VDUP V0.S[0], V1.S4
	VDUP V0.S[0], V0.S4
	FADD4S(0, 0, 9)
	FADD4S(1, 1, 9)

sp8Sum:
	CMP  R9, R8
	BGE  sp8Store
	MOVWU (R5)(R8<<2), R11
	ADD  R11<<5, R2, R11
	VLD1 (R11), [V16.S4, V17.S4]
	ADD  R8<<2, R6, R10
	FMOVS (R10), F8
	VDUP V8.S[0], V8.S4
	FMUL4S(16, 16, 8)
	FMUL4S(17, 17, 8)
	FADD4S(0, 0, 16)
	FADD4S(1, 1, 17)
	ADD  $1, R8
	B    sp8Sum

sp8Store:
	ADD  R7<<5, R0, R11
	VST1 [V0.S4, V1.S4], (R11)
	ADD  $1, R7
	B    sp8Row

sp8Done:
	RET

// func sparseAffine16NEON(out, bias, in []float32, ptr, col []int32, val []float32)
//
// One output row's 16 lanes in V0–V3 (a −0 bias made +0); each entry broadcasts its value
// (V8), multiplies its column's inputs and adds the products, rounded before
// the sums (FMUL, FADD: no fused multiply-add), in the order of the entries.
TEXT ·sparseAffine16NEON(SB), NOSPLIT|NOFRAME, $0-144
	MOVD out_base+0(FP), R0
	MOVD bias_base+24(FP), R1
	MOVD in_base+48(FP), R2
	MOVD ptr_base+72(FP), R3
	MOVD ptr_len+80(FP), R4
	MOVD col_base+96(FP), R5
	MOVD val_base+120(FP), R6
	SUB  $1, R4
	VEOR V9.B16, V9.B16, V9.B16 // 0, to turn a −0 bias into +0
	MOVD ZR, R7 // o
	MOVD ZR, R8 // k; ptr[0] = 0 (NewCSR)

sp16Row:
	CMP  R4, R7
	BGE  sp16Done
	ADD  $1, R7, R11
	MOVW (R3)(R11<<2), R9 // end of the row
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	CBZ  R1, sp16Sum
	ADD  R7<<2, R1, R11
	FMOVS (R11), F0
	VDUP V0.S[0], V3.S4
	VDUP V0.S[0], V2.S4
	VDUP V0.S[0], V1.S4
	VDUP V0.S[0], V0.S4
	FADD4S(0, 0, 9)
	FADD4S(1, 1, 9)
	FADD4S(2, 2, 9)
	FADD4S(3, 3, 9)

sp16Sum:
	CMP  R9, R8
	BGE  sp16Store
	MOVWU (R5)(R8<<2), R11
	ADD  R11<<6, R2, R11
	VLD1.P 64(R11), [V16.S4, V17.S4, V18.S4, V19.S4]
	ADD  R8<<2, R6, R10
	FMOVS (R10), F8
	VDUP V8.S[0], V8.S4
	FMUL4S(16, 16, 8)
	FMUL4S(17, 17, 8)
	FMUL4S(18, 18, 8)
	FMUL4S(19, 19, 8)
	FADD4S(0, 0, 16)
	FADD4S(1, 1, 17)
	FADD4S(2, 2, 18)
	FADD4S(3, 3, 19)
	ADD  $1, R8
	B    sp16Sum

sp16Store:
	ADD  R7<<6, R0, R11
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R11)
	ADD  $1, R7
	B    sp16Row

sp16Done:
	RET

// func sparseAffine32NEON(out, bias, in []float32, ptr, col []int32, val []float32)
//
// One output row's 32 lanes in V0–V7 (a −0 bias made +0); each entry broadcasts its value
// (V8), multiplies its column's inputs and adds the products, rounded before
// the sums (FMUL, FADD: no fused multiply-add), in the order of the entries.
TEXT ·sparseAffine32NEON(SB), NOSPLIT|NOFRAME, $0-144
	MOVD out_base+0(FP), R0
	MOVD bias_base+24(FP), R1
	MOVD in_base+48(FP), R2
	MOVD ptr_base+72(FP), R3
	MOVD ptr_len+80(FP), R4
	MOVD col_base+96(FP), R5
	MOVD val_base+120(FP), R6
	SUB  $1, R4
	VEOR V9.B16, V9.B16, V9.B16 // 0, to turn a −0 bias into +0
	MOVD ZR, R7 // o
	MOVD ZR, R8 // k; ptr[0] = 0 (NewCSR)

sp32Row:
	CMP  R4, R7
	BGE  sp32Done
	ADD  $1, R7, R11
	MOVW (R3)(R11<<2), R9 // end of the row
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V4.B16, V4.B16, V4.B16
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	CBZ  R1, sp32Sum
	ADD  R7<<2, R1, R11
	FMOVS (R11), F0
	VDUP V0.S[0], V7.S4
	VDUP V0.S[0], V6.S4
	VDUP V0.S[0], V5.S4
	VDUP V0.S[0], V4.S4
	VDUP V0.S[0], V3.S4
	VDUP V0.S[0], V2.S4
	VDUP V0.S[0], V1.S4
	VDUP V0.S[0], V0.S4
	FADD4S(0, 0, 9)
	FADD4S(1, 1, 9)
	FADD4S(2, 2, 9)
	FADD4S(3, 3, 9)
	FADD4S(4, 4, 9)
	FADD4S(5, 5, 9)
	FADD4S(6, 6, 9)
	FADD4S(7, 7, 9)

sp32Sum:
	CMP  R9, R8
	BGE  sp32Store
	MOVWU (R5)(R8<<2), R11
	ADD  R11<<7, R2, R11
	VLD1.P 64(R11), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R11), [V20.S4, V21.S4, V22.S4, V23.S4]
	ADD  R8<<2, R6, R10
	FMOVS (R10), F8
	VDUP V8.S[0], V8.S4
	FMUL4S(16, 16, 8)
	FMUL4S(17, 17, 8)
	FMUL4S(18, 18, 8)
	FMUL4S(19, 19, 8)
	FMUL4S(20, 20, 8)
	FMUL4S(21, 21, 8)
	FMUL4S(22, 22, 8)
	FMUL4S(23, 23, 8)
	FADD4S(0, 0, 16)
	FADD4S(1, 1, 17)
	FADD4S(2, 2, 18)
	FADD4S(3, 3, 19)
	FADD4S(4, 4, 20)
	FADD4S(5, 5, 21)
	FADD4S(6, 6, 22)
	FADD4S(7, 7, 23)
	ADD  $1, R8
	B    sp32Sum

sp32Store:
	ADD  R7<<7, R0, R11
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R11)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R11)
	ADD  $1, R7
	B    sp32Row

sp32Done:
	RET

// func dotRowsNEON(dst, a, m []float32, offs []int32)
//
// Eight partial sums a row in V0 (terms c mod 8 = 0…3) and V1 (4…7), each
// product rounded before it is added (FMUL, FADD), combined as
// ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)) by two FADDP and a scalar add;
// len(a) is a multiple of 8.
TEXT ·dotRowsNEON(SB), NOSPLIT|NOFRAME, $0-96
	MOVD dst_base+0(FP), R0
	MOVD a_base+24(FP), R1
	MOVD a_len+32(FP), R2
	MOVD m_base+48(FP), R3
	MOVD offs_base+72(FP), R4
	MOVD offs_len+80(FP), R5
	MOVD ZR, R6 // k

drRow:
	CMP  R5, R6
	BGE  drDone
	MOVW (R4)(R6<<2), R7
	ADD  R7<<2, R3, R7 // the row
	MOVD R1, R8
	MOVD R2, R9
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16

drDot:
	CBZ    R9, drSum
	VLD1.P 32(R8), [V2.S4, V3.S4]
	VLD1.P 32(R7), [V4.S4, V5.S4]
	FMUL4S(2, 2, 4)
	FMUL4S(3, 3, 5)
	FADD4S(0, 0, 2)
	FADD4S(1, 1, 3)
	SUB    $8, R9
	B      drDot

drSum:
	FADDP4S(0, 0, 1) // s0+s1, s2+s3, s4+s5, s6+s7
	FADDP4S(0, 0, 0) // (s0+s1)+(s2+s3), (s4+s5)+(s6+s7), …
	VDUP  V0.S[1], V1.S4
	FADDS F1, F0, F0
	ADD   R6<<2, R0, R10
	FMOVS F0, (R10)
	ADD   $1, R6
	B     drRow

drDone:
	RET

// ---------------------------------------------------------------------------
// Gaussian sampling: package kernel's normalRef and logRef (gaussian.go),
// one instruction per operation in their order, never fused, so the bits
// are the generic code's. Both branches of AS 241 are computed and the
// central one is selected where |q| ≤ 0.425.

// ABS Vd.4S, Vn.4S (int32)
#define ABS4S(d, n) WORD $(0x4EA0B800 | (n)<<5 | (d))
// FNEG Vd.4S, Vn.4S
#define FNEG4S(d, n) WORD $(0x6EA0F800 | (n)<<5 | (d))
// FABS Vd.4S, Vn.4S
#define FABS4S(d, n) WORD $(0x4EA0F800 | (n)<<5 | (d))
// FSQRT Vd.4S, Vn.4S
#define FSQRT4S(d, n) WORD $(0x6EA1F800 | (n)<<5 | (d))

// func gaussianBlocksNEON(dst, mean, sigma []float32, s *Stream)
TEXT ·gaussianBlocksNEON(SB), NOSPLIT|NOFRAME, $0-80
	MOVD dst_base+0(FP), R0
	MOVD mean_base+24(FP), R1
	MOVD mean_len+32(FP), R3
	MOVD sigma_base+48(FP), R2
	MOVD s+72(FP), R4
	LSR  $4, R3
	CBZ  R3, done
	// Constants: V8 1.0, V9 2^-25, V10–V13 a0–a3, V14–V16 b1–b3, V17–V20
	// c0–c3, V21–V22 d1–d2, V23–V31 the logarithm's p0–p8; the others are
	// broadcast where they are used.
	BCAST(0x3F800000, V8)
	BCAST(0x33000000, V9)
	BCAST(0x4058C6C8, V10) // a0 = 3.3871327179
	BCAST(0x4249BCB2, V11) // a1 = 50.434271938
	BCAST(0x431F4A88, V12) // a2 = 159.29113202
	BCAST(0x426C7000, V13) // a3 = 59.109374720
	BCAST(0x418F294F, V14) // b1 = 17.895169469
	BCAST(0x429D83F9, V15) // b2 = 78.757757664
	BCAST(0x42866008, V16) // b3 = 67.187563600
	BCAST(0x3FB63331, V17) // c0 = 1.4234372777
	BCAST(0x40306FAA, V18) // c1 = 2.7568153900
	BCAST(0x3FA742E1, V19) // c2 = 1.3067284816
	BCAST(0x3E2E52ED, V20) // c3 = 0.17023821103
	BCAST(0x3F3CAC24, V21) // d1 = 0.73700164250
	BCAST(0x3DF6315C, V22) // d2 = 0.12021132975
	BCAST(0x3D9021BB, V23) // p0 = 7.0376836292e-2
	BCAST(0xBDEBD1B8, V24) // p1
	BCAST(0x3DEF251A, V25) // p2
	BCAST(0xBDFE5D4F, V26) // p3
	BCAST(0x3E11E9BF, V27) // p4
	BCAST(0xBE2AAE50, V28) // p5
	BCAST(0x3E4CCEAC, V29) // p6
	BCAST(0xBE7FFFFC, V30) // p7
	BCAST(0x3EAAAAAA, V31) // p8

	// The stream state stays in memory and is stepped four lanes at a
	// time, as in sigmoidBernoulliBlocksNEON: R5–R8 point at words 0–3 of
	// the current group of lanes.
block:
	MOVD R4, R5
	ADD  $64, R4, R6
	ADD  $128, R4, R7
	ADD  $192, R4, R8
	MOVD $4, R10

group:
	VLD1   (R5), [V0.S4]
	VLD1   (R6), [V1.S4]
	VLD1   (R7), [V2.S4]
	VLD1   (R8), [V3.S4]
	XOSTEP(V0, V1, V2, V3, V4, V5)
	VST1.P [V0.S4], 16(R5)
	VST1.P [V1.S4], 16(R6)
	VST1.P [V2.S4], 16(R7)
	VST1.P [V3.S4], 16(R8)

	// m = 2·(r >> 8) + 1 − 2²⁴ (int32, V4), q = m·2⁻²⁵ (V1).
	VUSHR $8, V4.S4, V4.S4
	VSHL  $1, V4.S4, V4.S4
	BCAST(0xFF000001, V2)
	VADD  V2.S4, V4.S4, V4.S4
	SCVTF4S(1, 4)
	FMUL4S(1, 1, 9)

	// Central: t = 0.180625 − q² (V2), zc = (q·A(t)) / B(t) (V3).
	FMUL4S(3, 1, 1)
	BCAST(0x3E38F5C3, V2)  // 0.180625
	FSUB4S(2, 2, 3)
	FMUL4S(3, 13, 2)
	FADD4S(3, 3, 12)
	FMUL4S(3, 3, 2)
	FADD4S(3, 3, 11)
	FMUL4S(3, 3, 2)
	FADD4S(3, 3, 10)
	FMUL4S(0, 16, 2)
	FADD4S(0, 0, 15)
	FMUL4S(0, 0, 2)
	FADD4S(0, 0, 14)
	FMUL4S(0, 0, 2)
	FADD4S(0, 0, 8)
	FMUL4S(3, 1, 3)
	FDIV4S(3, 3, 0)

	// Tail: p = (2²⁴ − |m|)·2⁻²⁵ (V0), log p as logRef (e in V5).
	ABS4S(0, 4)
	BCAST(0x01000000, V2)
	VSUB  V0.S4, V2.S4, V0.S4
	SCVTF4S(0, 0)
	FMUL4S(0, 0, 9)
	VUSHR $23, V0.S4, V5.S4
	BCAST(126, V2)
	VSUB  V2.S4, V5.S4, V5.S4
	SCVTF4S(5, 5)
	BCAST(0x007FFFFF, V2)
	VAND  V2.B16, V0.B16, V0.B16
	BCAST(0x3F000000, V2)
	VORR  V2.B16, V0.B16, V0.B16 // f in [½, 1)
	BCAST(0x3F3504F3, V2)        // √½
	FCMGT4S(2, 2, 0)             // f < √½
	VAND  V8.B16, V2.B16, V6.B16
	FSUB4S(5, 5, 6)              // e − 1 there (e − 0 is e)
	VAND  V0.B16, V2.B16, V6.B16
	FADD4S(0, 0, 6)              // f + f there (f + 0 is f)
	FSUB4S(0, 0, 8)
	FMUL4S(6, 0, 0)              // z
	FMUL4S(7, 23, 0)
	FADD4S(7, 7, 24)
	FMUL4S(7, 7, 0)
	FADD4S(7, 7, 25)
	FMUL4S(7, 7, 0)
	FADD4S(7, 7, 26)
	FMUL4S(7, 7, 0)
	FADD4S(7, 7, 27)
	FMUL4S(7, 7, 0)
	FADD4S(7, 7, 28)
	FMUL4S(7, 7, 0)
	FADD4S(7, 7, 29)
	FMUL4S(7, 7, 0)
	FADD4S(7, 7, 30)
	FMUL4S(7, 7, 0)
	FADD4S(7, 7, 31)
	FMUL4S(7, 7, 0)
	FMUL4S(7, 7, 6)
	BCAST(0xB95E8083, V2)        // ln2 low part
	FMUL4S(2, 2, 5)
	FADD4S(7, 7, 2)
	BCAST(0x3F000000, V2)        // 0.5
	FMUL4S(2, 2, 6)
	FSUB4S(7, 7, 2)
	FADD4S(0, 0, 7)
	BCAST(0x3F318000, V2)        // ln2 high part
	FMUL4S(2, 2, 5)
	FADD4S(0, 0, 2)              // log p

	// s = √(−log p) − 1.6 (V0), zt = ±C(s)/D(s) with the sign of m (V5).
	FNEG4S(0, 0)
	FSQRT4S(0, 0)
	BCAST(0x3FCCCCCD, V2)        // 1.6
	FSUB4S(0, 0, 2)
	FMUL4S(5, 20, 0)
	FADD4S(5, 5, 19)
	FMUL4S(5, 5, 0)
	FADD4S(5, 5, 18)
	FMUL4S(5, 5, 0)
	FADD4S(5, 5, 17)
	FMUL4S(6, 22, 0)
	FADD4S(6, 6, 21)
	FMUL4S(6, 6, 0)
	FADD4S(6, 6, 8)
	FDIV4S(5, 5, 6)
	VUSHR $31, V4.S4, V2.S4
	VSHL  $31, V2.S4, V2.S4
	VEOR  V2.B16, V5.B16, V5.B16

	// z = zc where |q| ≤ 0.425, else zt; dst = mean + sigma·z.
	FABS4S(2, 1)
	BCAST(0x3ED9999A, V6)        // 0.425
	FCMGE4S(2, 6, 2)
	VBIT   V2.B16, V3.B16, V5.B16
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R2), [V6.S4]
	FMUL4S(6, 6, 5)
	FADD4S(0, 0, 6)
	VST1.P [V0.S4], 16(R0)
	SUB    $1, R10
	CBNZ   R10, group
	SUB    $1, R3
	CBNZ   R3, block

done:
	RET

// ---------------------------------------------------------------------------
// Categorical (softmax) sampling: the row-wide steps (softmax_tier.go).
// SMEXP is package kernel's expRef (softmax.go), one instruction per
// operation in its order, never fused, so the bits are the generic code's.

// FCMEQ Vd.4S, Vn.4S, Vm.4S (lane = all ones if n == m; false for NaN)
#define FCMEQ4S(d, n, m) WORD $(0x4E20E400 | (m)<<16 | (n)<<5 | (d))

// SMEXP_CONSTANTS loads the constants of SMEXP into V16–V26.
#define SMEXP_CONSTANTS \
	BCAST(0x3FB8AA3B, V16); \ // log2(e)
	BCAST(0x3F318000, V17); \ // C1 = 0.693359375
	BCAST(0xB95E8083, V18); \ // C2 = -2.12194440e-4
	BCAST(0x39506967, V19); \ // P0 = 1.9875691500e-4
	BCAST(0x3AB743CE, V20); \ // P1 = 1.3981999507e-3
	BCAST(0x3C088908, V21); \ // P2 = 8.3334519073e-3
	BCAST(0x3D2AA9C1, V22); \ // P3 = 4.1665795894e-2
	BCAST(0x3E2AAAAA, V23); \ // P4 = 1.6666665459e-1
	BCAST(0x3F000000, V24); \ // P5 = 5.0000001201e-1
	BCAST(0x3F800000, V25); \ // 1.0, and 127<<23 as an integer
	BCAST(0xC2AE0000, V26)    // -87: expRef is 0 below

// SMEXP sets V1 = expRef(V1) for V1 ≤ 0, −Inf or NaN, using V2–V6: n is
// rounded to nearest even by FCVTNS, lanes below −87 are set to 0 and NaN
// lanes keep x.
#define SMEXP \
	FMUL4S(3, 1, 16);              \ // t = x·log2e
	FCVTNS4S(4, 3);                \ // n
	SCVTF4S(3, 4);                 \ // nf
	FMUL4S(5, 3, 17);              \ // nf·C1
	FSUB4S(5, 1, 5);               \ // r = x − nf·C1
	FMUL4S(3, 3, 18);              \ // nf·C2
	FSUB4S(5, 5, 3);               \ // r = r − nf·C2
	FMUL4S(3, 5, 5);               \ // z = r·r
	FMUL4S(6, 19, 5);              \ // y = P0·r
	FADD4S(6, 6, 20);              \
	FMUL4S(6, 6, 5);               \
	FADD4S(6, 6, 21);              \
	FMUL4S(6, 6, 5);               \
	FADD4S(6, 6, 22);              \
	FMUL4S(6, 6, 5);               \
	FADD4S(6, 6, 23);              \
	FMUL4S(6, 6, 5);               \
	FADD4S(6, 6, 24);              \ // + P5
	FMUL4S(6, 6, 3);               \ // y·z
	FADD4S(6, 6, 5);               \ // + r
	FADD4S(6, 6, 25);              \ // + 1
	VSHL  $23, V4.S4, V4.S4;       \
	VADD  V25.S4, V4.S4, V4.S4;    \ // 2ⁿ
	FMUL4S(2, 6, 4);               \ // e
	FCMGT4S(3, 26, 1);             \ // x < −87
	BIC16B(2, 2, 3);               \
	FCMEQ4S(3, 1, 1);              \ // x is not NaN
	VBIT  V3.B16, V2.B16, V1.B16

// func softmaxExpNEON(dst, src []float32)
TEXT ·softmaxExpNEON(SB), NOSPLIT|NOFRAME, $0-48
	MOVD dst_base+0(FP), R0
	MOVD src_base+24(FP), R1
	MOVD src_len+32(FP), R2
	SMEXP_CONSTANTS

loop4:
	CMP    $4, R2
	BLT    tail
	VLD1.P 16(R1), [V1.S4]
	SMEXP
	VST1.P [V1.S4], 16(R0)
	SUB    $4, R2
	B      loop4

tail:
	CBZ     R2, done
	FMOVS.P 4(R1), F1
	SMEXP
	FMOVS.P F1, 4(R0)
	SUB     $1, R2
	B       tail

done:
	RET

// SMFINISH sets V2 = V2 / |V1| and V1 = 1.0 where V1's sign bit is set,
// else 0, using V3.
#define SMFINISH \
	FABS4S(3, 1);                \
	FDIV4S(2, 2, 3);             \
	VUSHR $31, V1.S4, V1.S4;     \
	SCVTF4S(1, 1)

// func softmaxFinishNEON(prob, state []float32)
TEXT ·softmaxFinishNEON(SB), NOSPLIT|NOFRAME, $0-48
	MOVD prob_base+0(FP), R0
	MOVD prob_len+8(FP), R2
	MOVD state_base+24(FP), R1

loop4:
	CMP    $4, R2
	BLT    tail
	VLD1   (R0), [V2.S4]
	VLD1   (R1), [V1.S4]
	SMFINISH
	VST1.P [V2.S4], 16(R0)
	VST1.P [V1.S4], 16(R1)
	SUB    $4, R2
	B      loop4

tail:
	CBZ     R2, done
	FMOVS   (R0), F2
	FMOVS   (R1), F1
	SMFINISH
	FMOVS.P F2, 4(R0)
	FMOVS.P F1, 4(R1)
	SUB     $1, R2
	B       tail

done:
	RET
