#include "textflag.h"
#include "kernel_amd64.h"

// Register-blocked f32 micro-kernels: C[MR, NR] (+)= A[MR, k] · B[k, NR]
// for one packed A micro-panel (k×MR, row index fastest) and one packed B
// micro-panel (k×NR, column index fastest). Every C element is one
// VFMADD231PS chain over k in ascending order, starting from +0 (load == 0)
// or from the partial sum already in C (load != 0): acc = a·b + acc with a
// single rounding per step, bit-identical to the pure-Go kernel.

// KSTEP6x16 is one k step of the 6×16 AVX2 kernel: B row k in Y12:Y13,
// a[k][r] broadcast into Y14/Y15, 12 FMAs into Y0..Y11 (row r in Y2r:Y2r+1),
// and row k (one cache line) of the next B micro-panel (R11) prefetched.
// ao and bo are the byte offsets of row k in the A and B micro-panels.
#define KSTEP6x16(ao, bo) \
	PREFETCHT0   bo(R11)            \
	VMOVUPS      bo(BX), Y12        \
	VMOVUPS      bo+32(BX), Y13     \
	VBROADCASTSS ao(AX), Y14        \
	VBROADCASTSS ao+4(AX), Y15      \
	VFMADD231PS  Y12, Y14, Y0       \
	VFMADD231PS  Y13, Y14, Y1       \
	VFMADD231PS  Y12, Y15, Y2       \
	VFMADD231PS  Y13, Y15, Y3       \
	VBROADCASTSS ao+8(AX), Y14      \
	VBROADCASTSS ao+12(AX), Y15     \
	VFMADD231PS  Y12, Y14, Y4       \
	VFMADD231PS  Y13, Y14, Y5       \
	VFMADD231PS  Y12, Y15, Y6       \
	VFMADD231PS  Y13, Y15, Y7       \
	VBROADCASTSS ao+16(AX), Y14     \
	VBROADCASTSS ao+20(AX), Y15     \
	VFMADD231PS  Y12, Y14, Y8       \
	VFMADD231PS  Y13, Y14, Y9       \
	VFMADD231PS  Y12, Y15, Y10      \
	VFMADD231PS  Y13, Y15, Y11

// func kern6x16AVX2(k int, a, b, c *float32, ldc int, load int, nextC, nextB *float32)
// a: [k][6] packed A; b: [k][16] packed B; c: 6 rows of 16 at stride ldc
// floats; nextC: the C tile of the next call; nextB: [k][16], the next B
// micro-panel (or b itself), one line prefetched per k step.
TEXT ·kern6x16AVX2(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), DX
	SHLQ $2, DX                 // row stride in bytes
	LEAQ (DI)(DX*2), R9         // row 2
	LEAQ (R9)(DX*2), R10        // row 4
	MOVQ nextB+56(FP), R11
	MOVQ load+40(FP), R8
	TESTQ R8, R8
	JZ   zero6x16
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
	JMP  prefetch6x16

zero6x16:
	ZEROY0TO11

prefetch6x16:
	MOVQ nextC+48(FP), SI
	PREFETCH2ROWS
	PREFETCH2ROWS
	PREFETCH2ROWS

check4x6x16:
	CMPQ CX, $4
	JLT  tail6x16

loop4x6x16: // four k steps: 96 bytes of A, 256 bytes of B
	KSTEP6x16(0, 0)
	KSTEP6x16(24, 64)
	KSTEP6x16(48, 128)
	KSTEP6x16(72, 192)
	ADDQ $96, AX
	ADDQ $256, BX
	ADDQ $256, R11
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loop4x6x16

tail6x16:
	TESTQ CX, CX
	JZ    store6x16

loop1x6x16:
	KSTEP6x16(0, 0)
	ADDQ $24, AX
	ADDQ $64, BX
	ADDQ $64, R11
	DECQ CX
	JNZ  loop1x6x16

store6x16:
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

