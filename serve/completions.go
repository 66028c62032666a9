package serve

import (
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/goeval/goeval/lm"
)

// completion is one prompt's planned work and, once run, its answer.
type completion struct {
	prompt []int32
	text   string // the prompt as text (decoded when given as ids)
	gen    []lm.GenerateResult
	scores []*lm.TokenScores // per choice: prompt[1:] + generated tokens (echo) or generated tokens only; nil entries: nothing scored
}

// completionParams are a completions request's own keys.
type completionParams struct {
	echo     bool
	logprobs *int
	samp     sampling
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request, f fields) error {
	var raw json.RawMessage
	var suffix string
	var p completionParams
	if err := f.takeAll(keyed{"prompt", &raw}, keyed{"echo", &p.echo}, keyed{"logprobs", &p.logprobs}, keyed{"suffix", &suffix}); err != nil {
		return err
	}
	samp, err := parseSampling(f, 16, "max_tokens")
	if err != nil {
		return err
	}
	p.samp = samp
	if err := f.rest(); err != nil {
		return err
	}
	ids, texts, err := prompts(raw, func(t string) []int32 { return s.m.Tok.Encode(t, true) })
	if err != nil {
		return err
	}
	if err := s.checkCompletion(p, ids); err != nil {
		return err
	}
	if suffix != "" {
		return badRequest("suffix", "suffix is not implemented")
	}
	cs := make([]*completion, len(ids))
	for i := range ids {
		if texts[i] == "" {
			texts[i] = s.m.Tok.Decode(ids[i], false)
		}
		cs[i] = &completion{prompt: ids[i], text: texts[i]}
	}
	if p.samp.Stream {
		return s.streamCompletions(w, r, p, cs)
	}
	if err := s.runCompletions(r, p, cs); err != nil {
		return err
	}
	writeJSON(w, s.completionResponse(p, cs))
	return nil
}

// checkCompletion refuses what cannot be answered, before any work.
func (s *Server) checkCompletion(p completionParams, ids [][]int32) error {
	if err := checkIDs(ids, s.vocab()); err != nil {
		return err
	}
	want := p.logprobs != nil
	switch {
	case p.logprobs != nil && (*p.logprobs < 0 || *p.logprobs > 1):
		return badRequest("logprobs", "logprobs must be 0 or 1: goeval serve reports the argmax token (lm-eval asks for 1), got %d", *p.logprobs)
	case want && s.m.Scorer == nil:
		return badRequest("logprobs", "this model cannot return log-probs")
	case p.samp.Stream && p.logprobs != nil:
		return badRequest("logprobs", "logprobs with stream is not implemented; ask without stream")
	}
	return s.checkLength(ids, p.samp.MaxTokens)
}

// checkLength refuses prompts that with max_tokens overflow the model.
func (s *Server) checkLength(ids [][]int32, maxTokens int) error {
	for i, p := range ids {
		if n := len(p) + max(maxTokens, 0); s.m.MaxLength > 0 && n > s.m.MaxLength {
			return badRequest("max_tokens", "prompt %d: %d prompt tokens + %d max_tokens = %d exceeds the model's maximum length of %d tokens", i, len(p), maxTokens, n, s.m.MaxLength)
		}
	}
	return nil
}

// greedyNext reports whether the request is one greedy token: answered by
// scoring alone (the argmax after the prompt), the way log-likelihood
// clients ask (max_tokens 1, temperature 0, echo, logprobs 1).
func greedyNext(p sampling) bool {
	return p.MaxTokens == 1 && (p.Temperature == 0 || p.TopK == 1)
}

