//go:build ignore

// gen_q4many writes kernel_q4many_amd64.s, the many-row 4-bit kernels
// (q4_many.go), which are unrolled: go generate ./internal/gemm.
package main

import (
	"fmt"
	"os"
	"strings"
)

// tile is one kernel's shape.
type tile struct {
	name, comment   string
	rows, cols      int
	vec             string // register prefix: Z or Y
	vbytes          int    // bytes a vector
	stepShift       int    // log2 of a step's values
	rowReg, wReg    int    // first register of the rows' vectors, of the columns'
	wRegs           int    // column registers used in turn
	zero, hsum      string // the accumulators' clearing, one output's sum of Z0/Y0
	prefetchW2, r15 bool   // a second column prefetch line; R15 = 3·ldc for a fourth row
	label           string
}

const fileHeader = `#include "textflag.h"
#include "kernel_q4_amd64.h"

// The many-row 4-bit kernels (q4_many.go): register tiles over a
// dequantized tile of columns (q4DeqAVX512, q4DeqAVX2), in the lookup
// kernels' arithmetic, unrolled: per pass-step, the row vectors, then
// each column's vector and its FMAs into the outputs' registers; then the
// outputs' sums, one at a time. Written by gen_q4many.go (go generate);
// do not edit.

`

var tiles = []tile{
	{name: "q4Many4x6AVX512", comment: `// func q4Many4x6AVX512(k int, a, w, c *float32, ldc int, tmp *float32, pass int)
// computes the 4×6 outputs c[r·ldc + j] = a_r · w_j of four rows of
// prepared activations (a: [K/64][4][64], prepQ4A's layout for groups of
// four rows) and six columns of dequantized values (w: [K/64][6][64],
// q4DeqAVX512's with a step stride of six steps), each in the lookup
// order of q4Cols1AVX512's steps and in its arithmetic: step vector t
// into accumulator t mod 2 of each output, the two added, HSUM512. Each
// output has one register, Z(6r+j), and a call one accumulator: pass 0
// adds the even vectors and stores the 24 accumulators to tmp (24 × 16
// floats); pass 1 adds the odd ones, adds tmp's, and stores the sums.
// One register an output instead of two gives the tile twice the
// outputs for the loads, and a pass reads half the rows' bytes, which
// then stay in L1 while the columns pass.
`, rows: 4, cols: 6, vec: "Z", vbytes: 64, stepShift: 6,
		rowReg: 24, wReg: 28, wRegs: 2, zero: "\tZEROZ0TO7\n\tZEROZ8TO15\n" + vpxord(16, 24),
		hsum: "HSUM512(Z0, Y0, X0, Y1, X1)", prefetchW2: true, r15: true, label: "46"},
	{name: "q4Many3x4AVX2", comment: `// func q4Many3x4AVX2(k int, a, w, c *float32, ldc int, tmp *float32, pass int)
// is q4Many4x6AVX512 for q4Cols1AVX2's steps (32 values): three rows (a:
// [K/32][3][32]) and four columns (w: [K/32][4][32]), output (r, j) in
// Y(4r+j), tmp 12 × 8 floats, HSUM256. A step's four vectors come in the
// order t 0, 2, 1, 3 (q4ManyOrder), so that each pass reads whole cache
// lines of its own.
`, rows: 3, cols: 4, vec: "Y", vbytes: 32, stepShift: 5,
		rowReg: 12, wReg: 15, wRegs: 1, zero: "\tZEROY0TO11\n",
		hsum: "HSUM256(Y0, X0, X1)", label: "34"},
}

