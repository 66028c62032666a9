#include "textflag.h"
#include "kernel_amd64.h"

// The bf16 micro-kernels: kernel_amd64.s's f32 kernels with B a bfloat16
// micro-panel in k pairs ([k/2][NR][2], see bf16.go). Each pair of k steps
// reads the B rows once as dwords: VPSLLD $16 widens the even step's NR
// values (the low halves) to f32, VPAND with 0xFFFF0000 the odd step's
// (the high halves); both are exact, and the FMAs are then the f32
// kernel's, in the same order: the same bits. A is the packed f32 panel
// [k][MR]; the kernels for fewer rows read only its first rows. k is even.

// FMAROW16(ao, r0, r1) broadcasts a at ao(AX) and adds its products with
// the widened B row in Z16:Z17 to Zr0:Zr1.
#define FMAROW16(ao, r0, r1) \
	VBROADCASTSS ao(AX), Z18   \
	VFMADD231PS  Z16, Z18, r0  \
	VFMADD231PS  Z17, Z18, r1

// WIDEN32EVEN/ODD widen the even/odd k step of the pair at bo(BX) (32
// columns, 128 bytes) into Z16:Z17; Z24 holds 0xFFFF0000 in every dword.
#define WIDEN32EVEN(bo) \
	VPSLLD $16, bo(BX), Z16    \
	VPSLLD $16, bo+64(BX), Z17

#define WIDEN32ODD(bo) \
	VPANDD bo(BX), Z24, Z16    \
	VPANDD bo+64(BX), Z24, Z17

// FMA8x32(ao) is one k step of the 8×32 tile (A row at ao).
#define FMA8x32(ao) \
	FMAROW16(ao, Z0, Z1)     \
	FMAROW16(ao+4, Z2, Z3)   \
	FMAROW16(ao+8, Z4, Z5)   \
	FMAROW16(ao+12, Z6, Z7)  \
	FMAROW16(ao+16, Z8, Z9)  \
	FMAROW16(ao+20, Z10, Z11) \
	FMAROW16(ao+24, Z12, Z13) \
	FMAROW16(ao+28, Z14, Z15)

#define FMA4x32(ao) \
	FMAROW16(ao, Z0, Z1)     \
	FMAROW16(ao+4, Z2, Z3)   \
	FMAROW16(ao+8, Z4, Z5)   \
	FMAROW16(ao+12, Z6, Z7)

#define FMA1x32(ao) \
	FMAROW16(ao, Z0, Z1)

// KPAIR32(fma, ao, bo) is one k pair of an AVX-512 bf16 kernel (A rows of
// 32 bytes: MR 8), one line of the next B micro-panel's pair (R12)
// prefetched (the caller alternates halves between row tiles:
// prefetchHalf).
#define KPAIR32(fma, ao, bo) \
	PREFETCHT0  bo(R12)    \
	WIDEN32EVEN(bo)        \
	fma(ao)                \
	WIDEN32ODD(bo)         \
	fma(ao+32)

// BF16MASK512 sets Z24 to 0xFFFF0000 in every dword.
#define BF16MASK512 \
	MOVL         $0xFFFF0000, R13 \
	VPBROADCASTD R13, Z24

// The argument frame of every kernel here:
// func(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)

// SETUP32 loads the arguments common to the AVX-512 kernels: CX k, AX a,
// BX b, DI c, DX the row stride in bytes, R9 and R10 rows 2 and 4, R11
// row 6, R12 nextB, R8 load; and the mask.
#define SETUP32 \
	MOVQ k+0(FP), CX       \
	MOVQ a+8(FP), AX       \
	MOVQ b+16(FP), BX      \
	MOVQ c+24(FP), DI      \
	MOVQ ldc+32(FP), DX    \
	SHLQ $2, DX            \
	LEAQ (DI)(DX*2), R9    \
	LEAQ (R9)(DX*2), R10   \
	LEAQ (R10)(DX*2), R11  \
	MOVQ nextB+56(FP), R12 \
	MOVQ load+40(FP), R8   \
	BF16MASK512

