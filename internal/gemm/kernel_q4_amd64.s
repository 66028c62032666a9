#include "textflag.h"

// The packed 4-bit decode kernels (see q4_kernel.go). Each computes, for
// ncols consecutive columns of a PackedQ4, c[r·ldc + j] = Σ_k a_r[k]·B[k, j]
// over rows r of activations, reading each column's codes once. Per block
// the 16-entry table is scaled (and offset) in registers, so a lookup
// yields the dequantized value fl(fl(Table[q]·Scale) + Offset) exactly; the
// products are then f32 FMAs into a few accumulators per row, summed at the
// column's end. A byte's high nibble is the even k, its low nibble the odd
// one. A step reads S values (S/2 code bytes: S 64 for AVX-512, 32 for
// AVX2) and looks them up in the order the registers make (q4Order512,
// q4Order256); the activations come prepared in that order (prepQ4A), for
// R rows as [K/S][R][S]. steps is the number of steps per block, nblk the
// blocks per column.
//
// Argument frame of every kernel:
// func(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
// offset may be nil (no offsets); ldc is in floats; round 1 rounds the
// block's table to bfloat16 (PackedQ4.RoundBF16).

// q4Ahead is how far ahead of its step a kernel prefetches codes: decode
// streams them from DRAM, and the hardware prefetcher alone leaves the
// kernel waiting (Zen 4, one thread, a 2048×8192 weight streamed: 15 →
// 18 Gmac/s of thread CPU time; a column of K 8192 is 4 KiB of codes).
#define q4Ahead 4096

// Rounding to the nearest bfloat16, ties to even, on float bits x:
// (x + 0x7FFF + (x>>16 & 1)) & 0xFFFF0000, with these constants.
#define Q4CONST(name, v) \
	DATA name+0(SB)/8, v  \
	DATA name+8(SB)/8, v  \
	DATA name+16(SB)/8, v \
	DATA name+24(SB)/8, v \
	DATA name+32(SB)/8, v \
	DATA name+40(SB)/8, v \
	DATA name+48(SB)/8, v \
	DATA name+56(SB)/8, v \
	GLOBL name(SB), RODATA|NOPTR, $64

Q4CONST(q4one<>, $0x0000000100000001)
Q4CONST(q4r7fff<>, $0x00007fff00007fff)
Q4CONST(q4hi<>, $0xffff0000ffff0000)

// SETUPQ4 loads the common arguments: BX codes, SI scale, R8 offset, R9
// table, DI c, DX ldc in bytes, CX ncols, R12 round.
#define SETUPQ4 \
	MOVQ codes+16(FP), BX  \
	MOVQ scale+24(FP), SI  \
	MOVQ offset+32(FP), R8 \
	MOVQ table+40(FP), R9  \
	MOVQ c+56(FP), DI      \
	MOVQ ldc+64(FP), DX    \
	SHLQ $2, DX            \
	MOVQ ncols+72(FP), CX  \
	MOVQ round+80(FP), R12

// TABLE512 sets Z21 to the block's scaled table (scale at SI, offset at
// R8 if R8 is not nil, rounded to bfloat16 if R12 is not 0) from the raw
// table in Z20, and moves SI, R8 on.
#define TABLE512(noff, nornd) \
	VBROADCASTSS (SI), Z22 \
	VMULPS       Z22, Z20, Z21 \
	ADDQ         $4, SI \
	TESTQ        R8, R8 \
	JZ           noff \
	VBROADCASTSS (R8), Z22 \
	VADDPS       Z22, Z21, Z21 \
	ADDQ         $4, R8 \
noff: \
	TESTQ        R12, R12 \
	JZ           nornd \
	VPSRLD       $16, Z21, Z22 \
	VPANDD       q4one<>(SB), Z22, Z22 \
	VPADDD       q4r7fff<>(SB), Z22, Z22 \
	VPADDD       Z22, Z21, Z21 \
	VPANDD       q4hi<>(SB), Z21, Z21 \
nornd:

// q4shift512 shifts the low eight dwords of a step's codes by 0 and the
// high eight by 4 (VPSRLVD), so that each nibble of the step's 32 bytes
// is the low nibble of one dword of the four vectors >> 0, 8, 16, 24.
DATA q4shift512<>+0(SB)/8, $0
DATA q4shift512<>+8(SB)/8, $0
DATA q4shift512<>+16(SB)/8, $0
DATA q4shift512<>+24(SB)/8, $0
DATA q4shift512<>+32(SB)/8, $0x0000000400000004
DATA q4shift512<>+40(SB)/8, $0x0000000400000004
DATA q4shift512<>+48(SB)/8, $0x0000000400000004
DATA q4shift512<>+56(SB)/8, $0x0000000400000004
GLOBL q4shift512<>(SB), RODATA|NOPTR, $64