// KSTEP8x32 is one k step of the 8×32 AVX-512 kernel: B row k in Z16:Z17,
// a[k][r] broadcast into Z18/Z19, 16 FMAs into Z0..Z15 (row r in Z2r:Z2r+1),
// and row k (two cache lines) of the next B micro-panel (R12) prefetched.
#define KSTEP8x32(ao, bo) \
	PREFETCHT0   bo(R12)            \
	PREFETCHT0   bo+64(R12)         \
	VMOVUPS      bo(BX), Z16        \
	VMOVUPS      bo+64(BX), Z17     \
	VBROADCASTSS ao(AX), Z18        \
	VBROADCASTSS ao+4(AX), Z19      \
	VFMADD231PS  Z16, Z18, Z0       \
	VFMADD231PS  Z17, Z18, Z1       \
	VFMADD231PS  Z16, Z19, Z2       \
	VFMADD231PS  Z17, Z19, Z3       \
	VBROADCASTSS ao+8(AX), Z18      \
	VBROADCASTSS ao+12(AX), Z19     \
	VFMADD231PS  Z16, Z18, Z4       \
	VFMADD231PS  Z17, Z18, Z5       \
	VFMADD231PS  Z16, Z19, Z6       \
	VFMADD231PS  Z17, Z19, Z7       \
	VBROADCASTSS ao+16(AX), Z18     \
	VBROADCASTSS ao+20(AX), Z19     \
	VFMADD231PS  Z16, Z18, Z8       \
	VFMADD231PS  Z17, Z18, Z9       \
	VFMADD231PS  Z16, Z19, Z10      \
	VFMADD231PS  Z17, Z19, Z11      \
	VBROADCASTSS ao+24(AX), Z18     \
	VBROADCASTSS ao+28(AX), Z19     \
	VFMADD231PS  Z16, Z18, Z12      \
	VFMADD231PS  Z17, Z18, Z13      \
	VFMADD231PS  Z16, Z19, Z14      \
	VFMADD231PS  Z17, Z19, Z15

// func kern8x32AVX512(k int, a, b, c *float32, ldc int, load int, nextC, nextB *float32)
// a: [k][8] packed A; b: [k][32] packed B; c: 8 rows of 32 at stride ldc
// floats; nextB: [k][32]. Same structure as kern6x16AVX2, with zmm
// registers.
TEXT ·kern8x32AVX512(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), DX
	SHLQ $2, DX                 // row stride in bytes
	LEAQ (DI)(DX*2), R9         // row 2
	LEAQ (R9)(DX*2), R10        // row 4
	LEAQ (R10)(DX*2), R11       // row 6
	MOVQ nextB+56(FP), R12
	MOVQ load+40(FP), R8
	TESTQ R8, R8
	JZ   zero8x32
	LOAD8ROWS32(R11)
	JMP  prefetch8x32

zero8x32:
	ZEROZ0TO7
	ZEROZ8TO15

prefetch8x32: // rows of 128 bytes: the first and last 64 of each
	PREFETCH8ROWS32(nextC+48(FP))

check4x8x32:
	CMPQ CX, $4
	JLT  tail8x32

loop4x8x32: // four k steps: 128 bytes of A, 512 bytes of B
	KSTEP8x32(0, 0)
	KSTEP8x32(32, 128)
	KSTEP8x32(64, 256)
	KSTEP8x32(96, 384)
	ADDQ $128, AX
	ADDQ $512, BX
	ADDQ $512, R12
	SUBQ $4, CX
	CMPQ CX, $4
	JGE  loop4x8x32

tail8x32:
	TESTQ CX, CX
	JZ    store8x32

loop1x8x32:
	KSTEP8x32(0, 0)
	ADDQ $32, AX
	ADDQ $128, BX
	ADDQ $128, R12
	DECQ CX
	JNZ  loop1x8x32

store8x32:
	STORE8ROWS32(R11)
	VZEROUPPER
	RET
