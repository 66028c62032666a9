#include "textflag.h"
#include "kernel_amd64.h"

// The AVX512_BF16 micro-kernel (opt-in: MatMulBF16Dot): VDPBF16PS adds to
// each f32 lane the products of a pair of bf16 values of A (row r, k and
// k+1: the activations rounded to bf16 by packABF16) with the pair of B
// (column j, k and k+1: PackedBF16's layout as it is). Not the FMA chain
// of the other kernels: the activations lose their low 16 bits and the
// instruction adds a pair at a time (flushing subnormals), so its results
// are close to, not equal to, MatMulBF16's; but still one fixed sequence per
// element, so they do not depend on m, threads or tiling.
//
// Go's assembler has no VDPBF16PS: DPBF16_<acc>_<b>_<a> is its EVEX
// encoding (EVEX.512.F3.0F38.W0 52 /r, register form) for zmm<acc> +=
// zmm<b> · zmm<a>, checked against GNU as.

#define DPBF16_0_16_18 BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x40; BYTE $0x52; BYTE $0xc2
#define DPBF16_1_17_18 BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xca
#define DPBF16_2_16_19 BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x40; BYTE $0x52; BYTE $0xd3
#define DPBF16_3_17_19 BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xdb
#define DPBF16_4_16_18 BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x40; BYTE $0x52; BYTE $0xe2
#define DPBF16_5_17_18 BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xea
#define DPBF16_6_16_19 BYTE $0x62; BYTE $0xb2; BYTE $0x7e; BYTE $0x40; BYTE $0x52; BYTE $0xf3
#define DPBF16_7_17_19 BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xfb
#define DPBF16_8_16_18 BYTE $0x62; BYTE $0x32; BYTE $0x7e; BYTE $0x40; BYTE $0x52; BYTE $0xc2
#define DPBF16_9_17_18 BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xca
#define DPBF16_10_16_19 BYTE $0x62; BYTE $0x32; BYTE $0x7e; BYTE $0x40; BYTE $0x52; BYTE $0xd3
#define DPBF16_11_17_19 BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xdb
#define DPBF16_12_16_18 BYTE $0x62; BYTE $0x32; BYTE $0x7e; BYTE $0x40; BYTE $0x52; BYTE $0xe2
#define DPBF16_13_17_18 BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xea
#define DPBF16_14_16_19 BYTE $0x62; BYTE $0x32; BYTE $0x7e; BYTE $0x40; BYTE $0x52; BYTE $0xf3
#define DPBF16_15_17_19 BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xfb

// KPAIRDOT(ao, bo) is one k pair: B's 32 columns in Z16:Z17, row r's A
// pair broadcast into Z18 (even r) or Z19 (odd r), 16 VDPBF16PS; the next
// B micro-panel's pair (R12) prefetched. A rows are 4 bytes (a pair), a
// pair of A rows 32 bytes (MR 8).
#define KPAIRDOT(ao, bo) \
	PREFETCHT0   bo(R12)         \
	PREFETCHT0   bo+64(R12)      \
	VMOVDQU32    bo(BX), Z16     \
	VMOVDQU32    bo+64(BX), Z17  \
	VPBROADCASTD ao(AX), Z18     \
	VPBROADCASTD ao+4(AX), Z19   \
	DPBF16_0_16_18               \
	DPBF16_1_17_18               \
	DPBF16_2_16_19               \
	DPBF16_3_17_19               \
	VPBROADCASTD ao+8(AX), Z18   \
	VPBROADCASTD ao+12(AX), Z19  \
	DPBF16_4_16_18               \
	DPBF16_5_17_18               \
	DPBF16_6_16_19               \
	DPBF16_7_17_19               \
	VPBROADCASTD ao+16(AX), Z18  \
	VPBROADCASTD ao+20(AX), Z19  \
	DPBF16_8_16_18               \
	DPBF16_9_17_18               \
	DPBF16_10_16_19              \
	DPBF16_11_17_19              \
	VPBROADCASTD ao+24(AX), Z18  \
	VPBROADCASTD ao+28(AX), Z19  \
	DPBF16_12_16_18              \
	DPBF16_13_17_18              \
	DPBF16_14_16_19              \
	DPBF16_15_17_19

// func kern8x32DotBF16AVX512(k int, a *uint16, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)
// a: [k/2][8][2] packed bf16 A; b: [k/2][32][2]; k even.
TEXT ·kern8x32DotBF16AVX512(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), DX
	SHLQ $2, DX
	LEAQ (DI)(DX*2), R9
	LEAQ (R9)(DX*2), R10
	LEAQ (R10)(DX*2), R11
	MOVQ nextB+56(FP), R12
	MOVQ load+40(FP), R8
	TESTQ R8, R8
	JZ   zerodot
	LOAD8ROWS32(R11)
	JMP  prefetchdot

zerodot:
	ZEROZ0TO7
	ZEROZ8TO15

prefetchdot:
	PREFETCH8ROWS32(nextC+48(FP))
	CMPQ CX, $4
	JLT  taildot

loopdot: // two pairs: 64 bytes of A, 256 of B
	KPAIRDOT(0, 0)
	KPAIRDOT(32, 128)
	ADDQ $64, AX
	ADDQ $256, BX
	ADDQ $256, R12
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loopdot

taildot:
	TESTQ CX, CX
	JZ    storedot
	KPAIRDOT(0, 0)

storedot:
	STORE8ROWS32(R11)
	VZEROUPPER
	RET
