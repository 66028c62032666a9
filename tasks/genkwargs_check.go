package tasks

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
)

// genKwargKeys are the generation kwargs goeval honours: genRequest reads
// until and the token limits, the evaluator's generateRequest the sampling
// ones.
var genKwargKeys = []string{"until", "max_gen_toks", "max_new_tokens", "max_tokens", "max_completion_tokens",
	"do_sample", "temperature", "top_p", "top_k"}

// unsupportedGenKwargs are keys transformers' generate accepts that goeval
// cannot honour: running without them would silently give other outputs.
var unsupportedGenKwargs = []string{"num_beams", "num_beam_groups", "diversity_penalty", "length_penalty",
	"early_stopping", "repetition_penalty", "encoder_repetition_penalty", "no_repeat_ngram_size",
	"encoder_no_repeat_ngram_size", "min_new_tokens", "min_length", "max_length", "max_time", "typical_p",
	"epsilon_cutoff", "eta_cutoff", "min_p", "penalty_alpha", "num_return_sequences", "bad_words_ids",
	"force_words_ids", "suppress_tokens", "begin_suppress_tokens", "sequence_bias", "guidance_scale",
	"renormalize_logits", "forced_bos_token_id", "forced_eos_token_id", "exponential_decay_length_penalty",
	"stop_strings", "eos_token_id", "pad_token_id", "bos_token_id", "use_cache", "output_scores",
	"output_logits", "return_dict_in_generate", "watermarking_config", "assistant_model", "prompt_lookup_num_tokens"}

// checkGenKwargs rejects --gen-kwargs keys goeval does not know or cannot
// honour and values out of range, in key order so the error is stable.
func checkGenKwargs(kw map[string]any) error {
	keys := make([]string, 0, len(kw))
	for k := range kw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := checkGenKwarg(k, kw[k]); err != nil {
			return err
		}
	}
	return checkSampling(kw)
}

// checkSampling rejects do_sample=true without a temperature > 0: lm-eval
// passes temperature 0 to transformers when none is given, and
// transformers refuses to sample at temperature 0.
func checkSampling(kw map[string]any) error {
	if ds, _ := kw["do_sample"].(bool); !ds {
		return nil
	}
	if t, ok := py.ToFloat(kw["temperature"]); !ok || t <= 0 {
		return errs.BadInputf("--gen-kwargs do_sample=true needs temperature > 0 (lm-eval and transformers do not sample at temperature 0)")
	}
	return nil
}

// checkGenKwarg checks one key and its value.
func checkGenKwarg(k string, v any) error {
	switch {
	case slices.Contains(unsupportedGenKwargs, k):
		return errs.BadInputf("--gen-kwargs %s: goeval does not support it (it honours %s)", k, strings.Join(genKwargKeys, ", "))
	case !slices.Contains(genKwargKeys, k):
		return errs.BadInputf("--gen-kwargs: unknown key %q%s (goeval honours %s)", k, didYouMean(closest(k, genKwargKeys)), strings.Join(genKwargKeys, ", "))
	}
	x, isNum := py.ToFloat(v)
	if _, isBool := v.(bool); isBool && k != "do_sample" {
		isNum = false
	}
	integral := isNum && x == math.Trunc(x)
	switch k {
	case "until":
		if !isStrings(v) {
			return errs.BadInputf("--gen-kwargs until must be a string or a list of strings, got %s", pyTypeName(v))
		}
	case "do_sample":
		if _, ok := v.(bool); !ok {
			return errs.BadInputf("--gen-kwargs do_sample must be true or false")
		}
	case "temperature":
		if !isNum || !(x >= 0) || math.IsInf(x, 1) {
			return errs.BadInputf("--gen-kwargs temperature must be a number ≥ 0")
		}
	case "top_p":
		if !isNum || !(x > 0 && x <= 1) {
			return errs.BadInputf("--gen-kwargs top_p must be in (0, 1]")
		}
	case "top_k":
		if !integral || x < 0 {
			return errs.BadInputf("--gen-kwargs top_k must be an integer ≥ 0")
		}
	default: // the token limits
		if !integral || x < 1 || x > math.MaxInt32 {
			return errs.BadInputf("--gen-kwargs %s must be ≥ 1 (an integer number of tokens)", k)
		}
	}
	return nil
}

// isStrings reports whether v is a string or a list of strings.
func isStrings(v any) bool {
	switch x := v.(type) {
	case string, []string:
		return true
	case []any:
		for _, s := range x {
			if _, ok := s.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// GenKwargsWarnings lists what --gen-kwargs sets that greedy decoding will
// ignore: temperature, top_p or top_k without do_sample=true. lm-eval task
// configs carry such keys legitimately (transformers ignores them when not
// sampling), so these are warnings, not errors.
func GenKwargsWarnings(kw map[string]any) []string {
	ignored := SamplingOf(kw).Ignored
	if len(ignored) == 0 {
		return nil
	}
	return []string{"--gen-kwargs " + strings.Join(ignored, ", ") + " ignored: decoding is greedy without do_sample=true"}
}

// pyTypeName is the Python type name of a parsed --gen-kwargs value.
func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a bool"
	case int, int64, float64:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "a list with a non-string item"
	}
	return "another type"
}