// runCompletions generates (unless no token or one greedy token is asked
// for) and scores (for echo and logprobs), filling cs.
func (s *Server) runCompletions(r *http.Request, p completionParams, cs []*completion) error {
	wantScores := p.logprobs != nil
	switch {
	case p.samp.MaxTokens == 0:
		for _, c := range cs {
			c.gen = slices.Repeat([]lm.GenerateResult{{StopReason: "max_tokens"}}, p.samp.N)
		}
	case greedyNext(p.samp):
		return s.scoreNext(r, p, cs)
	default:
		if err := s.generate(r, p.samp, cs, nil); err != nil {
			return err
		}
	}
	if wantScores {
		return s.scoreCompletions(r, p.echo, cs)
	}
	return nil
}

// generate runs every prompt n times (seeds seed, seed+1, …).
func (s *Server) generate(r *http.Request, samp sampling, cs []*completion, onToken func(int, int32)) error {
	j := &job{onToken: onToken}
	for _, c := range cs {
		j.gen = append(j.gen, genRequests(c.prompt, samp)...)
	}
	res, err := s.runJob(r, j)
	if err != nil {
		return err
	}
	for i, c := range cs {
		c.gen = res.gen[i*samp.N : (i+1)*samp.N]
	}
	return nil
}

// genRequests is one prompt's n generation requests.
func genRequests(prompt []int32, samp sampling) []lm.GenerateRequest {
	seed := randomSeed()
	if samp.Seed != nil {
		seed = *samp.Seed
	}
	out := make([]lm.GenerateRequest, samp.N)
	for i := range out {
		out[i] = lm.GenerateRequest{ContextIDs: prompt, Until: samp.Stop, MaxTokens: samp.MaxTokens,
			Temperature: samp.Temperature, TopP: samp.TopP, TopK: samp.TopK, Seed: seed + uint64(i)}
		if samp.TopP >= 1 {
			out[i].TopP = 0
		}
	}
	return out
}

// scoreNext answers one greedy token per prompt from a scoring pass: the
// prompt plus a placeholder token is scored, and the argmax at the
// placeholder's position is the next token.
func (s *Server) scoreNext(r *http.Request, p completionParams, cs []*completion) error {
	j := &job{}
	for _, c := range cs {
		j.score = append(j.score, lm.TokenScoreRequest{ContextIDs: c.prompt[:1], ContinuationIDs: append(slices.Clone(c.prompt[1:]), 0)})
	}
	res, err := s.runJob(r, j)
	if err != nil {
		return err
	}
	for i, c := range cs {
		sc := res.score[i]
		last := len(sc.TopIDs) - 1
		next := sc.TopIDs[last]
		sc.LogProbs[last] = sc.TopLogProbs[last]
		sc.TopIDs[last] = next
		g := s.oneToken(next, p.samp.Stop)
		c.gen = slices.Repeat([]lm.GenerateResult{g}, p.samp.N)
		if !p.echo {
			sc = lm.TokenScores{LogProbs: sc.LogProbs[last:], TopIDs: sc.TopIDs[last:], TopLogProbs: sc.TopLogProbs[last:]}
		}
		c.scores = slices.Repeat([]*lm.TokenScores{&sc}, p.samp.N)
	}
	return nil
}

// oneToken is the result of generating exactly id: its text cut at a stop
// string, EOS ending with no text.
func (s *Server) oneToken(id int32, stop []string) lm.GenerateResult {
	if slices.Contains(s.m.EOS, id) {
		return lm.GenerateResult{IDs: []int32{id}, StopReason: "eos"}
	}
	t := s.m.Tok.Decode([]int32{id}, true)
	if i := lm.FirstStop(t, stop); i >= 0 {
		return lm.GenerateResult{Text: t[:i], IDs: []int32{id}, StopReason: "until"}
	}
	return lm.GenerateResult{Text: t, IDs: []int32{id}, StopReason: "max_tokens"}
}

