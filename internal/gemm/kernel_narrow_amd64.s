#include "textflag.h"
#include "kernel_amd64.h"

// The direct AVX2 micro-kernels for tiles of at most 8 columns (decode of
// one to eight sequences): kern6x16AVX2Direct (kernel_direct_amd64.s) on
// columns 0-7 only, at half the FMAs, for 6 or 12 rows.

// KSTEP6x8D is KSTEP6x16D for the first 8 columns only: B row k's first
// half in Y12, one FMA per row into Y0, Y2, …, Y10.
#define KSTEP6x8D(ko, bo) \
	PREFETCHT0   bo(R11)            \
	VMOVUPS      bo(BX), Y12        \
	VBROADCASTSS ko(AX), Y14        \
	VBROADCASTSS ko(AX)(R8*1), Y15  \
	VFMADD231PS  Y12, Y14, Y0       \
	VFMADD231PS  Y12, Y15, Y2       \
	VBROADCASTSS ko(AX)(R8*2), Y14  \
	VBROADCASTSS ko(R12), Y15       \
	VFMADD231PS  Y12, Y14, Y4       \
	VFMADD231PS  Y12, Y15, Y6       \
	VBROADCASTSS ko(R12)(R8*1), Y14 \
	VBROADCASTSS ko(R12)(R8*2), Y15 \
	VFMADD231PS  Y12, Y14, Y8       \
	VFMADD231PS  Y12, Y15, Y10

// func kern6x8AVX2Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)
// kern6x16AVX2Direct for columns 0-7 of the tile only (b is still [k][16];
// C columns 8-15 are neither read nor written), at half the FMAs: for
// tiles of at most 8 columns (B's last panel, or decode of few sequences).
TEXT ·kern6x8AVX2Direct(SB), NOSPLIT, $0-72
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
	JZ   zero6x8d
	LOAD6ROWS8(Y0, Y2, Y4, Y6, Y8, Y10)
	JMP  prefetch6x8d

zero6x8d:
	VXORPS Y0, Y0, Y0
	VXORPS Y2, Y2, Y2
	VXORPS Y4, Y4, Y4
	VXORPS Y6, Y6, Y6
	VXORPS Y8, Y8, Y8
	VXORPS Y10, Y10, Y10

prefetch6x8d:
	MOVQ nextC+56(FP), SI
	PREFETCH2ROWS
	PREFETCH2ROWS
	PREFETCH2ROWS

check8x6x8d:
	CMPQ CX, $8
	JLT  tail6x8d

loop8x6x8d: // eight k steps: 32 bytes of each A row, 512 bytes of B
	KSTEP6x8D(0, 0)
	KSTEP6x8D(4, 64)
	KSTEP6x8D(8, 128)
	KSTEP6x8D(12, 192)
	KSTEP6x8D(16, 256)
	KSTEP6x8D(20, 320)
	KSTEP6x8D(24, 384)
	KSTEP6x8D(28, 448)
	ADDQ $32, AX
	ADDQ $32, R12
	ADDQ $512, BX
	ADDQ $512, R11
	SUBQ $8, CX
	CMPQ CX, $8
	JGE  loop8x6x8d

tail6x8d:
	TESTQ CX, CX
	JZ    store6x8d

loop1x6x8d:
	KSTEP6x8D(0, 0)
	ADDQ $4, AX
	ADDQ $4, R12
	ADDQ $64, BX
	ADDQ $64, R11
	DECQ CX
	JNZ  loop1x6x8d

store6x8d:
	STORE6ROWS8(Y0, Y2, Y4, Y6, Y8, Y10)
	VZEROUPPER
	RET

