package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strconv"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/lm"
	"github.com/goeval/goeval/models/tokenizer"
	"github.com/goeval/goeval/report"
)

// thinkState is lm-eval's reasoning-model arguments (HFLM 0.4.13's
// think_end_token, enable_thinking and chat_template_args), given as
// --model-args keys or goeval's flags.
type thinkState struct {
	endToken     string         // think_end_token: the token's text, or its id in digits
	enable       optBool        // enable_thinking
	templateArgs map[string]any // chat_template_args (engine and completions models)
}

func defineThinkFlags(fs *flag.FlagSet, t *thinkState) {
	fs.StringVar(&t.endToken, "think-end-token", "", "a reasoning model's think-end token, its text (</think>) or its id (lm-eval's think_end_token model argument): each generation is cut after its last occurrence and left-stripped before filters and metrics; the reasoning stays in the samples file (goeval_reasoning) and its tokens are counted (results: goeval_thinking)")
	fs.Var(&t.enable, "enable-thinking", "pass enable_thinking to the chat template (lm-eval's enable_thinking model argument); true needs --think-end-token and refuses loglikelihood tasks, as lm-eval does")
}

// thinkModelArg applies one lm-eval model argument of thinkState; ok is
// false for any other key.
func (t *thinkState) thinkModelArg(k string, v any) (ok bool, err error) {
	switch k {
	case "think_end_token":
		t.endToken = fmt.Sprint(v)
	case "enable_thinking":
		b, err := strconv.ParseBool(fmt.Sprint(v))
		if err != nil {
			return true, errs.BadInputf("--model_args enable_thinking=%v: want true or false", v)
		}
		t.enable = optBool{set: true, val: b}
	case "chat_template_args":
		m, isMap := v.(report.ArgMap)
		if !isMap {
			return true, errs.BadInputf("--model_args chat_template_args: want a JSON object (give --model_args as JSON)")
		}
		t.templateArgs = goMap(m)
	default:
		return false, nil
	}
	return true, nil
}

// goMap is a parsed JSON object as the Jinja renderer takes template
// variables: nested objects and lists converted, numbers as int64 or
// float64 (Python's int and float).
func goMap(m report.ArgMap) map[string]any {
	out := map[string]any{}
	for _, k := range m.Keys() {
		out[k] = goValue(m.Value(k))
	}
	return out
}

func goValue(v any) any {
	switch x := v.(type) {
	case report.ArgMap:
		return goMap(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = goValue(e)
		}
		return out
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// check is lm-eval's check: enable_thinking=True needs think_end_token.
// A chat API model renders its prompts on the server, so template
// arguments cannot reach its template.
func (t *thinkState) check(chatAPI bool) error {
	if t.enable.or(false) && t.endToken == "" {
		return errs.BadInputf("enable_thinking=True needs think_end_token (as in lm-eval): give --model-args think_end_token=TOKEN or --think-end-token")
	}
	if chatAPI && t.chatArgs() != nil {
		return errs.BadInputf("enable_thinking and chat_template_args need goeval to render the chat template; an openai-chat model's server renders it (lm-eval's local-chat-completions takes neither)")
	}
	return nil
}

// chatArgs are the chat template's extra variables: chat_template_args
// with enable_thinking set when given (HFLM's merge); nil when none.
func (t *thinkState) chatArgs() map[string]any {
	if !t.enable.set && len(t.templateArgs) == 0 {
		return nil
	}
	out := map[string]any{}
	for k, v := range t.templateArgs {
		out[k] = v
	}
	if t.enable.set {
		out["enable_thinking"] = t.enable.val
	}
	return out
}

// resolve is the evaluator's lm.Thinking for a model whose tokenizer is
// tok (nil: none known). An id (digits, as HFLM reads think_end_token)
// needs the tokenizer and cuts the generated ids as HFLM does (a special
// token included; its text where a model returns no ids); a text is
// counted by id when it is one token of the vocabulary.
func (t *thinkState) resolve(tok *tokenizer.Tokenizer) (lm.Thinking, error) {
	th := lm.Thinking{EndToken: t.endToken, Enabled: t.enable.or(false)}
	if t.endToken == "" {
		return th, nil
	}
	if n, err := strconv.ParseUint(t.endToken, 10, 31); err == nil {
		if tok == nil {
			return th, errs.BadInputf("think_end_token=%s is a token id: the model needs a tokenizer to turn it into text", t.endToken)
		}
		id := int32(n)
		if _, known := tok.IDToToken(id); !known {
			return th, errs.BadInputf("think_end_token=%d: not a token of the model's vocabulary", id)
		}
		th.EndToken, th.EndTokenID, th.HasID, th.ByID = tok.Decode([]int32{id}, false), id, true, true
		th.Decode = func(ids []int32) string { return tok.Decode(ids, true) } // as the engine decodes generations
		if eos, ok := tok.EOS(); ok {
			th.Stops = []string{tok.Decode([]int32{eos}, false)} // the stop string the engine adds (lm-eval's HFLM too)
		}
		return th, nil
	}
	if tok != nil {
		th.EndTokenID, th.HasID = tok.TokenToID(t.endToken)
	}
	return th, nil
}

// tokenizerOf is the opened model's tokenizer: the engine's, an API
// model's (--tokenizer), nil for the fake LM or without one.
func (r *runner) tokenizerOf(m openedModel) *tokenizer.Tokenizer {
	if m.eng != nil {
		return m.eng.Tokenizer()
	}
	if p := r.plan.api; p != nil {
		if t, ok := p.opts.Tokenizer.(*tokenizer.Tokenizer); ok {
			return t
		}
	}
	return nil
}
