package goeval

import (
	"context"
	"fmt"

	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/tasks"
)

// defaultProgressChunk is the requests per LM call when progress is
// reported: large enough that the engine packs and shares prefixes across
// many documents, small enough that an LM that reports no steps still
// shows progress.
const defaultProgressChunk = 2048

// reqRef locates one answer: task run, instance, request index, repeat.
type reqRef struct{ run, inst, req, rep int }

// runRequests groups every request by kind, calls the LM once per kind (or
// per chunk when progress is reported) and stores the responses in place.
func runRequests(ctx context.Context, model lm.LM, runs []*taskRun, opts Options, pr *progress) error {
	byKind := map[tasks.RequestKind][]reqRef{}
	for ri, r := range runs {
		r.resps = make([][]tasks.Response, len(r.insts))
		for ii, inst := range r.insts {
			r.resps[ii] = make([]tasks.Response, len(inst.Requests))
			for qi, q := range inst.Requests {
				if n := q.Times(); n > 1 {
					r.resps[ii][qi].Repeats = make([]tasks.Response, n)
				}
				for rep := range q.Times() { // lm-eval's [req] * repeats
					byKind[q.Kind] = append(byKind[q.Kind], reqRef{ri, ii, qi, rep})
				}
			}
		}
	}
	if err := checkThinking(opts.Thinking, runs, byKind[tasks.ReqLoglikelihood]); err != nil {
		return err
	}
	for _, refs := range byKind {
		pr.total += len(refs)
	}
	for _, kind := range []tasks.RequestKind{tasks.ReqLoglikelihood, tasks.ReqRolling, tasks.ReqGenerate} {
		if len(byKind[kind]) > 0 {
			pr.report(kindStage(kind)) // the requests are known; none answered yet
			break
		}
	}
	chunk := 0 // 0: everything in one call
	if opts.Progress != nil {
		chunk = opts.ProgressChunk
		if chunk <= 0 {
			chunk = defaultProgressChunk
		}
	}
	for _, kind := range []tasks.RequestKind{tasks.ReqLoglikelihood, tasks.ReqRolling, tasks.ReqGenerate} {
		refs := byKind[kind]
		for lo := 0; lo < len(refs); {
			hi := len(refs)
			if chunk > 0 {
				hi = min(lo+chunk, len(refs))
			}
			if err := callLM(ctx, model, kind, runs, refs[lo:hi], opts, pr); err != nil {
				return err
			}
			lo = hi
		}
	}
	return nil
}

func request(runs []*taskRun, ref reqRef) tasks.Request {
	return runs[ref.run].insts[ref.inst].Requests[ref.req]
}

// setResp stores an answer; a repeated request's first answer is also
// the response's own fields (tasks.Response.Repeats).
func setResp(runs []*taskRun, ref reqRef, r tasks.Response) {
	dst := &runs[ref.run].resps[ref.inst][ref.req]
	if dst.Repeats == nil {
		*dst = r
		return
	}
	dst.Repeats[ref.rep] = r
	if ref.rep == 0 {
		all := dst.Repeats
		*dst = r
		dst.Repeats = all
	}
}

// callLM answers one batch of requests of one kind.
func callLM(ctx context.Context, model lm.LM, kind tasks.RequestKind, runs []*taskRun, refs []reqRef, opts Options, pr *progress) error {
	if len(refs) == 0 {
		return nil
	}
	tokens := 0
	ctx, ended := pr.within(ctx, kindStage(kind), len(refs))
	defer ended() // idempotent
	switch kind {
	case tasks.ReqLoglikelihood:
		reqs := make([]lm.LoglikelihoodRequest, len(refs))
		for i, ref := range refs {
			q := request(runs, ref)
			reqs[i] = lm.LoglikelihoodRequest{Context: q.Context, Continuation: q.Continuation}
		}
		out, err := model.Loglikelihood(ctx, reqs)
		if err := checkLen("loglikelihood", out, reqs, err); err != nil {
			return err
		}
		for i, ref := range refs {
			setResp(runs, ref, tasks.Response{LogProb: out[i].LogProb, IsGreedy: out[i].IsGreedy, NumTokens: out[i].NumTokens})
			tokens += out[i].NumTokens
		}
	case tasks.ReqRolling:
		reqs := make([]lm.RollingRequest, len(refs))
		for i, ref := range refs {
			reqs[i] = lm.RollingRequest{Text: request(runs, ref).Text}
		}
		out, err := model.LoglikelihoodRolling(ctx, reqs)
		if err := checkLen("loglikelihood_rolling", out, reqs, err); err != nil {
			return err
		}
		for i, ref := range refs {
			setResp(runs, ref, tasks.Response{LogProb: out[i].LogProb, NumTokens: out[i].NumTokens})
			tokens += out[i].NumTokens
		}
	case tasks.ReqGenerate:
		reqs := make([]lm.GenerateRequest, len(refs))
		for i, ref := range refs {
			reqs[i] = generateRequest(request(runs, ref), answerSeed(runs, ref, opts))
		}
		out, err := model.GenerateUntil(ctx, reqs)
		if err := checkLen("generate_until", out, reqs, err); err != nil {
			return err
		}
		for i, ref := range refs {
			setResp(runs, ref, generated(out[i], opts.Thinking, reqs[i].Until))
			tokens += len(out[i].IDs)
		}
	}
	ended()
	pr.done += len(refs)
	pr.tokens += tokens
	pr.report(kindStage(kind))
	return nil
}

func kindStage(k tasks.RequestKind) string {
	switch k {
	case tasks.ReqRolling:
		return "loglikelihood_rolling"
	case tasks.ReqGenerate:
		return "generate_until"
	}
	return "loglikelihood"
}

func checkLen[R, Q any](kind string, out []R, in []Q, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", kind, err)
	}
	if len(out) != len(in) {
		return fmt.Errorf("%s: the model returned %d results for %d requests", kind, len(out), len(in))
	}
	return nil
}

// generateRequest maps a task's generate request (lm-eval generation_kwargs)
// onto the LM's: greedy unless do_sample (tasks.SamplingOf), and then
// sampled with seed.
func generateRequest(q tasks.Request, seed uint64) lm.GenerateRequest {
	s := tasks.SamplingOf(q.GenKwargs)
	r := lm.GenerateRequest{Context: q.Context, Until: q.Until, MaxTokens: q.MaxTokens,
		Temperature: float32(s.Temperature), TopP: float32(s.TopP), TopK: s.TopK}
	if r.Temperature > 0 {
		r.Seed = seed
	}
	return r
}
