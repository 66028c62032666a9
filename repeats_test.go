package goeval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/tasks"
)

// voteTaskYAML: 4 sampled answers per question, voted on.
const voteTaskYAML = `task: vote
dataset_path: json
dataset_kwargs:
  data_files:
    test: docs.jsonl
test_split: test
doc_to_text: "Q: {{ q }}"
doc_to_target: "{{ a }}"
generation_kwargs: {until: ["\n"], do_sample: true, temperature: 0.5}
repeats: 4
filter_list:
  - name: maj@4
    filter: [{function: majority_vote}, {function: take_first}]
  - name: first
    filter: [{function: take_first}]
`

// seedLM answers each generate request with the last digit of its seed
// and records the requests it was sent.
type seedLM struct {
	mu   sync.Mutex
	reqs []lm.GenerateRequest
}

func (s *seedLM) Loglikelihood(context.Context, []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	return nil, fmt.Errorf("not a loglikelihood task")
}

func (s *seedLM) LoglikelihoodRolling(context.Context, []lm.RollingRequest) ([]lm.RollingResult, error) {
	return nil, fmt.Errorf("not a rolling task")
}

func (s *seedLM) GenerateUntil(_ context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, reqs...)
	s.mu.Unlock()
	out := make([]lm.GenerateResult, len(reqs))
	for i, r := range reqs {
		out[i] = lm.GenerateResult{Text: fmt.Sprint(r.Seed % 3)}
	}
	return out, nil
}

func voteOpts(t *testing.T) Options {
	dir := t.TempDir()
	docs := `{"q": "one", "a": "0"}` + "\n" + `{"q": "two", "a": "1"}` + "\n" + `{"q": "three", "a": "2"}` + "\n"
	for name, body := range map[string]string{"vote.yaml": voteTaskYAML, "docs.jsonl": docs} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := tasks.NewIndex()
	if _, _, err := ix.IncludePath(dir); err != nil {
		t.Fatal(err)
	}
	return Options{Tasks: []string{"vote"}, Index: ix, Task: tasks.DefaultOptions(), LogSamples: true, BootstrapIters: -1}
}

// TestRepeatsSeeds: a task with repeats 4 sends 4 sampled requests per
// document, each with its own seed (sampleSeed of the run's seed, task,
// document and repeat); the answers come back in repeat order; the seeds
// and so the results do not depend on chunking, and change with the
// sampling seed.
func TestRepeatsSeeds(t *testing.T) {
	ctx := context.Background()
	opts := voteOpts(t)
	m := &seedLM{}
	res, err := Evaluate(ctx, m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.reqs) != 12 {
		t.Fatalf("%d requests for 3 documents × 4 repeats", len(m.reqs))
	}
	seeds := map[uint64]bool{}
	for _, r := range m.reqs {
		seeds[r.Seed] = true
	}
	if len(seeds) != 12 {
		t.Errorf("%d distinct seeds among 12 answers", len(seeds))
	}
	for _, s := range res.Tasks[0].Samples {
		resp := s.Responses[0]
		if len(resp.Repeats) != 4 || resp.Text != resp.Repeats[0].Text {
			t.Fatalf("doc %d: response %+v, want 4 answers, the first also in Text", s.DocID, resp)
		}
		for rep, a := range resp.Repeats {
			want := fmt.Sprint(sampleSeed(DefaultSamplingSeed, "vote", s.DocID, 0, rep) % 3)
			if a.Text != want {
				t.Errorf("doc %d repeat %d: answer %q, want %q (its seed's)", s.DocID, rep, a.Text, want)
			}
		}
	}
	chunked := opts
	chunked.Progress, chunked.ProgressChunk = func(Progress) {}, 5
	again, err := Evaluate(ctx, &seedLM{}, chunked)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutTimes(again).Tasks, withoutTimes(res).Tasks) {
		t.Error("results differ when the requests are sent in chunks of 5")
	}
	seed := int64(7)
	other := opts
	other.SamplingSeed = &seed
	m7 := &seedLM{}
	if _, err := Evaluate(ctx, m7, other); err != nil {
		t.Fatal(err)
	}
	for _, r := range m7.reqs {
		if seeds[r.Seed] {
			t.Fatalf("sampling seed 7 gave seed %d, also given by seed %d", r.Seed, DefaultSamplingSeed)
		}
	}
}

// TestRepeatsGreedyUnseeded: greedy requests keep seed 0 (an LM's
// batching by settings is unchanged), sampled ones of one document and
// repeat differ across tasks.
func TestRepeatsGreedyUnseeded(t *testing.T) {
	q := tasks.Request{Kind: tasks.ReqGenerate, GenKwargs: map[string]any{"do_sample": false}}
	if r := generateRequest(q, 99); r.Seed != 0 {
		t.Errorf("greedy request seeded %d", r.Seed)
	}
	if sampleSeed(1234, "a", 0, 0, 0) == sampleSeed(1234, "b", 0, 0, 0) {
		t.Error("two tasks' first answers share a seed")
	}
}

// TestRepeatsMerge: shards of a repeated task merge to the one-process
// results (the seeds depend on the document, not on the shard).
func TestRepeatsMerge(t *testing.T) {
	ctx := context.Background()
	opts := voteOpts(t)
	whole, err := Evaluate(ctx, &seedLM{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := recordedOf{}
	for i := range 2 {
		o := opts
		o.Shard, o.LogSamples = Shard{Index: i, Count: 2}, false
		part, err := Evaluate(ctx, &seedLM{}, o)
		if err != nil {
			t.Fatal(err)
		}
		rec.add(t, part)
	}
	merged, err := Merge(ctx, opts, rec)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withoutTimes(merged), withoutTimes(whole)) {
		t.Fatal("merged results differ from the one-process run's")
	}
}
