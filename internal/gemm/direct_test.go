package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// genericDirect is genericKernel with direct twins (A in place), so that
// the direct path's blocking and edge code run on every architecture. Its
// narrow kernels spoil the columns they need not compute.
func genericDirect(mr, nr int) *kernel {
	kn := genericKernel(mr, nr)
	packed := kn.run
	kn.direct = func(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
		ap := make([]float32, k*mr)
		for r := 0; r < mr; r++ {
			for p := 0; p < k; p++ {
				ap[p*mr+r] = a[r*lda+p]
			}
		}
		packed(k, ap, b, c, ldc, load, pf)
	}
	direct := kn.direct
	kn.narrow = func(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
		direct(k, a, lda, b, c, ldc, load, pf)
		for r := 0; r < mr; r++ {
			for j := nr / 2; j < nr; j++ {
				c[r*ldc+j] = float32(math.NaN())
			}
		}
	}
	kn.narrow2 = func(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
		kn.narrow(k, a, lda, b, c, ldc, load, pf)
		kn.narrow(k, a[mr*lda:], lda, b, c[mr*ldc:], ldc, load, pf)
	}
	kn.name += "+direct"
	kn.maxDirect = 2
	return kn
}

// directKernels are the kernels with a direct path to test: this CPU's,
// with their blocking and with tiny blocks (many K blocks continued
// through C), and generic ones.
func directKernels() []*kernel {
	var ks []*kernel
	for _, kn := range available() {
		if kn.direct == nil {
			continue
		}
		small := *kn
		small.name += "/small-blocks"
		small.kc, small.mc, small.nc = 7, 2*kn.mr, 3*kn.nr
		ks = append(ks, kn, &small)
	}
	return append(ks, genericDirect(6, 16), genericDirect(5, 3))
}

// directShapes are decode-like products: m weight rows (not all multiples
// of 6) × K, times N = 1…40 columns, A at stride K or more.
func directShapes(rng *rand.Rand) []*problem {
	ns := []int{1, 2, 3, 5, 8, 15, 16, 17, 24, 31, 32, 33, 40}
	var ps []*problem
	for m := 1; m <= 40; m++ {
		for i, k := range []int{1, 13, 896} {
			n := ns[(m+i)%len(ns)]
			ps = append(ps, newProblem(rng, m, n, k, (m+i)%3, m%2 == 0, 1+m%2))
		}
	}
	for n := 1; n <= 40; n++ {
		ps = append(ps, newProblem(rng, 13+n%7, n, 37+n, n%2, n%3 == 0, 1))
	}
	for _, s := range [][4]int{{13, 1, 4864, 1}, {12, 8, 4864, 2}, {40, 40, 4864, 2}, {7, 17, 4864, 1},
		{37, 9, 896, 2}, {100, 3, 896, 2}, {101, 16, 300, 2}, {66, 32, 1025, 2}} {
		ps = append(ps, newProblem(rng, s[0], s[1], s[2], 5, s[1]%2 == 1, s[3]))
	}
	return ps
}

// TestDirectMatchesPacked: reading A in place gives the packed path's and
// the Go reference's bits on every shape, and leaves C's gaps untouched.
func TestDirectMatchesPacked(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	ps := directShapes(rng)
	ks := directKernels()
	if testing.Short() {
		ps = ps[:len(ps)/4]
	}
	for _, p := range ps {
		want := p.want()
		for _, kn := range ks {
			sameBits(t, kn.name+"/direct/"+p.name, p.run(forceDirect(kn, true)), want)
			sameBits(t, kn.name+"/packed/"+p.name, p.run(forceDirect(kn, false)), want)
		}
	}
}

// counting wraps kn's kernels to count the calls of the packed one and of
// the direct ones.
func counting(kn *kernel) (k *kernel, packed, direct *int) {
	c := *kn
	packed, direct = new(int), new(int)
	run, dir := kn.run, kn.direct
	c.run = func(k int, a, b, cc []float32, ldc int, load bool, pf hint) {
		*packed++
		run(k, a, b, cc, ldc, load, pf)
	}
	c.direct = func(k int, a []float32, lda int, b, cc []float32, ldc int, load bool, pf hint) {
		*direct++
		dir(k, a, lda, b, cc, ldc, load, pf)
	}
	c.narrow, c.narrow2 = countCalls(kn.narrow, direct), countCalls(kn.narrow2, direct)
	return &c, packed, direct
}

// countCalls is f counting its calls in *n (nil if f is).
func countCalls(f directKernel, n *int) directKernel {
	if f == nil {
		return nil
	}
	return func(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
		*n++
		f(k, a, lda, b, c, ldc, load, pf)
	}
}

