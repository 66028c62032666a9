package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// sampling holds the generation settings common to both endpoints, parsed
// and checked, with OpenAI's defaults applied.
type sampling struct {
	MaxTokens   int // -1: up to the model's max length
	Temperature float32
	TopP        float32
	TopK        int
	N           int
	Stop        []string
	Seed        *uint64
	Stream      bool
	StreamUsage bool // stream_options.include_usage
}

// fields is a request body's top-level keys, each consumed by a parser;
// what is left over is an unknown parameter.
type fields map[string]json.RawMessage

// decodeBody reads a JSON object.
func decodeBody(body []byte) (fields, error) {
	var f fields
	d := json.NewDecoder(bytes.NewReader(body))
	if err := d.Decode(&f); err != nil {
		return nil, badRequest("", "request body is not a JSON object: %v", err)
	}
	if f == nil {
		return nil, badRequest("", "request body is not a JSON object")
	}
	return f, nil
}

// take decodes and removes key into v; a missing or null key leaves v.
func (f fields) take(key string, v any) error {
	raw, ok := f[key]
	delete(f, key)
	if !ok || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return badRequest(key, "%s: %v", key, err)
	}
	return nil
}

// keyed is a key and where take stores it.
type keyed struct {
	key string
	v   any
}

// takeAll takes each key in order.
func (f fields) takeAll(ks ...keyed) error {
	for _, k := range ks {
		if err := f.take(k.key, k.v); err != nil {
			return err
		}
	}
	return nil
}

// rest fails on keys no parser took, naming them.
func (f fields) rest() error {
	if len(f) == 0 {
		return nil
	}
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return badRequest(keys[0], "unsupported parameter(s) %s: goeval serve implements model, prompt/messages, max_tokens, temperature, top_p, top_k, n, stop, seed, stream, stream_options, echo and logprobs", strings.Join(keys, ", "))
}

// parseSampling takes the shared generation keys (maxKey: max_tokens, or
// for chat also max_completion_tokens) with OpenAI's defaults: 16 tokens
// for completions (defMax), temperature 1, top_p 1.
func parseSampling(f fields, defMax int, maxKeys ...string) (sampling, error) {
	s := sampling{MaxTokens: defMax, Temperature: 1, TopP: 1, N: 1}
	var temp, topP *float64
	var maxTok, n, topK *int
	var seed *int64
	var stop json.RawMessage
	var opts struct {
		IncludeUsage bool `json:"include_usage"`
	}
	for _, k := range maxKeys {
		var v *int
		if err := f.take(k, &v); err != nil {
			return s, err
		}
		if maxTok == nil {
			maxTok = v
		}
	}
	err := f.takeAll(keyed{"temperature", &temp}, keyed{"top_p", &topP}, keyed{"n", &n}, keyed{"top_k", &topK},
		keyed{"seed", &seed}, keyed{"stop", &stop}, keyed{"stream", &s.Stream}, keyed{"stream_options", &opts})
	if err != nil {
		return s, err
	}
	if err := ignorable(f); err != nil {
		return s, err
	}
	s.StreamUsage = opts.IncludeUsage
	switch {
	case maxTok != nil && *maxTok < 0:
		return s, badRequest("max_tokens", "max_tokens must be ≥ 0, got %d", *maxTok)
	case temp != nil && (math.IsNaN(*temp) || *temp < 0 || *temp > 2):
		return s, badRequest("temperature", "temperature must be in [0, 2], got %v", *temp)
	case topP != nil && (math.IsNaN(*topP) || *topP <= 0 || *topP > 1):
		return s, badRequest("top_p", "top_p must be in (0, 1], got %v", *topP)
	case n != nil && (*n < 1 || *n > 128):
		return s, badRequest("n", "n must be in [1, 128], got %d", *n)
	case topK != nil && *topK < -1:
		return s, badRequest("top_k", "top_k must be ≥ 0 (or -1: off), got %d", *topK)
	}
	if maxTok != nil {
		s.MaxTokens = *maxTok
	}
	if temp != nil {
		s.Temperature = float32(*temp)
	}
	if topP != nil {
		s.TopP = float32(*topP)
	}
	if n != nil {
		s.N = *n
	}
	if topK != nil && *topK > 0 {
		s.TopK = *topK
	}
	if seed != nil {
		u := uint64(*seed)
		s.Seed = &u
	}
	s.Stop, err = parseStop(stop)
	return s, err
}

