package lmcache

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/goeval/goeval/lm"
)

// DefaultChunk is the number of missed requests sent to the wrapped LM per
// call and committed per transaction when Options.Chunk is 0: large
// enough that goeval's engine shares contexts and few-shot prefixes across
// many documents of a call (128 four-choice questions), small enough that
// a kill loses minutes at most.
const DefaultChunk = 512

// Options configure Wrap.
type Options struct {
	// Chunk is the number of missed requests per call to the wrapped LM
	// and per commit (default DefaultChunk): the most work a kill loses.
	Chunk int
}

// Stats count the requests a cached LM answered.
type Stats struct {
	Hits     int // served from the store
	Computed int // sent to the wrapped LM (and stored)
}

// LM is an lm.LM that answers from a Store and asks the wrapped LM only
// for what the store lacks. Its results equal the wrapped LM's, in request
// order.
type LM struct {
	inner lm.LM
	store *Store
	chunk int

	mu    sync.Mutex
	stats Stats
}

var (
	_ lm.LM            = (*LM)(nil)
	_ lm.ChatTemplater = (*LM)(nil)
)

// Wrap returns inner cached in s. The store must belong to inner's model
// identity (see Open's model key); the caller closes it after use.
func Wrap(inner lm.LM, s *Store, o Options) *LM {
	if o.Chunk <= 0 {
		o.Chunk = DefaultChunk
	}
	return &LM{inner: inner, store: s, chunk: o.Chunk}
}

// ChatTemplate implements lm.ChatTemplater with the wrapped model's
// template ("" when it has none): prompts are rendered before the cache
// sees them.
func (c *LM) ChatTemplate() string {
	if ct, ok := c.inner.(lm.ChatTemplater); ok {
		return ct.ChatTemplate()
	}
	return ""
}

// ApplyChatTemplate implements lm.ChatTemplater with the wrapped model's
// template.
func (c *LM) ApplyChatTemplate(msgs []lm.ChatMessage, addGenerationPrompt bool) (string, error) {
	ct, ok := c.inner.(lm.ChatTemplater)
	if !ok {
		return "", errors.New("lmcache: the wrapped model has no chat template")
	}
	return ct.ApplyChatTemplate(msgs, addGenerationPrompt)
}

// Stats returns the counters so far.
func (c *LM) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *LM) count(hits, computed int) {
	c.mu.Lock()
	c.stats.Hits += hits
	c.stats.Computed += computed
	c.mu.Unlock()
}

// Loglikelihood implements lm.LM.
func (c *LM) Loglikelihood(ctx context.Context, reqs []lm.LoglikelihoodRequest) ([]lm.LoglikelihoodResult, error) {
	return cached(ctx, c, reqs, codec[lm.LoglikelihoodRequest, lm.LoglikelihoodResult]{
		key: llKey, enc: encodeLL, dec: decodeLL, call: c.inner.Loglikelihood})
}

// LoglikelihoodRolling implements lm.LM.
func (c *LM) LoglikelihoodRolling(ctx context.Context, reqs []lm.RollingRequest) ([]lm.RollingResult, error) {
	return cached(ctx, c, reqs, codec[lm.RollingRequest, lm.RollingResult]{
		key: rollingKey, enc: encodeRolling, dec: decodeRolling, call: c.inner.LoglikelihoodRolling})
}

// GenerateUntil implements lm.LM.
func (c *LM) GenerateUntil(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	return cached(ctx, c, reqs, codec[lm.GenerateRequest, lm.GenerateResult]{
		key: genKey, enc: encodeGen, dec: decodeGen, call: c.inner.GenerateUntil})
}

// codec is one request kind's key, value encoding and wrapped method.
type codec[Q, R any] struct {
	key  func(Q) []byte
	enc  func(R) []byte
	dec  func([]byte) (R, error)
	call func(context.Context, []Q) ([]R, error)
}

// cached answers reqs from the store, computes the misses chunk by chunk
// and commits each chunk before the next one starts.
func cached[Q, R any](ctx context.Context, c *LM, reqs []Q, k codec[Q, R]) ([]R, error) {
	keys := make([][]byte, len(reqs))
	for i, r := range reqs {
		keys[i] = k.key(r)
	}
	vals, err := c.store.get(keys)
	if err != nil {
		return nil, err
	}
	out := make([]R, len(reqs))
	var miss []int
	for i, v := range vals {
		if v == nil {
			miss = append(miss, i)
			continue
		}
		if out[i], err = k.dec(v); err != nil {
			return nil, fmt.Errorf("cache file %s: %w", c.store.path, err)
		}
	}
	if done := lm.DoneFunc(ctx); done != nil { // cached generations are final now
		for i, v := range vals {
			if g, ok := any(out[i]).(lm.GenerateResult); ok && v != nil {
				done(i, g)
			}
		}
	}
	c.count(len(reqs)-len(miss), 0)
	for lo := 0; lo < len(miss); lo += c.chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := computeChunk(ctx, c, reqs, keys, miss[lo:min(lo+c.chunk, len(miss))], out, k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// computeChunk asks the wrapped LM for reqs[idx…], stores the answers in
// out and commits them in one transaction.
func computeChunk[Q, R any](ctx context.Context, c *LM, reqs []Q, keys [][]byte, idx []int, out []R, k codec[Q, R]) error {
	sub := make([]Q, len(idx))
	for j, i := range idx {
		sub[j] = reqs[i]
	}
	res, err := k.call(lm.SubCall(ctx, idx), sub)
	if err != nil {
		return err
	}
	if len(res) != len(sub) {
		return fmt.Errorf("the model returned %d results for %d requests", len(res), len(sub))
	}
	ks, vs := make([][]byte, len(idx)), make([][]byte, len(idx))
	for j, i := range idx {
		out[i] = res[j]
		ks[j], vs[j] = keys[i], k.enc(res[j])
	}
	if err := c.store.put(ks, vs); err != nil {
		return err
	}
	c.count(0, len(idx))
	return nil
}
