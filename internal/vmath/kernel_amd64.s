#include "textflag.h"

// AVX2+FMA loops for Exp, Logistic and SiLU, 8 floats a step, branch-free.
// The algorithm and constants are those of expGo, logisticGo and siluGo in
// exp_go.go; every lane is computed alone, so the result for an element
// depends only on its value.

#include "tab_amd64.h"

// LOADTAB loads the register-resident constants from the table at R8:
// Y6 log2e, Y7 magic, Y8 −ln2hi, Y9 −ln2lo, Y10..Y14 c6..c2, Y15 1.0.
#define LOADTAB \
	VMOVUPS T_LOG2E(R8), Y6   \
	VMOVUPS T_MAGIC(R8), Y7   \
	VMOVUPS T_NLN2HI(R8), Y8  \
	VMOVUPS T_NLN2LO(R8), Y9  \
	VMOVUPS T_C6(R8), Y10     \
	VMOVUPS T_C5(R8), Y11     \
	VMOVUPS T_C4(R8), Y12     \
	VMOVUPS T_C3(R8), Y13     \
	VMOVUPS T_C2(R8), Y14     \
	VMOVUPS T_ONE(R8), Y15

// EXPB sets Y3·Y5 = e^Y0 with Y3 normal (expBiased, scale in exp_go.go), Y0
// kept; Y1, Y2, Y4 are scratch.
//   Y1 = xc = max(x, expMin)                (NaN x gives expMin)
//   Y2 = t = xc·log2e + magic               (n in the low bits of t)
//   Y3 = n = t − magic
//   Y1 = r = (xc − n·ln2hi) − n·ln2lo       (the first step is exact)
//   Y3 = p = 1 + r·(1 + r·(c2 + r·(c3 + r·(c4 + r·(c5 + r·c6)))))
//   Y4 = b = 64<<23 where x < 0, else 0    (by the sign bit of x)
//   Y3 = bits(p) + n<<23 + b, Y5 = bits(1.0) − b (2^-64 or 1)
#define EXPB \
	VMAXPS      T_MIN(R8), Y0, Y1     \
	VMOVAPS     Y7, Y2                \
	VFMADD231PS Y6, Y1, Y2            \
	VSUBPS      Y7, Y2, Y3            \
	VFMADD231PS Y8, Y3, Y1            \
	VFMADD231PS Y9, Y3, Y1            \
	VMOVAPS     Y10, Y3               \
	VFMADD213PS Y11, Y1, Y3           \
	VFMADD213PS Y12, Y1, Y3           \
	VFMADD213PS Y13, Y1, Y3           \
	VFMADD213PS Y14, Y1, Y3           \
	VFMADD213PS Y15, Y1, Y3           \
	VFMADD213PS Y15, Y1, Y3           \
	VPSLLD      $23, Y2, Y2           \
	VPSRAD      $31, Y0, Y4           \
	VPAND       T_BIAS(R8), Y4, Y4    \
	VPADDD      Y4, Y2, Y2            \
	VPADDD      Y2, Y3, Y3            \
	VPSUBD      Y4, Y15, Y5

// EXPCORE sets Y3 = e^Y0 (expGo), Y0 kept; Y1, Y2, Y4, Y5 are scratch:
// EXPB, Y3·Y5, then x + Inf where !(x ≤ expHi) (+Inf, or NaN for NaN).
#define EXPCORE \
	EXPB                              \
	VMULPS      Y5, Y3, Y3            \
	VCMPPS      $6, T_HI(R8), Y0, Y4  \
	VADDPS      T_INF(R8), Y0, Y5     \
	VBLENDVPS   Y4, Y5, Y3, Y3

// ARGS loads the arguments: DI dst, SI src, CX n/8, R8 the table.
#define ARGS \
	MOVQ dst+0(FP), DI  \
	MOVQ src+8(FP), SI  \
	MOVQ n+16(FP), CX   \
	MOVQ tab+24(FP), R8 \
	SHRQ $3, CX

// func expAVX2(dst, src *float32, n int, tab *[tabLen][8]float32)
TEXT ·expAVX2(SB), NOSPLIT, $0-32
	ARGS
	JZ   expdone
	LOADTAB

exploop:
	VMOVUPS (SI), Y0
	EXPCORE
	VMOVUPS Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     exploop
	VZEROUPPER

expdone:
	RET

// func logisticAVX2(dst, src *float32, n int, tab *[tabLen][8]float32)
// e = e^−|x| (EXPCORE on x with the sign bit set), d = 1 + e, and
// dst = (x < 0 ? e : 1) / d, the choice by the sign bit of x.
TEXT ·logisticAVX2(SB), NOSPLIT, $0-32
	ARGS
	JZ   logdone
	LOADTAB

