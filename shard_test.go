package goeval

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm/lmtest"
	"github.com/goeval/goeval/tasks"
)

func TestParseShard(t *testing.T) {
	for in, want := range map[string]Shard{"0/4": {0, 4}, " 3/4 ": {3, 4}, "0/1": {0, 1}} {
		got, err := ParseShard(in)
		if err != nil || got != want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"4/4", "-1/4", "0/0", "1", "a/b", "1/2/3", ""} {
		if _, err := ParseShard(in); !errs.IsBadInput(err) {
			t.Errorf("ParseShard(%q): err %v, want bad input", in, err)
		}
	}
}

// TestAssignShardsStableUnderLimit: a document's shard depends only on the
// documents before it, so every prefix (what --limit keeps) is split as the
// whole list's first documents are.
func TestAssignShardsStableUnderLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	costs := make([]int, 500)
	for i := range costs {
		costs[i] = 50 + rng.IntN(2000)
	}
	for _, n := range []int{2, 3, 4, 7} {
		all := AssignShards("arc_easy", costs, n)
		for _, limit := range []int{1, 5, 37, 250, 499} {
			if got := AssignShards("arc_easy", costs[:limit], n); !slices.Equal(got, all[:limit]) {
				t.Fatalf("%d shards: the first %d documents are split otherwise under --limit %d", n, limit, limit)
			}
		}
	}
}

// TestAssignShardsBalanced: each shard's estimated tokens are within one
// document's of every other's, and every shard gets documents.
func TestAssignShardsBalanced(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	costs := make([]int, 301)
	most := 0
	for i := range costs {
		costs[i] = 10 + rng.IntN(3000)
		most = max(most, costs[i])
	}
	for _, n := range []int{2, 4, 8} {
		load := make([]int, n)
		for i, s := range AssignShards("gsm8k", costs, n) {
			load[s] += costs[i] + 1
		}
		if spread := slices.Max(load) - slices.Min(load); spread > most+1 {
			t.Errorf("%d shards: loads %v differ by %d, more than the largest document (%d)", n, load, spread, most)
		}
	}
	// Equal costs: round robin from the task's starting shard.
	got := AssignShards("t", []int{5, 5, 5, 5, 5, 5, 5, 5}, 4)
	for i := 4; i < 8; i++ {
		if got[i] != got[i-4] || got[i] == got[(i+1)%4+4] {
			t.Fatalf("equal documents are not dealt round robin: %v", got)
		}
	}
}

// recordedOf collects shard results' samples as Merge's input.
type recordedOf map[string]map[int][]tasks.Response

func (r recordedOf) Docs(task string) []int {
	var out []int
	for id := range r[task] {
		out = append(out, id)
	}
	return out
}

func (r recordedOf) Responses(task string, inst *tasks.Instance) ([]tasks.Response, error) {
	return r[task][inst.DocID], nil
}

func (r recordedOf) add(t *testing.T, res *Results) {
	for _, tr := range res.Tasks {
		if r[tr.Name] == nil {
			r[tr.Name] = map[int][]tasks.Response{}
		}
		for _, s := range tr.Samples {
			if old, ok := r[tr.Name][s.DocID]; ok && !reflect.DeepEqual(old, s.Responses) {
				t.Fatalf("%s doc %d: the filters' rows hold different responses", tr.Name, s.DocID)
			}
			r[tr.Name][s.DocID] = s.Responses
		}
	}
}

// withoutTimes clears what differs between two evaluations of the same run.
func withoutTimes(r *Results) *Results {
	c := *r
	c.Start, c.Duration = time.Time{}, 0
	return &c
}

// TestShardsMergeToOneRun: 3 shards of arc_easy, gsm8k and mmlu's stem
// group, merged, give the one-process results (metrics, bootstrap
// stderrs, groups, samples), and no document is evaluated twice.
func TestShardsMergeToOneRun(t *testing.T) {
	stem, _, err := tasks.NewIndex().Expand([]string{"mmlu_stem"})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"arc_easy", "gsm8k"}
	for _, s := range stem {
		names = append(names, s.Name())
	}
	dir := synthData(t, names...)
	opts := evalOpts(dir, "arc_easy", "gsm8k", "mmlu_stem")
	opts.Task.Limit = 7
	ctx := context.Background()
	whole, err := Evaluate(ctx, lmtest.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := recordedOf{}
	seen := map[string]int{}
	for i := range 3 {
		o := opts
		o.Shard, o.LogSamples = Shard{Index: i, Count: 3}, false
		part, err := Evaluate(ctx, lmtest.New(), o)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range part.Tasks {
			if tr.Shard == nil || tr.Shard.RunDocs != 7 {
				t.Fatalf("shard %d task %s: Shard %+v", i, tr.Name, tr.Shard)
			}
			for _, id := range tr.Shard.DocIDs {
				seen[tr.Name+"/"+string(rune('0'+id))]++
			}
		}
		rec.add(t, part)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s evaluated by %d shards", k, n)
		}
	}
	merged, err := Merge(ctx, opts, rec)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutTimes(merged), withoutTimes(whole)) {
		t.Fatal("merged results differ from the one-process run's")
	}
}

func TestMergeRefusesMissingAndForeignDocs(t *testing.T) {
	dir := synthData(t, "arc_easy")
	opts := evalOpts(dir, "arc_easy")
	opts.Task.Limit = 6
	ctx := context.Background()
	rec := recordedOf{}
	for i := range 2 {
		o := opts
		o.Shard = Shard{Index: i, Count: 2}
		part, err := Evaluate(ctx, lmtest.New(), o)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			rec.add(t, part) // shard 1 is missing
		}
	}
	_, err := Merge(ctx, opts, rec)
	if !errs.IsBadInput(err) || !strings.Contains(err.Error(), "task arc_easy: the shards hold 3 of the run's 6 documents; missing: docs") {
		t.Fatalf("merge without shard 1: %v", err)
	}
	opts.Task.Limit = 2 // the shards ran with --limit 6
	if _, err := Merge(ctx, opts, rec); err == nil || !strings.Contains(err.Error(), "not in the run") {
		t.Fatalf("merge under another limit: %v", err)
	}
}
