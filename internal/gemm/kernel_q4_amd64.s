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
// AVX2) and looks them up in the order the registers make (q4Order512;
// AVX2's q4OrderAVX2); the activations come prepared in that order
// (prepQ4A), for R rows as [K/S][R][S]. steps is the number of steps per
// block, nblk the blocks per column.
//
// Argument frame of every kernel:
// func(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
// offset may be nil (no offsets); ldc is in floats; round 1 rounds the
// block's table to bfloat16 (PackedQ4.RoundBF16) in f32 registers, and 2
// (AVX-512 kernels, where the CPU has AVX512_BF16: q4Kernels.cvt) converts
// it to bfloat16 words and looks those up.

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

// SETUP512 is SETUPQ4 with the raw table in Z20 and the high-half mask
// (q4hi) in Z23, the AVX-512 kernels' start (SETUP256's twin).
#define SETUP512 \
	SETUPQ4 \
	VMOVUPS   (R9), Z20 \
	VMOVDQU32 q4hi<>(SB), Z23

// A step's 64 values come out of the lookups in this order (q4Order512):
// vector t, lane j is k = 4j + 1, 4j, 4j + 3, 4j + 2 for t = 0, 1, 2, 3.
// Byte 2j of the step holds k = 4j (high nibble) and 4j + 1 (low), byte
// 2j + 1 holds 4j + 2 and 4j + 3.
//
// LOOKPS(addr, tbl, v0, v1, v2, v3) looks the step's 32 code bytes at
// addr up in the f32 table tbl: dword j = bytes 2j, 2j + 1 (VPMOVZXWD),
// shifted by 0, 4, 8 and 12; VPERMPS reads only an index's low 4 bits, so
// nothing is masked.
#define LOOKPS(addr, tbl, v0, v1, v2, v3) \
	VPMOVZXWD addr, v0    \
	VPSRLD    $4, v0, v1  \
	VPSRLD    $8, v0, v2  \
	VPSRLD    $12, v0, v3 \
	VPERMPS   tbl, v0, v0 \
	VPERMPS   tbl, v1, v1 \
	VPERMPS   tbl, v2, v2 \
	VPERMPS   tbl, v3, v3

// LOOKWZ is LOOKPS through a bfloat16 table of 32 words (the 16 values
// twice: TABLEW), looked up as words: word i = byte i (VPMOVZXBW), whose
// low 5 bits VPERMW reads (the duplicate half makes the high nibble's low
// bit harmless), and byte i >> 4; then each dword's high word is the f32
// of an odd word (masked by Z23) and its low word shifted up that of an
// even one. Three shuffles a step where LOOKPS takes five.
#define LOOKWZ(addr, tbl, v0, v1, v2, v3) \
	VPMOVZXBW addr, v0     \
	VPSRLW    $4, v0, v1   \
	VPERMW    tbl, v0, v0  \
	VPERMW    tbl, v1, v1  \
	VPANDD    Z23, v0, v2  \
	VPANDD    Z23, v1, v3  \
	VPSLLD    $16, v0, v0  \
	VPSLLD    $16, v1, v1

// TABLEW(noff, nornd) is TABLE512 for the bfloat16 lookups (round 2):
// Z21 is the scaled (and offset) table converted to bfloat16 by
// VCVTNE2PS2BF16 (to nearest even, a subnormal read and written as zero),
// in words 0–15 and again in 16–31 (nornd unused).
#define TABLEW(noff, nornd) \
	SCALE512(noff) \
	CVT2BF16_21

// LOOK512 and LOOKW512 are the step at BX through Z21 into Z8:Z11.
#define LOOK512 LOOKPS((BX), Z21, Z8, Z9, Z10, Z11)
#define LOOKW512 LOOKWZ((BX), Z21, Z8, Z9, Z10, Z11)

// Each kernel below is one loop written once as a macro of its table and
// lookup macros and run as two copies: TABLE512 and LOOK512 (round 0 or
// 1), or TABLEW and LOOKW512 (round 2, held in bfloat16 where the CPU has
// AVX512_BF16); both give each step's values in the same order and bits
// (but subnormal table values, zero in the second).

// COLS1 is q4Cols1AVX512's loop: one row, a column at a time, its sums in
// Z0 (even t) and Z1 (odd t).
#define COLS1(TBL, LOOK, col, blk, step, noff, nornd) \
col: \
	MOVQ   a+48(FP), AX \
	VPXORD Z0, Z0, Z0 \
	VPXORD Z1, Z1, Z1 \
	MOVQ   nblk+0(FP), R10 \
blk: \
	TBL(noff, nornd) \
	MOVQ steps+8(FP), R11 \
