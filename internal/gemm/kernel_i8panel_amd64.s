#include "textflag.h"

// The screening copy of a packed panel (screen_panel.go): 32 rows of a
// PackedBF16 panel ([K/2][32][2] words: a pair step is 32 dwords, row r's
// dword holding its even k in the low word, its odd k in the high one) or
// of a PackedB panel ([K][32] floats), rows as lanes (rows 0–15 in one
// vector, 16–31 in another), so that every operation is vertical and the
// codes of 4 consecutive k pack into the integer screen's interleaved
// layout (screen_int.go) without shuffles.

// PANELWIDEN(src, even, odd) widens a pair step's dwords to floats.
#define PANELWIDEN(src, even, odd) \
	VPSLLD $16, src, even \
	VPANDD Z30, src, odd

// ABSMAXSTART loads the absolute maxima kernels' arguments (SI the panel,
// CX its steps, DI out) and zeroes their sums: maxima in Z16 (rows 0–15)
// and Z17 (16–31), finiteness checks in Z18 and Z19.
#define ABSMAXSTART \
	MOVQ         p+0(FP), SI \
	MOVQ         steps+8(FP), CX \
	MOVQ         out+16(FP), DI \
	MOVL         $0xffff0000, AX \
	VPBROADCASTD AX, Z30 \
	MOVL         $0x7fffffff, AX \
	VPBROADCASTD AX, Z31 \
	VPXORD       Z29, Z29, Z29 \
	VPXORD       Z16, Z16, Z16 \
	VPXORD       Z17, Z17, Z17 \
	VPXORD       Z18, Z18, Z18 \
	VPXORD       Z19, Z19, Z19

// ABSMAX(w, m, nan) adds the floats w to the maxima m of |w| and to the
// finiteness checks nan (Σ w·0), clobbering w.
#define ABSMAX(w, m, nan) \
	VFMADD231PS Z29, w, nan \
	VPANDD      Z31, w, w \
	VMAXPS      w, m, m

// QNEXT(bytes) moves a quantization kernel to its next step of 4 k (the
// panel on by bytes, each block by 64) and counts it down.
#define QNEXT(bytes) \
	ADDQ bytes, SI \
	ADDQ $64, DI \
	ADDQ $64, DX \
	DECQ CX

// STORERET(a, b, c, d, dst) stores a kernel's four sums at dst and returns.
#define STORERET(a, b, c, d, dst) \
	VMOVUPS a, (dst) \
	VMOVUPS b, 64(dst) \
	VMOVUPS c, 128(dst) \
	VMOVUPS d, 192(dst) \
	VZEROUPPER \
	RET

// PQUANT(w, c, inv, sc, em, e2) quantizes the floats w into the int32
// codes c = trunc(w·inv ± ½), w becoming |fl(w − sc·c)| (one rounding,
// FMA), its lane maxima into em and squares into e2 (Z8, Z9 scratch).
#define PQUANT(w, c, inv, sc, em, e2) \
	VMULPS       inv, w, Z8 \
	VPANDD       Z28, Z8, Z9 \
	VPORD        Z29, Z9, Z9 \
	VADDPS       Z9, Z8, Z8 \
	VCVTTPS2DQ   Z8, c \
	VCVTDQ2PS    c, Z8 \
	VFNMADD231PS sc, Z8, w \
	VPANDD       Z31, w, w \
	VMAXPS       w, em, em \
	VFMADD231PS  w, w, e2

// PHALF(off, inv, sc, em, e2, dst) quantizes one half's 4 k (two pair
// steps at off and off+128 from SI) and stores their 16 dwords of codes,
// each code plus 128, at dst.
#define PHALF(off, inv, sc, em, e2, dst) \
	VMOVDQU32  off(SI), Z0 \
	VMOVDQU32  off+128(SI), Z2 \
	VPANDD     Z30, Z0, Z1 \
	VPSLLD     $16, Z0, Z0 \
	VPANDD     Z30, Z2, Z3 \
	VPSLLD     $16, Z2, Z2 \
	PCODES(inv, sc, em, e2, dst)

// PHALF32(off, inv, sc, em, e2, dst) is PHALF for a PackedB panel: its 4
// k are four steps, at off, off+128, off+256 and off+384 from SI.
#define PHALF32(off, inv, sc, em, e2, dst) \
	VMOVUPS off(SI), Z0 \
	VMOVUPS off+128(SI), Z1 \
	VMOVUPS off+256(SI), Z2 \
	VMOVUPS off+384(SI), Z3 \
	PCODES(inv, sc, em, e2, dst)

// PCODES(inv, sc, em, e2, dst) quantizes the floats of 4 consecutive k in
// Z0:Z3 and stores their 16 dwords of codes, each code plus 128, at dst.
#define PCODES(inv, sc, em, e2, dst) \
	PQUANT(Z0, Z4, inv, sc, em, e2) \
	PQUANT(Z1, Z5, inv, sc, em, e2) \
	PQUANT(Z2, Z6, inv, sc, em, e2) \
	PQUANT(Z3, Z7, inv, sc, em, e2) \
	VPANDD     Z27, Z4, Z4 \
	VPSLLD     $24, Z5, Z5 \
	VPSRLD     $16, Z5, Z5 \
	VPSLLD     $24, Z6, Z6 \
	VPSRLD     $8, Z6, Z6 \
	VPSLLD     $24, Z7, Z7 \
	VPTERNLOGD $0xfe, Z6, Z5, Z4 \
	VPTERNLOGD $0x56, Z26, Z7, Z4 \
	VMOVDQU32  Z4, dst

// QUANTSTART loads the quantization kernels' arguments (SI the panel, CX
// its steps of 4 k, DI and DX the two blocks, BX out; the rows' inv in
// Z20:Z21, sc in Z22:Z23) and constants, and zeroes their sums (error
// maxima in Z10:Z11, squares in Z12:Z13).
#define QUANTSTART \
	MOVQ         p+0(FP), SI \
	MOVQ         k4+8(FP), CX \
	MOVQ         inv+16(FP), AX \
	VMOVUPS      (AX), Z20 \
	VMOVUPS      64(AX), Z21 \
	MOVQ         sc+24(FP), AX \
	VMOVUPS      (AX), Z22 \
	VMOVUPS      64(AX), Z23 \
	MOVQ         u0+32(FP), DI \
	MOVQ         u1+40(FP), DX \
	MOVQ         out+48(FP), BX \
	MOVL         $0xffff0000, AX \
	VPBROADCASTD AX, Z30 \
	MOVL         $0x7fffffff, AX \
	VPBROADCASTD AX, Z31 \
	MOVL         $0x80000000, AX \
	VPBROADCASTD AX, Z28 \
	MOVL         $0x3f000000, AX \
	VPBROADCASTD AX, Z29 \
	MOVL         $0xff, AX \
	VPBROADCASTD AX, Z27 \
	MOVL         $0x80808080, AX \
	VPBROADCASTD AX, Z26 \
	VPXORD       Z10, Z10, Z10 \
	VPXORD       Z11, Z11, Z11 \
	VPXORD       Z12, Z12, Z12 \
	VPXORD       Z13, Z13, Z13

// func i8PanelAbsMaxAVX512(p *uint16, steps int, out *[64]float32)
// out[r] = max_k |w_r[k]| and out[32+r] = Σ_k w_r[k]·0 (NaN where a value
// is NaN or infinite) over steps pair steps.
TEXT ·i8PanelAbsMaxAVX512(SB), NOSPLIT, $0-24
	ABSMAXSTART

pabs:
	VMOVDQU32 (SI), Z0
	VMOVDQU32 64(SI), Z1
	PANELWIDEN(Z0, Z2, Z3)
	PANELWIDEN(Z1, Z4, Z5)
	ABSMAX(Z2, Z16, Z18)
	ABSMAX(Z3, Z16, Z18)
	ABSMAX(Z4, Z17, Z19)
	ABSMAX(Z5, Z17, Z19)
	ADDQ      $128, SI
	DECQ      CX
	JNZ       pabs
	STORERET(Z16, Z17, Z18, Z19, DI)

// func i8PanelAbsMaxF32AVX512(p *float32, steps int, out *[64]float32) is
// i8PanelAbsMaxAVX512 for a PackedB panel (a step is one k).
TEXT ·i8PanelAbsMaxF32AVX512(SB), NOSPLIT, $0-24
	ABSMAXSTART

pabs32:
	VMOVUPS (SI), Z2
	VMOVUPS 64(SI), Z4
	ABSMAX(Z2, Z16, Z18)
	ABSMAX(Z4, Z17, Z19)
	ADDQ    $128, SI
	DECQ    CX
	JNZ     pabs32
	STORERET(Z16, Z17, Z18, Z19, DI)

// func i8PanelQuantAVX512(p *uint16, k4 int, inv, sc *float32, u0, u1 *uint8, out *[64]float32)
// quantizes the panel's 32 rows (inv and sc: 32 each) for k4 steps of 4
// k, rows 0–15's codes into the interleaved block at u0, rows 16–31's at
// u1; out[r] = the largest |fl(w − sc·q)| of row r, out[32+r] the
// sum of their squares. The caller has checked |w·inv| < 127.5.
TEXT ·i8PanelQuantAVX512(SB), NOSPLIT, $0-56
	QUANTSTART

pquant:
	PHALF(0, Z20, Z22, Z10, Z12, (DI))
	PHALF(64, Z21, Z23, Z11, Z13, (DX))
	QNEXT($256)
	JNZ pquant
	STORERET(Z10, Z11, Z12, Z13, BX)

// func i8PanelQuantF32AVX512(p *float32, k4 int, inv, sc *float32, u0, u1 *uint8, out *[64]float32)
// is i8PanelQuantAVX512 for a PackedB panel.
TEXT ·i8PanelQuantF32AVX512(SB), NOSPLIT, $0-56
	QUANTSTART

pquant32:
	PHALF32(0, Z20, Z22, Z10, Z12, (DI))
	PHALF32(64, Z21, Z23, Z11, Z13, (DX))
	QNEXT($512)
	JNZ pquant32
	STORERET(Z10, Z11, Z12, Z13, BX)
