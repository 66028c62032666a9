#include "textflag.h"
#include "kernel_amd64.h"

// The AVX2 micro-kernel with A read in place (see kern6x16AVX2 in
// kernel_amd64.s, whose k steps and FMA order it repeats exactly): for
// products with few B panels (kernel.maxDirect), where packing A costs
// more than it saves.

// KSTEP6x16D is KSTEP6x16 with A read in place: a[r][k] at ko(AX),
// ko(AX)(R8*1), ko(AX)(R8*2) for rows 0-2 and ko(R12), ko(R12)(R8*1),
// ko(R12)(R8*2) for rows 3-5 (R8: the row stride in bytes). Same loads,
// same FMAs in the same order, so the same bits.
#define KSTEP6x16D(ko, bo) \
	PREFETCHT0   bo(R11)            \
	VMOVUPS      bo(BX), Y12        \
	VMOVUPS      bo+32(BX), Y13     \
	VBROADCASTSS ko(AX), Y14        \
	VBROADCASTSS ko(AX)(R8*1), Y15  \
	VFMADD231PS  Y12, Y14, Y0       \
	VFMADD231PS  Y13, Y14, Y1       \
	VFMADD231PS  Y12, Y15, Y2       \
	VFMADD231PS  Y13, Y15, Y3       \
	VBROADCASTSS ko(AX)(R8*2), Y14  \
	VBROADCASTSS ko(R12), Y15       \
	VFMADD231PS  Y12, Y14, Y4       \
	VFMADD231PS  Y13, Y14, Y5       \
	VFMADD231PS  Y12, Y15, Y6       \
	VFMADD231PS  Y13, Y15, Y7       \
	VBROADCASTSS ko(R12)(R8*1), Y14 \
	VBROADCASTSS ko(R12)(R8*2), Y15 \
	VFMADD231PS  Y12, Y14, Y8       \
	VFMADD231PS  Y13, Y14, Y9       \
	VFMADD231PS  Y12, Y15, Y10      \
	VFMADD231PS  Y13, Y15, Y11

// func kern6x16AVX2Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)
// kern6x16AVX2 with A read in place: row r of the 6×k block at a + r·lda
// floats, k contiguous. The loop takes eight k steps (32 bytes of each A
// row) at a time. The hardware prefetcher follows the six rows: prefetching
// them ahead in software measured no faster.
TEXT ·kern6x16AVX2Direct(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), R8
	SHLQ $2, R8                 // A row stride in bytes
	LEAQ (AX)(R8*2), R12
	ADDQ R8, R12                // A row 3
	MOVQ b+24(FP), BX
	MOVQ c+32(FP), DI
	MOVQ ldc+40(FP), DX
	SHLQ $2, DX                 // C row stride in bytes
	LEAQ (DI)(DX*2), R9         // C row 2
	LEAQ (R9)(DX*2), R10        // C row 4
	MOVQ nextB+64(FP), R11
	MOVQ load+48(FP), R13
	TESTQ R13, R13
	JZ   zero6x16d
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS (DI)(DX*1), Y2
	VMOVUPS 32(DI)(DX*1), Y3
	VMOVUPS (R9), Y4
	VMOVUPS 32(R9), Y5
	VMOVUPS (R9)(DX*1), Y6
	VMOVUPS 32(R9)(DX*1), Y7
	VMOVUPS (R10), Y8
	VMOVUPS 32(R10), Y9
	VMOVUPS (R10)(DX*1), Y10
	VMOVUPS 32(R10)(DX*1), Y11
	JMP  prefetch6x16d

zero6x16d:
	ZEROY0TO11

prefetch6x16d:
	MOVQ nextC+56(FP), SI
	PREFETCH2ROWS
	PREFETCH2ROWS
	PREFETCH2ROWS

check8x6x16d:
	CMPQ CX, $8
	JLT  tail6x16d

loop8x6x16d: // eight k steps: 32 bytes of each A row, 512 bytes of B
	KSTEP6x16D(0, 0)
	KSTEP6x16D(4, 64)
	KSTEP6x16D(8, 128)
	KSTEP6x16D(12, 192)
	KSTEP6x16D(16, 256)
	KSTEP6x16D(20, 320)
	KSTEP6x16D(24, 384)
	KSTEP6x16D(28, 448)
	ADDQ $32, AX
	ADDQ $32, R12
	ADDQ $512, BX
	ADDQ $512, R11
	SUBQ $8, CX
	CMPQ CX, $8
	JGE  loop8x6x16d

tail6x16d:
	TESTQ CX, CX
	JZ    store6x16d

loop1x6x16d:
	KSTEP6x16D(0, 0)
	ADDQ $4, AX
	ADDQ $4, R12
	ADDQ $64, BX
	ADDQ $64, R11
	DECQ CX
	JNZ  loop1x6x16d

store6x16d:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, (DI)(DX*1)
	VMOVUPS Y3, 32(DI)(DX*1)
	VMOVUPS Y4, (R9)
	VMOVUPS Y5, 32(R9)
	VMOVUPS Y6, (R9)(DX*1)
	VMOVUPS Y7, 32(R9)(DX*1)
	VMOVUPS Y8, (R10)
	VMOVUPS Y9, 32(R10)
	VMOVUPS Y10, (R10)(DX*1)
	VMOVUPS Y11, 32(R10)(DX*1)
	VZEROUPPER
	RET
