package gemm

import (
	"encoding/binary"
	"math"
	"sync"
	"unsafe"
)

// The integer screen (screen.go's step 1 on CPUs with AVX512_VNNI): the
// activations are quantized too, so that the approximations are integer
// dot products, 64 multiply-adds an instruction (VPDPBUSD), and many rows
// cost little more than one (the copy is read once for all of them;
// f32 products of the copy cost a conversion per weight and row).
//
// Each activation row a is split into two int8 levels,
//
//	a_k = β₁ p_k + β₂ p'_k + δ_k,  β₁ = max|a|/127, β₂ = β₁/254,
//
// p = round(a/β₁), p' = round((a − β₁p)/β₂), so |δ_k| ≤ β₂/2 (16 bits of
// each activation, where one int8 level would keep 8 and prune far less).
// The sums S_j = Σ_k q_jk p_k and S'_j are exact (int32; K ≤ maxIntK), and
//
//	ã_j = s_j (β₁ S_j + β₂ S'_j)   (float64, then rounded to float32)
//	c_j − ã_j = Σ_k a_k e_jk + s_j Σ_k q_jk δ_k + (c_j − Σ_k a_k w_jk) − rounding
//
// so β_j = γ_K M_j ‖a‖₁ + min(E_j ‖a‖₁, R_j ‖a‖₂) + M_j ‖δ‖₁ (|s_j q_jk| ≤
// M_j) + 2⁻²³ M_j (‖a‖₁ + ‖δ‖₁) for the rounding to float32 (and f64's, far
// smaller, inside RowsI8.beta's margin). ‖δ‖₁ is summed from the f64
// residuals with a margin for their rounding.
//
// The copy is held for it interleaved: blocks of 16 rows, each [K4][16][4]
// bytes (16 rows' 4 consecutive codes a 64-byte vector, K4 = ⌈K/4⌉, the
// codes past K and the rows past N zero), each code stored plus 128 (the
// unsigned operand). The activations are the broadcast signed operand:
// 4 codes a dword, for mq quantized rows as [K4][mq]; the kernel's sums
// then carry 128·Σ_k p_k, which is taken off.

// HasIntScreen reports whether the CPU screens with the integer products
// (QuantizeRowsI8 then makes the copy for them, for rows of up to
// 65536 values).
func HasIntScreen() bool {
	kn := defaultKernel().i8
	return kn != nil && kn.ints != nil
}

// maxIntK is the longest row the integer sums hold exactly in int32
// (|Σ (q+128)·p| ≤ 255·127·K < 2³¹).
const maxIntK = 65536

// intRows is the quantized activation rows a kernel call takes at most
// (two levels of 8 activation rows).
const intRows = 16

// intActs is a group of up to 8 activation rows quantized for the kernel.
type intActs struct {
	mq           int     // quantized rows: 2 per activation row, padded to 4, 8 or 16
	p            []int32 // [K4][mq]
	beta1, beta2 []float64
	sum1, sum2   []int64   // Σ_k p_k and Σ_k p'_k of each row
	d1           []float64 // ‖δ‖₁, rounded up
}

// quantActs quantizes rows a ([rows][K]) as intActs for a K4-step copy.
func quantActs(a []float32, rows, k, k4 int) *intActs {
	mq := 4
	for mq < 2*rows {
		mq *= 2
	}
	g := &intActs{mq: mq, p: make([]int32, k4*mq), beta1: make([]float64, rows), beta2: make([]float64, rows),
		sum1: make([]int64, rows), sum2: make([]int64, rows), d1: make([]float64, rows)}
	codes := make([]int8, 2*4*k4)
	for r := range rows {
		g.quantRow(r, a[r*k:(r+1)*k], codes)
		for i := range k4 {
			g.p[i*mq+2*r] = packDword(codes[4*i:])
			g.p[i*mq+2*r+1] = packDword(codes[4*k4+4*i:])
		}
	}
	return g
}

// quantRow sets row r's levels from a into codes ([2][4·K4], the codes
// past K left zero) and its scales, sums and ‖δ‖₁.
func (g *intActs) quantRow(r int, a []float32, codes []int8) {
	m := 0.0
	for _, v := range a {
		m = max(m, math.Abs(float64(v)))
	}
	b1 := m / 127
	if b1 == 0 {
		b1 = 1 // every code 0, δ = a = 0
	}
	b2 := b1 / 254
	half := len(codes) / 2
	var s1, s2 int64
	var d1 float64
	for k, v := range a {
		p := clampCode(math.Round(float64(v) / b1))
		t := float64(v) - b1*float64(p)
		p2 := clampCode(math.Round(t / b2))
		d := math.Abs(t - b2*float64(p2))
		codes[k], codes[half+k] = p, p2
		s1, s2 = s1+int64(p), s2+int64(p2)
		d1 += d
	}
	// Each residual is within a few f64 roundings of magnitude ≤ 2m.
	slack := float64(len(a)) * m * 0x1p-49
	g.beta1[r], g.beta2[r], g.sum1[r], g.sum2[r] = b1, b2, s1, s2
	g.d1[r] = (d1 + slack) * (1 + 1e-12)
}

func clampCode(x float64) int8 { return int8(max(-127, min(127, x))) }

// packDword packs four codes as the kernel's broadcast dword (k the low
// byte).
func packDword(c []int8) int32 {
	return int32(uint32(uint8(c[0])) | uint32(uint8(c[1]))<<8 | uint32(uint8(c[2]))<<16 | uint32(uint8(c[3]))<<24)
}

