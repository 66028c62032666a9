#include "textflag.h"
#include "kernel_q4_amd64.h"

// The screening kernels (screen.go): for ncols rows j of int8 codes q
// (rows ldq bytes apart), c[j] = scale[j] · Σ_{k<K} a[k]·q[j][k], the sum
// in float32 over four accumulators (any order is fine: the caller bounds
// its error). K is a multiple of the step (64 for AVX-512, 32 for AVX2).
// The codes stream from DRAM, prefetched q4Ahead bytes ahead.

// I8ARGS loads the arguments: R8 the row's codes, R9 ldq, SI scale, DI c,
// CX ncols.
#define I8ARGS \
	MOVQ q+8(FP), R8       \
	MOVQ ldq+24(FP), R9    \
	MOVQ scale+32(FP), SI  \
	MOVQ c+40(FP), DI      \
	MOVQ ncols+48(FP), CX

// INTSARGS loads the integer kernels' arguments (below): BX u, R10 k4,
// CX nblk, DI out.
#define INTSARGS \
	MOVQ u+0(FP), BX     \
	MOVQ k4+16(FP), R10  \
	MOVQ nblk+24(FP), CX \
	MOVQ out+32(FP), DI

// I8ROW(shift) starts a row: AX a, BX its codes, R11 its steps (k >> shift).
#define I8ROW(shift) \
	MOVQ a+0(FP), AX   \
	MOVQ R8, BX        \
	MOVQ k+16(FP), R11 \
	SHRQ shift, R11

// I8STORE stores the row's sum in X0 times its scale and moves to the
// next row (DECQ CX last: the caller's JNZ loops).
#define I8STORE \
	VMULSS (SI), X0, X0 \
	VMOVSS X0, (DI)     \
	ADDQ   $4, SI       \
	ADDQ   $4, DI       \
	ADDQ   R9, R8       \
	DECQ   CX

// func i8Dot1AVX512(a *float32, q *int8, k, ldq int, scale, c *float32, ncols int)
TEXT ·i8Dot1AVX512(SB), NOSPLIT, $0-56
	I8ARGS

row512:
	I8ROW($6)
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

step512:
	PREFETCHT0  q4Ahead(BX)
	VPMOVSXBD   (BX), Z4
	VPMOVSXBD   16(BX), Z5
	VPMOVSXBD   32(BX), Z6
	VPMOVSXBD   48(BX), Z7
	VCVTDQ2PS   Z4, Z4
	VCVTDQ2PS   Z5, Z5
	VCVTDQ2PS   Z6, Z6
	VCVTDQ2PS   Z7, Z7
	VFMADD231PS (AX), Z4, Z0
	VFMADD231PS 64(AX), Z5, Z1
	VFMADD231PS 128(AX), Z6, Z2
	VFMADD231PS 192(AX), Z7, Z3
	ADDQ        $64, BX
	ADDQ        $256, AX
	DECQ        R11
	JNZ         step512

	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z2, Z0, Z0
	HSUM512(Z0, Y0, X0, Y1, X1)
	I8STORE
	JNZ row512
	VZEROUPPER
	RET

// func i8Dot1AVX2(a *float32, q *int8, k, ldq int, scale, c *float32, ncols int)
TEXT ·i8Dot1AVX2(SB), NOSPLIT, $0-56
	I8ARGS

row256:
	I8ROW($5)
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

step256:
	PREFETCHT0  q4Ahead(BX)
	VPMOVSXBD   (BX), Y4
	VPMOVSXBD   8(BX), Y5
	VPMOVSXBD   16(BX), Y6
	VPMOVSXBD   24(BX), Y7
	VCVTDQ2PS   Y4, Y4
	VCVTDQ2PS   Y5, Y5
	VCVTDQ2PS   Y6, Y6
	VCVTDQ2PS   Y7, Y7
	VFMADD231PS (AX), Y4, Y0
	VFMADD231PS 32(AX), Y5, Y1
	VFMADD231PS 64(AX), Y6, Y2
	VFMADD231PS 96(AX), Y7, Y3
	ADDQ        $32, BX
	ADDQ        $128, AX
	DECQ        R11
	JNZ         step256

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM256(Y0, X0, X1)
	I8STORE
	JNZ row256
	VZEROUPPER
	RET

