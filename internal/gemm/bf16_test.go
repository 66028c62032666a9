package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randBF16 holds bfloat16 values of mixed signs and magnitudes (and a few
// zeros and subnormals), and their widened f32 values.
func randBF16(rng *rand.Rand, n int) ([]uint16, []float32) {
	b, wide := make([]uint16, n), make([]float32, n)
	for i, f := range randSlice(rng, n) {
		u := uint16(math.Float32bits(f) >> 16)
		if rng.IntN(64) == 0 {
			u = uint16(rng.IntN(1<<7)) | uint16(rng.IntN(2))<<15 // subnormal
		}
		b[i], wide[i] = u, WidenBF16(u)
	}
	return b, wide
}

// bf16Kernels lists the kernels this CPU runs whose bf16 twins pass the
// self-check (all of them, unless one is broken), each also with tiny
// blocks (many K blocks continued through C, row blocks, column groups).
func bf16KernelsHere(t *testing.T) []*kernel {
	var ks []*kernel
	for _, kn := range available() {
		if kn.bf16 == nil || (kn != goKernel && !selfCheckBF16(kn)) {
			t.Errorf("kernel %s: no bf16 twins or they fail the self-check", kn.name)
			continue
		}
		small := *kn
		small.name += "/small-blocks"
		small.kc, small.mc, small.nc = 7, 2*kn.mr, 3*kn.nr
		ks = append(ks, kn, &small)
	}
	return ks
}

// TestBF16MatchesWidened: MatMulBF16 on every kernel this CPU runs gives,
// for every row count (one row, few rows, full and edge tiles), column
// count (edge panels), even K (several K blocks) and thread count, the
// bits of the same kernel's f32 MatMul on the widened weight, and of the
// Go reference; c's stride gaps stay untouched.
func TestBF16MatchesWidened(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type shape struct{ m, n, k, threads int }
	var cases []shape
	for m := 1; m <= 19; m++ {
		cases = append(cases, shape{m, 37 + 3*m, 2 + 2*rng.IntN(40), 1})
	}
	cases = append(cases, shape{1, 4864, 896, 2}, shape{16, 896, 4864, 2}, shape{3, 300, 1100, 3},
		shape{70, 90, 520, 2}, shape{9, 65, 2, 1}, shape{33, 129, 1030, 4})
	for _, kn := range bf16KernelsHere(t) {
		for _, c := range cases {
			for _, transB := range []bool{false, true} {
				name := fmt.Sprintf("%s/m%d_n%d_k%d_th%d_t%v", kn.name, c.m, c.n, c.k, c.threads, transB)
				lda, ldc, ldb := c.k+1, c.n+2, c.n+3
				if transB {
					ldb = c.k + 3
				}
				rows, cols := c.k, c.n
				if transB {
					rows, cols = c.n, c.k
				}
				b, wide := randBF16(rng, (rows-1)*ldb+cols)
				a := randSlice(rng, (c.m-1)*lda+c.k)
				want := nanSlice(c.m * ldc)
				matMul(want, ldc, a, lda, c.m, packB(kn, wide, c.k, c.n, ldb, transB), c.threads)
				if c.m*c.n*c.k < 1<<22 {
					ref := nanSlice(c.m * ldc)
					reference(ref, ldc, a, lda, c.m, wide, c.k, c.n, ldb, transB)
					sameBits(t, name+"/f32 vs reference", want, ref)
				}
				got := nanSlice(c.m * ldc)
				pb := packBBF16(kn, b, c.k, c.n, ldb, transB)
				matMulBF16(got, ldc, a, lda, c.m, pb, c.threads)
				sameBits(t, name, got, want)
			}
		}
	}
}

// matMulBF16 is MatMulBF16 with b's own kernel (the tests' kernels).
func matMulBF16(c []float32, ldc int, a []float32, lda, m int, b *PackedBF16, threads int) {
	MatMulBF16(c, ldc, a, lda, m, b, threads)
}

// TestPackInPlaceBF16: a bf16 weight packed in its own storage multiplies
// to the bits of the same weight packed into a copy, for every kernel and
// thread count; WidenRowTo reads its rows widened; UnpackTo and Unpack
// give the weight back.
func TestPackInPlaceBF16(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, kern := range bf16KernelsHere(t) {
		for _, c := range []struct{ m, n, k, threads int }{
			{1, kern.nr, 6, 1}, {9, 2 * kern.nr, 38, 2}, {70, 5 * kern.nr, 300, 3}, {3, 4 * kern.nr, 2*kern.kc + 18, 2},
		} {
			t.Run(fmt.Sprintf("%s/m%d_n%d_k%d_th%d", kern.name, c.m, c.n, c.k, c.threads), func(t *testing.T) {
				w, wide := randBF16(rng, c.n*c.k)
				a := randSlice(rng, c.m*c.k)
				orig := slices.Clone(w)
				want := make([]float32, c.m*c.n)
				matMul(want, c.n, a, c.k, c.m, packB(kern, wide, c.k, c.n, c.k, true), c.threads)

				pb := packInPlaceBF16(kern, w, c.n, c.k, c.threads)
				if &pb.data[0] != &w[0] {
					t.Fatal("PackInPlaceBF16 did not pack in the weight's storage")
				}
				got := make([]float32, c.m*c.n)
				MatMulBF16(got, c.n, a, c.k, c.m, pb, c.threads)
				sameBits(t, "in-place packed product", got, want)

				row := make([]float32, c.k)
				for _, j := range []int{0, c.n / 2, c.n - 1} {
					pb.WidenRowTo(row, j)
					sameBits(t, fmt.Sprintf("WidenRowTo(%d)", j), row, wide[j*c.k:(j+1)*c.k])
				}
				back := make([]uint16, len(w))
				pb.UnpackTo(back)
				if !slices.Equal(back, orig) {
					t.Fatal("UnpackTo did not give the weight back")
				}
				if !slices.Equal(pb.Unpack(c.threads), orig) {
					t.Fatal("Unpack did not give the weight back")
				}
			})
		}
	}
}

// TestBF16Choose: GOEVAL_GEMM_KERNEL's forcing applies to the bf16
// kernels, and a kernel whose bf16 twin fails the self-check is skipped.
func TestBF16Choose(t *testing.T) {
	cands := available()
	if got := chooseBF16(cands, ""); got != cands[0] {
		t.Errorf("default %s, want %s", got.name, cands[0].name)
	}
	if got := chooseBF16(cands, "go"); got != goKernel {
		t.Errorf("forced go: got %s", got.name)
	}
	bad := *goKernel
	bad.name = "bad"
	full := goKernel.bf16.full
	bad.bf16 = &bf16Kernels{full: func(k int, a []float32, b []uint16, c []float32, ldc int, load bool, pf hintBF16) {
		full(k, a, b, c, ldc, load, pf)
		c[ldc+1] += 1e-3 // one wrong element, in row 1 (the full kernel's)
	}}
	if got := chooseBF16([]*kernel{&bad, goKernel}, ""); got != goKernel {
		t.Errorf("a kernel failing the bf16 self-check was chosen")
	}
	if KernelBF16() != defaultKernelBF16().name {
		t.Errorf("KernelBF16() = %q", KernelBF16())
	}
}

// TestBF16Panics: odd K, short slices and a misshapen in-place weight are
// programmer errors with a clear message.
func TestBF16Panics(t *testing.T) {
	nr := defaultKernelBF16().nr
	pb := PackBBF16(make([]uint16, 12), 4, 3, 3, false)
	for name, f := range map[string]func(){
		"odd k":          func() { PackBBF16(make([]uint16, 9), 3, 3, 3, false) },
		"short b":        func() { PackBBF16(make([]uint16, 11), 4, 3, 3, false) },
		"short a":        func() { MatMulBF16(make([]float32, 6), 3, make([]float32, 7), 4, 2, pb, 1) },
		"nil b":          func() { MatMulBF16(nil, 0, nil, 0, 0, nil, 1) },
		"in place n":     func() { PackInPlaceBF16(make([]uint16, (nr+1)*4), nr+1, 4, 1) },
		"in place odd k": func() { PackInPlaceBF16(make([]uint16, nr*3), nr, 3, 1) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "gemm: ") {
					t.Errorf("%s: recovered %v, want a gemm: panic", name, r)
				}
			}()
			f()
		}()
	}
	if InPlaceOKBF16(nr, 3) || InPlaceOKBF16(nr+1, 4) || !InPlaceOKBF16(2*nr, 896) {
		t.Error("InPlaceOKBF16 disagrees with its rule (n a multiple of NR, k even)")
	}
}

