#include "textflag.h"
#include "kernel_q4_amd64.h"

// The AVX2 packed 4-bit kernels: the contract of kernel_q4_amd64.s.

Q4CONSTS

// The AVX2 kernels: the table in Y12 (codes 0-7) and Y13 (8-15), scaled
// per block. VPERMPS on ymm reads an index's low 3 bits, so each lookup
// is two VPERMPS and a VBLENDVPS on the nibble's bit 3 moved to the sign.
// A step is 32 values (16 code bytes).

// TABLE256 sets Y12:Y13 to the block's scaled table (raw table at R9).
#define TABLE256(noff, nornd) \
	VBROADCASTSS (SI), Y14 \
	VMULPS       (R9), Y14, Y12 \
	VMULPS       32(R9), Y14, Y13 \
	ADDQ         $4, SI \
	TESTQ        R8, R8 \
	JZ           noff \
	VBROADCASTSS (R8), Y14 \
	VADDPS       Y14, Y12, Y12 \
	VADDPS       Y14, Y13, Y13 \
	ADDQ         $4, R8 \
noff: \
	TESTQ        R12, R12 \
	JZ           nornd \
	ROUNDBF16Y(Y12) \
	ROUNDBF16Y(Y13) \
nornd:

// ROUNDBF16Y(y) rounds y's floats to bfloat16 (Y14 scratch).
#define ROUNDBF16Y(y) \
	VPSRLD $16, y, Y14 \
	VPAND  q4one<>(SB), Y14, Y14 \
	VPADDD q4r7fff<>(SB), Y14, Y14 \
	VPADDD Y14, y, y \
	VPAND  q4hi<>(SB), y, y

// q4shift256 shifts the high four dwords of a step's (broadcast) 16 code
// bytes by 4.
DATA q4shift256<>+0(SB)/8, $0
DATA q4shift256<>+8(SB)/8, $0
DATA q4shift256<>+16(SB)/8, $0x0000000400000004
DATA q4shift256<>+24(SB)/8, $0x0000000400000004
GLOBL q4shift256<>(SB), RODATA|NOPTR, $32

// LOADSTEP256 broadcasts a step's 16 code bytes (BX) to both halves of Y8
// and shifts the high half by 4 (Y15: q4shift256).
#define LOADSTEP256 \
	VBROADCASTI128 (BX), Y8 \
	VPSRLVD        Y15, Y8, Y8

// LOOKT256(sh, v) looks up vector sh/8 of the step into v: element j the
// nibble at bit sh of Y8's dword j (q4Order256). Y9 and Y11 are scratch.
#define LOOKT256(sh, v) \
	VPSRLD    $sh, Y8, Y9    \
	VPERMPS   Y12, Y9, v     \
	VPERMPS   Y13, Y9, Y11   \
	VPSLLD    $28, Y9, Y9    \
	VBLENDVPS Y9, Y11, v, v

// SETUP256 is SETUPQ4 with the shift counts in Y15.
#define SETUP256 \
	SETUPQ4 \
	VMOVDQU q4shift256<>(SB), Y15

// func q4Cols1AVX2(...): one row; a step is 32 values (16 code bytes),
// vector t into accumulator t mod 2 as in q4Cols4AVX2 (sixteen ymm
// registers hold no four per row there), so a row's result is the same
// in either.
TEXT ·q4Cols1AVX2(SB), NOSPLIT, $0-88
	SETUP256

col1a:
	MOVQ   a+48(FP), AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	MOVQ   nblk+0(FP), R10

blk1a:
	TABLE256(noff1a, nornd1a)
	MOVQ steps+8(FP), R11

step1a:
	PREFETCHT0     q4Ahead(BX)
	LOADSTEP256
	LOOKT256(0, Y4)
	LOOKT256(8, Y5)
	LOOKT256(16, Y6)
	LOOKT256(24, Y7)
	VFMADD231PS (AX), Y4, Y0
	VFMADD231PS 32(AX), Y5, Y1
	VFMADD231PS 64(AX), Y6, Y0
	VFMADD231PS 96(AX), Y7, Y1
	ADDQ        $16, BX
	ADDQ        $128, AX
	DECQ        R11
	JNZ         step1a
	DECQ        R10
	JNZ         blk1a

	VADDPS Y1, Y0, Y0
	HSUM256(Y0, X0, X1)
	VMOVSS X0, (DI)
	ADDQ   $4, DI
	DECQ   CX
	JNZ    col1a
	VZEROUPPER
	RET

// ROWS256(sh, acc) looks up vector sh/8 into Y10 and adds it times each
// row's values (rows 128 bytes apart) into acc of that row: acc 0 or 1.
#define ROWS256(sh, a0, a1, a2, a3) \
	LOOKT256(sh, Y10) \
	VFMADD231PS (sh*4)(AX), Y10, a0 \
	VFMADD231PS (128+sh*4)(AX), Y10, a1 \
	VFMADD231PS (256+sh*4)(AX), Y10, a2 \
	VFMADD231PS (384+sh*4)(AX), Y10, a3

// func q4Cols4AVX2(...): four rows, row r in Y2r:Y2r+1.
TEXT ·q4Cols4AVX2(SB), NOSPLIT, $0-88
	SETUP256
	LEAQ (DX)(DX*2), R15

col4a:
	MOVQ   a+48(FP), AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   nblk+0(FP), R10

blk4a:
	TABLE256(noff4a, nornd4a)
	MOVQ steps+8(FP), R11

step4a:
	PREFETCHT0     q4Ahead(BX)
	LOADSTEP256
	ROWS256(0, Y0, Y2, Y4, Y6)
	ROWS256(8, Y1, Y3, Y5, Y7)
	ROWS256(16, Y0, Y2, Y4, Y6)
	ROWS256(24, Y1, Y3, Y5, Y7)
	ADDQ      $16, BX
	ADDQ      $512, AX
	DECQ      R11
	JNZ       step4a
	DECQ      R10
	JNZ       blk4a

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y5, Y4, Y4
	VADDPS Y7, Y6, Y6
	HSUM256(Y0, X0, X1)
	HSUM256(Y2, X2, X3)
	HSUM256(Y4, X4, X5)
	HSUM256(Y6, X6, X7)
	STORE4ROWS
	ADDQ   $4, DI
	DECQ   CX
	JNZ    col4a
	VZEROUPPER
	RET

// func q4DeqAVX2(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
// is q4DeqAVX512 for q4Cols1AVX2's steps, a step's vectors stored in the
// order t 0, 2, 1, 3 (q4Many3x4AVX2's).
TEXT ·q4DeqAVX2(SB), NOSPLIT, $0-88
	SETUP256

deqcola:
	MOVQ nblk+0(FP), R10

deqblka:
	TABLE256(noffda, norndda)
	MOVQ steps+8(FP), R11

deqstepa:
	LOADSTEP256
	LOOKT256(0, Y4)
	LOOKT256(8, Y5)
	LOOKT256(16, Y6)
	LOOKT256(24, Y7)
	VMOVUPS Y4, (DI)
	VMOVUPS Y6, 32(DI)
	VMOVUPS Y5, 64(DI)
	VMOVUPS Y7, 96(DI)
	ADDQ    $16, BX
	ADDQ    DX, DI
	DECQ    R11
	JNZ     deqstepa
	DECQ    R10
	JNZ     deqblka
	DECQ    CX
	JNZ     deqcola
	VZEROUPPER
	RET