// LOOP32(fma, name) is the k loop: two pairs (256 bytes of B, 128 of A)
// at a time, then one; labels name-prefixed.
#define LOOP32(fma, loop, tail, done) \
	CMPQ CX, $4              \
	JLT  tail                \
loop:                        \
	KPAIR32(fma, 0, 0)       \
	KPAIR32(fma, 64, 128)    \
	ADDQ $128, AX            \
	ADDQ $256, BX            \
	ADDQ $256, R12           \
	SUBQ $4, CX              \
	CMPQ CX, $4              \
	JGE  loop                \
tail:                        \
	TESTQ CX, CX             \
	JZ    done               \
	KPAIR32(fma, 0, 0)       \
done:

// func kern8x32BF16AVX512(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)
TEXT ·kern8x32BF16AVX512(SB), NOSPLIT, $0-64
	SETUP32
	TESTQ R8, R8
	JZ   zero8
	LOAD8ROWS32(R11)
	JMP  prefetch8

zero8:
	ZEROZ0TO7
	ZEROZ8TO15

prefetch8:
	PREFETCH8ROWS32(nextC+48(FP))
	LOOP32(FMA8x32, loop8, tail8, done8)
	STORE8ROWS32(R11)
	VZEROUPPER
	RET

// func kern4x32BF16AVX512(...): rows 0-3 of the tile only.
TEXT ·kern4x32BF16AVX512(SB), NOSPLIT, $0-64
	SETUP32
	TESTQ R8, R8
	JZ   zero4
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VMOVUPS (DI)(DX*1), Z2
	VMOVUPS 64(DI)(DX*1), Z3
	VMOVUPS (R9), Z4
	VMOVUPS 64(R9), Z5
	VMOVUPS (R9)(DX*1), Z6
	VMOVUPS 64(R9)(DX*1), Z7
	JMP  prefetch4

zero4:
	ZEROZ0TO7

prefetch4:
	MOVQ nextC+48(FP), SI
	PREFETCH2ROWS
	PREFETCH2ROWS
	LOOP32(FMA4x32, loop4, tail4, done4)
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, (DI)(DX*1)
	VMOVUPS Z3, 64(DI)(DX*1)
	VMOVUPS Z4, (R9)
	VMOVUPS Z5, 64(R9)
	VMOVUPS Z6, (R9)(DX*1)
	VMOVUPS Z7, 64(R9)(DX*1)
	VZEROUPPER
	RET

// func kern1x32BF16AVX512(...): row 0 of the tile only.
TEXT ·kern1x32BF16AVX512(SB), NOSPLIT, $0-64
	SETUP32
	TESTQ R8, R8
	JZ   zero1
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	JMP  loop1start

zero1:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1

loop1start:
	LOOP32(FMA1x32, loop1, tail1, done1)
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VZEROUPPER
	RET

// The AVX2 kernels (MR 6, NR 16): Y0..Y11 accumulate (row r in
// Y2r:Y2r+1), Y12:Y13 the widened B row, Y14 the broadcast a, Y15 the
// mask. A rows are 24 bytes, a B pair 64 bytes (one cache line).

#define FMAROW8(ao, r0, r1) \
	VBROADCASTSS ao(AX), Y14   \
	VFMADD231PS  Y12, Y14, r0  \
	VFMADD231PS  Y13, Y14, r1

#define WIDEN16EVEN(bo) \
	VPSLLD $16, bo(BX), Y12    \
	VPSLLD $16, bo+32(BX), Y13

#define WIDEN16ODD(bo) \
	VPAND bo(BX), Y15, Y12     \
	VPAND bo+32(BX), Y15, Y13

#define FMA6x16(ao) \
	FMAROW8(ao, Y0, Y1)      \
	FMAROW8(ao+4, Y2, Y3)    \
	FMAROW8(ao+8, Y4, Y5)    \
	FMAROW8(ao+12, Y6, Y7)   \
	FMAROW8(ao+16, Y8, Y9)   \
	FMAROW8(ao+20, Y10, Y11)

#define FMA3x16(ao) \
	FMAROW8(ao, Y0, Y1)      \
	FMAROW8(ao+4, Y2, Y3)    \
	FMAROW8(ao+8, Y4, Y5)