// scoreCompletions scores each choice's tokens for echo/logprobs.
func (s *Server) scoreCompletions(r *http.Request, echo bool, cs []*completion) error {
	if cs[0].scores != nil {
		return nil // scoreNext did
	}
	j := &job{}
	type at struct{ c, g int }
	var where []at
	for ci, c := range cs {
		for gi, g := range c.gen {
			req := lm.TokenScoreRequest{ContextIDs: c.prompt, ContinuationIDs: g.IDs}
			if echo {
				req = lm.TokenScoreRequest{ContextIDs: c.prompt[:1], ContinuationIDs: append(slices.Clone(c.prompt[1:]), g.IDs...)}
			}
			if len(req.ContinuationIDs) > 0 {
				j.score = append(j.score, req)
				where = append(where, at{ci, gi})
			}
		}
	}
	for _, c := range cs {
		c.scores = make([]*lm.TokenScores, len(c.gen)) // nil entries: nothing to score
	}
	if len(j.score) == 0 {
		return nil
	}
	res, err := s.runJob(r, j)
	if err != nil {
		return err
	}
	for k, w := range where {
		cs[w.c].scores[w.g] = &res.score[k]
	}
	return nil
}

// completionResponse builds the non-streaming answer.
func (s *Server) completionResponse(p completionParams, cs []*completion) map[string]any {
	var choices []map[string]any
	prompt, done := 0, 0
	for ci, c := range cs {
		prompt += len(c.prompt)
		for gi, g := range c.gen {
			done += len(g.IDs)
			text := g.Text
			if p.echo {
				text = c.text + text
			}
			choice := map[string]any{"index": ci*p.samp.N + gi, "text": text, "logprobs": nil, "finish_reason": finishReason(g.StopReason)}
			if p.logprobs != nil {
				choice["logprobs"] = s.logprobsObject(c, gi, p.echo)
			}
			choices = append(choices, choice)
		}
	}
	return map[string]any{"id": newID("cmpl-"), "object": "text_completion", "created": time.Now().Unix(), "model": s.m.Name,
		"choices": choices, "usage": usage(prompt, done)}
}

func usage(prompt, completion int) map[string]int {
	return map[string]int{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
}

// finishReason maps the LM's stop reasons to OpenAI's.
func finishReason(r string) string {
	if r == "max_tokens" {
		return "length"
	}
	return "stop"
}

// streamCompletions answers a completions request as server-sent events:
// the prompt first with echo, then text pieces, then each choice's
// finish_reason, usage when stream_options.include_usage, and [DONE].
func (s *Server) streamCompletions(w http.ResponseWriter, r *http.Request, p completionParams, cs []*completion) error {
	ev := &sse{w: w}
	id, created := newID("cmpl-"), time.Now().Unix()
	chunk := func(i int, text string, finish any) map[string]any {
		return map[string]any{"id": id, "object": "text_completion", "created": created, "model": s.m.Name,
			"choices": []map[string]any{{"index": i, "text": text, "logprobs": nil, "finish_reason": finish}}}
	}
	n := p.samp.N
	if p.echo {
		for ci, c := range cs {
			for gi := range n {
				if err := ev.send(chunk(ci*n+gi, c.text, nil)); err != nil {
					return err
				}
			}
		}
	}
	var gens []lm.GenerateResult
	if p.samp.MaxTokens == 0 {
		gens = slices.Repeat([]lm.GenerateResult{{StopReason: "max_tokens"}}, len(cs)*n)
	} else {
		var err error
		gens, err = s.streamGenerate(r, p.samp, cs, func(i int, t string) error { return ev.send(chunk(i, t, nil)) })
		if err != nil {
			return ev.fail(err)
		}
	}
	prompt, done := 0, 0
	for _, c := range cs {
		prompt += len(c.prompt) // once per prompt, as OpenAI counts it
	}
	for i, g := range gens {
		done += len(g.IDs)
		if err := ev.send(chunk(i, "", finishReason(g.StopReason))); err != nil {
			return err
		}
	}
	if p.samp.StreamUsage {
		if err := ev.send(map[string]any{"id": id, "object": "text_completion", "created": created, "model": s.m.Name,
			"choices": []any{}, "usage": usage(prompt, done)}); err != nil {
			return err
		}
	}
	return ev.done()
}