// LOOK512 looks up one step's 64 values (32 code bytes at BX, both halves
// of Z8 after the broadcast) into Z8:Z11: element j of vector t is the
// nibble at bit 8t of dword j mod 8, the low one (odd k) for j < 8, the
// high one (even k) for j ≥ 8 (q4Order512). VPERMPS reads only an
// index's low 4 bits, so nothing is masked.
#define LOOK512 \
	VBROADCASTI64X4 (BX), Z8 \
	VPSRLVD   Z23, Z8, Z8   \
	VPSRLD    $8, Z8, Z9    \
	VPSRLD    $16, Z8, Z10  \
	VPSRLD    $24, Z8, Z11  \
	VPERMPS   Z21, Z8, Z8   \
	VPERMPS   Z21, Z9, Z9   \
	VPERMPS   Z21, Z10, Z10 \
	VPERMPS   Z21, Z11, Z11

// HSUM512(z, y, x, ty, tx) leaves the sum of z's 16 floats in x's lowest
// lane (ty/tx: scratch).
#define HSUM512(z, y, x, ty, tx) \
	VEXTRACTF64X4 $1, z, ty \
	VADDPS        ty, y, y  \
	HSUM256(y, x, tx)

// HSUM256(y, x, tx) leaves the sum of y's 8 floats in x's lowest lane.
#define HSUM256(y, x, tx) \
	VEXTRACTF128 $1, y, tx  \
	VADDPS       tx, x, x   \
	VPERMILPS    $0x4E, x, tx \
	VADDPS       tx, x, x   \
	VPERMILPS    $0xB1, x, tx \
	VADDSS       tx, x, x

// func q4Cols1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
TEXT ·q4Cols1AVX512(SB), NOSPLIT, $0-88
	SETUPQ4
	VMOVUPS (R9), Z20
	VMOVDQU32 q4shift512<>(SB), Z23

col1:
	MOVQ   a+48(FP), AX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	MOVQ   nblk+0(FP), R10

blk1:
	TABLE512(noff1, nornd1)
	MOVQ steps+8(FP), R11

step1:
	PREFETCHT0  q4Ahead(BX)
	LOOK512
	VFMADD231PS (AX), Z8, Z0
	VFMADD231PS 64(AX), Z9, Z1
	VFMADD231PS 128(AX), Z10, Z2
	VFMADD231PS 192(AX), Z11, Z3
	ADDQ        $32, BX
	ADDQ        $256, AX
	DECQ        R11
	JNZ         step1
	DECQ        R10
	JNZ         blk1

	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z2, Z0, Z0
	HSUM512(Z0, Y0, X0, Y1, X1)
	VMOVSS X0, (DI)
	ADDQ   $4, DI
	DECQ   CX
	JNZ    col1
	VZEROUPPER
	RET

// TABLE512B is TABLE512 for the second column of a pair: Z24 from the
// scale (and offset) R14 bytes past SI (R8), Z25 scratch; it moves
// nothing on (TABLE512 of the first column follows).
#define TABLE512B(noff, nornd) \
	VBROADCASTSS (SI)(R14*1), Z25 \
	VMULPS       Z25, Z20, Z24 \
	TESTQ        R8, R8 \
	JZ           noff \
	VBROADCASTSS (R8)(R14*1), Z25 \
	VADDPS       Z25, Z24, Z24 \
noff: \
	TESTQ        R12, R12 \
	JZ           nornd \
	VPSRLD       $16, Z24, Z25 \
	VPANDD       q4one<>(SB), Z25, Z25 \
	VPADDD       q4r7fff<>(SB), Z25, Z25 \
	VPADDD       Z25, Z24, Z24 \
	VPANDD       q4hi<>(SB), Z24, Z24 \
nornd:

// LOOK512B is LOOK512 for the second column (codes R13 bytes past BX)
// into Z12:Z15 through its table Z24.
#define LOOK512B \
	VBROADCASTI64X4 (BX)(R13*1), Z12 \
	VPSRLVD   Z23, Z12, Z12 \
	VPSRLD    $8, Z12, Z13  \
	VPSRLD    $16, Z12, Z14 \
	VPSRLD    $24, Z12, Z15 \
	VPERMPS   Z24, Z12, Z12 \
	VPERMPS   Z24, Z13, Z13 \
	VPERMPS   Z24, Z14, Z14 \
	VPERMPS   Z24, Z15, Z15

// func q4Pairs1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
// is q4Cols1AVX512 for an even ncols, two columns at a time: each step's
// activations are loaded once for both, halving the loads per product
// (Zen 4 runs the one-column kernel near its load and shuffle limits,
// and a K 8192 column's 32 KiB of activations no longer fit L1 beside
// the streamed codes). Column A sums in Z0:Z3, column B in Z4:Z7, in
// the same order as q4Cols1AVX512, so results are bit-identical to it.
TEXT ·q4Pairs1AVX512(SB), NOSPLIT, $0-88
	SETUPQ4
	VMOVUPS   (R9), Z20
	VMOVDQU32 q4shift512<>(SB), Z23
	MOVQ      nblk+0(FP), R13
	MOVQ      R13, R14
	SHLQ      $2, R14                // scale (offset) bytes per column
	IMULQ     steps+8(FP), R13
	SHLQ      $5, R13                // code bytes per column
	SHRQ      $1, CX