logloop:
	VMOVUPS   (SI), Y0
	VORPS     T_SIGN(R8), Y0, Y0
	EXPCORE
	VADDPS    Y15, Y3, Y4
	VMOVUPS   (SI), Y1
	VBLENDVPS Y1, Y3, Y15, Y5
	VDIVPS    Y4, Y5, Y5
	VMOVUPS   Y5, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       logloop
	VZEROUPPER

logdone:
	RET

// func siluAVX2(dst, src *float32, n int, tab *[tabLen][8]float32)
// EXPB on x with the sign bit set: Y3·Y5 = e = e^−|x|, Y5 = 2^-64; d = 1+e;
// dst = x/d for x ≥ 0 and ((max(expMin, x)·Y3)/d)·2^-64 for x < 0 (siluGo;
// the max keeps a NaN x, which makes the result NaN).
TEXT ·siluAVX2(SB), NOSPLIT, $0-32
	ARGS
	JZ   siludone
	LOADTAB

siluloop:
	VMOVUPS   (SI), Y0
	VORPS     T_SIGN(R8), Y0, Y0
	EXPB
	VMULPS    Y5, Y3, Y4
	VADDPS    Y15, Y4, Y4
	VMOVUPS   (SI), Y1
	VMOVUPS   T_MIN(R8), Y2
	VMAXPS    Y1, Y2, Y2
	VMULPS    Y3, Y2, Y2
	VBLENDVPS Y1, Y2, Y1, Y2
	VDIVPS    Y4, Y2, Y2
	VBLENDVPS Y1, Y5, Y15, Y3
	VMULPS    Y3, Y2, Y2
	VMOVUPS   Y2, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	DECQ      CX
	JNZ       siluloop
	VZEROUPPER

siludone:
	RET

// func expSubAVX2(dst, src *float32, n int, tab *[tabLen][8]float32, m *[8]float32)
// dst = e^(src − m): the difference rounded to float32 (VSUBPS), then
// EXPCORE, so the bits of a subtraction followed by Exp.
TEXT ·expSubAVX2(SB), NOSPLIT, $0-40
	ARGS
	MOVQ m+32(FP), R9
	JZ   expsubdone
	LOADTAB

expsubloop:
	VMOVUPS (SI), Y0
	VSUBPS  (R9), Y0, Y0
	EXPCORE
	VMOVUPS Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     expsubloop
	VZEROUPPER

expsubdone:
	RET

// func divAVX2(dst, src *float32, n int, s *[8]float32)
// dst = src / s, IEEE division 8 lanes a step (the bits of a scalar one).
TEXT ·divAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ s+24(FP), R9
	SHRQ $3, CX
	JZ   divdone

divloop:
	VMOVUPS (SI), Y0
	VDIVPS  (R9), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     divloop
	VZEROUPPER

divdone:
	RET

// func swigluAVX2(dst, gate, up *float32, n int, tab *[tabLen][8]float32)
// dst = (g·σ(g))·u: σ as logisticAVX2, then the two products, each
// rounded (VMULPS), so the bits of Logistic and two multiplications.
TEXT ·swigluAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ gate+8(FP), SI
	MOVQ up+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ tab+32(FP), R8
	SHRQ $3, CX
	JZ   swiglutdone
	LOADTAB

swigluloop:
	VMOVUPS   (SI), Y0
	VORPS     T_SIGN(R8), Y0, Y0
	EXPCORE
	VADDPS    Y15, Y3, Y4
	VMOVUPS   (SI), Y1
	VBLENDVPS Y1, Y3, Y15, Y5
	VDIVPS    Y4, Y5, Y5
	VMULPS    Y1, Y5, Y5
	VMULPS    (DX), Y5, Y5
	VMOVUPS   Y5, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DX
	ADDQ      $32, DI
	DECQ      CX
	JNZ       swigluloop
	VZEROUPPER

swiglutdone:
	RET

// func scaleMaskAVX2(dst, src *float32, mask *bool, n int, sf *[2]float32)
// dst = mask ? src·scale : fill (sf = {scale, fill}), 8 lanes a step: the
// product rounded once (VMULPS), the choice by each mask byte (0 or 1).
TEXT ·scaleMaskAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ mask+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ sf+32(FP), R8
	SHRQ $3, CX
	JZ   scalemaskdone
	VBROADCASTSS (R8), Y6
	VBROADCASTSS 4(R8), Y7
	VPXOR        Y5, Y5, Y5

scalemaskloop:
	VPMOVZXBD (DX), Y0
	VPCMPEQD  Y5, Y0, Y1      // all ones where the mask is false
	VMULPS    (SI), Y6, Y2
	VBLENDVPS Y1, Y7, Y2, Y2
	VMOVUPS   Y2, (DI)
	ADDQ      $32, SI
	ADDQ      $8, DX
	ADDQ      $32, DI
	DECQ      CX
	JNZ       scalemaskloop
	VZEROUPPER

scalemaskdone:
	RET
