package lmsplit

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmtest"
)

// recorder is a fake copy that records the contexts it scored and
// reports one progress step per call.
type recorder struct {
	*lmtest.LM
	mu       sync.Mutex
	contexts []string
	fail     bool
}

func (r *recorder) Loglikelihood(ctx context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	if r.fail {
		return nil, errors.New("out of memory")
	}
	r.mu.Lock()
	for _, q := range reqs {
		r.contexts = append(r.contexts, q.Context)
	}
	r.mu.Unlock()
	lm.ReportStep(ctx, lm.Step{Done: len(reqs), Total: len(reqs), Requests: len(reqs)})
	return r.LM.Loglikelihood(ctx, reqs)
}

func copies(n int) ([]lm.LM, []*recorder) {
	var ls []lm.LM
	var rs []*recorder
	for range n {
		r := &recorder{LM: lmtest.New()}
		ls, rs = append(ls, r), append(rs, r)
	}
	return ls, rs
}

// TestSplitAnswersAsOneCopy: dealt to three copies, every kind of request
// gets the answer one copy gives, in request order; requests sharing a
// context go to one copy; every copy gets work.
func TestSplitAnswersAsOneCopy(t *testing.T) {
	var ll []lm.LoglikelihoodRequest
	var roll []lm.RollingRequest
	var gen []lm.GenerateRequest
	for q := range 40 {
		ctx := fmt.Sprintf("Question %d: %s?", q, strings.Repeat("why ", q%7))
		for c := range 4 {
			ll = append(ll, lm.LoglikelihoodRequest{Context: ctx, Continuation: fmt.Sprintf(" answer %d", c)})
		}
		roll = append(roll, lm.RollingRequest{Text: ctx})
		gen = append(gen, lm.GenerateRequest{Context: ctx, Until: []string{"\n"}, MaxTokens: 5 + q})
	}
	one := lmtest.New()
	ls, rs := copies(3)
	s := New(ls, nil)
	ctx := context.Background()
	want1, _ := one.Loglikelihood(ctx, ll)
	got1, err := s.Loglikelihood(ctx, ll)
	if err != nil || !reflect.DeepEqual(got1, want1) {
		t.Fatalf("loglikelihood: %v; results differ from one copy's: %v", err, !reflect.DeepEqual(got1, want1))
	}
	want2, _ := one.LoglikelihoodRolling(ctx, roll)
	if got2, err := s.LoglikelihoodRolling(ctx, roll); err != nil || !reflect.DeepEqual(got2, want2) {
		t.Fatalf("rolling: %v, differ %v", err, !reflect.DeepEqual(got2, want2))
	}
	want3, _ := one.GenerateUntil(ctx, gen)
	if got3, err := s.GenerateUntil(ctx, gen); err != nil || !reflect.DeepEqual(got3, want3) {
		t.Fatalf("generate: %v, differ %v", err, !reflect.DeepEqual(got3, want3))
	}
	owner := map[string]int{}
	for c, r := range rs {
		if len(r.contexts) == 0 {
			t.Errorf("copy %d got no loglikelihood requests", c)
		}
		for _, x := range r.contexts {
			if o, ok := owner[x]; ok && o != c {
				t.Fatalf("context %q went to copies %d and %d", x, o, c)
			}
			owner[x] = c
		}
	}
}

// TestDealBalances: groups dealt largest first to the least-loaded copy
// leave copies within one group's tokens of each other.
func TestDealBalances(t *testing.T) {
	var gs []Group
	most := 0
	for i := range 101 {
		tok := 10 + (i*7919)%500
		gs = append(gs, Group{Requests: []int{i}, Tokens: tok})
		most = max(most, tok)
	}
	parts := Deal(gs, 4)
	load := make([]int, 4)
	seen := 0
	for c, p := range parts {
		if !slices.IsSorted(p) {
			t.Errorf("copy %d's requests are out of order", c)
		}
		for _, i := range p {
			load[c] += gs[i].Tokens
		}
		seen += len(p)
	}
	if seen != 101 {
		t.Fatalf("dealt %d of 101 requests", seen)
	}
	if spread := slices.Max(load) - slices.Min(load); spread > most {
		t.Errorf("loads %v differ by %d, more than one group (%d)", load, spread, most)
	}
}

// TestSplitErrorsAndProgress: a copy's error fails the call, naming the
// replica; progress steps arrive summed over the copies.
func TestSplitErrorsAndProgress(t *testing.T) {
	var reqs []lm.LoglikelihoodRequest
	for i := range 8 {
		reqs = append(reqs, lm.LoglikelihoodRequest{Context: fmt.Sprint(i), Continuation: " x"})
	}
	ls, rs := copies(2)
	var mu sync.Mutex
	most := 0
	ctx := lm.WithStepFunc(context.Background(), func(s lm.Step) {
		mu.Lock()
		most = max(most, s.Requests)
		mu.Unlock()
	})
	if _, err := New(ls, nil).Loglikelihood(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	if most != len(reqs) {
		t.Errorf("the summed steps reached %d requests, want %d", most, len(reqs))
	}
	rs[1].fail = true
	if _, err := New(ls, nil).Loglikelihood(ctx, reqs); err == nil || !strings.Contains(err.Error(), "device replica 1: out of memory") {
		t.Fatalf("a failing copy: %v", err)
	}
}

// reporter is a fake copy whose GenerateUntil reports, for each request j,
// the token id len(Context) and then its result, through the call's
// lm.TokenFunc and lm.DoneFunc, under its own indices.
type reporter struct{ *lmtest.LM }

func (r reporter) GenerateUntil(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	res, err := r.LM.GenerateUntil(ctx, reqs)
	if err != nil {
		return nil, err
	}
	for j, q := range reqs {
		if fn := lm.TokenFunc(ctx); fn != nil {
			fn(j, int32(len(q.Context)))
		}
		if fn := lm.DoneFunc(ctx); fn != nil {
			fn(j, res[j])
		}
	}
	return res, nil
}

// TestSplitReportsCallerIndices: dealt to three copies, a call's token and
// done reports name the caller's request indices, not each copy's.
func TestSplitReportsCallerIndices(t *testing.T) {
	var gen []lm.GenerateRequest
	for q := range 30 {
		gen = append(gen, lm.GenerateRequest{Context: strings.Repeat("x", q+1), MaxTokens: 3})
	}
	var ls []lm.LM
	for range 3 {
		ls = append(ls, reporter{lmtest.New()})
	}
	var mu sync.Mutex
	tokens, done := map[int]int32{}, map[int]lm.GenerateResult{}
	ctx := lm.WithTokenFunc(context.Background(), func(i int, id int32) { mu.Lock(); tokens[i] = id; mu.Unlock() })
	ctx = lm.WithDoneFunc(ctx, func(i int, res lm.GenerateResult) { mu.Lock(); done[i] = res; mu.Unlock() })
	got, err := New(ls, nil).GenerateUntil(ctx, gen)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range gen {
		if tokens[i] != int32(len(q.Context)) || !reflect.DeepEqual(done[i], got[i]) {
			t.Fatalf("request %d: token %d, done %+v; want %d and %+v", i, tokens[i], done[i], len(q.Context), got[i])
		}
	}
}
