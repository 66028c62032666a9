#include "textflag.h"
#include "kernel_amd64.h"

// The AVX-512 micro-kernels with A read in place (the twins of
// kern8x32AVX512 that kern6x16AVX2Direct, kern6x8AVX2Direct and
// kern12x8AVX2Direct are of the AVX2 kernel): row r of A at a + r·lda
// floats, k contiguous. Every C element is the same chain of fused
// multiply-adds over k, in order, as in kern8x32AVX512: the same bits.
// b is a packed [k][32] micro-panel (rows of 128 bytes) in all three.

// LOAD8ROWS16 and STORE8ROWS16 load and store 16 floats of eight C rows
// from DI at stride DX (R9, R10, R14: rows 2, 4, 6) into and from z0..z7.
#define LOAD8ROWS16(z0, z1, z2, z3, z4, z5, z6, z7) \
	VMOVUPS (DI), z0        \
	VMOVUPS (DI)(DX*1), z1  \
	VMOVUPS (R9), z2        \
	VMOVUPS (R9)(DX*1), z3  \
	VMOVUPS (R10), z4       \
	VMOVUPS (R10)(DX*1), z5 \
	VMOVUPS (R14), z6       \
	VMOVUPS (R14)(DX*1), z7

#define STORE8ROWS16(z0, z1, z2, z3, z4, z5, z6, z7) \
	VMOVUPS z0, (DI)        \
	VMOVUPS z1, (DI)(DX*1)  \
	VMOVUPS z2, (R9)        \
	VMOVUPS z3, (R9)(DX*1)  \
	VMOVUPS z4, (R10)       \
	VMOVUPS z5, (R10)(DX*1) \
	VMOVUPS z6, (R14)       \
	VMOVUPS z7, (R14)(DX*1)

// CROWS8 points DI, R9, R10, R14 at C rows 0, 2, 4, 6 from c (FP) and
// sets DX to the C row stride in bytes; NEXT8ROWS moves them eight rows on.
#define CROWS8 \
	MOVQ c+32(FP), DI     \
	MOVQ ldc+40(FP), DX   \
	SHLQ $2, DX           \
	LEAQ (DI)(DX*2), R9   \
	LEAQ (R9)(DX*2), R10  \
	LEAQ (R10)(DX*2), R14

#define NEXT8ROWS \
	LEAQ (R14)(DX*2), DI \
	LEAQ (DI)(DX*2), R9  \
	LEAQ (R9)(DX*2), R10 \
	LEAQ (R10)(DX*2), R14

// AROWS8 points AX, R12, R13 at A rows 0, 3, 6 from a (FP), R8 the A row
// stride in bytes.
#define AROWS8 \
	MOVQ a+8(FP), AX      \
	MOVQ lda+16(FP), R8   \
	SHLQ $2, R8           \
	LEAQ (AX)(R8*2), R12  \
	ADDQ R8, R12          \
	LEAQ (R12)(R8*2), R13 \
	ADDQ R8, R13

// KSTEP8x32D is KSTEP8x32 (kernel_amd64.s) with A read in place: rows 0-2
// at ko(AX) + {0, 1, 2}·R8, rows 3-5 from R12, rows 6-7 from R13; the next
// B micro-panel's row k (R11) prefetched.
#define KSTEP8x32D(ko, bo) \
	PREFETCHT0   bo(R11)            \
	PREFETCHT0   bo+64(R11)         \
	VMOVUPS      bo(BX), Z16        \
	VMOVUPS      bo+64(BX), Z17     \
	VBROADCASTSS ko(AX), Z18        \
	VBROADCASTSS ko(AX)(R8*1), Z19  \
	VFMADD231PS  Z16, Z18, Z0       \
	VFMADD231PS  Z17, Z18, Z1       \
	VFMADD231PS  Z16, Z19, Z2       \
	VFMADD231PS  Z17, Z19, Z3       \
	VBROADCASTSS ko(AX)(R8*2), Z20  \
	VBROADCASTSS ko(R12), Z21       \
	VFMADD231PS  Z16, Z20, Z4       \
	VFMADD231PS  Z17, Z20, Z5       \
	VFMADD231PS  Z16, Z21, Z6       \
	VFMADD231PS  Z17, Z21, Z7       \
	VBROADCASTSS ko(R12)(R8*1), Z18 \
	VBROADCASTSS ko(R12)(R8*2), Z19 \
	VFMADD231PS  Z16, Z18, Z8       \
	VFMADD231PS  Z17, Z18, Z9       \
	VFMADD231PS  Z16, Z19, Z10      \
	VFMADD231PS  Z17, Z19, Z11      \
	VBROADCASTSS ko(R13), Z20       \
	VBROADCASTSS ko(R13)(R8*1), Z21 \
	VFMADD231PS  Z16, Z20, Z12      \
	VFMADD231PS  Z17, Z20, Z13      \
	VFMADD231PS  Z16, Z21, Z14      \
	VFMADD231PS  Z17, Z21, Z15