// TestDirectForced: the same problem forced onto the direct path (only the
// edge row panel packed) and onto packing (no direct call), and the
// default choice by the number of B panels.
func TestDirectForced(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	ks := directKernels()
	for _, kn := range ks[len(ks)-2:] { // generic: any architecture
		const m, k = 20, 300
		mp, kb := m/kn.mr, (k+kn.kc-1)/kn.kc
		for _, n := range []int{1, kn.nr * kn.maxDirect, kn.nr*kn.maxDirect + 1} {
			p := newProblem(rng, m, n, k, 3, false, 1)
			np := (n + kn.nr - 1) / kn.nr
			want := p.want()
			for _, mode := range []string{"direct", "packed", "default"} {
				ck, packed, direct := counting(kn)
				if mode != "default" {
					ck = forceDirect(ck, mode == "direct")
				}
				sameBits(t, fmt.Sprintf("%s/%s/%s", kn.name, mode, p.name), p.run(ck), want)
				tiles := mp // full row tiles: 2·MR rows (narrow2) where they fit
				if 2*n <= kn.nr {
					tiles = mp/2 + mp%2
				}
				wantDirect := tiles * np * kb // × panels × K blocks
				if mode == "packed" || mode == "default" && np > kn.maxDirect {
					wantDirect, tiles = 0, mp
				}
				all := (tiles + (m%kn.mr+kn.mr-1)/kn.mr) * np * kb // and the edge row panel
				if *direct != wantDirect || *packed+*direct != all {
					t.Errorf("%s/%s/%s: %d direct and %d packed calls, want %d direct",
						kn.name, mode, p.name, *direct, *packed, wantDirect)
				}
			}
		}
	}
}

// directRun is one of a kernel's direct kernels and the rows it computes.
type directRun struct {
	run  directKernel
	rows int
}

// directRuns are kn's direct kernels by name.
func directRuns(kn *kernel) map[string]directRun {
	runs := map[string]directRun{}
	for name, r := range map[string]directRun{
		"direct": {kn.direct, kn.mr}, "narrow": {kn.narrow, kn.mr}, "narrow2": {kn.narrow2, 2 * kn.mr},
	} {
		if r.run != nil {
			runs[name] = r
		}
	}
	return runs
}

// TestDirectFMA: the direct assembly kernels round each step as fma32
// (one k step continuing from c, in the last row, A at a stride).
func TestDirectFMA(t *testing.T) {
	for _, kn := range available() {
		for name, d := range directRuns(kn) {
			const lda = 3
			r := d.rows - 1
			a := make([]float32, r*lda+1)
			b := make([]float32, kn.nr)
			c := make([]float32, d.rows*kn.nr)
			for _, v := range fmaCases() {
				a[r*lda], b[1], c[r*kn.nr+1] = v[0], v[1], v[2]
				d.run(1, a, lda, b, c, kn.nr, true, hint{})
				if got, want := c[r*kn.nr+1], fma32(v[0], v[1], v[2]); math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("%s %s: fma(%g, %g, %g) = %g, fma32 %g", kn.name, name, v[0], v[1], v[2], got, want)
				}
			}
		}
	}
}

// TestNarrowColumns: the narrow kernels compute the direct kernel's first
// NR/2 columns (of each MR-row tile) and leave the others of C alone.
func TestNarrowColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	for _, kn := range available() {
		for name, d := range directRuns(kn) {
			const k, lda = 37, 41
			ldc := kn.nr + 3 // rows apart, not overlapping
			a, b := randSlice(rng, (d.rows-1)*lda+k), randSlice(rng, k*kn.nr)
			c0 := randSlice(rng, (d.rows-1)*ldc+kn.nr)
			for _, load := range []bool{false, true} {
				want, got := append([]float32(nil), c0...), append([]float32(nil), c0...)
				for r := 0; r < d.rows; r += kn.mr {
					kn.direct(k, a[r*lda:], lda, b, want[r*ldc:], ldc, load, hint{})
				}
				d.run(k, a, lda, b, got, ldc, load, hint{})
				for r := 0; r < d.rows && name != "direct"; r++ {
					copy(want[r*ldc+kn.nr/2:r*ldc+kn.nr], c0[r*ldc+kn.nr/2:])
				}
				sameBits(t, fmt.Sprintf("%s %s load=%v", kn.name, name, load), got, want)
			}
		}
	}
}

// TestChooseDirect: a kernel whose direct twin fails the self-check is
// used packing A always; one that passes is used as it is.
func TestChooseDirect(t *testing.T) {
	good := genericDirect(4, 8)
	if got := choose([]*kernel{good, goKernel}, ""); got != good {
		t.Errorf("a kernel passing both self-checks was not chosen as is")
	}
	bad := genericDirect(4, 8)
	dir := bad.direct
	bad.direct = func(k int, a []float32, lda int, b, c []float32, ldc int, load bool, pf hint) {
		dir(k, a, lda, b, c, ldc, load, pf)
		c[ldc+1] += 1e-3
	}
	got := choose([]*kernel{bad, goKernel}, "")
	if got.name != bad.name || got.direct != nil || got.mr != bad.mr {
		t.Errorf("a kernel failing the direct self-check: got %s (direct %v)", got.name, got.direct != nil)
	}
}