func main() {
	var b strings.Builder
	b.WriteString(fileHeader)
	for i, t := range tiles {
		if i > 0 {
			b.WriteString("\n")
		}
		t.write(&b)
	}
	if err := os.WriteFile("kernel_q4many_amd64.s", []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// vpxord clears Z registers [lo, hi).
func vpxord(lo, hi int) string {
	var s string
	for i := lo; i < hi; i++ {
		s += fmt.Sprintf("\tVPXORD Z%d, Z%d, Z%d\n", i, i, i)
	}
	return s
}

// at is addr with byte offset off.
func at(off int, addr string) string {
	if off == 0 {
		return addr
	}
	return fmt.Sprintf("%d%s", off, addr)
}

// write writes t's kernel: a pass over the steps adds two of each step's
// four vectors (a step's vectors are 4·vbytes apart per row and column;
// the pass's two are 2·vbytes apart for Z, vbytes for Y: q4ManyOrder)
// into one register an output; pass 0 stores them to tmp, pass 1 adds
// tmp's and stores each output's sum.
func (t tile) write(b *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format+"\n", a...) }
	rowStep, colStep := t.rows*4*t.vbytes, t.cols*4*t.vbytes
	half := 2 * t.vbytes // the pass's second vector
	if t.vec == "Y" {
		half = t.vbytes
	}
	n := t.rows * t.cols
	b.WriteString(t.comment)
	p("TEXT ·%s(SB), NOSPLIT, $0-56", t.name)
	p("\tMOVQ tmp+40(FP), SI")
	p("\tMOVQ pass+48(FP), R10")
	p("\tSHLQ $6, R10              // 0: the even vectors, 64: the odd ones (byte offset)")
	p("\tMOVQ k+0(FP), CX")
	p("\tSHRQ $%d, CX               // steps", t.stepShift)
	p("\tMOVQ a+8(FP), AX")
	p("\tMOVQ w+16(FP), BX")
	p("\tADDQ R10, AX")
	p("\tADDQ R10, BX")
	b.WriteString(t.zero)
	p("\nstep%s:", t.label)
	p("\tPREFETCHT0 %d(AX)", rowStep)
	p("\tPREFETCHT0 %d(BX)", colStep)
	if t.prefetchW2 {
		p("\tPREFETCHT0 %d(BX)", colStep+64)
	}
	for h := range 2 {
		for r := range t.rows {
			p("\tVMOVUPS %s, %s%d", at(r*4*t.vbytes+h*half, "(AX)"), t.vec, t.rowReg+r)
		}
		for j := range t.cols {
			w := t.wReg + j%t.wRegs
			p("\tVMOVUPS %s, %s%d", at(j*4*t.vbytes+h*half, "(BX)"), t.vec, w)
			for r := range t.rows {
				p("\tVFMADD231PS %s%d, %s%d, %s%d", t.vec, t.rowReg+r, t.vec, w, t.vec, t.cols*r+j)
			}
		}
	}
	p("\tADDQ $%d, AX", rowStep)
	p("\tADDQ $%d, BX", colStep)
	p("\tDECQ CX")
	p("\tJNZ  step%s", t.label)
	p("\tTESTQ R10, R10")
	p("\tJNZ  odd%s", t.label)
	for i := range n {
		p("\tVMOVUPS %s%d, %s", t.vec, i, at(t.vbytes*i, "(SI)"))
	}
	p("\tVZEROUPPER")
	p("\tRET")
	p("\nodd%s:", t.label)
	for i := range n {
		p("\tVADDPS %s, %s%d, %s%d", at(t.vbytes*i, "(SI)"), t.vec, i, t.vec, i)
		p("\tVMOVUPS %s%d, %s", t.vec, i, at(t.vbytes*i, "(SI)"))
	}
	p("\tMOVQ c+24(FP), DI")
	p("\tMOVQ ldc+32(FP), DX")
	p("\tSHLQ $2, DX")
	if t.r15 {
		p("\tLEAQ (DX)(DX*2), R15")
	}
	rowAddr := []string{"(DI)", "(DI)(DX*1)", "(DI)(DX*2)", "(DI)(R15*1)"}
	for r := range t.rows {
		for j := range t.cols {
			p("\tVMOVUPS %s, %s0", at(t.vbytes*(t.cols*r+j), "(SI)"), t.vec)
			p("\t%s", t.hsum)
			p("\tVMOVSS X0, %s", at(4*j, rowAddr[r]))
		}
	}
	p("\tVZEROUPPER")
	p("\tRET")
}
