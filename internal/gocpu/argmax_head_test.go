package gocpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	"github.com/gomlx/gomlx/pkg/core/dtypes/bfloat16"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"

	"github.com/goeval/goeval/internal/gemm"
)

// greedyHead is a greedy decode step's end: the argmax of x [m, k] · wᵀ
// for a head w [n, k] (converted to f32 where used); tied also gathers
// rows of w (a tied embedding), which keeps w in its stored layout.
func greedyHead(tied bool) func(x, w, ids *Node) []*Node {
	return func(x, w, ids *Node) []*Node {
		wf := func() *Node { return ConvertDType(w, dtypes.Float32) }
		out := []*Node{ArgMax(Einsum("mk,nk->mn", x, wf()), -1)}
		if tied {
			out = append(out, Gather(wf(), ids))
		}
		return out
	}
}

// headWeight is a head [n, k] with near-ties: rows 1 and n−2 copy the row
// that wins for x's first row and row n−2 then differs in one weight's
// last bit (so exact ties and a hair's difference both occur); and rows
// 300 and 400 lead that row with 4 at columns 10 and 11, whose
// activations (set to 1 and 1.001) differ only before rounding to bf16 —
// so the f32 chain picks 400, and bf16=dot's VDPBF16PS ties them (300).
func headWeight(rng *rand.Rand, n, k int, x []float32) []float32 {
	w := randFlat(rng, n*k)
	x[10], x[11] = 1, 1.001
	logits := make([]float32, n)
	for j := range n {
		for i := range k {
			logits[j] += x[i] * w[j*k+i]
		}
	}
	best := slices.Index(logits, slices.Max(logits))
	for _, j := range []int{1, n - 2, 300, 400} {
		copy(w[j*k:(j+1)*k], w[best*k:(best+1)*k])
	}
	w[(n-2)*k+3] = math.Nextafter32(w[(n-2)*k+3], float32(math.Copysign(1, float64(x[3]))))
	w[300*k+10], w[300*k+11], w[400*k+10], w[400*k+11] = 4, 0, 0, 4
	return w
}

// TestArgMaxHeadScreened: a greedy head's argmax through the screen equals
// the whole product's ("screen=off") for f32 and bf16 heads, packed in
// place or stored (tied), rows the screen serves (1, 2; 5 and 9 with an
// f32 head or the integer screen) and those it leaves to the product
// (past ScreenMaxRows: 5 and 9 with a bf16 head, 9 with an f32 one, 65
// with the integer screen), on 1
// and 2 threads, and with "bf16=dot" (where the CPU has it) for bf16 heads
// (VDPBF16PS's products when packed); and the screen served the rows it
// should.
func TestArgMaxHeadScreened(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	opts := []string{""}
	if gemm.HasBF16Dot() {
		opts = append(opts, ",bf16=dot")
	}
	for _, threads := range []int{1, 2} {
		for _, opt := range opts {
			on, err := New(fmt.Sprintf("threads=%d%s", threads, opt))
			if err != nil {
				t.Fatal(err)
			}
			off, err := New(fmt.Sprintf("threads=%d%s,screen=off", threads, opt))
			if err != nil {
				t.Fatal(err)
			}
			for _, tied := range []bool{false, true} {
				for _, bf16 := range []bool{false, true} {
					if opt != "" && !bf16 {
						continue // bf16=dot changes only bf16 products
					}
					for _, nm := range [][2]int{{1024, 1}, {1024, 2}, {1024, 5}, {1024, 9}, {1024, 65}, {1000, 1}} {
						name := fmt.Sprintf("threads%d%s/tied=%v/bf16=%v/n%d_m%d", threads, opt, tied, bf16, nm[0], nm[1])
						checkScreenedHead(t, name, rng, on, off, tied, bf16, nm[0], nm[1])
					}
				}
			}
		}
	}
}

// checkScreenedHead runs one case of TestArgMaxHeadScreened: a head of n
// rows (1024 a multiple of every panel width, so packed in place; 1000
// not, so read stored) and m activation rows.
func checkScreenedHead(t *testing.T, name string, rng *rand.Rand, on, off *Backend, tied, bf16 bool, n, m int) {
	t.Helper()
	k := 256
	x := randFlat(rng, m*k)
	w := headWeight(rng, n, k, x)
	run := func(b *Backend) []int32 {
		ids := tensors.FromFlatDataAndDimensions([]int32{0, 7}, 2, 1)
		exec, err := NewExec(b, greedyHead(tied))
		if err != nil {
			t.Fatal(err)
		}
		var wt *tensors.Tensor
		if bf16 {
			w16 := make([]bfloat16.BFloat16, len(w))
			for i, v := range w {
				w16[i] = bfloat16.FromFloat32(v)
			}
			_, wt = bf16Buffer(t, b, w16, n, k)
		} else {
			buf, err := b.BufferFromFlatData(0, slices.Clone(w), shapes.Make(dtypes.Float32, n, k))
			if err != nil {
				t.Fatal(err)
			}
			if wt, err = tensors.FromBuffer(b, buf); err != nil {
				t.Fatal(err)
			}
		}
		var got []int32
		for range 2 { // the second run reads the weight packed, where it is packed
			out := exec.MustExec(tensors.FromFlatDataAndDimensions(slices.Clone(x), m, k), wt, ids)
			got = tensors.MustCopyFlatData[int32](out[0])
		}
		return got
	}
	rows0, _ := ScreenedRows()
	want := run(off)
	rows1, _ := ScreenedRows()
	got := run(on)
	rows2, _ := ScreenedRows()
	if !slices.Equal(got, want) {
		t.Errorf("%s: screened argmax %v, whole product's %v", name, got, want)
	}
	if rows1 != rows0 {
		t.Errorf("%s: screen=off screened %d rows", name, rows1-rows0)
	}
	maxRows := ScreenMaxRows(bf16)
	if served, wantServed := rows2-rows1, 2*m; m > maxRows && served != 0 || m <= maxRows && served != wantServed {
		t.Errorf("%s: the screen served %d rows, want %d (at most %d per run)", name, served, wantServed, maxRows)
	}
}
