package serve

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/goeval/goeval/lm"
)

// A byte-level model with known answers: token ids 0–255 are bytes, 256 is
// BOS, 257 EOS. After token t the argmax is t+1 (mod 256), log-prob −0.5;
// any other token u has log-prob −(1 + u%5). Greedy generation counts up
// from the prompt's last byte; sampled generation adds the seed; the byte
// '!' (33) is followed by EOS.
const (
	fakeBOS   = 256
	fakeEOS   = 257
	fakeVocab = 260
)

type fakeTok struct{}

func (fakeTok) Encode(text string, addSpecial bool) []int32 {
	var out []int32
	if addSpecial {
		out = append(out, fakeBOS)
	}
	for _, b := range []byte(text) {
		out = append(out, int32(b))
	}
	return out
}

func (fakeTok) Decode(ids []int32, skipSpecial bool) string {
	var b strings.Builder
	for _, id := range ids {
		switch {
		case id < 256:
			b.WriteByte(byte(id))
		case !skipSpecial:
			fmt.Fprintf(&b, "<%d>", id)
		}
	}
	return b.String()
}

func (fakeTok) VocabSize() int { return fakeVocab }

func fakeNext(t int32) int32 { return (t + 1) % 256 }

func fakeLP(prev, t int32) float64 {
	if t == fakeNext(prev) {
		return -0.5
	}
	return -float64(1 + t%5)
}

// fakeLM records its calls; block, when set, holds every call until
// closed; hold, when set, holds a generation call after it has reported
// each result (lm.DoneFunc) until closed; feeding, when set, keeps a
// generation call taking fed requests (lm.Feed: up to 4 at a time, of at
// most 10 tokens) until closed.
type fakeLM struct {
	mu      sync.Mutex
	calls   []int // requests per call
	block   chan struct{}
	hold    chan struct{}
	feeding chan struct{}
}

func (f *fakeLM) record(n int) {
	if f.block != nil {
		<-f.block
	}
	f.mu.Lock()
	f.calls = append(f.calls, n)
	f.mu.Unlock()
}

func (f *fakeLM) Loglikelihood(context.Context, []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	return nil, fmt.Errorf("not used")
}

func (f *fakeLM) LoglikelihoodRolling(context.Context, []lm.RollingRequest) ([]lm.RollingResult, error) {
	return nil, fmt.Errorf("not used")
}

func (f *fakeLM) GenerateUntil(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	f.record(len(reqs))
	out := make([]lm.GenerateResult, len(reqs))
	for i, r := range reqs {
		out[i] = fakeGenerate(ctx, i, r)
	}
	if f.hold != nil {
		<-f.hold
	}
	for next := len(reqs); f.feeding != nil; time.Sleep(5 * time.Millisecond) { // rows free: take fed requests
		select {
		case <-f.feeding:
			return out, nil
		default:
		}
		feed := lm.Feed(ctx)
		if feed == nil {
			break
		}
		for _, r := range feed(4, func(q lm.GenerateRequest) bool { return q.MaxTokens <= 10 }) {
			fakeGenerate(ctx, next, r)
			next++
		}
	}
	return out, nil
}

// fakeGenerate generates request r, index i of its call, reporting its
// tokens and result to the call's lm.TokenFunc and lm.DoneFunc.
func fakeGenerate(ctx context.Context, i int, r lm.GenerateRequest) lm.GenerateResult {
	onTok := lm.TokenFunc(ctx)
	last := r.ContextIDs[len(r.ContextIDs)-1]
	var ids []int32
	reason := "max_tokens"
	for len(ids) < r.MaxTokens {
		next := fakeNext(last)
		if last == '!' {
			next = fakeEOS
		} else if r.Temperature > 0 {
			next = int32((uint64(next) + r.Seed) % 256)
		}
		ids = append(ids, next)
		if onTok != nil {
			onTok(i, next)
		}
		if next == fakeEOS {
			reason = "eos"
			break
		}
		text := fakeTok{}.Decode(ids, true)
		if cut := cutStop(text, r.Until); cut >= 0 {
			reason = "until"
			break
		}
		last = next
	}
	text := fakeTok{}.Decode(ids, true)
	if cut := cutStop(text, r.Until); cut >= 0 {
		text = text[:cut]
	}
	res := lm.GenerateResult{Text: text, IDs: ids, StopReason: reason}
	if done := lm.DoneFunc(ctx); done != nil {
		done(i, res)
	}
	return res
}

func cutStop(text string, until []string) int { return lm.FirstStop(text, until) }

func (f *fakeLM) ScoreTokens(_ context.Context, reqs []lm.TokenScoreRequest) ([]lm.TokenScores, error) {
	f.record(len(reqs))
	out := make([]lm.TokenScores, len(reqs))
	for i, r := range reqs {
		prev := r.ContextIDs[len(r.ContextIDs)-1]
		for _, t := range r.ContinuationIDs {
			out[i].LogProbs = append(out[i].LogProbs, fakeLP(prev, t))
			out[i].TopIDs = append(out[i].TopIDs, fakeNext(prev))
			out[i].TopLogProbs = append(out[i].TopLogProbs, -0.5)
			prev = t
		}
	}
	return out, nil
}

func (f *fakeLM) ChatTemplate() string { return "<role>content per message" }

func (f *fakeLM) ApplyChatTemplate(msgs []lm.ChatMessage, addGenerationPrompt bool) (string, error) {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "<%s>%s", m.Role, m.Content)
	}
	if addGenerationPrompt {
		b.WriteString("<assistant>")
	}
	return b.String(), nil
}

func (f *fakeLM) maxCall() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := 0
	for _, c := range f.calls {
		m = max(m, c)
	}
	return m
}
