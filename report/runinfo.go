package report

import (
	"cmp"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/lm"
)

// RunInfo is everything a results file records besides the results
// themselves, typed: who ran what, and how. goeval run fills it for each
// model it evaluates; a Go program that fills it with the same values
// writes the same file.
type RunInfo struct {
	ModelName string // "model_name" (the --model path or id)
	// Settings are the "config" block (RunConfig); its model_args are also
	// merged into every task config's metadata, as lm-eval does.
	Settings RunSettings
	// Prompt are the prompt settings recorded outside "config":
	// system_instruction, fewshot_as_multiturn and chat_template.
	Prompt PromptSettings
	// Model is what lm-eval's HF model records of the tokenizer and the
	// context (tokenizer_*_token, eot_token_id, max_length); nil for a
	// model that describes none of it (the keys are then null).
	Model *lm.Info
	// Timing is what the engine ran ("goeval_timing"); nil: not recorded.
	Timing *Timing
	// DatasetSHA is each dataset's Hub commit, for datasets fetched from
	// the Hub ("dataset_sha"; nil: not recorded).
	DatasetSHA map[string]string
	// Metadata (lm-eval's --metadata) is merged into every task config's
	// metadata after model_args, as lm-eval does.
	Metadata *py.Map[any]
	GitHash  string // "git_hash"; empty means goeval's own commit (internal/buildinfo)
	// Backend, when set, is the GoMLX backend spec the run used where it
	// is not the device's default ("goeval_backend": e.g. goeval's
	// pure-Go backend with options such as "gocpu:bf16=dot", whose
	// numbers differ).
	Backend string
}

// extra are info's top-level keys other than the typed ones of Results.
func (info RunInfo) extra() map[string]any {
	out := promptFields(info.Prompt)
	if info.Model != nil {
		for k, v := range modelKeys(*info.Model) {
			out[k] = v
		}
	}
	if info.Timing != nil {
		out[TimingKey] = info.Timing.fields()
	}
	if info.Backend != "" {
		out[BackendKey] = info.Backend
	}
	if info.DatasetSHA != nil {
		shas := map[string]any{}
		for p, c := range info.DatasetSHA {
			shas[p] = c
		}
		out["dataset_sha"] = shas
	}
	return out
}

// Want describes info's run before it is evaluated, for FindRun: the
// tasks' effective num_fewshot and the groups it reports.
func (info RunInfo) Want(nshot map[string]int, groups []string) RunWant {
	extra := promptFields(info.Prompt)
	if info.Backend != "" {
		extra[BackendKey] = info.Backend
	}
	return RunWant{Config: RunConfig(info.Settings), NShot: nshot, Groups: groups, Extra: extra}
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
	Seeds          Seeds
	// ModelRevision, ModelSHA and PeftSHA are lm-eval's model_revision,
	// model_sha and peft_sha, for models fetched from the Hub.
	ModelRevision, ModelSHA, PeftSHA string
	// Checkpoint marks a checkpoint model: the config then holds lm-eval's
	// HF-model keys model_num_parameters (NumParameters), model_dtype
	// (torch's spelling of DType), model_revision ("main" unless fetched at
	// another), model_sha ("" for a local folder) and, with Peft, peft_sha.
	// For other LMs they are written only when fetched from the Hub.
	Checkpoint    bool
	NumParameters int64
	// ModelArgs, when set, is "model_args" as given (lm-eval's --model_args
	// spelling), replacing the one built from Model, Peft and DType.
	ModelArgs *py.Map[any]
	// ThinkEndToken and EnableThinking are goeval run's --think-end-token
	// and --enable-thinking, written after dtype in the model_args built
	// (lm-eval's think_end_token and enable_thinking model arguments).
	ThinkEndToken  string `json:",omitempty"`
	EnableThinking *bool  `json:",omitempty"`
	// LoadIn4Bit, when set, is goeval's --load-in-4bit, written after them
	// in the model_args built as lm-eval's load_in_4bit=True and bnb_4bit_*
	// model arguments.
	LoadIn4Bit *LoadIn4BitArgs `json:",omitempty"`
	// LoadIn8Bit, when set, is goeval's --load-in-8bit, written after them
	// as lm-eval's load_in_8bit model arguments.
	LoadIn8Bit *LoadIn8BitArgs `json:",omitempty"`
}

// LoadIn8BitArgs are the LLM.int8 settings of a checkpoint quantized at
// load (transformers' BitsAndBytesConfig names).
type LoadIn8BitArgs struct {
	Threshold   float64  // llm_int8_threshold
	SkipModules []string // llm_int8_skip_modules
}

// LoadIn4BitArgs are the bitsandbytes settings of a checkpoint quantized
// at load (transformers' BitsAndBytesConfig names).
type LoadIn4BitArgs struct {
	QuantType    string // bnb_4bit_quant_type: nf4 or fp4
	DoubleQuant  bool   // bnb_4bit_use_double_quant
	ComputeDType string // bnb_4bit_compute_dtype: float32, bfloat16 or float16
}