// i8sign is the float sign bit, i8half ½ (eight lanes each).
DATA i8sign<>+0(SB)/8, $0x8000000080000000
DATA i8sign<>+8(SB)/8, $0x8000000080000000
DATA i8sign<>+16(SB)/8, $0x8000000080000000
DATA i8sign<>+24(SB)/8, $0x8000000080000000
GLOBL i8sign<>(SB), RODATA|NOPTR, $32
DATA i8half<>+0(SB)/8, $0x3f0000003f000000
DATA i8half<>+8(SB)/8, $0x3f0000003f000000
DATA i8half<>+16(SB)/8, $0x3f0000003f000000
DATA i8half<>+24(SB)/8, $0x3f0000003f000000
GLOBL i8half<>(SB), RODATA|NOPTR, $32

// func i8AbsMaxAVX2(w *float32, k int, out *[16]float32)
// out[0:8]: lane maxima of |w[i]| over k (a multiple of 8) values;
// out[8:16]: lane sums of w[i]·0, NaN where a value is NaN or infinite.
TEXT ·i8AbsMaxAVX2(SB), NOSPLIT, $0-24
	MOVQ    w+0(FP), SI
	MOVQ    k+8(FP), CX
	MOVQ    out+16(FP), DI
	SHRQ    $3, CX
	VMOVUPS i8sign<>(SB), Y13
	VXORPS  Y0, Y0, Y0 // maxima
	VXORPS  Y1, Y1, Y1 // the finiteness check
	VXORPS  Y2, Y2, Y2 // zero

absmax:
	VMOVUPS     (SI), Y3
	VFMADD231PS Y2, Y3, Y1
	VANDNPS     Y3, Y13, Y3
	VMAXPS      Y3, Y0, Y0
	ADDQ        $32, SI
	DECQ        CX
	JNZ         absmax
	VMOVUPS     Y0, (DI)
	VMOVUPS     Y1, 32(DI)
	VZEROUPPER
	RET

// func i8QuantAVX2(w *float32, k int, inv, sc float32, q *int8, out *[16]float32)
// q[i] = trunc(w[i]·inv ± ½) for k (a multiple of 8) values, the caller
// having checked |w[i]·inv| < 127.5; out[0:8]: lane maxima of
// |fl(w[i] − sc·q[i])| (one rounding, FMA); out[8:16]: lane sums of their
// squares.
TEXT ·i8QuantAVX2(SB), NOSPLIT, $0-40
	MOVQ         w+0(FP), SI
	MOVQ         k+8(FP), CX
	VBROADCASTSS inv+16(FP), Y15
	VBROADCASTSS sc+20(FP), Y14
	MOVQ         q+24(FP), DI
	MOVQ         out+32(FP), DX
	SHRQ         $3, CX
	VMOVUPS      i8sign<>(SB), Y13
	VMOVUPS      i8half<>(SB), Y12
	VXORPS       Y11, Y11, Y11 // error maxima
	VXORPS       Y10, Y10, Y10 // squared error sums

quant:
	VMOVUPS      (SI), Y0
	VMULPS       Y15, Y0, Y1
	VANDPS       Y13, Y1, Y2
	VORPS        Y12, Y2, Y2
	VADDPS       Y2, Y1, Y1
	VCVTTPS2DQ   Y1, Y1
	VCVTDQ2PS    Y1, Y3
	VFNMADD231PS Y14, Y3, Y0
	VANDNPS      Y0, Y13, Y0
	VMAXPS       Y0, Y11, Y11
	VFMADD231PS  Y0, Y0, Y10
	VEXTRACTI128 $1, Y1, X5
	VPACKSSDW    X5, X1, X1
	VPACKSSWB    X1, X1, X1
	VMOVQ        X1, (DI)
	ADDQ         $32, SI
	ADDQ         $8, DI
	DECQ         CX
	JNZ          quant
	VMOVUPS      Y11, (DX)
	VMOVUPS      Y10, 32(DX)
	VZEROUPPER
	RET

// The integer screening kernels (screen_int.go), AVX512_VNNI: for nblk
// blocks of 16 rows of interleaved codes u (K4 steps of 64 bytes: 16 rows'
// 4 codes, unsigned) and mq quantized activation rows p ([K4][mq] dwords
// of 4 signed codes), out[b][r][l] = Σ_i Σ_t u[b][i][l][t]·p[i][r][t],
// VPDPBUSD with the activation dword broadcast: 16 rows' sums a vector,
// no horizontal sums. Accumulator r is Zr; the codes of a step are Z16.
//
// INTSTEP loads a step's codes (AX the step's activations: moved on by
// the caller) and prefetches ahead.
#define INTSTEP \
	PREFETCHT0 q4Ahead(BX) \
	VMOVDQU32  (BX), Z16   \
	ADDQ       $64, BX

