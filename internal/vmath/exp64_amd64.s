#include "textflag.h"

// Exp64 with AVX2+FMA, 4 doubles a step: exp64Go's operations, each
// rounding or fusing as there, so the same bits.

// Byte offsets of the constants in exp64Tab (kernel_amd64.go), each 4 times.
#define E_LOG2E  0
#define E_MAGIC  32
#define E_NLN2HI 64
#define E_NLN2LO 96
#define E_ONE    128
#define E_MIN    160
#define E_HI     192
#define E_INF    224
#define E_POLY   256 // the 12 coefficients of expPoly64, c13 first

// func exp64AVX2(dst, src *float64, n int, tab *[exp64TabLen][4]float64)
// n is a multiple of 4. Y6 log2e, Y7 magic, Y8 −ln2hi, Y9 −ln2lo, Y10..Y14
// the first five coefficients, Y15 1.0; the other coefficients are read
// from the table.
TEXT ·exp64AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ tab+24(FP), R8
	SHRQ $2, CX
	JZ   exp64done
	VMOVUPD E_LOG2E(R8), Y6
	VMOVUPD E_MAGIC(R8), Y7
	VMOVUPD E_NLN2HI(R8), Y8
	VMOVUPD E_NLN2LO(R8), Y9
	VMOVUPD E_POLY+0(R8), Y10
	VMOVUPD E_POLY+32(R8), Y11
	VMOVUPD E_POLY+64(R8), Y12
	VMOVUPD E_POLY+96(R8), Y13
	VMOVUPD E_POLY+128(R8), Y14
	VMOVUPD E_ONE(R8), Y15

exp64loop:
	VMOVUPD     (SI), Y0
	VMAXPD      E_MIN(R8), Y0, Y1      // xc = max(x, expMin64); NaN x gives expMin64
	VMOVAPD     Y7, Y2
	VFMADD231PD Y6, Y1, Y2             // t = xc·log2e + magic
	VSUBPD      Y7, Y2, Y3             // n = t − magic
	VFMADD231PD Y8, Y3, Y1             // r = xc − n·ln2hi
	VFMADD231PD Y9, Y3, Y1             // r −= n·ln2lo
	VMOVAPD     Y10, Y3                // p = c13
	VFMADD213PD Y11, Y1, Y3            // p = p·r + c12
	VFMADD213PD Y12, Y1, Y3
	VFMADD213PD Y13, Y1, Y3
	VFMADD213PD Y14, Y1, Y3
	VFMADD213PD E_POLY+160(R8), Y1, Y3
	VFMADD213PD E_POLY+192(R8), Y1, Y3
	VFMADD213PD E_POLY+224(R8), Y1, Y3
	VFMADD213PD E_POLY+256(R8), Y1, Y3
	VFMADD213PD E_POLY+288(R8), Y1, Y3
	VFMADD213PD E_POLY+320(R8), Y1, Y3
	VFMADD213PD E_POLY+352(R8), Y1, Y3 // … + c2
	VFMADD213PD Y15, Y1, Y3            // p·r + 1
	VFMADD213PD Y15, Y1, Y3            // p·r + 1
	VPSLLQ      $52, Y2, Y2            // n in the exponent field
	VPSRLQ      $63, Y0, Y4
	VPSLLQ      $58, Y4, Y4            // b = 64<<52 where x < 0
	VPADDQ      Y4, Y2, Y2
	VPADDQ      Y2, Y3, Y3             // bits(p) + n<<52 + b
	VPSUBQ      Y4, Y15, Y5            // 2^-64 where x < 0, else 1
	VMULPD      Y5, Y3, Y3
	VCMPPD      $6, E_HI(R8), Y0, Y4   // !(x ≤ expHi64)
	VADDPD      E_INF(R8), Y0, Y5      // x + Inf
	VBLENDVPD   Y4, Y5, Y3, Y3
	VMOVUPD     Y3, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        CX
	JNZ         exp64loop
	VZEROUPPER

exp64done:
	RET