// KSTEP12x8D is KSTEP6x8D for 12 rows: rows 0-5 as there, rows 6-8 from
// R13 and rows 9-11 from SI (stride R8), row r into Yr: twelve chains, so
// the FMA latency is hidden where six leave the FMA units idle.
#define KSTEP12x8D(ko, bo) \
	PREFETCHT0   bo(R11)            \
	VMOVUPS      bo(BX), Y12        \
	VBROADCASTSS ko(AX), Y13        \
	VBROADCASTSS ko(AX)(R8*1), Y14  \
	VBROADCASTSS ko(AX)(R8*2), Y15  \
	VFMADD231PS  Y12, Y13, Y0       \
	VFMADD231PS  Y12, Y14, Y1       \
	VFMADD231PS  Y12, Y15, Y2       \
	VBROADCASTSS ko(R12), Y13       \
	VBROADCASTSS ko(R12)(R8*1), Y14 \
	VBROADCASTSS ko(R12)(R8*2), Y15 \
	VFMADD231PS  Y12, Y13, Y3       \
	VFMADD231PS  Y12, Y14, Y4       \
	VFMADD231PS  Y12, Y15, Y5       \
	VBROADCASTSS ko(R13), Y13       \
	VBROADCASTSS ko(R13)(R8*1), Y14 \
	VBROADCASTSS ko(R13)(R8*2), Y15 \
	VFMADD231PS  Y12, Y13, Y6       \
	VFMADD231PS  Y12, Y14, Y7       \
	VFMADD231PS  Y12, Y15, Y8       \
	VBROADCASTSS ko(SI), Y13        \
	VBROADCASTSS ko(SI)(R8*1), Y14  \
	VBROADCASTSS ko(SI)(R8*2), Y15  \
	VFMADD231PS  Y12, Y13, Y9       \
	VFMADD231PS  Y12, Y14, Y10      \
	VFMADD231PS  Y12, Y15, Y11

// func kern12x8AVX2Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)
// kern6x8AVX2Direct for 12 rows (two row tiles) at once: C rows 0-11,
// columns 0-7; nextC is prefetched for its first six rows.
TEXT ·kern12x8AVX2Direct(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), R8
	SHLQ $2, R8                 // A row stride in bytes
	LEAQ (AX)(R8*2), R12
	ADDQ R8, R12                // A row 3
	LEAQ (R12)(R8*2), R13
	ADDQ R8, R13                // A row 6
	MOVQ b+24(FP), BX
	MOVQ c+32(FP), DI
	MOVQ ldc+40(FP), DX
	SHLQ $2, DX                 // C row stride in bytes
	LEAQ (DI)(DX*2), R9         // C row 2
	LEAQ (R9)(DX*2), R10        // C row 4
	MOVQ nextB+64(FP), R11
	MOVQ load+48(FP), SI
	TESTQ SI, SI
	JZ   zero12x8d
	LOAD6ROWS8(Y0, Y1, Y2, Y3, Y4, Y5)
	NEXT6ROWS
	LOAD6ROWS8(Y6, Y7, Y8, Y9, Y10, Y11)
	MOVQ c+32(FP), DI
	LEAQ (DI)(DX*2), R9
	LEAQ (R9)(DX*2), R10
	JMP  prefetch12x8d

zero12x8d:
	ZEROY0TO11

prefetch12x8d:
	MOVQ nextC+56(FP), SI
	PREFETCH2ROWS
	PREFETCH2ROWS
	PREFETCH2ROWS
	LEAQ (R13)(R8*2), SI
	ADDQ R8, SI                 // A row 9

check8x12x8d:
	CMPQ CX, $8
	JLT  tail12x8d

loop8x12x8d: // eight k steps: 32 bytes of each A row, 512 bytes of B
	KSTEP12x8D(0, 0)
	KSTEP12x8D(4, 64)
	KSTEP12x8D(8, 128)
	KSTEP12x8D(12, 192)
	KSTEP12x8D(16, 256)
	KSTEP12x8D(20, 320)
	KSTEP12x8D(24, 384)
	KSTEP12x8D(28, 448)
	ADDQ $32, AX
	ADDQ $32, R12
	ADDQ $32, R13
	ADDQ $32, SI
	ADDQ $512, BX
	ADDQ $512, R11
	SUBQ $8, CX
	CMPQ CX, $8
	JGE  loop8x12x8d

tail12x8d:
	TESTQ CX, CX
	JZ    store12x8d

loop1x12x8d:
	KSTEP12x8D(0, 0)
	ADDQ $4, AX
	ADDQ $4, R12
	ADDQ $4, R13
	ADDQ $4, SI
	ADDQ $64, BX
	ADDQ $64, R11
	DECQ CX
	JNZ  loop1x12x8d

store12x8d:
	STORE6ROWS8(Y0, Y1, Y2, Y3, Y4, Y5)
	NEXT6ROWS
	STORE6ROWS8(Y6, Y7, Y8, Y9, Y10, Y11)
	VZEROUPPER
	RET
