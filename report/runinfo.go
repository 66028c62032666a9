package report

import (
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/lm"
)

// RunInfo is the run-level metadata of a results file.
type RunInfo struct {
	ModelName string // "model_name" (the --model path or id)
	// Config is "config" in lm-eval's key order: model, model_args,
	// batch_size, device, limit, seeds, … Its "model_args" (a *py.Map)
	// is also merged into every task config's metadata, as lm-eval does.
	Config  *py.Map[any]
	GitHash string         // "git_hash"; empty means goeval's own commit (internal/buildinfo)
	Extra   map[string]any // other top-level keys (max_length, chat_template, ...)
}

// RunSettings are the run-level settings a results file records in its
// "config" block.
type RunSettings struct {
	Model          string         // --model (model_args pretrained)
	Peft           string         // the adapter (model_args peft, after pretrained); "" for none
	DType          string         // model_args dtype
	BatchSize      any            // an int, or "auto"
	Device         string         // cpu, cuda, …
	Limit          float64        // 0 = none (written as null)
	BootstrapIters int            // <= 0 is written as 0
	GenKwargs      map[string]any // --gen-kwargs (written sorted; {} when none)
	Seeds          [4]any         // random, numpy, torch, fewshot (int64 or nil)
	// ModelRevision, ModelSHA and PeftSHA are lm-eval's model_revision,
	// model_sha and peft_sha, for models fetched from the Hub ("" = left out).
	ModelRevision, ModelSHA, PeftSHA string
}

// RunConfig is the results file's "config" block in lm-eval's key order.
// lm-eval's HF-model keys model_revision, model_sha and peft_sha follow
// model_args for models fetched from the Hub; model_num_parameters and
// model_dtype are left out.
func RunConfig(s RunSettings) *py.Map[any] {
	var limit any
	if s.Limit > 0 {
		limit = s.Limit
	}
	gen := py.NewMap[any]()
	for _, k := range sortedKeys(s.GenKwargs) {
		gen.Set(k, s.GenKwargs[k])
	}
	args := py.NewMap[any]()
	args.Set("pretrained", s.Model)
	if s.Peft != "" {
		args.Set("peft", s.Peft)
	}
	args.Set("dtype", s.DType)
	c := py.NewMap[any]()
	for _, kv := range []struct {
		k string
		v any
	}{{"model", "goeval"}, {"model_args", args}, {"model_revision", s.ModelRevision}, {"model_sha", s.ModelSHA},
		{"peft_sha", s.PeftSHA}, {"batch_size", s.BatchSize}, {"batch_sizes", []any{}},
		{"device", s.Device}, {"use_cache", nil}, {"limit", limit}, {"bootstrap_iters", max(s.BootstrapIters, 0)},
		{"gen_kwargs", gen}, {"random_seed", s.Seeds[0]}, {"numpy_seed", s.Seeds[1]}, {"torch_seed", s.Seeds[2]},
		{"fewshot_seed", s.Seeds[3]}} {
		if (kv.k == "model_revision" || strings.HasSuffix(kv.k, "_sha")) && kv.v == "" {
			continue // not fetched from the Hub
		}
		c.Set(kv.k, kv.v)
	}
	return c
}

// defaultMaxLength is lm-eval's max_length when neither the model config
// nor the tokenizer gives one.
const defaultMaxLength = 2048

// ModelKeys returns the model-level keys lm-eval's HF model writes at the
// top of a results file (RunInfo.Extra): tokenizer_pad_token,
// tokenizer_eos_token and tokenizer_bos_token as [token, "id"] ([null,
// "None"] when absent; the pad token falls back to EOS as in lm-eval),
// eot_token_id (the EOS id, when there is one) and max_length (2048 when
// info has none).
func ModelKeys(info lm.Info) map[string]any {
	tok := func(t *lm.Token) []any {
		if t == nil {
			return []any{nil, "None"}
		}
		return []any{t.Text, strconv.Itoa(int(t.ID))}
	}
	pad := info.Pad
	if pad == nil {
		pad = info.EOS
	}
	out := map[string]any{"tokenizer_pad_token": tok(pad), "tokenizer_eos_token": tok(info.EOS),
		"tokenizer_bos_token": tok(info.BOS), "max_length": defaultMaxLength}
	if info.EOS != nil {
		out["eot_token_id"] = int(info.EOS.ID)
	}
	if info.MaxLength > 0 {
		out["max_length"] = info.MaxLength
	}
	return out
}
