#include "kernel_amd64.h"

// Shared by the packed 4-bit kernels (kernel_q4_amd64.s for AVX-512,
// kernel_q4avx2_amd64.s for AVX2, whose contract is in the first, and
// kernel_q4dot_amd64.s); kernel_amd64.h's ZEROZ0TO7 zeroes their eight
// accumulators.

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

// Each kernel file defines the rounding constants (symbols <> are local
// to a file) with Q4CONSTS.
#define Q4CONSTS \
	Q4CONST(q4one<>, $0x0000000100000001) \
	Q4CONST(q4r7fff<>, $0x00007fff00007fff) \
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

// HSUM256(y, x, tx) leaves the sum of y's 8 floats in x's lowest lane.
#define HSUM256(y, x, tx) \
	VEXTRACTF128 $1, y, tx  \
	VADDPS       tx, x, x   \
	VPERMILPS    $0x4E, x, tx \
	VADDPS       tx, x, x   \
	VPERMILPS    $0xB1, x, tx \
	VADDSS       tx, x, x

// HSUM512(z, y, x, ty, tx) leaves the sum of z's 16 floats in x's lowest
// lane (ty/tx: scratch).
#define HSUM512(z, y, x, ty, tx) \
	VEXTRACTF64X4 $1, z, ty \
	VADDPS        ty, y, y  \
	HSUM256(y, x, tx)

// SCALE512(noff) sets Z21 to the block's scaled table: the raw table in
// Z20 times the scale at SI, plus the offset at R8 if R8 is not nil (Z22
// scratch), and moves SI, R8 on.
#define SCALE512(noff) \
	VBROADCASTSS (SI), Z22 \
	VMULPS       Z22, Z20, Z21 \
	ADDQ         $4, SI \
	TESTQ        R8, R8 \
	JZ           noff \
	VBROADCASTSS (R8), Z22 \
	VADDPS       Z22, Z21, Z21 \
	ADDQ         $4, R8 \
noff:

// STORE4ROWS stores a four-row kernel's column sums, in X0, X2, X4 and
// X6, to its rows of C at DI (DX the row stride in bytes, R15 = 3·DX).
#define STORE4ROWS \
	VMOVSS X0, (DI)         \
	VMOVSS X2, (DI)(DX*1)   \
	VMOVSS X4, (DI)(DX*2)   \
	VMOVSS X6, (DI)(R15*1)

// CVT2BF16_21 and CVT2BF16_24: zmm21 (zmm24) = bf16(zmm21) in both
// halves (VCVTNE2PS2BF16, AVX512_BF16: Go's assembler lacks it; EVEX
// encodings checked against GNU as 2.40).
#define CVT2BF16_21 BYTE $0x62; BYTE $0xa2; BYTE $0x57; BYTE $0x40; BYTE $0x72; BYTE $0xed
#define CVT2BF16_24 BYTE $0x62; BYTE $0x02; BYTE $0x3f; BYTE $0x40; BYTE $0x72; BYTE $0xc0
