#include "textflag.h"

// func packA8AVX2(panel, a *float32, lda, blocks int)
// Packs 8 rows of A (row r at a + r·lda floats) into panel, [k][8], for
// blocks·8 values of k: each block of 8 columns is an 8×8 transpose in
// registers (unpack, shuffle, then swap of 128-bit halves), so a block
// costs 8 loads and 8 stores instead of 64 of each. A copy: the values'
// bits are unchanged.
TEXT ·packA8AVX2(SB), NOSPLIT, $0-32
	MOVQ panel+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), DX
	MOVQ blocks+24(FP), CX
	SHLQ $2, DX              // row stride in bytes
	LEAQ (AX)(DX*2), R9
	ADDQ DX, R9              // row 3
	LEAQ (AX)(DX*4), R10     // row 4
	LEAQ (R10)(DX*2), R11
	ADDQ DX, R11             // row 7
	TESTQ CX, CX
	JZ   done

loop:
	VMOVUPS (AX), Y0
	VMOVUPS (AX)(DX*1), Y1
	VMOVUPS (AX)(DX*2), Y2
	VMOVUPS (R9), Y3
	VMOVUPS (R10), Y4
	VMOVUPS (R10)(DX*1), Y5
	VMOVUPS (R10)(DX*2), Y6
	VMOVUPS (R11), Y7
	// Y8..Y15: pairs of rows interleaved, per 128-bit half.
	VUNPCKLPS Y1, Y0, Y8     // r0[0] r1[0] r0[1] r1[1] | r0[4] r1[4] r0[5] r1[5]
	VUNPCKHPS Y1, Y0, Y9     // r0[2] r1[2] r0[3] r1[3] | r0[6] …
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	// Y0..Y7: four rows' column j | column j+4.
	VSHUFPS $0x44, Y10, Y8, Y0   // rows 0-3, columns 0 | 4
	VSHUFPS $0xEE, Y10, Y8, Y1   // 1 | 5
	VSHUFPS $0x44, Y11, Y9, Y2   // 2 | 6
	VSHUFPS $0xEE, Y11, Y9, Y3   // 3 | 7
	VSHUFPS $0x44, Y14, Y12, Y4  // rows 4-7, columns 0 | 4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	// Column j of the eight rows: the low halves (j < 4), the high ones.
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	VMOVUPS Y10, 64(DI)
	VMOVUPS Y11, 96(DI)
	VMOVUPS Y12, 128(DI)
	VMOVUPS Y13, 160(DI)
	VMOVUPS Y14, 192(DI)
	VMOVUPS Y15, 224(DI)
	ADDQ $32, AX
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	ADDQ $256, DI
	DECQ CX
	JNZ  loop
	VZEROUPPER

done:
	RET
