package lmcache

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtest"
)

func llReqs(n int) []lm.LoglikelihoodRequest {
	out := make([]lm.LoglikelihoodRequest, n)
	for i := range out {
		out[i] = lm.LoglikelihoodRequest{Context: fmt.Sprintf("question %d:", i), Continuation: fmt.Sprintf(" answer %d", i%3)}
	}
	return out
}

func rollReqs(n int) []lm.RollingRequest {
	out := make([]lm.RollingRequest, n)
	for i := range out {
		out[i] = lm.RollingRequest{Text: fmt.Sprintf("some text number %d", i)}
	}
	return out
}

func genReqs(n int) []lm.GenerateRequest {
	out := make([]lm.GenerateRequest, n)
	for i := range out {
		out[i] = lm.GenerateRequest{Context: fmt.Sprintf("Q: %d+%d?", i, i), Until: []string{"\n", "Question:"}, MaxTokens: 32}
	}
	return out
}

func open(t *testing.T, dir, key string) *Store {
	t.Helper()
	s, err := Open(dir, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// callAll runs the three kinds through m.
func callAll(t *testing.T, m lm.LM) (any, any, any) {
	t.Helper()
	ctx := context.Background()
	ll, err := m.Loglikelihood(ctx, llReqs(10))
	if err != nil {
		t.Fatal(err)
	}
	roll, err := m.LoglikelihoodRolling(ctx, rollReqs(7))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := m.GenerateUntil(ctx, genReqs(9))
	if err != nil {
		t.Fatal(err)
	}
	return ll, roll, gen
}

// The cached LM answers exactly as the wrapped one, computing each request
// once: on a second run, and after the store is closed and opened again,
// everything is a hit.
func TestResultsEqualAndReused(t *testing.T) {
	dir := t.TempDir()
	wll, wroll, wgen := callAll(t, lmtest.New())
	for run, want := range []Stats{{Computed: 26}, {Hits: 26}, {Hits: 26}} {
		s, err := Open(dir, "model-a")
		if err != nil {
			t.Fatal(err)
		}
		inner := lmtest.New()
		c := Wrap(inner, s, Options{Chunk: 4})
		ll, roll, gen := callAll(t, c)
		if !reflect.DeepEqual(ll, wll) || !reflect.DeepEqual(roll, wroll) || !reflect.DeepEqual(gen, wgen) {
			t.Errorf("run %d: cached results differ from the wrapped LM's", run)
		}
		if got := c.Stats(); got != want {
			t.Errorf("run %d: stats %+v, want %+v", run, got, want)
		}
		if inner.Requests != want.Computed {
			t.Errorf("run %d: the wrapped LM saw %d requests, want %d", run, inner.Requests, want.Computed)
		}
		if run == 1 { // second run in the same store, then reopen
			c2 := Wrap(lmtest.New(), s, Options{})
			callAll(t, c2)
			if c2.Stats().Computed != 0 {
				t.Errorf("same store, third pass computed %d", c2.Stats().Computed)
			}
		}
		if n, err := s.Len(); err != nil || n != 26 {
			t.Errorf("run %d: store holds %d results (err %v), want 26", run, n, err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// failingLM fails (or cancels ctx) on call number failAt.
type failingLM struct {
	*lmtest.LM
	calls, failAt int
	cancel        context.CancelFunc
}

func (f *failingLM) Loglikelihood(ctx context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	f.calls++
	if f.calls == f.failAt && f.cancel == nil {
		return nil, errors.New("killed")
	}
	out, err := f.LM.Loglikelihood(ctx, reqs)
	if f.calls == f.failAt {
		f.cancel() // the call completes; the next chunk must not start
	}
	return out, err
}

// Each chunk is committed before the next starts: after a failure in the
// third chunk the first two survive a reopen and are not computed again.
func TestChunkCommit(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, "m")
	bad := &failingLM{LM: lmtest.New(), failAt: 3}
	if _, err := Wrap(bad, s, Options{Chunk: 4}).Loglikelihood(context.Background(), llReqs(10)); err == nil {
		t.Fatal("no error from a failing LM")
	}
	s.Close()
	s = open(t, dir, "m")
	inner := lmtest.New()
	c := Wrap(inner, s, Options{Chunk: 4})
	if _, err := c.Loglikelihood(context.Background(), llReqs(10)); err != nil {
		t.Fatal(err)
	}
	if got := c.Stats(); got != (Stats{Hits: 8, Computed: 2}) || inner.Requests != 2 {
		t.Errorf("after a failure in chunk 3: stats %+v, wrapped LM saw %d requests; want 8 hits, 2 computed", got, inner.Requests)
	}
}

// A cancelled context stops the work between chunks; what was computed is
// kept.
func TestCancelBetweenChunks(t *testing.T) {
	s := open(t, t.TempDir(), "m")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inner := &failingLM{LM: lmtest.New(), failAt: 1, cancel: cancel}
	c := Wrap(inner, s, Options{Chunk: 3})
	_, err := c.Loglikelihood(ctx, llReqs(10))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if inner.calls != 1 || c.Stats().Computed != 3 {
		t.Errorf("calls %d, computed %d; want 1 call and its 3 results kept", inner.calls, c.Stats().Computed)
	}
	if n, _ := s.Len(); n != 3 {
		t.Errorf("store holds %d, want 3", n)
	}
}

// oddLM returns values JSON cannot hold.
type oddLM struct{ *lmtest.LM }

var odd = []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), -1.2345678901234567e-300}

func (oddLM) Loglikelihood(_ context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	out := make([]lm.LoglikelihoodResult, len(reqs))
	for i := range out {
		out[i] = lm.LoglikelihoodResult{LogProb: odd[i%len(odd)], IsGreedy: i%2 == 0, NumTokens: i}
	}
	return out, nil
}

func TestFloatsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for pass := range 2 {
		s := open(t, dir, "m")
		out, err := Wrap(oddLM{lmtest.New()}, s, Options{}).Loglikelihood(context.Background(), llReqs(len(odd)))
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range out {
			if math.Float64bits(r.LogProb) != math.Float64bits(odd[i]) || r.IsGreedy != (i%2 == 0) || r.NumTokens != i {
				t.Errorf("pass %d: result %d is %+v, want log prob %v", pass, i, r, odd[i])
			}
		}
		s.Close()
	}
}

// Every field of a request is part of its key.
func TestKeysCoverEveryField(t *testing.T) {
	base := lm.GenerateRequest{Context: "c", Until: []string{"x"}, MaxTokens: 5}
	variants := []lm.GenerateRequest{base, base, base, base, base, base, base, base, base}
	variants[1].Context = "d"
	variants[2].ContextIDs = []int32{1}
	variants[3].Until = []string{"x", ""}
	variants[4].MaxTokens = 6
	variants[5].Temperature = 0.5
	variants[6].TopP = 0.9
	variants[7].TopK = 3
	variants[8].Seed = 7
	seen := map[string]int{}
	for i, v := range variants {
		k := string(genKey(v))
		if j, ok := seen[k]; ok {
			t.Errorf("generate variants %d and %d share a key", j, i)
		}
		seen[k] = i
	}
	lls := []lm.LoglikelihoodRequest{{Context: "ab", Continuation: "c"}, {Context: "a", Continuation: "bc"},
		{Context: "ab", Continuation: "c", ContextIDs: []int32{1}}, {Context: "ab", Continuation: "c", ContinuationIDs: []int32{1}}}
	for i, r := range lls {
		k := string(llKey(r))
		if j, ok := seen[k]; ok {
			t.Errorf("loglikelihood request %d shares a key with %d", i, j)
		}
		seen[k] = 100 + i
	}
	if string(rollingKey(lm.RollingRequest{Text: "c"})) == string(llKey(lm.LoglikelihoodRequest{Context: "c"})) {
		t.Error("kinds share a key")
	}
}

// A file that records another model key is refused.
func TestModelKeyMismatch(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, "model-a").Close()
	if err := os.Rename(filepath.Join(dir, FileName("model-a")), filepath.Join(dir, FileName("model-b"))); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, "model-b")
	if err == nil || !strings.Contains(err.Error(), "belongs to another model") {
		t.Fatalf("err %v, want a model key mismatch", err)
	}
}