// Seeds are lm-eval's four seeds (--seed): Python's random, NumPy's,
// torch's and the few-shot sampler's. nil is None (not seeded).
type Seeds struct{ Random, NumPy, Torch, Fewshot *int64 }

// value is seed as the results file writes it (null for nil).
func seedValue(seed *int64) any {
	if seed == nil {
		return nil
	}
	return *seed
}

// TorchDType is torch's name of a dtype ("torch.float32", "torch.bfloat16"),
// what lm-eval's model_dtype records.
func TorchDType(dtype string) string {
	switch strings.ToLower(dtype) {
	case "", "float32", "f32", "fp32", "float":
		return "torch.float32"
	case "bfloat16", "bf16":
		return "torch.bfloat16"
	case "float16", "f16", "fp16", "half":
		return "torch.float16"
	}
	return "torch." + dtype
}

// RunConfig is the results file's "config" block in lm-eval's key order.
// lm-eval's HF-model keys follow model_args (RunSettings.NumParameters).
func RunConfig(s RunSettings) *py.Map[any] {
	var limit any
	if s.Limit > 0 {
		limit = s.Limit
	}
	gen := py.NewMap[any]()
	for _, k := range sortedKeys(s.GenKwargs) {
		gen.Set(k, s.GenKwargs[k])
	}
	args := s.ModelArgs
	if args == nil {
		args = py.NewMap[any]()
		args.Set("pretrained", s.Model)
		if s.Peft != "" {
			args.Set("peft", s.Peft)
		}
		args.Set("dtype", s.DType)
		if s.ThinkEndToken != "" {
			args.Set("think_end_token", s.ThinkEndToken)
		}
		if s.EnableThinking != nil {
			args.Set("enable_thinking", *s.EnableThinking)
		}
		if q := s.LoadIn4Bit; q != nil {
			args.Set("load_in_4bit", true)
			args.Set("bnb_4bit_quant_type", q.QuantType)
			args.Set("bnb_4bit_use_double_quant", q.DoubleQuant)
			args.Set("bnb_4bit_compute_dtype", q.ComputeDType)
		}
		if q := s.LoadIn8Bit; q != nil {
			args.Set("load_in_8bit", true)
			args.Set("llm_int8_threshold", q.Threshold)
			if len(q.SkipModules) > 0 {
				args.Set("llm_int8_skip_modules", q.SkipModules)
			}
		}
	}
	c := py.NewMap[any]()
	c.Set("model", "goeval")
	c.Set("model_args", args)
	s.modelInfo(c)
	for _, kv := range []struct {
		k string
		v any
	}{{"batch_size", s.BatchSize}, {"batch_sizes", []any{}},
		{"device", s.Device}, {"use_cache", nil}, {"limit", limit}, {"bootstrap_iters", max(s.BootstrapIters, 0)},
		{"gen_kwargs", gen}, {"random_seed", seedValue(s.Seeds.Random)}, {"numpy_seed", seedValue(s.Seeds.NumPy)},
		{"torch_seed", seedValue(s.Seeds.Torch)}, {"fewshot_seed", seedValue(s.Seeds.Fewshot)}} {
		c.Set(kv.k, kv.v)
	}
	return c
}

// modelInfo adds lm-eval's HFLM.get_model_info keys to c (see
// RunSettings.NumParameters).
func (s RunSettings) modelInfo(c *py.Map[any]) {
	if s.Checkpoint {
		c.Set("model_num_parameters", s.NumParameters)
		c.Set("model_dtype", TorchDType(s.DType))
		c.Set("model_revision", cmp.Or(s.ModelRevision, "main"))
		c.Set("model_sha", s.ModelSHA)
		if s.Peft != "" {
			c.Set("peft_sha", s.PeftSHA)
		}
		return
	}
	for _, kv := range [][2]string{{"model_revision", s.ModelRevision}, {"model_sha", s.ModelSHA}, {"peft_sha", s.PeftSHA}} {
		if kv[1] != "" { // not fetched from the Hub
			c.Set(kv[0], kv[1])
		}
	}
}

// defaultMaxLength is lm-eval's max_length when neither the model config
// nor the tokenizer gives one.
const defaultMaxLength = 2048

// modelKeys returns the model-level keys lm-eval's HF model writes at the
// top of a results file (RunInfo.Model): tokenizer_pad_token,
// tokenizer_eos_token and tokenizer_bos_token as [token, "id"] ([null,
// "None"] when absent; the pad token falls back to EOS as in lm-eval),
// eot_token_id (the EOS id, when there is one) and max_length (2048 when
// info has none).
func modelKeys(info lm.Info) map[string]any {
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
