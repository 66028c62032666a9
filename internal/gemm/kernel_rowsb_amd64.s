#include "textflag.h"
#include "kernel_amd64.h"

// The rowsB kernels (rowsb.go): four rows of A, B's rows read in place,
// each output one FMA chain over k from +0, vectorised over B's columns:
// 16 (AVX-512) or 8 (AVX2) columns, one accumulator a row. A step loads
// B's row once and broadcasts each row's a[p] into its FMA.
//
// func(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
// lda, ldb and ldc in floats.

// SETUPROWSB loads the arguments: CX k, AX a (rows 0, 1), R10 a's row 2
// (rows 2, 3), R8 lda, BX b, R9 ldb, DI c, DX ldc, all strides in bytes.
#define SETUPROWSB \
	MOVQ k+0(FP), CX     \
	MOVQ a+8(FP), AX     \
	MOVQ lda+16(FP), R8  \
	SHLQ $2, R8          \
	LEAQ (AX)(R8*2), R10 \
	MOVQ b+24(FP), BX    \
	MOVQ ldb+32(FP), R9  \
	SHLQ $2, R9          \
	MOVQ c+40(FP), DI    \
	MOVQ ldc+48(FP), DX  \
	SHLQ $2, DX

// func rowsB4x16AVX512(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
TEXT ·rowsB4x16AVX512(SB), NOSPLIT, $0-56
	SETUPROWSB
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3

loop512:
	VMOVUPS          (BX), Z4
	VFMADD231PS.BCST (AX), Z4, Z0
	VFMADD231PS.BCST (AX)(R8*1), Z4, Z1
	VFMADD231PS.BCST (R10), Z4, Z2
	VFMADD231PS.BCST (R10)(R8*1), Z4, Z3
	ADDQ             $4, AX
	ADDQ             $4, R10
	ADDQ             R9, BX
	DECQ             CX
	JNZ              loop512

	VMOVUPS Z0, (DI)
	VMOVUPS Z1, (DI)(DX*1)
	LEAQ    (DI)(DX*2), DI
	VMOVUPS Z2, (DI)
	VMOVUPS Z3, (DI)(DX*1)
	VZEROUPPER
	RET

// STOREROW64 stores a row's 64 sums at DI.
#define STOREROW64(z0, z1, z2, z3) \
	VMOVUPS z0, (DI)    \
	VMOVUPS z1, 64(DI)  \
	VMOVUPS z2, 128(DI) \
	VMOVUPS z3, 192(DI)

// func rowsB4x64AVX512(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
// is rowsB4x16AVX512 for 64 columns: each step reads B's row whole, in
// order (the 16-column kernel run four times strides through the rows,
// which streamed from DRAM at 9 GB/s), prefetching 6 rows ahead.
TEXT ·rowsB4x64AVX512(SB), NOSPLIT, $0-56
	SETUPROWSB
	LEAQ (R9)(R9*2), R11
	SHLQ $1, R11               // 6 rows of B
	ZEROZ0TO7
	ZEROZ8TO15

loop64:
	PREFETCHT0  (BX)(R11*1)
	PREFETCHT0  128(BX)(R11*1)
	VMOVUPS     (BX), Z20
	VMOVUPS     64(BX), Z21
	VMOVUPS     128(BX), Z22
	VMOVUPS     192(BX), Z23
	VBROADCASTSS (AX), Z24
	VBROADCASTSS (AX)(R8*1), Z25
	VBROADCASTSS (R10), Z26
	VBROADCASTSS (R10)(R8*1), Z27
	VFMADD231PS Z20, Z24, Z0
	VFMADD231PS Z21, Z24, Z1
	VFMADD231PS Z22, Z24, Z2
	VFMADD231PS Z23, Z24, Z3
	VFMADD231PS Z20, Z25, Z4
	VFMADD231PS Z21, Z25, Z5
	VFMADD231PS Z22, Z25, Z6
	VFMADD231PS Z23, Z25, Z7
	VFMADD231PS Z20, Z26, Z8
	VFMADD231PS Z21, Z26, Z9
	VFMADD231PS Z22, Z26, Z10
	VFMADD231PS Z23, Z26, Z11
	VFMADD231PS Z20, Z27, Z12
	VFMADD231PS Z21, Z27, Z13
	VFMADD231PS Z22, Z27, Z14
	VFMADD231PS Z23, Z27, Z15
	ADDQ        $4, AX
	ADDQ        $4, R10
	ADDQ        R9, BX
	DECQ        CX
	JNZ         loop64

	STOREROW64(Z0, Z1, Z2, Z3)
	ADDQ DX, DI
	STOREROW64(Z4, Z5, Z6, Z7)
	ADDQ DX, DI
	STOREROW64(Z8, Z9, Z10, Z11)
	ADDQ DX, DI
	STOREROW64(Z12, Z13, Z14, Z15)
	VZEROUPPER
	RET

// func rowsB4x8AVX2(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
TEXT ·rowsB4x8AVX2(SB), NOSPLIT, $0-56
	SETUPROWSB
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

loop256:
	VMOVUPS      (BX), Y4
	VBROADCASTSS (AX), Y5
	VBROADCASTSS (AX)(R8*1), Y6
	VBROADCASTSS (R10), Y7
	VBROADCASTSS (R10)(R8*1), Y8
	VFMADD231PS  Y4, Y5, Y0
	VFMADD231PS  Y4, Y6, Y1
	VFMADD231PS  Y4, Y7, Y2
	VFMADD231PS  Y4, Y8, Y3
	ADDQ         $4, AX
	ADDQ         $4, R10
	ADDQ         R9, BX
	DECQ         CX
	JNZ          loop256

	VMOVUPS Y0, (DI)
	VMOVUPS Y1, (DI)(DX*1)
	LEAQ    (DI)(DX*2), DI
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, (DI)(DX*1)
	VZEROUPPER
	RET