// ignorable takes the OpenAI keys that change nothing at their neutral
// values (user, zero penalties, empty logit_bias, best_of 1) and refuses
// them otherwise: silently ignoring them would change what the client gets.
func ignorable(f fields) error {
	var user string
	var pres, freq float64
	var bias map[string]float64
	var bestOf int
	err := f.takeAll(keyed{"user", &user}, keyed{"presence_penalty", &pres}, keyed{"frequency_penalty", &freq},
		keyed{"logit_bias", &bias}, keyed{"best_of", &bestOf})
	if err != nil {
		return err
	}
	switch {
	case pres != 0 || freq != 0:
		return badRequest("presence_penalty", "presence_penalty and frequency_penalty are not implemented (only 0)")
	case len(bias) > 0:
		return badRequest("logit_bias", "logit_bias is not implemented")
	case bestOf > 1:
		return badRequest("best_of", "best_of is not implemented (use n)")
	}
	return nil
}

// parseStop reads stop: a string or a list of strings.
func parseStop(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return nonEmpty([]string{one}), nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, badRequest("stop", "stop must be a string or a list of strings")
	}
	return nonEmpty(list), nil
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// prompts reads a completions prompt: a string, a list of strings, a list
// of token ids, or a list of token-id lists. Strings are encoded with the
// tokenizer's special tokens (BOS where the model adds one), ids used as
// given.
func prompts(raw json.RawMessage, encode func(string) []int32) (ids [][]int32, texts []string, err error) {
	if len(raw) == 0 {
		return nil, nil, badRequest("prompt", "prompt is required")
	}
	// Each form is tried on a fresh variable: a failed Unmarshal may leave
	// a partly filled one behind.
	var one string
	var many []string
	var tok []int32
	var toks [][]int32
	switch {
	case json.Unmarshal(raw, &one) == nil:
		texts = []string{one}
	case json.Unmarshal(raw, &many) == nil:
		texts = many
	case json.Unmarshal(raw, &tok) == nil:
		ids = [][]int32{tok}
	case json.Unmarshal(raw, &toks) == nil:
		ids = toks
	default:
		return nil, nil, badRequest("prompt", "prompt must be a string, a list of strings, a list of token ids or a list of such lists")
	}
	if texts != nil {
		for _, s := range texts {
			ids = append(ids, encode(s))
		}
	} else {
		texts = make([]string, len(ids))
	}
	if len(ids) == 0 {
		return nil, nil, badRequest("prompt", "prompt is an empty list")
	}
	for i, p := range ids {
		if len(p) == 0 {
			return nil, nil, badRequest("prompt", "prompt %d is empty (no tokens)", i)
		}
	}
	return ids, texts, nil
}

// checkIDs refuses token ids outside the vocabulary.
func checkIDs(ids [][]int32, vocab int) error {
	for i, p := range ids {
		for _, id := range p {
			if id < 0 || int(id) >= vocab {
				return badRequest("prompt", "prompt %d has token id %d, outside the vocabulary [0, %d)", i, id, vocab)
			}
		}
	}
	return nil
}

// apiError is an OpenAI-style error with its HTTP status.
type apiError struct {
	Status  int
	Type    string
	Param   string
	Message string
}

func (e *apiError) Error() string { return e.Message }

func badRequest(param, format string, args ...any) *apiError {
	return &apiError{Status: 400, Type: "invalid_request_error", Param: param, Message: fmt.Sprintf(format, args...)}
}
