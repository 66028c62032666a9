#include "textflag.h"
#include "kernel_q4_amd64.h"

// The packed 4-bit VDPBF16PS kernels (opt-in: MatMulQ4Dot, for weights
// held as bfloat16, PackedQ4.RoundBF16). Per block the 16-entry table is
// scaled (and offset) in f32 and converted to bfloat16 (VCVTNE2PS2BF16,
// twice: words 0–15 and 16–31 the same table), so that VPERMW looks a
// code up whatever the bit above its nibble; a step reads 32 code bytes
// (64 values), widens them to words (VPMOVZXBW), looks up the low
// nibbles (odd k) and, shifted by 4, the high ones (even k), and adds
// their products with the activations rounded to bfloat16 with
// VDPBF16PS: the odd k into one accumulator, the even k into another.
// The activations come prepared as [K/64][R][64] bfloat16 (prepQ4ADot):
// a step's 32 odd k, then its 32 even k. Each column's two accumulators
// are added and summed across lanes as HSUM512 does, the same in every
// kernel, so a result does not depend on the rows or columns computed
// with it. A step is six vector instructions where the f32 kernels take
// thirteen (Zen 4, one thread, in L2: 64 values in about 7.5 against 13
// cycles with bf16 rounding; two threads stream a 1B decode's products
// from DRAM at 22–28 GB/s, about the memory's speed).
//
// Argument frame (that of kernel_q4_amd64.s, with a bfloat16):
// func(nblk, steps int, codes *byte, scale, offset, table *float32, a *uint16, c *float32, ldc, ncols, round int)
// round is ignored (always rounded).
//
// Go's assembler has neither VCVTNE2PS2BF16 nor VDPBF16PS: the macros
// below (and kernel_q4_amd64.h's CVT2BF16) are their EVEX encodings,
// checked against GNU as 2.40.

// DP_<acc>_<w>_<disp>: zmm<acc> += zmm<w> · disp(AX) (bfloat16 pairs).
#define DP_0_8_0 BYTE $0x62; BYTE $0xf2; BYTE $0x3e; BYTE $0x48; BYTE $0x52; BYTE $0x00
#define DP_1_9_64 BYTE $0x62; BYTE $0xf2; BYTE $0x36; BYTE $0x48; BYTE $0x52; BYTE $0x48; BYTE $0x01
#define DP_2_8_128 BYTE $0x62; BYTE $0xf2; BYTE $0x3e; BYTE $0x48; BYTE $0x52; BYTE $0x50; BYTE $0x02
#define DP_3_9_192 BYTE $0x62; BYTE $0xf2; BYTE $0x36; BYTE $0x48; BYTE $0x52; BYTE $0x58; BYTE $0x03
#define DP_4_8_256 BYTE $0x62; BYTE $0xf2; BYTE $0x3e; BYTE $0x48; BYTE $0x52; BYTE $0x60; BYTE $0x04
#define DP_5_9_320 BYTE $0x62; BYTE $0xf2; BYTE $0x36; BYTE $0x48; BYTE $0x52; BYTE $0x68; BYTE $0x05
#define DP_6_8_384 BYTE $0x62; BYTE $0xf2; BYTE $0x3e; BYTE $0x48; BYTE $0x52; BYTE $0x70; BYTE $0x06
#define DP_7_9_448 BYTE $0x62; BYTE $0xf2; BYTE $0x36; BYTE $0x48; BYTE $0x52; BYTE $0x78; BYTE $0x07

// DOTTABLE sets Z21 to the block's table in bfloat16 (scale at SI,
// offset at R8 if R8 is not nil) and moves SI, R8 on.
#define DOTTABLE(noff) \
	SCALE512(noff) \
	CVT2BF16_21

// LOOKW(addr, tbl, lo, hi) looks up a step's 64 values: lo the low
// nibbles of the 32 bytes at addr (odd k), hi the high ones (even k).
#define LOOKW(addr, tbl, lo, hi) \
	VPMOVZXBW addr, lo \
	VPSRLW    $4, lo, hi \
	VPERMW    tbl, lo, lo \
	VPERMW    tbl, hi, hi

// DOTSUM(acc, accb) stores the sum of one column's accumulators at (DI).
#define DOTSUM(acc, acc2, y, x, ty, tx) \
	VADDPS acc2, acc, acc \
	HSUM512(acc, y, x, ty, tx)

// func q4Dot1AVX512(nblk, steps int, codes *byte, scale, offset, table *float32, a *uint16, c *float32, ldc, ncols, round int)
// is one row, one column at a time, in Z0 (odd k) and Z1 (even k).
TEXT ·q4Dot1AVX512(SB), NOSPLIT, $0-88
	SETUPQ4
	VMOVUPS (R9), Z20

dcol1:
	MOVQ   a+48(FP), AX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ   nblk+0(FP), R10

dblk1:
	DOTTABLE(dnoff1)
	MOVQ steps+8(FP), R11

dstep1:
	PREFETCHT0 q4Ahead(BX)
	LOOKW((BX), Z21, Z8, Z9)
	DP_0_8_0
	DP_1_9_64
	ADDQ       $32, BX
	ADDQ       $128, AX
	DECQ       R11
	JNZ        dstep1
	DECQ       R10
	JNZ        dblk1

	DOTSUM(Z0, Z1, Y0, X0, Y1, X1)
	VMOVSS X0, (DI)
	ADDQ   $4, DI
	DECQ   CX
	JNZ    dcol1
	VZEROUPPER
	RET

// func q4Dot4AVX512(...): four rows, row r in Z2r (odd k) and Z2r+1.
TEXT ·q4Dot4AVX512(SB), NOSPLIT, $0-88
	SETUPQ4
	VMOVUPS (R9), Z20
	LEAQ    (DX)(DX*2), R15

dcol4:
	MOVQ   a+48(FP), AX
	ZEROZ0TO7
	MOVQ   nblk+0(FP), R10

dblk4:
	DOTTABLE(dnoff4)
	MOVQ steps+8(FP), R11

dstep4:
	PREFETCHT0 q4Ahead(BX)
	LOOKW((BX), Z21, Z8, Z9)
	DP_0_8_0
	DP_1_9_64
	DP_2_8_128
	DP_3_9_192
	DP_4_8_256
	DP_5_9_320
	DP_6_8_384
	DP_7_9_448
	ADDQ       $32, BX
	ADDQ       $512, AX
	DECQ       R11
	JNZ        dstep4
	DECQ       R10
	JNZ        dblk4

	DOTSUM(Z0, Z1, Y0, X0, Y1, X1)
	DOTSUM(Z2, Z3, Y2, X2, Y3, X3)
	DOTSUM(Z4, Z5, Y4, X4, Y5, X5)
	DOTSUM(Z6, Z7, Y6, X6, Y7, X7)
	STORE4ROWS
	ADDQ   $4, DI
	DECQ   CX
	JNZ    dcol4
	VZEROUPPER
	RET
