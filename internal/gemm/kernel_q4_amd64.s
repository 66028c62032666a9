#include "textflag.h"
#include "kernel_q4_amd64.h"

// The packed 4-bit decode kernels (see q4_kernel.go). Each computes, for
// ncols consecutive columns of a PackedQ4, c[r·ldc + j] = Σ_k a_r[k]·B[k, j]
// over rows r of activations, reading each column's codes once. Per block
// the 16-entry table is scaled (and offset) in registers, so a lookup
// yields the dequantized value fl(fl(Table[q]·Scale) + Offset) exactly; the
// products are then f32 FMAs into two accumulators per row (a step's
// vector t into t mod 2), added at the column's end. Every kernel keeps
// that order, so a row's result does not depend on the rows computed with
// it (q4Emulate). A byte's high nibble is the even k, its low nibble the odd
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

Q4CONSTS

// TABLE512 sets Z21 to the block's scaled table (scale at SI, offset at
// R8 if R8 is not nil, rounded to bfloat16 if R12 is not 0) from the raw
// table in Z20, and moves SI, R8 on.
#define TABLE512(noff, nornd) \
	SCALE512(noff) \
	TESTQ        R12, R12 \
	JZ           nornd \
	ROUNDBF16Z(Z21, Z22) \
nornd:

// ROUNDBF16Z(z, t) rounds z's floats to bfloat16 (t scratch).
#define ROUNDBF16Z(z, t) \
	VPSRLD $16, z, t \
	VPANDD q4one<>(SB), t, t \
	VPADDD q4r7fff<>(SB), t, t \
	VPADDD t, z, z \
	VPANDD q4hi<>(SB), z, z

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

// SETUP512 is SETUPQ4 with the raw table in Z20 and the shift counts in
// Z23 (q4shift512), the AVX-512 kernels' start (SETUP256's twin).
#define SETUP512 \
	SETUPQ4 \
	VMOVUPS   (R9), Z20 \
	VMOVDQU32 q4shift512<>(SB), Z23

// LOOKZ(addr, tbl, v0, v1, v2, v3) looks up one step's 64 values (32
// code bytes at addr, both halves of v0 after the broadcast) in table
// tbl into v0:v3: element j of vector t is the nibble at bit 8t of dword
// j mod 8, the low one (odd k) for j < 8, the high one (even k) for j ≥ 8
// (q4Order512). VPERMPS reads only an index's low 4 bits, so nothing is
// masked. LOOK512 is the step at BX through Z21 into Z8:Z11.
#define LOOKZ(addr, tbl, v0, v1, v2, v3) \
	VBROADCASTI64X4 addr, v0 \
	VPSRLVD   Z23, v0, v0 \
	VPSRLD    $8, v0, v1  \
	VPSRLD    $16, v0, v2 \
	VPSRLD    $24, v0, v3 \
	VPERMPS   tbl, v0, v0 \
	VPERMPS   tbl, v1, v1 \
	VPERMPS   tbl, v2, v2 \
	VPERMPS   tbl, v3, v3

#define LOOK512 LOOKZ((BX), Z21, Z8, Z9, Z10, Z11)

// func q4Cols1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
TEXT ·q4Cols1AVX512(SB), NOSPLIT, $0-88
	SETUP512

col1:
	MOVQ   a+48(FP), AX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ   nblk+0(FP), R10

blk1:
	TABLE512(noff1, nornd1)
	MOVQ steps+8(FP), R11

step1:
	PREFETCHT0  q4Ahead(BX)
	LOOK512
	VFMADD231PS (AX), Z8, Z0
	VFMADD231PS 64(AX), Z9, Z1
	VFMADD231PS 128(AX), Z10, Z0
	VFMADD231PS 192(AX), Z11, Z1
	ADDQ        $32, BX
	ADDQ        $256, AX
	DECQ        R11
	JNZ         step1
	DECQ        R10
	JNZ         blk1

	VADDPS Z1, Z0, Z0
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
	ROUNDBF16Z(Z24, Z25) \
nornd:

// LOOK512B is LOOK512 for the second column (codes R13 bytes past BX)
// into Z12:Z15 through its table Z24.
#define LOOK512B LOOKZ((BX)(R13*1), Z24, Z12, Z13, Z14, Z15)

// func q4Pairs1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
// is q4Cols1AVX512 for an even ncols, two columns at a time: each step's
// activations are loaded once for both, halving the loads per product
// (Zen 4 runs the one-column kernel near its load and shuffle limits,
// and a K 8192 column's 32 KiB of activations no longer fit L1 beside
// the streamed codes). Column A sums in Z0:Z1, column B in Z4:Z5, in
// the same order as q4Cols1AVX512, so results are bit-identical to it.
TEXT ·q4Pairs1AVX512(SB), NOSPLIT, $0-88
	SETUP512
	MOVQ      nblk+0(FP), R13
	MOVQ      R13, R14
	SHLQ      $2, R14                // scale (offset) bytes per column
	IMULQ     steps+8(FP), R13
	SHLQ      $5, R13                // code bytes per column
	SHRQ      $1, CX

pair1:
	MOVQ   a+48(FP), AX
	ZEROZ0TO7
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
	VFMADD231PS Z18, Z10, Z0
	VFMADD231PS Z19, Z11, Z1
	VFMADD231PS Z16, Z12, Z4
	VFMADD231PS Z17, Z13, Z5
	VFMADD231PS Z18, Z14, Z4
	VFMADD231PS Z19, Z15, Z5
	ADDQ        $32, BX
	ADDQ        $256, AX
	DECQ        R11
	JNZ         stepp
	DECQ        R10
	JNZ         blkp

	VADDPS Z1, Z0, Z0
	VADDPS Z5, Z4, Z4
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
	SETUP512
	LEAQ    (DX)(DX*2), R15

col4:
	MOVQ   a+48(FP), AX
	ZEROZ0TO7
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
	STORE4ROWS
	ADDQ   $4, DI
	DECQ   CX
	JNZ    col4
	VZEROUPPER
	RET

// func q4DeqAVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
// writes ncols columns' dequantized values to c, each step's four lookup
// vectors in turn, a step ldc floats after the one before it (a unused):
// the values q4Cols1AVX512 multiplies, in the order q4Many4x6AVX512 takes
// them. A column follows the last step of the one before it.
TEXT ·q4DeqAVX512(SB), NOSPLIT, $0-88
	SETUP512

deqcol:
	MOVQ nblk+0(FP), R10

deqblk:
	TABLE512(noffd, norndd)
	MOVQ steps+8(FP), R11

deqstep:
	LOOK512
	VMOVUPS Z8, (DI)
	VMOVUPS Z9, 64(DI)
	VMOVUPS Z10, 128(DI)
	VMOVUPS Z11, 192(DI)
	ADDQ    $32, BX
	ADDQ    DX, DI
	DECQ    R11
	JNZ     deqstep
	DECQ    R10
	JNZ     deqblk
	DECQ    CX
	JNZ     deqcol
	VZEROUPPER
	RET