step: \
	PREFETCHT0  q4Ahead(BX) \
	LOOK \
	VFMADD231PS (AX), Z8, Z0 \
	VFMADD231PS 64(AX), Z9, Z1 \
	VFMADD231PS 128(AX), Z10, Z0 \
	VFMADD231PS 192(AX), Z11, Z1 \
	ADDQ        $32, BX \
	ADDQ        $256, AX \
	DECQ        R11 \
	JNZ         step \
	DECQ        R10 \
	JNZ         blk \
	VADDPS Z1, Z0, Z0 \
	HSUM512(Z0, Y0, X0, Y1, X1) \
	VMOVSS X0, (DI) \
	ADDQ   $4, DI \
	DECQ   CX \
	JNZ    col \
	VZEROUPPER

// func q4Cols1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
TEXT ·q4Cols1AVX512(SB), NOSPLIT, $0-88
	SETUP512
	CMPQ R12, $2
	JEQ  cols1w
	COLS1(TABLE512, LOOK512, col1, blk1, step1, noff1, nornd1)
	RET

cols1w:
	COLS1(TABLEW, LOOKW512, col1w, blk1w, step1w, noff1w, nornd1w)
	RET

// TABLEB sets Z24 to the scaled table of a pair's second column, from
// the scale (and offset) R14 bytes past SI (R8), Z25 scratch; it moves
// nothing on (the first column's table follows). TABLE512B and TABLEWB
// are TABLE512's and TABLEW's for it.
#define TABLEB(noff) \
	VBROADCASTSS (SI)(R14*1), Z25 \
	VMULPS       Z25, Z20, Z24 \
	TESTQ        R8, R8 \
	JZ           noff \
	VBROADCASTSS (R8)(R14*1), Z25 \
	VADDPS       Z25, Z24, Z24 \
noff:

#define TABLE512B(noff, nornd) \
	TABLEB(noff) \
	TESTQ        R12, R12 \
	JZ           nornd \
	ROUNDBF16Z(Z24, Z25) \
nornd:

#define TABLEWB(noff, nornd) \
	TABLEB(noff) \
	CVT2BF16_24

// LOOK512B and LOOKW512B are the second column's (codes R13 bytes past
// BX) into Z12:Z15 through its table Z24.
#define LOOK512B LOOKPS((BX)(R13*1), Z24, Z12, Z13, Z14, Z15)
#define LOOKW512B LOOKWZ((BX)(R13*1), Z24, Z12, Z13, Z14, Z15)

// PAIRS1 is q4Pairs1AVX512's loop.
#define PAIRS1(TBL, TBLB, LOOK, LOOKB, pair, blk, step, next, noffa, nornda, noffb, norndb) \
pair: \
	MOVQ   a+48(FP), AX \
	ZEROZ0TO7 \
	MOVQ   nblk+0(FP), R10 \
blk: \
	TBLB(noffb, norndb) \
	TBL(noffa, nornda) \
	MOVQ steps+8(FP), R11 \
step: \
	PREFETCHT0  q4Ahead(BX) \
	PREFETCHT0  q4Ahead(BX)(R13*1) \
	LOOK \
	LOOKB \
	VMOVUPS     (AX), Z16 \
	VMOVUPS     64(AX), Z17 \
	VMOVUPS     128(AX), Z18 \
	VMOVUPS     192(AX), Z19 \
	VFMADD231PS Z16, Z8, Z0 \
	VFMADD231PS Z17, Z9, Z1 \
	VFMADD231PS Z18, Z10, Z0 \
	VFMADD231PS Z19, Z11, Z1 \
	VFMADD231PS Z16, Z12, Z4 \
	VFMADD231PS Z17, Z13, Z5 \
	VFMADD231PS Z18, Z14, Z4 \
	VFMADD231PS Z19, Z15, Z5 \
	ADDQ        $32, BX \
	ADDQ        $256, AX \
	DECQ        R11 \
	JNZ         step \
	DECQ        R10 \
	JNZ         blk \
	VADDPS Z1, Z0, Z0 \
	VADDPS Z5, Z4, Z4 \
	HSUM512(Z0, Y0, X0, Y1, X1) \
	HSUM512(Z4, Y4, X4, Y5, X5) \
	VMOVSS X0, (DI) \
	VMOVSS X4, 4(DI) \
	ADDQ   $8, DI \
	ADDQ   R13, BX \
	ADDQ   R14, SI \
	TESTQ  R8, R8 \
	JZ     next \
	ADDQ   R14, R8 \
next: \
	DECQ CX \
	JNZ  pair \
	VZEROUPPER

