#include "textflag.h"

// AVX-512F twins of kernel_amd64.s's Exp, ExpShifted, Logistic and SwiGLU
// loops, 16 floats a step: the same instructions on zmm registers, with
// mask registers where the AVX2 loops blend by a vector (VBLENDVPS), so
// every lane's bits are the AVX2 loop's (TestAVX512MatchesAVX2).

#include "tab_amd64.h"

// LOADTAB512 broadcasts the constants from the table at R8: Z6 log2e, Z7
// magic, Z8 −ln2hi, Z9 −ln2lo, Z10..Z14 c6..c2, Z15 1.0, Z16 expMin, Z17
// the bias, Z18 expHi, Z19 +Inf, Z20 the sign bit; Z21 = 0.
#define LOADTAB512 \
	VBROADCASTSS T_LOG2E(R8), Z6   \
	VBROADCASTSS T_MAGIC(R8), Z7   \
	VBROADCASTSS T_NLN2HI(R8), Z8  \
	VBROADCASTSS T_NLN2LO(R8), Z9  \
	VBROADCASTSS T_C6(R8), Z10     \
	VBROADCASTSS T_C5(R8), Z11     \
	VBROADCASTSS T_C4(R8), Z12     \
	VBROADCASTSS T_C3(R8), Z13     \
	VBROADCASTSS T_C2(R8), Z14     \
	VBROADCASTSS T_ONE(R8), Z15    \
	VBROADCASTSS T_MIN(R8), Z16    \
	VBROADCASTSS T_BIAS(R8), Z17   \
	VBROADCASTSS T_HI(R8), Z18     \
	VBROADCASTSS T_INF(R8), Z19    \
	VBROADCASTSS T_SIGN(R8), Z20   \
	VPXORD       Z21, Z21, Z21

// EXPB512 is EXPB on Z0..Z5 (Z3·Z5 = e^Z0, Z0 kept).
#define EXPB512 \
	VMAXPS      Z16, Z0, Z1  \
	VMOVAPS     Z7, Z2       \
	VFMADD231PS Z6, Z1, Z2   \
	VSUBPS      Z7, Z2, Z3   \
	VFMADD231PS Z8, Z3, Z1   \
	VFMADD231PS Z9, Z3, Z1   \
	VMOVAPS     Z10, Z3      \
	VFMADD213PS Z11, Z1, Z3  \
	VFMADD213PS Z12, Z1, Z3  \
	VFMADD213PS Z13, Z1, Z3  \
	VFMADD213PS Z14, Z1, Z3  \
	VFMADD213PS Z15, Z1, Z3  \
	VFMADD213PS Z15, Z1, Z3  \
	VPSLLD      $23, Z2, Z2  \
	VPSRAD      $31, Z0, Z4  \
	VPANDD      Z17, Z4, Z4  \
	VPADDD      Z4, Z2, Z2   \
	VPADDD      Z2, Z3, Z3   \
	VPSUBD      Z4, Z15, Z5

// EXPCORE512 is EXPCORE: Z3 = e^Z0; K1 marks !(x ≤ expHi), where Z3
// takes x + Inf.
#define EXPCORE512 \
	EXPB512                    \
	VMULPS    Z5, Z3, Z3       \
	VCMPPS    $6, Z18, Z0, K1  \
	VADDPS    Z19, Z0, Z5      \
	VBLENDMPS Z5, Z3, K1, Z3

// ARGS512 loads DI dst, SI src, CX n/16, R8 the table.
#define ARGS512 \
	MOVQ dst+0(FP), DI  \
	MOVQ src+8(FP), SI  \
	MOVQ n+16(FP), CX   \
	MOVQ tab+24(FP), R8 \
	SHRQ $4, CX

// func expAVX512(dst, src *float32, n int, tab *[tabLen][8]float32)
TEXT ·expAVX512(SB), NOSPLIT, $0-32
	ARGS512
	JZ   exp512done
	LOADTAB512

exp512loop:
	VMOVUPS (SI), Z0
	EXPCORE512
	VMOVUPS Z3, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     exp512loop
	VZEROUPPER

exp512done:
	RET

// func expSubAVX512(dst, src *float32, n int, tab *[tabLen][8]float32, m *[8]float32)
TEXT ·expSubAVX512(SB), NOSPLIT, $0-40
	ARGS512
	MOVQ m+32(FP), R9
	JZ   expsub512done
	LOADTAB512
	VBROADCASTSS (R9), Z22

expsub512loop:
	VMOVUPS (SI), Z0
	VSUBPS  Z22, Z0, Z0
	EXPCORE512
	VMOVUPS Z3, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     expsub512loop
	VZEROUPPER

expsub512done:
	RET

// LOGISTIC512 sets Z5 = σ(Z23) as logisticAVX2: e = e^−|x|, d = 1 + e,
// (x < 0 ? e : 1) / d, the choice by x's sign bit (K2).
#define LOGISTIC512 \
	VPORD     Z20, Z23, Z0     \
	EXPCORE512                 \
	VADDPS    Z15, Z3, Z4      \
	VPCMPGTD  Z23, Z21, K2     \
	VBLENDMPS Z3, Z15, K2, Z5  \
	VDIVPS    Z4, Z5, Z5

// func logisticAVX512(dst, src *float32, n int, tab *[tabLen][8]float32)
TEXT ·logisticAVX512(SB), NOSPLIT, $0-32
	ARGS512
	JZ   log512done
	LOADTAB512

log512loop:
	VMOVUPS (SI), Z23
	LOGISTIC512
	VMOVUPS Z5, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     log512loop
	VZEROUPPER

log512done:
	RET

// func swigluAVX512(dst, gate, up *float32, n int, tab *[tabLen][8]float32)
TEXT ·swigluAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ gate+8(FP), SI
	MOVQ up+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ tab+32(FP), R8
	SHRQ $4, CX
	JZ   swiglu512done
	LOADTAB512

swiglu512loop:
	VMOVUPS (SI), Z23
	LOGISTIC512
	VMULPS  Z23, Z5, Z5
	VMULPS  (DX), Z5, Z5
	VMOVUPS Z5, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $64, DI
	DECQ    CX
	JNZ     swiglu512loop
	VZEROUPPER

swiglu512done:
	RET
