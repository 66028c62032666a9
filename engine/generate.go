package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/lm/lmenc"
)

// defaultMaxGenToks is lm-eval's max_gen_toks default.
const defaultMaxGenToks = 256

// genItem is one generation request, encoded and truncated.
type genItem struct {
	ctx  []int32  // prompt ids, left-truncated to max_length − max_gen_toks
	stop *stopper // stop rule and text cutting
	samp *sampler // nil: greedy
}

// GenerateUntil implements LM (lm-eval HFLM.generate_until). Contexts
// are encoded like lm-eval's tok_encode and left-truncated to
// max_length − max_gen_toks; generation is greedy unless Temperature > 0;
// it stops at a stop string (matched on the decoded text, special tokens
// skipped), an EOS id (config.json, generation_config.json and the
// tokenizer's eos_token) or after MaxTokens (default 256) tokens, and the
// text is cut at the first stop string. Requests are decoded in batches of
// BatchSize rows with a KV cache; a finished row takes the next waiting
// request (continuous batching). Results are in request order and do not
// depend on the other requests.
func (e *Engine) GenerateUntil(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	eos, err := e.eosIDs()
	if err != nil {
		return nil, err
	}
	items := make([]genItem, len(reqs))
	for i, r := range reqs {
		if items[i], err = e.makeGenItem(r, eos); err != nil {
			return nil, requestError(i, err)
		}
	}
	return e.generateItems(ctx, items)
}

// generateItems runs encoded items under the engine lock.
func (e *Engine) generateItems(ctx context.Context, items []genItem) ([]lm.GenerateResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ctx == nil {
		return nil, errors.New("engine: used after Close")
	}
	var out []lm.GenerateResult
	err := tryCatch("generate", func() (err error) {
		out, err = e.generate(ctx, items)
		return err
	})
	return out, err
}

// makeGenItem encodes and validates one request.
func (e *Engine) makeGenItem(r lm.GenerateRequest, eos map[int32]bool) (genItem, error) {
	maxGen := r.MaxTokens
	if maxGen == 0 {
		maxGen = defaultMaxGenToks
	}
	if maxGen < 0 {
		return genItem{}, errs.BadInputf("max tokens %d must be ≥ 1 (0 means %d)", r.MaxTokens, defaultMaxGenToks)
	}
	if maxGen >= e.maxLen {
		return genItem{}, errs.BadInputf("max tokens %d leaves no room for the context in max_length %d", maxGen, e.maxLen)
	}
	if err := checkSampling(r); err != nil {
		return genItem{}, err
	}
	tok := e.opts.Tokenizer
	ids := r.ContextIDs
	if len(ids) == 0 {
		if tok == nil {
			return genItem{}, errs.BadInputf("string prompt but no tokenizer is loaded; give prompt ids or load a tokenizer")
		}
		ids = lmenc.GenEncode(tok, r.Context, e.specials())
	}
	if len(ids) == 0 {
		ids = []int32{e.prefix} // nothing to condition on: start from BOS/EOS
	}
	if err := checkIDs(ids, e.cfg.VocabSize, "context_ids"); err != nil {
		return genItem{}, err
	}
	if keep := e.maxLen - maxGen; len(ids) > keep {
		ids = ids[len(ids)-keep:]
	}
	until := r.Until
	if tok != nil {
		if id, ok := tok.EOS(); ok { // lm-eval appends decode(eos, skip_special_tokens=False)
			until = append(slices.Clone(until), tok.Decode([]int32{id}, false))
		}
	}
	until = cleanUntil(until)
	st := &stopper{until: until, eos: eos, maxGen: maxGen}
	if tok != nil {
		st.decode = func(ids []int32) string { return tok.Decode(ids, true) }
	} else if len(until) > 0 {
		return genItem{}, errs.BadInputf("stop strings need a tokenizer to decode the output; load one or drop until")
	}
	return genItem{ctx: ids, stop: st, samp: newSampler(r)}, nil
}

// eosLister is implemented by tokenizers that know several EOS ids
// (models/tokenizer.EOSIDs: eos_token plus generation_config.json).
type eosLister interface{ EOSIDs() []int32 }

// eosIDs is every id that ends generation: config.json eos_token_id,
// generation_config.json eos_token_id (an int or a list) and the
// tokenizer's EOS.
func (e *Engine) eosIDs() (map[int32]bool, error) {
	eos := map[int32]bool{}
	for _, id := range e.cfg.EOSTokenIDs {
		eos[int32(id)] = true
	}
	if tok := e.opts.Tokenizer; tok != nil {
		if id, ok := tok.EOS(); ok {
			eos[id] = true
		}
		if l, ok := tok.(eosLister); ok {
			for _, id := range l.EOSIDs() {
				eos[id] = true
			}
		}
	}
	if e.cfg.Path == "" {
		return eos, nil
	}
	ids, err := readGenerationEOS(filepath.Join(filepath.Dir(e.cfg.Path), "generation_config.json"))
	for _, id := range ids {
		eos[id] = true
	}
	return eos, err
}

// readGenerationEOS reads eos_token_id from a generation_config.json; a
// missing file or field yields nothing.
func readGenerationEOS(path string) ([]int32, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var g struct {
		EOS json.RawMessage `json:"eos_token_id"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, errs.BadInputf("%s: malformed JSON: %v", path, err)
	}
	if len(g.EOS) == 0 || string(g.EOS) == "null" {
		return nil, nil
	}
	var one int32
	if json.Unmarshal(g.EOS, &one) == nil {
		return []int32{one}, nil
	}
	var many []int32
	if err := json.Unmarshal(g.EOS, &many); err != nil {
		return nil, errs.BadInputf("%s: eos_token_id must be an integer or a list of integers", path)
	}
	return many, nil
}

// checkSampling rejects sampling settings that are out of range or not
// numbers: NaN passes every ordered comparison, so each bound is written
// as "must hold" rather than "must not fail".
func checkSampling(r lm.GenerateRequest) error {
	t, p := float64(r.Temperature), float64(r.TopP)
	if !(t >= 0) || math.IsInf(t, 1) || !(p >= 0 && p <= 1) || r.TopK < 0 {
		return errs.BadInputf("sampling: temperature %g must be a finite number ≥ 0, top_p %g in [0, 1], top_k %d ≥ 0", r.Temperature, r.TopP, r.TopK)
	}
	return nil
}