#define FMA1x16(ao) \
	FMAROW8(ao, Y0, Y1)

#define KPAIR16(fma, ao, bo) \
	PREFETCHT0 bo(R11)     \
	WIDEN16EVEN(bo)        \
	fma(ao)                \
	WIDEN16ODD(bo)         \
	fma(ao+24)

// SETUP16: CX k, AX a, BX b, DI c, DX the row stride in bytes, R9 and
// R10 rows 2 and 4, R11 nextB, R8 load; Y15 the mask.
#define SETUP16 \
	MOVQ k+0(FP), CX       \
	MOVQ a+8(FP), AX       \
	MOVQ b+16(FP), BX      \
	MOVQ c+24(FP), DI      \
	MOVQ ldc+32(FP), DX    \
	SHLQ $2, DX            \
	LEAQ (DI)(DX*2), R9    \
	LEAQ (R9)(DX*2), R10   \
	MOVQ nextB+56(FP), R11 \
	MOVQ load+40(FP), R8   \
	MOVL $0xFFFF0000, R13  \
	MOVQ R13, X15          \
	VPBROADCASTD X15, Y15

#define LOOP16(fma, loop, tail, done) \
	CMPQ CX, $4              \
	JLT  tail                \
loop:                        \
	KPAIR16(fma, 0, 0)       \
	KPAIR16(fma, 48, 64)     \
	ADDQ $96, AX             \
	ADDQ $128, BX            \
	ADDQ $128, R11           \
	SUBQ $4, CX              \
	CMPQ CX, $4              \
	JGE  loop                \
tail:                        \
	TESTQ CX, CX             \
	JZ    done               \
	KPAIR16(fma, 0, 0)       \
done:

// func kern6x16BF16AVX2(k int, a *float32, b *uint16, c *float32, ldc int, load int, nextC *float32, nextB *uint16)
TEXT ·kern6x16BF16AVX2(SB), NOSPLIT, $0-64
	SETUP16
	TESTQ R8, R8
	JZ   zero6
	LOAD6ROWS8(Y0, Y2, Y4, Y6, Y8, Y10)
	ADDQ $32, DI
	ADDQ $32, R9
	ADDQ $32, R10
	LOAD6ROWS8(Y1, Y3, Y5, Y7, Y9, Y11)
	SUBQ $32, DI
	SUBQ $32, R9
	SUBQ $32, R10
	JMP  prefetch6

zero6:
	ZEROY0TO11

prefetch6:
	MOVQ nextC+48(FP), SI
	PREFETCH2ROWS
	PREFETCH2ROWS
	PREFETCH2ROWS
	LOOP16(FMA6x16, loop6, tail6, done6)
	STORE6ROWS8(Y0, Y2, Y4, Y6, Y8, Y10)
	ADDQ $32, DI
	ADDQ $32, R9
	ADDQ $32, R10
	STORE6ROWS8(Y1, Y3, Y5, Y7, Y9, Y11)
	VZEROUPPER
	RET

// func kern3x16BF16AVX2(...): rows 0-2 of the tile only.
TEXT ·kern3x16BF16AVX2(SB), NOSPLIT, $0-64
	SETUP16
	TESTQ R8, R8
	JZ   zero3
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS (DI)(DX*1), Y2
	VMOVUPS 32(DI)(DX*1), Y3
	VMOVUPS (R9), Y4
	VMOVUPS 32(R9), Y5
	JMP  loop3start

zero3:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5

loop3start:
	LOOP16(FMA3x16, loop3, tail3, done3)
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, (DI)(DX*1)
	VMOVUPS Y3, 32(DI)(DX*1)
	VMOVUPS Y4, (R9)
	VMOVUPS Y5, 32(R9)
	VZEROUPPER
	RET

// func kern1x16BF16AVX2(...): row 0 of the tile only.
TEXT ·kern1x16BF16AVX2(SB), NOSPLIT, $0-64
	SETUP16
	TESTQ R8, R8
	JZ   zero1a
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	JMP  loop1astart

zero1a:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

loop1astart:
	LOOP16(FMA1x16, loop1a, tail1a, done1a)
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET
