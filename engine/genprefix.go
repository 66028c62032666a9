package engine

import (
	"slices"

	"github.com/gomlx/gomlx/pkg/core/dtypes"
	. "github.com/gomlx/gomlx/pkg/core/graph" //nolint:revive // graph DSL
	"github.com/gomlx/gomlx/pkg/core/shapes"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/goeval/goeval/engine/plan"
	"github.com/goeval/goeval/models"
)

// Shared prompt prefixes in generation: prompts are grouped by their
// common prefix (a few-shot block, a system prompt, chat headers: sorted,
// consecutive prompts whose common prefix is at least minSharedPrefix
// tokens). A group's prefix is prefilled once into a one-row cache; its
// requests are admitted together, each cache row starts as a copy of that
// row, and only the rest of each prompt runs: in place on goeval's pure-Go
// backend (genextend.go), else through extendGraph (models.Inputs.Cache).
// One prefix is resident at a time (the groups run one after the other),
// so the extra memory is one cache row (and, through extendGraph, the
// admitted rows' written cache until the graph's end). Tokens see the same
// keys at the same positions as in a full prefill.

// minSharedPrefix is the shortest common prefix worth a group: below it
// the extra prefill call costs more than the tokens it saves.
const minSharedPrefix = 32

// genGroup is requests that share a prompt prefix.
type genGroup struct {
	prefix  int   // shared tokens computed once (0: prefill each prompt whole)
	members []int // item indices, longest prompt first
	// fixP and fixT, where prefill shapes are fixed (genshapes.go): the
	// rows and length of the group's prefills (one row when only one is
	// admitted); 0 where each prefill is sized to its prompts.
	fixP, fixT int
}

// genGroups groups items by shared prefix (one last group, prefix 0, holds
// the prompts that share none, so that they still prefill several at a
// time); the groups' members, in group order, are every item once. Copies
// of one prompt (a task's repeats) form a group of their own when that
// costs fewer prefilled tokens: the prompt once, then one token per copy.
// With longest above 0 (a LongRoPE model's switch) a prompt longer than
// that is in the last group, copies included: its rotary factors are the
// long ones, over its prefix too, where a prefix prefilled alone (or a
// copy's prompt less one token) may take the short ones; the prompts at
// or below the switch take the short ones throughout, so they share.
func genGroups(items []genItem, longest int) []genGroup {
	var groups []genGroup
	var alone genGroup // prefix 0
	var byIDs []int
	for i, it := range items {
		if longest > 0 && len(it.ctx) > longest {
			alone.members = append(alone.members, i)
		} else {
			byIDs = append(byIDs, i)
		}
	}
	slices.SortStableFunc(byIDs, func(a, b int) int { return slices.Compare(items[a].ctx, items[b].ctx) })
	for i := 0; i < len(byIDs); {
		shared, j := len(items[byIDs[i]].ctx), i+1
		for ; j < len(byIDs); j++ {
			prev, cur := items[byIDs[j-1]].ctx, items[byIDs[j]].ctx
			l := min(shared, plan.CommonPrefix(prev, cur))
			if l < minSharedPrefix && !slices.Equal(prev, cur) { // copies of a short prompt stay together
				break
			}
			shared = l
		}
		copies, rest := copyGroups(items, byIDs[i:j], sharedPrefix(items, byIDs[i:j]))
		groups = append(groups, copies...)
		if p := sharedPrefix(items, rest); p > 0 {
			groups = append(groups, genGroup{prefix: p, members: rest})
		} else {
			alone.members = append(alone.members, rest...)
		}
		i = j
	}
	if len(alone.members) > 0 { // prompts that share nothing prefill together
		groups = append(groups, alone)
	}
	for _, g := range groups {
		slices.SortStableFunc(g.members, func(a, b int) int { return len(items[b].ctx) - len(items[a].ctx) })
	}
	slices.SortStableFunc(groups, func(a, b genGroup) int {
		return len(items[b.members[0]].ctx) - len(items[a.members[0]].ctx)
	})
	return groups
}

// sharedPrefix is the prefix members (sorted by prompt) share, each
// keeping a token to extend; 0 when they are fewer than two or share less
// than minSharedPrefix.
func sharedPrefix(items []genItem, members []int) int {
	if len(members) < 2 {
		return 0
	}
	shared := len(items[members[0]].ctx) - 1
	for k, m := range members {
		shared = min(shared, len(items[m].ctx)-1)
		if k > 0 {
			shared = min(shared, plan.CommonPrefix(items[members[k-1]].ctx, items[m].ctx))
		}
	}
	if shared < minSharedPrefix {
		return 0
	}
	return shared
}

// copyGroups takes out of members (sorted by prompt, sharing prefix
// tokens, 0 for none) the runs of equal prompts that prefill fewer tokens
// as groups of their own — a prompt's n−1 tokens once and one per copy,
// against n−prefix per copy — by at least minSharedPrefix, or every run of
// copies when that prefills fewer tokens still (the shared prefix then
// runs for nobody); rest are the others, in order.
func copyGroups(items []genItem, members []int, prefix int) (groups []genGroup, rest []int) {
	var runs [][]int
	for i := 0; i < len(members); {
		j := i + 1
		for j < len(members) && slices.Equal(items[members[j]].ctx, items[members[i]].ctx) {
			j++
		}
		runs = append(runs, members[i:j])
		i = j
	}
	worth := func(run []int, all bool) bool {
		k, n := len(run), len(items[run[0]].ctx)
		own, within := n-1+k, k*(n-prefix)
		return k >= 2 && n >= 2 && (all || within-own >= minSharedPrefix)
	}
	split := func(all bool) (groups []genGroup, rest []int, cost int) {
		for _, run := range runs {
			n := len(items[run[0]].ctx)
			if worth(run, all) {
				groups = append(groups, genGroup{prefix: n - 1, members: slices.Clone(run)})
				cost += n - 1 + len(run)
			} else {
				rest = append(rest, run...)
			}
		}
		p := sharedPrefix(items, rest)
		for _, m := range rest {
			cost += len(items[m].ctx) - p
		}
		if p > 0 {
			cost += p
		}
		return groups, rest, cost
	}
	groups, rest, cost := split(false)
	if g, r, c := split(true); c < cost {
		return g, r
	}
	return groups, rest
}

// prefixCache is the resident shared prefix: its group and one cache row
// holding its keys and values in slots [0, prefix).
type prefixCache struct {
	group int
	row   *kvCache
}

// loadPrefix makes group g's prefix resident, prefilling it when another
// (or none) is.
func (e *Engine) loadPrefix(gs *genState, pc *prefixCache, items []genItem, g int, grp genGroup, s int) error {
	if pc.row != nil && pc.group == g {
		return nil
	}
	if pc.row != nil {
		pc.row.close()
	}
	row, err := e.newCache(1, s)
	if err != nil {
		return err
	}
	pc.group, pc.row = g, row
	p := grp.prefix
	t := e.prefillT(p, s)
	tok := make([]int32, t)
	copy(tok, items[grp.members[0]].ctx[:p])
	args := []any{
		tensors.FromFlatDataAndDimensions(tok, 1, t),
		tensors.FromFlatDataAndDimensions([]int32{int32(p - 1)}, 1),
		tensors.FromFlatDataAndDimensions([]int32{0}, 1),
		tensors.FromFlatDataAndDimensions([]bool{true}, 1),
	}
	_, d, err := e.runGen(gs.prefill, "prefill", row, args)
	if err != nil {
		return err
	}
	gs.stats.Prefills++
	gs.stats.PrefillTokens += p
	gs.stats.PrefillTime += d
	return nil
}

// extendGraph is prefillGraph after a shared prefix where the cache is
// not written in place (XLA) or prefill rows are padded (fixed shapes;
// else extendInPlaceGraph): every prompt row starts from the prefix row
// broadcast to S slots and runs its own tokens over it
// (models.Inputs.Cache, T tokens per row).
//
//	tokens, positions [P, T], last [P], src [B], sel [B],
//	prefix 2L × [1, K, S, D], cache 2L × [B, K, S, D]
//	→ logits [P, V] f32 at last, cache' (selected rows replaced)
func extendGraph(m models.Model) func(ctx *mlctx.Context, in []*Node) []*Node {
	return func(ctx *mlctx.Context, in []*Node) []*Node {
		defer building()()
		tokens, positions, last, src, sel := in[0], in[1], in[2], in[3], in[4]
		flat := in[5:]
		half := len(flat) / 2
		prefix, cache := flat[:half], flat[half:]
		g := tokens.Graph()
		p := tokens.Shape().Dim(0)
		dims := cache[0].Shape().Dimensions // [B, K, S, D]
		start := make([]models.KV, half/2)
		for i := range start {
			row := func(x *Node) *Node { return BroadcastToDims(x, p, dims[1], dims[2], dims[3]) }
			start[i] = models.KV{K: row(prefix[2*i]), V: row(prefix[2*i+1])}
		}
		fw := models.Inputs{Tokens: tokens, Positions: positions, Cache: start}
		if m.Config().LongRopeLength() > 0 { // each prompt's whole length picks its factors, not its padding's
			fw.RowLen = Add(Reshape(Slice(positions, AxisRange(), AxisRange(0, 1)), p), AddScalar(last, 1)) // [P]
		}
		out := m.Forward(ctx, fw)
		hidden, kv := out.Hidden, out.KV // [P, T, H], L × {[P, K, S, D]}
		rowIdx := Iota(g, shapes.Make(dtypes.Int32, p), 0)
		h := Gather(hidden, Stack([]*Node{rowIdx, last}, -1)) // [P, H]
		logits := ConvertDType(m.DecodeLogits(ctx, h), dtypes.Float32)
		return append([]*Node{logits}, intoCache(kv, src, sel, cache)...)
	}
}
