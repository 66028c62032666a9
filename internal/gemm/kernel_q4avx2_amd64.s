#include "textflag.h"
#include "kernel_q4_amd64.h"

// The AVX2 packed 4-bit kernels: the contract of kernel_q4_amd64.s, a
// step being 32 values (16 code bytes). The values are looked up a byte
// at a time: the block's scaled table is cut into four 16-byte tables
// (byte b of each value, both halves of a ymm), each looked up by
// VPSHUFB with the step's 32 nibbles, and the bytes interleaved back into
// floats by VPUNPCK{L,H}BW and VPUNPCK{L,H}WD. A table held in bfloat16
// (round 1) has zero low bytes, so two tables and an interleave with zero
// do. (Each value took two VPERMPS and a blend before: 22 instructions a
// step against 15, 11 in bfloat16.)
//
// Register use: the tables t0–t3 in Y12–Y15 (bfloat16: t2, t3 in Y14,
// Y15 and zero in Y13); Y8 a step's nibbles.
//
// The kernels read the 16-entry raw table with its middle quads swapped
// (T0–3, T8–11, T4–7, T12–15: q4Kernels.swapQuads), the order in which
// the byte tables come out of TABLEF's unpacks.

Q4CONSTS

// q4shift256 shifts the high four dwords of a step's (broadcast) 16 code
// bytes by 4.
DATA q4shift256<>+0(SB)/8, $0
DATA q4shift256<>+8(SB)/8, $0
DATA q4shift256<>+16(SB)/8, $0x0000000400000004
DATA q4shift256<>+24(SB)/8, $0x0000000400000004
GLOBL q4shift256<>(SB), RODATA|NOPTR, $32

// q4nib256 is 32 bytes of 0x0f.
DATA q4nib256<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q4nib256<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q4nib256<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA q4nib256<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL q4nib256<>(SB), RODATA|NOPTR, $32

// q4bytes256 transposes each 128-bit lane's four dwords into its bytes
// by position: byte 4b + d of the result is byte b of dword d.
DATA q4bytes256<>+0(SB)/8, $0x0d0905010c080400
DATA q4bytes256<>+8(SB)/8, $0x0f0b07030e0a0602
DATA q4bytes256<>+16(SB)/8, $0x0d0905010c080400
DATA q4bytes256<>+24(SB)/8, $0x0f0b07030e0a0602
GLOBL q4bytes256<>(SB), RODATA|NOPTR, $32

// SCALE256(noff) sets Y8 and Y10 to the raw table's two halves (at R9,
// quads swapped) times the block's scale at SI, plus its offset at R8 if
// R8 is not nil, and moves SI, R8 on; Y9 scratch.
#define SCALE256(noff) \
	VBROADCASTSS (SI), Y9 \
	VMULPS       (R9), Y9, Y8 \
	VMULPS       32(R9), Y9, Y10 \
	ADDQ         $4, SI \
	TESTQ        R8, R8 \
	JZ           noff \
	VBROADCASTSS (R8), Y9 \
	VADDPS       Y9, Y8, Y8 \
	VADDPS       Y9, Y10, Y10 \
	ADDQ         $4, R8 \
noff:

// TABLEF(noff) sets Y12–Y15 to the block's byte tables t0–t3 (Y8–Y11
// scratch): after the lane-local transpose, the low dwords' unpack holds
// bytes 0 and 1 of the values, the high dwords' bytes 2 and 3, each
// 16-byte table split over the two lanes' qwords, which VPERMQ gathers
// into both halves.
#define TABLEF(noff) \
	SCALE256(noff) \
	VPSHUFB    q4bytes256<>(SB), Y8, Y8 \
	VPSHUFB    q4bytes256<>(SB), Y10, Y10 \
	VPUNPCKLDQ Y10, Y8, Y11 \
	VPERMQ     $0x88, Y11, Y12 \
	VPERMQ     $0xdd, Y11, Y13 \
	VPUNPCKHDQ Y10, Y8, Y11 \
	VPERMQ     $0x88, Y11, Y14 \
	VPERMQ     $0xdd, Y11, Y15

// ROUNDHI(y, t) rounds y's floats to bfloat16 in their high words (to
// nearest even; the low words are left as garbage), t scratch.
#define ROUNDHI(y, t) \
	VPSRLD $16, y, t \
	VPAND  q4one<>(SB), t, t \
	VPADDD t, y, y \
	VPADDD q4r7fff<>(SB), y, y

// TABLEB(noff) is TABLEF's t2 and t3 of the table rounded to bfloat16
// (round 1), in Y14 and Y15.
#define TABLEB(noff) \
	SCALE256(noff) \
	ROUNDHI(Y8, Y9) \
	ROUNDHI(Y10, Y11) \
	VPSHUFB    q4bytes256<>(SB), Y8, Y8 \
	VPSHUFB    q4bytes256<>(SB), Y10, Y10 \
	VPUNPCKHDQ Y10, Y8, Y11 \
	VPERMQ     $0x88, Y11, Y14 \
	VPERMQ     $0xdd, Y11, Y15