// intDot sets approx[r·N + j] = ã_j for each of the m rows of a and
// returns their quantized forms (δ's norms for the bounds), the copy's
// blocks split over up to threads goroutines, each slice read from memory
// once for all rows.
func (s *RowsI8) intDot(kern *i8Kernels, approx, a []float32, m, threads int) []*intActs {
	k4 := (s.K + 3) / 4
	var groups []*intActs
	for r0 := 0; r0 < m; r0 += intRows / 2 {
		rows := min(m-r0, intRows/2)
		groups = append(groups, quantActs(a[r0*s.K:(r0+rows)*s.K], rows, s.K, k4))
	}
	intSums(kern.ints, s.u, s.N, k4, groups, threads, func(gi int, g *intActs, out []int32, b0, b1 int) {
		for r := range len(g.beta1) {
			s.intApprox(approx[(gi*intRows/2+r)*s.N:], g, r, out, b0, b1)
		}
	})
	return groups
}

// intSums runs the integer kernel ints over the interleaved codes u of n
// rows (k4 dwords each) for every group of quantized rows, the copy's
// 16-row blocks split over up to threads goroutines, each slice read from
// memory once for all groups; use takes each group's sums over blocks
// [b0, b1) (out: [b1−b0][mq][16]).
func intSums(ints func(u []uint8, p []int32, k4, mq int, out []int32), u []uint8, n, k4 int, groups []*intActs, threads int,
	use func(gi int, g *intActs, out []int32, b0, b1 int)) {
	nblk := (n + 15) / 16
	slice := max(1, min(screenSlice/(64*k4), nblk/(8*max(1, threads))))
	var pool sync.Pool
	shareOut(nblk, slice, max(1, threads), true, func(b0, b1 int) {
		op := getPooled[int32](&pool, (b1-b0)*intRows*16)
		defer pool.Put(op)
		out := *op
		for gi, g := range groups {
			ints(u[b0*k4*64:b1*k4*64], g.p, k4, g.mq, out)
			use(gi, g, out, b0, b1)
		}
	})
}

// intApprox writes ã_j of row r of group g for the rows j of blocks [b0,
// b1) from the kernel's sums out ([b1−b0][mq][16]).
func (s *RowsI8) intApprox(approx []float32, g *intActs, r int, out []int32, b0, b1 int) {
	b1v, b2v := g.beta1[r], g.beta2[r]
	off1, off2 := 128*g.sum1[r], 128*g.sum2[r]
	for b := b0; b < b1; b++ {
		o := out[((b-b0)*g.mq+2*r)*16:]
		for l := range min(16, s.N-16*b) {
			j := 16*b + l
			x := b1v*float64(int64(o[l])-off1) + b2v*float64(int64(o[16+l])-off2)
			approx[j] = float32(float64(s.scale[j]) * x)
		}
	}
}

// interleave writes the blocks of rows [lo, hi) of codes q ([hi−lo][K],
// lo a multiple of 16) into the copy (above; stored code = code + 128, the
// sign bit flipped), every byte of them, padding included.
func (s *RowsI8) interleave(q []int8, lo, hi int) {
	k4 := (s.K + 3) / 4
	full := s.K / 4
	qb := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(q))), len(q)) // the codes' bytes
	var rows [16][]byte
	for b := lo / 16; b < (hi+15)/16; b++ {
		for l := range rows {
			rows[l] = nil
			if j := 16*b + l; j < hi {
				rows[l] = qb[(j-lo)*s.K : (j-lo+1)*s.K]
			}
		}
		dst := s.u[b*k4*64 : (b+1)*k4*64]
		i0 := 0
		if 16*b+16 <= hi { // a whole block: its full steps without tests
			for ; i0 < full; i0++ {
				d := dst[64*i0 : 64*i0+64]
				for l := range 16 {
					x := binary.LittleEndian.Uint32(rows[l][4*i0:])
					binary.LittleEndian.PutUint32(d[4*l:], x^0x80808080)
				}
			}
		}
		for i := i0; i < k4; i++ {
			d := dst[64*i : 64*i+64]
			for l, row := range rows {
				x := uint32(0)
				switch {
				case row == nil:
				case i < full:
					x = binary.LittleEndian.Uint32(row[4*i:])
				default: // the last codes, then zeros
					var c [4]byte
					copy(c[:], row[4*i:])
					x = binary.LittleEndian.Uint32(c[:])
				}
				binary.LittleEndian.PutUint32(d[4*l:], x^0x80808080)
			}
		}
	}
}

// newInterleaved allocates the interleaved copy's codes (interleave
// writes all of them).
func newInterleaved(n, k int) []uint8 { return make([]uint8, (n+15)/16*((k+3)/4)*64) }

// code returns the code of row j at k, in either layout.
func (s *RowsI8) code(j, k int) int8 {
	if s.u == nil {
		return s.q[j*s.K+k]
	}
	k4 := (s.K + 3) / 4
	return int8(int(s.u[((j/16)*k4+k/4)*64+(j%16)*4+k%4]) - 128)
}

// intsGo is the integer kernel in Go: out[b][r][l] = Σ_{i,t}
// u[b][i][l][t] · p[i][r] byte t, for the blocks of u.
func intsGo(u []uint8, p []int32, k4, mq int, out []int32) {
	for b := range len(u) / (64 * k4) {
		for r := range mq {
			for l := range 16 {
				var acc int32
				for i := range k4 {
					w, x := u[(b*k4+i)*64+4*l:], p[i*mq+r]
					for t := range 4 {
						acc += int32(w[t]) * int32(int8(x>>(8*t)))
					}
				}
				out[(b*mq+r)*16+l] = acc
			}
		}
	}
}