#define DPB(r, z) VPDPBUSD.BCST r*4(AX), Z16, z

// DPB0TO3, DPB4TO7 and DPB8TO15 add a step for rows 0–3, 4–7 and 8–15.
#define DPB0TO3 \
	DPB(0, Z0) \
	DPB(1, Z1) \
	DPB(2, Z2) \
	DPB(3, Z3)

#define DPB4TO7 \
	DPB(4, Z4) \
	DPB(5, Z5) \
	DPB(6, Z6) \
	DPB(7, Z7)

#define DPB8TO15 \
	DPB(8, Z8)   \
	DPB(9, Z9)   \
	DPB(10, Z10) \
	DPB(11, Z11) \
	DPB(12, Z12) \
	DPB(13, Z13) \
	DPB(14, Z14) \
	DPB(15, Z15)

// STORE0TO3, STORE4TO7 and STORE8TO15 store rows' sums at DI, row r at
// 64·r.
#define STORE0TO3 \
	VMOVDQU32 Z0, (DI)    \
	VMOVDQU32 Z1, 64(DI)  \
	VMOVDQU32 Z2, 128(DI) \
	VMOVDQU32 Z3, 192(DI)

#define STORE4TO7 \
	VMOVDQU32 Z4, 256(DI) \
	VMOVDQU32 Z5, 320(DI) \
	VMOVDQU32 Z6, 384(DI) \
	VMOVDQU32 Z7, 448(DI)

#define STORE8TO15 \
	VMOVDQU32 Z8, 512(DI)  \
	VMOVDQU32 Z9, 576(DI)  \
	VMOVDQU32 Z10, 640(DI) \
	VMOVDQU32 Z11, 704(DI) \
	VMOVDQU32 Z12, 768(DI) \
	VMOVDQU32 Z13, 832(DI) \
	VMOVDQU32 Z14, 896(DI) \
	VMOVDQU32 Z15, 960(DI)

// func i8Ints16AVX512(u *uint8, p *int32, k4, nblk int, out *int32)
TEXT ·i8Ints16AVX512(SB), NOSPLIT, $0-40
	INTSARGS

blk16:
	MOVQ p+8(FP), AX
	MOVQ R10, R11
	ZEROZ0TO7
	ZEROZ8TO15

step16:
	INTSTEP
	DPB0TO3
	DPB4TO7
	DPB8TO15
	ADDQ $64, AX
	DECQ R11
	JNZ  step16

	STORE0TO3
	STORE4TO7
	STORE8TO15
	ADDQ $1024, DI
	DECQ CX
	JNZ  blk16
	VZEROUPPER
	RET

// func i8Ints8AVX512(u *uint8, p *int32, k4, nblk int, out *int32)
TEXT ·i8Ints8AVX512(SB), NOSPLIT, $0-40
	INTSARGS

blk8:
	MOVQ p+8(FP), AX
	MOVQ R10, R11
	ZEROZ0TO7

step8:
	INTSTEP
	DPB0TO3
	DPB4TO7
	ADDQ $32, AX
	DECQ R11
	JNZ  step8

	STORE0TO3
	STORE4TO7
	ADDQ $512, DI
	DECQ CX
	JNZ  blk8
	VZEROUPPER
	RET

// func i8Ints4AVX512(u *uint8, p *int32, k4, nblk int, out *int32): two
// steps an iteration into two accumulator sets (Z0:Z3 and Z4:Z7, the
// second step's activations 16 bytes on, so DPB4TO7 reads them; added at
// the end: integer sums, so the same result), which halves the chains'
// wait on each other at one or two rows.
TEXT ·i8Ints4AVX512(SB), NOSPLIT, $0-40
	INTSARGS

blk4:
	MOVQ p+8(FP), AX
	MOVQ R10, R11
	ZEROZ0TO7
	SHRQ $1, R11
	JZ   last4

step4:
	INTSTEP
	DPB0TO3
	INTSTEP
	DPB4TO7
	ADDQ $32, AX
	DECQ R11
	JNZ  step4

last4:
	TESTQ $1, R10
	JZ    store4
	INTSTEP
	DPB0TO3

store4:
	VPADDD Z4, Z0, Z0
	VPADDD Z5, Z1, Z1
	VPADDD Z6, Z2, Z2
	VPADDD Z7, Z3, Z3
	STORE0TO3
	ADDQ   $256, DI
	DECQ   CX
	JNZ    blk4
	VZEROUPPER
	RET