// TestBF16DotMatchesDefinition: where the CPU has AVX512_BF16,
// MatMulBF16Dot gives dotReference's bits (VDPBF16PS's order: per k pair
// the odd product, then the even, each sum rounded) for every row count,
// edge column, K blocks and threads, so also the same bits for a row
// whatever m; and it stays within bf16's rounding of A of the exact
// product.
func TestBF16DotMatchesDefinition(t *testing.T) {
	if !HasBF16Dot() {
		t.Skip("no AVX512_BF16 here (or its kernel failed the self-check)")
	}
	rng := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct{ m, n, k, threads int }{
		{1, 37, 4, 1}, {3, 64, 130, 1}, {8, 96, 896, 2}, {19, 69, 1100, 3}, {70, 128, 520, 2}, {16, 4864, 896, 2},
	} {
		name := fmt.Sprintf("m%d_n%d_k%d_th%d", c.m, c.n, c.k, c.threads)
		b, wide := randBF16(rng, c.k*c.n)
		a := randSlice(rng, c.m*c.k)
		want := nanSlice(c.m * c.n)
		dotReference(want, c.n, a, c.k, c.m, b, c.k, c.n)
		got := nanSlice(c.m * c.n)
		MatMulBF16Dot(got, c.n, a, c.k, c.m, PackBBF16(b, c.k, c.n, c.n, false), c.threads)
		sameBits(t, name, got, want)
		for i := range c.m {
			for j := range c.n {
				var exact, mag float64
				for p := range c.k {
					exact += float64(a[i*c.k+p]) * float64(wide[p*c.n+j])
					mag += math.Abs(float64(a[i*c.k+p]) * float64(wide[p*c.n+j]))
				}
				if d := math.Abs(float64(got[i*c.n+j]) - exact); d > (0x1p-8+float64(c.k)*0x1p-24)*mag+1e-30 {
					t.Fatalf("%s: c[%d][%d] = %g, exact %g: |Δ| %.3g beyond A's bf16 rounding", name, i, j, got[i*c.n+j], exact, d)
				}
			}
		}
	}
}