// func q4Pairs1AVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
// is q4Cols1AVX512 for an even ncols, two columns at a time: each step's
// activations are loaded once for both, halving the loads per product
// (Zen 4 runs the one-column kernel near its load and shuffle limits,
// and a K 8192 column's 32 KiB of activations no longer fit L1 beside
// the streamed codes). Column A sums in Z0:Z1, column B in Z4:Z5, in
// the same order as q4Cols1AVX512, so results are bit-identical to it;
// R13 is a column's code bytes, R14 its scale (offset) bytes.
TEXT ·q4Pairs1AVX512(SB), NOSPLIT, $0-88
	SETUP512
	MOVQ      nblk+0(FP), R13
	MOVQ      R13, R14
	SHLQ      $2, R14
	IMULQ     steps+8(FP), R13
	SHLQ      $5, R13
	SHRQ      $1, CX
	CMPQ      R12, $2
	JEQ       pairsw
	PAIRS1(TABLE512, TABLE512B, LOOK512, LOOK512B, pair1, blkp, stepp, nextp, noffpa, norndpa, noffpb, norndpb)
	RET

pairsw:
	PAIRS1(TABLEW, TABLEWB, LOOKW512, LOOKW512B, pair1w, blkpw, steppw, nextpw, noffpaw, norndpaw, noffpbw, norndpbw)
	RET

// ROW512(o, acc0, acc1) adds one step of the row whose values are at
// o(AX) (four rows of 256 bytes a step).
#define ROW512(o, acc0, acc1) \
	VFMADD231PS o(AX), Z8, acc0     \
	VFMADD231PS o+64(AX), Z9, acc1  \
	VFMADD231PS o+128(AX), Z10, acc0 \
	VFMADD231PS o+192(AX), Z11, acc1

// COLS4 is q4Cols4AVX512's loop: four rows, row r in Z2r:Z2r+1.
#define COLS4(TBL, LOOK, col, blk, step, noff, nornd) \
col: \
	MOVQ   a+48(FP), AX \
	ZEROZ0TO7 \
	MOVQ   nblk+0(FP), R10 \
blk: \
	TBL(noff, nornd) \
	MOVQ steps+8(FP), R11 \
step: \
	PREFETCHT0  q4Ahead(BX) \
	LOOK \
	ROW512(0, Z0, Z1) \
	ROW512(256, Z2, Z3) \
	ROW512(512, Z4, Z5) \
	ROW512(768, Z6, Z7) \
	ADDQ        $32, BX \
	ADDQ        $1024, AX \
	DECQ        R11 \
	JNZ         step \
	DECQ        R10 \
	JNZ         blk \
	VADDPS Z1, Z0, Z0 \
	VADDPS Z3, Z2, Z2 \
	VADDPS Z5, Z4, Z4 \
	VADDPS Z7, Z6, Z6 \
	HSUM512(Z0, Y0, X0, Y1, X1) \
	HSUM512(Z2, Y2, X2, Y3, X3) \
	HSUM512(Z4, Y4, X4, Y5, X5) \
	HSUM512(Z6, Y6, X6, Y7, X7) \
	STORE4ROWS \
	ADDQ   $4, DI \
	DECQ   CX \
	JNZ    col \
	VZEROUPPER

// func q4Cols4AVX512(...): four rows.
TEXT ·q4Cols4AVX512(SB), NOSPLIT, $0-88
	SETUP512
	LEAQ    (DX)(DX*2), R15
	CMPQ    R12, $2
	JEQ     cols4w
	COLS4(TABLE512, LOOK512, col4, blk4, step4, noff4, nornd4)
	RET

cols4w:
	COLS4(TABLEW, LOOKW512, col4w, blk4w, step4w, noff4w, nornd4w)
	RET

// DEQ is q4DeqAVX512's loop.
#define DEQ(TBL, LOOK, col, blk, step, noff, nornd) \
col: \
	MOVQ nblk+0(FP), R10 \
blk: \
	TBL(noff, nornd) \
	MOVQ steps+8(FP), R11 \
step: \
	LOOK \
	VMOVUPS Z8, (DI) \
	VMOVUPS Z9, 64(DI) \
	VMOVUPS Z10, 128(DI) \
	VMOVUPS Z11, 192(DI) \
	ADDQ    $32, BX \
	ADDQ    DX, DI \
	DECQ    R11 \
	JNZ     step \
	DECQ    R10 \
	JNZ     blk \
	DECQ    CX \
	JNZ     col \
	VZEROUPPER

// func q4DeqAVX512(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
// writes ncols columns' dequantized values to c, each step's four lookup
// vectors in turn, a step ldc floats after the one before it (a unused):
// the values q4Cols1AVX512 multiplies, in the order q4Many4x6AVX512 takes
// them. A column follows the last step of the one before it.
TEXT ·q4DeqAVX512(SB), NOSPLIT, $0-88
	SETUP512
	CMPQ R12, $2
	JEQ  deqw
	DEQ(TABLE512, LOOK512, deqcol, deqblk, deqstep, noffd, norndd)
	RET

deqw:
	DEQ(TABLEW, LOOKW512, deqcolw, deqblkw, deqstepw, noffdw, noffdw2)
	RET