// A second user of the same file gets a clear error instead of waiting.
func TestInUse(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, "m")
	_, err := Open(dir, "m")
	if err == nil || !strings.Contains(err.Error(), "is in use by another goeval process") || !errs.IsBadInput(err) {
		t.Fatalf("err %v, want bad input: in use by another goeval process", err)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(file); !errs.IsBadInput(err) || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("Check(file) = %v, want bad input", err)
	}
	if err := Check(filepath.Join(file, "sub")); !errs.IsBadInput(err) {
		t.Errorf("Check(file/sub) = %v, want bad input", err)
	}
	if err := Check(filepath.Join(dir, "new", "cache")); err != nil {
		t.Errorf("Check(new folder) = %v", err)
	}
}

// doneReporter is lmtest's LM reporting each result through the call's
// lm.DoneFunc under its own indices.
type doneReporter struct{ *lmtest.LM }

func (d doneReporter) GenerateUntil(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	res, err := d.LM.GenerateUntil(ctx, reqs)
	if fn := lm.DoneFunc(ctx); fn != nil && err == nil {
		for j := range res {
			fn(j, res[j])
		}
	}
	return res, err
}

// TestDoneReports: with part of a call cached, every request's result is
// reported once through lm.DoneFunc under the caller's index — the hits
// before anything is computed, the misses as the wrapped LM reports them.
func TestDoneReports(t *testing.T) {
	s := open(t, t.TempDir(), "model-a")
	reqs := genReqs(9)
	if _, err := Wrap(lmtest.New(), s, Options{}).GenerateUntil(context.Background(), reqs[2:5]); err != nil {
		t.Fatal(err)
	}
	done := map[int][]lm.GenerateResult{}
	ctx := lm.WithDoneFunc(context.Background(), func(i int, res lm.GenerateResult) { done[i] = append(done[i], res) })
	got, err := Wrap(doneReporter{lmtest.New()}, s, Options{Chunk: 2}).GenerateUntil(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		if len(done[i]) != 1 || !reflect.DeepEqual(done[i][0], got[i]) {
			t.Errorf("request %d reported %d times (%+v), want once with %+v", i, len(done[i]), done[i], got[i])
		}
	}
}