pair1:
	MOVQ   a+48(FP), AX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	MOVQ   nblk+0(FP), R10

blkp:
	TABLE512B(noffpb, norndpb)
	TABLE512(noffpa, norndpa)
	MOVQ steps+8(FP), R11

stepp:
	PREFETCHT0  q4Ahead(BX)
	PREFETCHT0  q4Ahead(BX)(R13*1)
	LOOK512
	LOOK512B
	VMOVUPS     (AX), Z16
	VMOVUPS     64(AX), Z17
	VMOVUPS     128(AX), Z18
	VMOVUPS     192(AX), Z19
	VFMADD231PS Z16, Z8, Z0
	VFMADD231PS Z17, Z9, Z1
	VFMADD231PS Z18, Z10, Z2
	VFMADD231PS Z19, Z11, Z3
	VFMADD231PS Z16, Z12, Z4
	VFMADD231PS Z17, Z13, Z5
	VFMADD231PS Z18, Z14, Z6
	VFMADD231PS Z19, Z15, Z7
	ADDQ        $32, BX
	ADDQ        $256, AX
	DECQ        R11
	JNZ         stepp
	DECQ        R10
	JNZ         blkp

	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z2, Z0, Z0
	VADDPS Z5, Z4, Z4
	VADDPS Z7, Z6, Z6
	VADDPS Z6, Z4, Z4
	HSUM512(Z0, Y0, X0, Y1, X1)
	HSUM512(Z4, Y4, X4, Y5, X5)
	VMOVSS X0, (DI)
	VMOVSS X4, 4(DI)
	ADDQ   $8, DI
	ADDQ   R13, BX               // past column B's codes
	ADDQ   R14, SI
	TESTQ  R8, R8
	JZ     nextp
	ADDQ   R14, R8

nextp:
	DECQ CX
	JNZ  pair1
	VZEROUPPER
	RET

// ROW512(o, acc0, acc1) adds one step of the row whose values are at
// o(AX) (four rows of 256 bytes a step).
#define ROW512(o, acc0, acc1) \
	VFMADD231PS o(AX), Z8, acc0     \
	VFMADD231PS o+64(AX), Z9, acc1  \
	VFMADD231PS o+128(AX), Z10, acc0 \
	VFMADD231PS o+192(AX), Z11, acc1

// func q4Cols4AVX512(...): four rows, row r in Z2r:Z2r+1.
TEXT ·q4Cols4AVX512(SB), NOSPLIT, $0-88
	SETUPQ4
	VMOVUPS (R9), Z20
	VMOVDQU32 q4shift512<>(SB), Z23
	LEAQ    (DX)(DX*2), R15

col4:
	MOVQ   a+48(FP), AX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	MOVQ   nblk+0(FP), R10

blk4:
	TABLE512(noff4, nornd4)
	MOVQ steps+8(FP), R11

step4:
	PREFETCHT0  q4Ahead(BX)
	LOOK512
	ROW512(0, Z0, Z1)
	ROW512(256, Z2, Z3)
	ROW512(512, Z4, Z5)
	ROW512(768, Z6, Z7)
	ADDQ        $32, BX
	ADDQ        $1024, AX
	DECQ        R11
	JNZ         step4
	DECQ        R10
	JNZ         blk4

	VADDPS Z1, Z0, Z0
	VADDPS Z3, Z2, Z2
	VADDPS Z5, Z4, Z4
	VADDPS Z7, Z6, Z6
	HSUM512(Z0, Y0, X0, Y1, X1)
	HSUM512(Z2, Y2, X2, Y3, X3)
	HSUM512(Z4, Y4, X4, Y5, X5)
	HSUM512(Z6, Y6, X6, Y7, X7)
	VMOVSS X0, (DI)
	VMOVSS X2, (DI)(DX*1)
	VMOVSS X4, (DI)(DX*2)
	VMOVSS X6, (DI)(R15*1)
	ADDQ   $4, DI
	DECQ   CX
	JNZ    col4
	VZEROUPPER
	RET

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

// q4shift256 is q4shift512 for the AVX2 kernels: the high four dwords of
// a step's (broadcast) 16 code bytes shifted by 4.
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

// func q4Cols1AVX2(...): one row; a step is 32 values (16 code bytes).
TEXT ·q4Cols1AVX2(SB), NOSPLIT, $0-88
	SETUP256

col1a:
	MOVQ   a+48(FP), AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
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
	VFMADD231PS 64(AX), Y6, Y2
	VFMADD231PS 96(AX), Y7, Y3
	ADDQ        $16, BX
	ADDQ        $128, AX
	DECQ        R11
	JNZ         step1a
	DECQ        R10
	JNZ         blk1a

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
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
	VMOVSS X0, (DI)
	VMOVSS X2, (DI)(DX*1)
	VMOVSS X4, (DI)(DX*2)
	VMOVSS X6, (DI)(R15*1)
	ADDQ   $4, DI
	DECQ   CX
	JNZ    col4a
	VZEROUPPER
	RET
