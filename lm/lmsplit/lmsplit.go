// Package lmsplit answers an LM's requests with several copies of one
// model: a replica per device (engine.OpenReplicas) or several servers of
// one model. Each call's requests are dealt to the copies by estimated
// tokens, the copies run at once, and the answers come back in request
// order. By the lm.LM contract (a request's answer depends on that
// request only, not on the others of its call) the results are those of
// one copy.
//
// Like lm, the package links nothing heavy.
package lmsplit

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/goeval/goeval/lm"
)

// LM deals each call's requests to copies of one model.
type LM struct {
	copies []lm.LM
	tokens func(string) int
}

var (
	_ lm.LM            = (*LM)(nil)
	_ lm.ChatTemplater = (*LM)(nil)
	_ lm.Describer     = (*LM)(nil)
)

// New returns an LM over copies (at least one) that deals requests by
// tokens counted with tokens (nil: a text's bytes over 4).
func New(copies []lm.LM, tokens func(string) int) *LM {
	if tokens == nil {
		tokens = func(s string) int { return (len(s) + 3) / 4 }
	}
	return &LM{copies: copies, tokens: tokens}
}

// Copies is the number of copies requests are dealt to.
func (s *LM) Copies() int { return len(s.copies) }

// ChatTemplate implements lm.ChatTemplater with the first copy's template
// ("" when it has none).
func (s *LM) ChatTemplate() string {
	if ct, ok := s.copies[0].(lm.ChatTemplater); ok {
		return ct.ChatTemplate()
	}
	return ""
}

// ApplyChatTemplate implements lm.ChatTemplater with the first copy's.
func (s *LM) ApplyChatTemplate(msgs []lm.ChatMessage, addGenerationPrompt bool) (string, error) {
	ct, ok := s.copies[0].(lm.ChatTemplater)
	if !ok {
		return "", fmt.Errorf("lmsplit: the model has no chat template")
	}
	return ct.ApplyChatTemplate(msgs, addGenerationPrompt)
}

// Info implements lm.Describer with the first copy's facts.
func (s *LM) Info() lm.Info {
	if d, ok := s.copies[0].(lm.Describer); ok {
		return d.Info()
	}
	return lm.Info{}
}

// Loglikelihood implements lm.LM. Requests sharing a context go to one
// copy, which scores the context once.
func (s *LM) Loglikelihood(ctx context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	return split(ctx, s, reqs, func(q lm.LoglikelihoodRequest) (string, int, int) {
		key := q.Context
		if q.ContextIDs != nil {
			key = fmt.Sprint(q.ContextIDs)
		}
		return key, s.count(q.Context, q.ContextIDs), s.count(q.Continuation, q.ContinuationIDs)
	}, func(m lm.LM) func(context.Context, []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
		return m.Loglikelihood
	})
}

// LoglikelihoodRolling implements lm.LM.
func (s *LM) LoglikelihoodRolling(ctx context.Context, reqs []lm.RollingRequest) ([]lm.RollingResult, error) {
	return split(ctx, s, reqs, func(q lm.RollingRequest) (string, int, int) {
		return "", 0, s.count(q.Text, q.IDs)
	}, func(m lm.LM) func(context.Context, []lm.RollingRequest) ([]lm.RollingResult, error) {
		return m.LoglikelihoodRolling
	})
}

// GenerateUntil implements lm.LM; a request's tokens are its prompt's and
// its max_gen_toks.
func (s *LM) GenerateUntil(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	return split(ctx, s, reqs, func(q lm.GenerateRequest) (string, int, int) {
		return "", 0, s.count(q.Context, q.ContextIDs) + cmp.Or(q.MaxTokens, 256)
	}, func(m lm.LM) func(context.Context, []lm.GenerateRequest) ([]lm.GenerateResult, error) {
		return m.GenerateUntil
	})
}

// count is the tokens of a text (or its ids when given).
func (s *LM) count(text string, ids []int32) int {
	if ids != nil {
		return len(ids)
	}
	return s.tokens(text)
}

// split deals reqs to s's copies and runs them at once. cost returns a
// request's group key ("": a group of its own), the tokens the group
// shares (counted once) and its own tokens.
func split[Q, R any](ctx context.Context, s *LM, reqs []Q, cost func(Q) (string, int, int),
	method func(lm.LM) func(context.Context, []Q) ([]R, error)) ([]R, error) {
	if len(s.copies) == 1 || len(reqs) < 2 {
		return method(s.copies[0])(ctx, reqs)
	}
	parts := Deal(groups(reqs, cost), len(s.copies))
	out := make([]R, len(reqs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	steps := newSteps(ctx, len(parts))
	var (
		mu    sync.Mutex
		first error // the first copy's error: the others' are then cancellations
		wg    sync.WaitGroup
	)
	for c, idx := range parts {
		if len(idx) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sub := make([]Q, len(idx))
			for j, i := range idx {
				sub[j] = reqs[i]
			}
			res, err := method(s.copies[c])(lm.SubCall(steps.of(c), idx), sub)
			if err == nil && len(res) != len(sub) {
				err = fmt.Errorf("copy %d returned %d results for %d requests", c, len(res), len(sub))
			}
			if err != nil {
				mu.Lock()
				if first == nil {
					first = fmt.Errorf("device replica %d: %w", c, err)
				}
				mu.Unlock()
				cancel()
				return
			}
			for j, i := range idx {
				out[i] = res[j]
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}

// Group is requests dealt together (their indexes) and their tokens.
type Group struct {
	Requests []int
	Tokens   int
}

// groups are reqs' groups in order of first appearance.
func groups[Q any](reqs []Q, cost func(Q) (string, int, int)) []Group {
	var out []Group
	at := map[string]int{}
	for i, q := range reqs {
		key, shared, own := cost(q)
		g, ok := at[key]
		if key == "" || !ok {
			g = len(out)
			out = append(out, Group{Tokens: shared})
			if key != "" {
				at[key] = g
			}
		}
		out[g].Requests = append(out[g].Requests, i)
		out[g].Tokens += own
	}
	return out
}

// Deal assigns groups to n copies: the largest group first (ties: the
// earlier), each to the copy with the fewest tokens so far (ties: the
// lower index). It returns each copy's requests in request order.
func Deal(gs []Group, n int) [][]int {
	order := make([]int, len(gs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return gs[b].Tokens - gs[a].Tokens })
	load := make([]int, n)
	parts := make([][]int, n)
	for _, g := range order {
		c := 0
		for k := 1; k < n; k++ {
			if load[k] < load[c] {
				c = k
			}
		}
		load[c] += gs[g].Tokens + 1
		parts[c] = append(parts[c], gs[g].Requests...)
	}
	for _, p := range parts {
		slices.Sort(p)
	}
	return parts
}

// steps forwards the copies' progress steps to ctx's step function as
// one call's: their sums, one report at a time.
type steps struct {
	parent context.Context
	mu     sync.Mutex
	last   []lm.Step
}

func newSteps(parent context.Context, n int) *steps {
	return &steps{parent: parent, last: make([]lm.Step, n)}
}

// of is the context copy c runs its call with.
func (s *steps) of(c int) context.Context {
	return lm.WithStepFunc(s.parent, func(st lm.Step) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.last[c] = st
		var sum lm.Step
		for _, l := range s.last {
			sum.Done, sum.Total, sum.Requests, sum.Tokens = sum.Done+l.Done, sum.Total+l.Total, sum.Requests+l.Requests, sum.Tokens+l.Tokens
		}
		lm.ReportStep(s.parent, sum)
	})
}