// NIBBLES sets Y8 to the step's 32 nibbles (codes at BX): lane 0 byte i
// the low nibble of code byte i (k = 2i + 1), lane 1 the high (k = 2i).
#define NIBBLES \
	VBROADCASTI128 (BX), Y8 \
	VPSRLVD        q4shift256<>(SB), Y8, Y8 \
	VPAND          q4nib256<>(SB), Y8, Y8

// A step's values come out in this order (q4OrderAVX2): vector t, lane j
// is nibble p = 4t + j for j < 4 (k = 8t + 2j + 1) and p = 16 + 4t + j − 4
// for j ≥ 4 (k = 8t + 2(j − 4)): VPUNPCKLBW takes each lane's nibbles 0–7,
// VPUNPCKHBW 8–15, and VPUNPCKLWD (HWD) the low (high) four words of those.

// LOOKF sets Y2–Y5 to the step's four vectors (t0–t3 tables; Y7, Y9–Y11
// scratch; consumes Y8).
#define LOOKF \
	VPSHUFB    Y8, Y12, Y9  \
	VPSHUFB    Y8, Y13, Y10 \
	VPUNPCKLBW Y10, Y9, Y11 \
	VPUNPCKHBW Y10, Y9, Y9  \
	VPSHUFB    Y8, Y14, Y10 \
	VPSHUFB    Y8, Y15, Y8  \
	VPUNPCKLBW Y8, Y10, Y7  \
	VPUNPCKHBW Y8, Y10, Y10 \
	VPUNPCKLWD Y7, Y11, Y2  \
	VPUNPCKHWD Y7, Y11, Y3  \
	VPUNPCKLWD Y10, Y9, Y4  \
	VPUNPCKHWD Y10, Y9, Y5

// LOOKB is LOOKF for bfloat16 tables (t2, t3; Y13 zero).
#define LOOKB \
	VPSHUFB    Y8, Y14, Y9  \
	VPSHUFB    Y8, Y15, Y10 \
	VPUNPCKLBW Y10, Y9, Y11 \
	VPUNPCKHBW Y10, Y9, Y9  \
	VPUNPCKLWD Y11, Y13, Y2 \
	VPUNPCKHWD Y11, Y13, Y3 \
	VPUNPCKLWD Y9, Y13, Y4  \
	VPUNPCKHWD Y9, Y13, Y5

// Each kernel below is one loop written once as a macro of its table and
// lookup macros, run as two copies: TABLEF and LOOKF (round 0), TABLEB
// and LOOKB (round 1, with Y13 zeroed first).

// COLS1A is q4Cols1AVX2's loop: one row, vector t into accumulator t mod
// 2 (Y0, Y1) as in q4Cols4AVX2, so a row's result is the same in either.
#define COLS1A(TBL, LOOK, col, blk, step, noff) \
col: \
	MOVQ   a+48(FP), AX \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	MOVQ   nblk+0(FP), R10 \
blk: \
	TBL(noff) \
	MOVQ steps+8(FP), R11 \
step: \
	PREFETCHT0  q4Ahead(BX) \
	NIBBLES \
	LOOK \
	VFMADD231PS (AX), Y2, Y0 \
	VFMADD231PS 32(AX), Y3, Y1 \
	VFMADD231PS 64(AX), Y4, Y0 \
	VFMADD231PS 96(AX), Y5, Y1 \
	ADDQ        $16, BX \
	ADDQ        $128, AX \
	DECQ        R11 \
	JNZ         step \
	DECQ        R10 \
	JNZ         blk \
	VADDPS Y1, Y0, Y0 \
	HSUM256(Y0, X0, X1) \
	VMOVSS X0, (DI) \
	ADDQ   $4, DI \
	DECQ   CX \
	JNZ    col \
	VZEROUPPER

// func q4Cols1AVX2(...): one row.
TEXT ·q4Cols1AVX2(SB), NOSPLIT, $0-88
	SETUPQ4
	TESTQ R12, R12
	JNZ   cols1b
	COLS1A(TABLEF, LOOKF, col1a, blk1a, step1a, noff1a)
	RET

cols1b:
	VPXOR Y13, Y13, Y13
	COLS1A(TABLEB, LOOKB, col1b, blk1b, step1b, noff1b)
	RET

// FMA4(o, v, a0, a1, a2, a3) adds v times each row's vector at o(AX)
// (rows 128 bytes apart) into that row's accumulator.
#define FMA4(o, v, a0, a1, a2, a3) \
	VFMADD231PS o(AX), v, a0 \
	VFMADD231PS (128+o)(AX), v, a1 \
	VFMADD231PS (256+o)(AX), v, a2 \
	VFMADD231PS (384+o)(AX), v, a3

