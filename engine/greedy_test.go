package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/goeval/goeval/internal/gocpu"
	"github.com/goeval/goeval/internal/testutil"
)

// TestGreedyScreenSameTokens: greedy generations through the screened
// greedy decode graph (greedy.go) equal those picked from the logits
// ("screen=off"), token for token, at batch sizes 1, 2 and 3, with the
// model in float32 and in bfloat16 (an f32 and a bf16 LM head, tied and
// untied); and the screen served decode rows only where it is on, and not
// for more rows than it serves (3 rows of a bf16 head where the CPU has
// no integer screen: gocpu.ScreenMaxRows).
func TestGreedyScreenSameTokens(t *testing.T) {
	for _, name := range []string{"tiny-llama", "tiny-qwen3"} {
		gens, _ := testutil.Generates(t, name)
		ctxs, maxGen := make([][]int32, len(gens)), make([]int, len(gens))
		for i, g := range gens {
			ctxs[i], maxGen[i] = g.ContextIDs, g.MaxNewTokens
		}
		for _, dtype := range []string{"float32", "bfloat16"} {
			for _, bs := range []int{1, 2, 3} {
				run := func(spec string) ([][]int32, int) {
					e := openFixture(t, name, Options{Backend: spec, DType: dtype, BatchSize: bs})
					before, _ := gocpu.ScreenedRows()
					got, err := e.generateItems(context.Background(), idItems(t, e, ctxs, maxGen))
					if err != nil {
						t.Fatal(err)
					}
					after, _ := gocpu.ScreenedRows()
					ids := make([][]int32, len(got))
					for i, g := range got {
						ids[i] = g.IDs
					}
					return ids, after - before
				}
				want, offRows := run("gocpu:screen=off")
				got, onRows := run("gocpu")
				for i := range want {
					if !slices.Equal(got[i], want[i]) {
						t.Errorf("%s %s batch %d, %s: screened %v, from logits %v", name, dtype, bs, gens[i].ID, got[i], want[i])
					}
				}
				served := bs <= gocpu.ScreenMaxRows(dtype == "bfloat16")
				if offRows != 0 || (onRows > 0) != served {
					t.Errorf("%s %s batch %d: the screen served %d decode rows with screen=off and %d with it on", name, dtype, bs, offRows, onRows)
				}
			}
		}
	}
}