// func kern8x32AVX512Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)
// kern8x32AVX512 with A read in place; eight k steps (32 bytes of each A
// row) per loop.
TEXT ·kern8x32AVX512Direct(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	AROWS8
	MOVQ b+24(FP), BX
	MOVQ nextB+64(FP), R11
	CROWS8
	MOVQ load+48(FP), SI
	TESTQ SI, SI
	JZ   zero8x32d
	LOAD8ROWS32(R14)
	JMP  prefetch8x32d

zero8x32d:
	ZEROZ0TO7
	ZEROZ8TO15

prefetch8x32d: // rows of 128 bytes: the first and last 64 of each
	PREFETCH8ROWS32(nextC+56(FP))

check8x8x32d:
	CMPQ CX, $8
	JLT  tail8x32d

loop8x8x32d: // eight k steps: 32 bytes of each A row, 1024 bytes of B
	KSTEP8x32D(0, 0)
	KSTEP8x32D(4, 128)
	KSTEP8x32D(8, 256)
	KSTEP8x32D(12, 384)
	KSTEP8x32D(16, 512)
	KSTEP8x32D(20, 640)
	KSTEP8x32D(24, 768)
	KSTEP8x32D(28, 896)
	ADDQ $32, AX
	ADDQ $32, R12
	ADDQ $32, R13
	ADDQ $1024, BX
	ADDQ $1024, R11
	SUBQ $8, CX
	CMPQ CX, $8
	JGE  loop8x8x32d

tail8x32d:
	TESTQ CX, CX
	JZ    store8x32d

loop1x8x32d:
	KSTEP8x32D(0, 0)
	ADDQ $4, AX
	ADDQ $4, R12
	ADDQ $4, R13
	ADDQ $128, BX
	ADDQ $128, R11
	DECQ CX
	JNZ  loop1x8x32d

store8x32d:
	STORE8ROWS32(R14)
	VZEROUPPER
	RET

// KSTEP8x16D is KSTEP8x32D for the first 16 columns only: B row k's first
// half in Z16, one FMA per row into Z0..Z7.
#define KSTEP8x16D(ko, bo) \
	PREFETCHT0   bo(R11)            \
	VMOVUPS      bo(BX), Z16        \
	VBROADCASTSS ko(AX), Z18        \
	VBROADCASTSS ko(AX)(R8*1), Z19  \
	VBROADCASTSS ko(AX)(R8*2), Z20  \
	VBROADCASTSS ko(R12), Z21       \
	VFMADD231PS  Z16, Z18, Z0       \
	VFMADD231PS  Z16, Z19, Z1       \
	VFMADD231PS  Z16, Z20, Z2       \
	VFMADD231PS  Z16, Z21, Z3       \
	VBROADCASTSS ko(R12)(R8*1), Z22 \
	VBROADCASTSS ko(R12)(R8*2), Z23 \
	VBROADCASTSS ko(R13), Z24       \
	VBROADCASTSS ko(R13)(R8*1), Z25 \
	VFMADD231PS  Z16, Z22, Z4       \
	VFMADD231PS  Z16, Z23, Z5       \
	VFMADD231PS  Z16, Z24, Z6       \
	VFMADD231PS  Z16, Z25, Z7

// func kern8x16AVX512Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)
// kern8x32AVX512Direct for columns 0-15 of the tile only (b is still
// [k][32]; C columns 16-31 are neither read nor written), at half the
// FMAs: for tiles of at most 16 columns.
TEXT ·kern8x16AVX512Direct(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	AROWS8
	MOVQ b+24(FP), BX
	MOVQ nextB+64(FP), R11
	CROWS8
	MOVQ load+48(FP), SI
	TESTQ SI, SI
	JZ   zero8x16d
	LOAD8ROWS16(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	JMP  prefetch8x16d

zero8x16d:
	ZEROZ0TO7

prefetch8x16d:
	MOVQ nextC+56(FP), SI
	PREFETCH8ROWS16

check8x8x16d:
	CMPQ CX, $8
	JLT  tail8x16d

loop8x8x16d: // eight k steps: 32 bytes of each A row, 1024 bytes of B
	KSTEP8x16D(0, 0)
	KSTEP8x16D(4, 128)
	KSTEP8x16D(8, 256)
	KSTEP8x16D(12, 384)
	KSTEP8x16D(16, 512)
	KSTEP8x16D(20, 640)
	KSTEP8x16D(24, 768)
	KSTEP8x16D(28, 896)
	ADDQ $32, AX
	ADDQ $32, R12
	ADDQ $32, R13
	ADDQ $1024, BX
	ADDQ $1024, R11
	SUBQ $8, CX
	CMPQ CX, $8
	JGE  loop8x8x16d

tail8x16d:
	TESTQ CX, CX
	JZ    store8x16d

loop1x8x16d:
	KSTEP8x16D(0, 0)
	ADDQ $4, AX
	ADDQ $4, R12
	ADDQ $4, R13
	ADDQ $128, BX
	ADDQ $128, R11
	DECQ CX
	JNZ  loop1x8x16d

store8x16d:
	STORE8ROWS16(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VZEROUPPER
	RET

// KSTEP16x16D is KSTEP8x16D for 16 rows: rows 0-7 as there, rows 8-15
// from SI (rows 8-10), DI (11-13) and DX (14-15), stride R8; row r into
// Zr. Sixteen chains hide the FMA latency where eight leave the FMA units
// half idle.
#define KSTEP16x16D(ko, bo) \
	KSTEP8x16D(ko, bo)               \
	VBROADCASTSS ko(SI), Z18        \
	VBROADCASTSS ko(SI)(R8*1), Z19  \
	VBROADCASTSS ko(SI)(R8*2), Z20  \
	VBROADCASTSS ko(DI), Z21        \
	VFMADD231PS  Z16, Z18, Z8       \
	VFMADD231PS  Z16, Z19, Z9       \
	VFMADD231PS  Z16, Z20, Z10      \
	VFMADD231PS  Z16, Z21, Z11      \
	VBROADCASTSS ko(DI)(R8*1), Z22  \
	VBROADCASTSS ko(DI)(R8*2), Z23  \
	VBROADCASTSS ko(DX), Z24        \
	VBROADCASTSS ko(DX)(R8*1), Z25  \
	VFMADD231PS  Z16, Z22, Z12      \
	VFMADD231PS  Z16, Z23, Z13      \
	VFMADD231PS  Z16, Z24, Z14      \
	VFMADD231PS  Z16, Z25, Z15

// func kern16x16AVX512Direct(k int, a *float32, lda int, b, c *float32, ldc int, load int, nextC, nextB *float32)
// kern8x16AVX512Direct for 16 rows (two row tiles) at once: C rows 0-15,
// columns 0-15; nextC is prefetched for its first eight rows. The C row
// pointers (DI, DX, R9, R10, R14) hold A rows 8-15 during the loop and are
// set again for the store.
TEXT ·kern16x16AVX512Direct(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), CX
	MOVQ b+24(FP), BX
	MOVQ nextB+64(FP), R11
	CROWS8
	MOVQ load+48(FP), SI
	TESTQ SI, SI
	JZ   zero16x16d
	LOAD8ROWS16(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	NEXT8ROWS
	LOAD8ROWS16(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	JMP  prefetch16x16d

zero16x16d:
	ZEROZ0TO7
	ZEROZ8TO15

prefetch16x16d:
	MOVQ nextC+56(FP), SI
	MOVQ ldc+40(FP), DX
	SHLQ $2, DX
	PREFETCH8ROWS16

	AROWS8
	LEAQ (R13)(R8*2), SI        // A row 8
	LEAQ (SI)(R8*2), DI
	ADDQ R8, DI                 // A row 11
	LEAQ (DI)(R8*2), DX
	ADDQ R8, DX                 // A row 14

check8x16x16d:
	CMPQ CX, $8
	JLT  tail16x16d

loop8x16x16d: // eight k steps: 32 bytes of each A row, 1024 bytes of B
	KSTEP16x16D(0, 0)
	KSTEP16x16D(4, 128)
	KSTEP16x16D(8, 256)
	KSTEP16x16D(12, 384)
	KSTEP16x16D(16, 512)
	KSTEP16x16D(20, 640)
	KSTEP16x16D(24, 768)
	KSTEP16x16D(28, 896)
	ADDQ $32, AX
	ADDQ $32, R12
	ADDQ $32, R13
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, DX
	ADDQ $1024, BX
	ADDQ $1024, R11
	SUBQ $8, CX
	CMPQ CX, $8
	JGE  loop8x16x16d

tail16x16d:
	TESTQ CX, CX
	JZ    store16x16d

loop1x16x16d:
	KSTEP16x16D(0, 0)
	ADDQ $4, AX
	ADDQ $4, R12
	ADDQ $4, R13
	ADDQ $4, SI
	ADDQ $4, DI
	ADDQ $4, DX
	ADDQ $128, BX
	ADDQ $128, R11
	DECQ CX
	JNZ  loop1x16x16d

store16x16d:
	CROWS8
	STORE8ROWS16(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	NEXT8ROWS
	STORE8ROWS16(Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	VZEROUPPER
	RET