// STEP4F is a four-row step through four byte tables (TABLEF): with
// Y8–Y11 all that is free beside the eight accumulators and the tables,
// the low and the high words are looked up in turn, each vector into Y10.
#define STEP4F \
	VPSHUFB    Y8, Y12, Y9  \
	VPSHUFB    Y8, Y13, Y10 \
	VPUNPCKLBW Y10, Y9, Y11 \
	VPSHUFB    Y8, Y14, Y9  \
	VPSHUFB    Y8, Y15, Y10 \
	VPUNPCKLBW Y10, Y9, Y9  \
	VPUNPCKLWD Y9, Y11, Y10 \
	FMA4(0, Y10, Y0, Y2, Y4, Y6) \
	VPUNPCKHWD Y9, Y11, Y10 \
	FMA4(32, Y10, Y1, Y3, Y5, Y7) \
	VPSHUFB    Y8, Y12, Y9  \
	VPSHUFB    Y8, Y13, Y10 \
	VPUNPCKHBW Y10, Y9, Y11 \
	VPSHUFB    Y8, Y14, Y9  \
	VPSHUFB    Y8, Y15, Y10 \
	VPUNPCKHBW Y10, Y9, Y9  \
	VPUNPCKLWD Y9, Y11, Y10 \
	FMA4(64, Y10, Y0, Y2, Y4, Y6) \
	VPUNPCKHWD Y9, Y11, Y10 \
	FMA4(96, Y10, Y1, Y3, Y5, Y7)

// STEP4B is STEP4F through bfloat16 tables (TABLEB; Y13 zero, Y12 free).
#define STEP4B \
	VPSHUFB    Y8, Y14, Y9  \
	VPSHUFB    Y8, Y15, Y10 \
	VPUNPCKLBW Y10, Y9, Y11 \
	VPUNPCKHBW Y10, Y9, Y9  \
	VPUNPCKLWD Y11, Y13, Y10 \
	FMA4(0, Y10, Y0, Y2, Y4, Y6) \
	VPUNPCKHWD Y11, Y13, Y12 \
	FMA4(32, Y12, Y1, Y3, Y5, Y7) \
	VPUNPCKLWD Y9, Y13, Y10 \
	FMA4(64, Y10, Y0, Y2, Y4, Y6) \
	VPUNPCKHWD Y9, Y13, Y12 \
	FMA4(96, Y12, Y1, Y3, Y5, Y7)

// COLS4A is q4Cols4AVX2's loop: four rows, row r in Y2r:Y2r+1.
#define COLS4A(TBL, STEP, col, blk, step, noff) \
col: \
	MOVQ   a+48(FP), AX \
	ZEROY0TO7 \
	MOVQ   nblk+0(FP), R10 \
blk: \
	TBL(noff) \
	MOVQ steps+8(FP), R11 \
step: \
	PREFETCHT0 q4Ahead(BX) \
	NIBBLES \
	STEP \
	ADDQ       $16, BX \
	ADDQ       $512, AX \
	DECQ       R11 \
	JNZ        step \
	DECQ       R10 \
	JNZ        blk \
	VADDPS Y1, Y0, Y0 \
	VADDPS Y3, Y2, Y2 \
	VADDPS Y5, Y4, Y4 \
	VADDPS Y7, Y6, Y6 \
	HSUM256(Y0, X0, X1) \
	HSUM256(Y2, X2, X3) \
	HSUM256(Y4, X4, X5) \
	HSUM256(Y6, X6, X7) \
	STORE4ROWS \
	ADDQ   $4, DI \
	DECQ   CX \
	JNZ    col \
	VZEROUPPER

// func q4Cols4AVX2(...): four rows.
TEXT ·q4Cols4AVX2(SB), NOSPLIT, $0-88
	SETUPQ4
	LEAQ  (DX)(DX*2), R15
	TESTQ R12, R12
	JNZ   cols4b
	COLS4A(TABLEF, STEP4F, col4a, blk4a, step4a, noff4a)
	RET

cols4b:
	VPXOR Y13, Y13, Y13
	COLS4A(TABLEB, STEP4B, col4b, blk4b, step4b, noff4b)
	RET

// DEQA is q4DeqAVX2's loop.
#define DEQA(TBL, LOOK, col, blk, step, noff) \
col: \
	MOVQ nblk+0(FP), R10 \
blk: \
	TBL(noff) \
	MOVQ steps+8(FP), R11 \
step: \
	NIBBLES \
	LOOK \
	VMOVUPS Y2, (DI) \
	VMOVUPS Y4, 32(DI) \
	VMOVUPS Y3, 64(DI) \
	VMOVUPS Y5, 96(DI) \
	ADDQ    $16, BX \
	ADDQ    DX, DI \
	DECQ    R11 \
	JNZ     step \
	DECQ    R10 \
	JNZ     blk \
	DECQ    CX \
	JNZ     col \
	VZEROUPPER

// func q4DeqAVX2(nblk, steps int, codes *byte, scale, offset, table, a, c *float32, ldc, ncols, round int)
// is q4DeqAVX512 for q4Cols1AVX2's steps, a step's vectors stored in the
// order t 0, 2, 1, 3 (q4Many3x4AVX2's).
TEXT ·q4DeqAVX2(SB), NOSPLIT, $0-88
	SETUPQ4
	TESTQ R12, R12
	JNZ   deqb
	DEQA(TABLEF, LOOKF, deqcola, deqblka, deqstepa, noffda)
	RET

deqb:
	VPXOR Y13, Y13, Y13
	DEQA(TABLEB, LOOKB, deqcolb, deqblkb, deqstepb, noffdb)
	RET
