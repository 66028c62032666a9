package models

import (
	"os"
	"path/filepath"
)

// Inspection summarises a checkpoint without loading its weights: what
// "goeval inspect" prints (its JSON form with --json).
type Inspection struct {
	Model        string         `json:"model"`
	Architecture string         `json:"architecture"`
	ModelType    string         `json:"model_type"`
	Parameters   int64          `json:"parameters"`
	TorchDType   string         `json:"torch_dtype"`
	Config       map[string]any `json:"config"`
	Quantization *QuantSummary  `json:"quantization,omitempty"`
	Tensors      TensorSummary  `json:"tensors"`
	Tokenizer    *TokenizerInfo `json:"tokenizer"`
	Check        Check          `json:"check"`
}

// TensorSummary counts a checkpoint's tensors and lists some of them.
type TensorSummary struct {
	Count   int            `json:"count"`
	Bytes   int64          `json:"bytes"`
	Files   []string       `json:"files"`
	ByDType map[string]int `json:"by_dtype"`
	List    []TensorEntry  `json:"list"`
	Omitted int            `json:"omitted"` // tensors left out of List (use --tensors)
}

// TensorEntry is one tensor's name, dtype and shape.
type TensorEntry struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
}

// Check is the result of checking the tensors against config.json.
type Check struct {
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
}

// Inspect reads dir's config.json, maps its safetensors (nothing is
// copied) and checks the tensors against what the config implies;
// allTensors lists every tensor instead of the first and last five.
func Inspect(dir string, allTensors bool) (*Inspection, error) {
	cfg, err := LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	set, unsupported, err := openForInspect(dir, cfg)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	r := &Inspection{Model: dir, Architecture: cfg.Describe(), ModelType: cfg.ModelType, TorchDType: cfg.TorchDType,
		Config: configSummary(cfg), Quantization: quantSummary(cfg.Quantization, set)}
	if unsupported != nil {
		r.Check.Problems = append(r.Check.Problems, unsupported.Error())
	}
	r.Check.Problems = append(r.Check.Problems, TensorProblems(cfg, set)...)
	r.Check.OK = len(r.Check.Problems) == 0
	r.Tensors = tensorSummary(dir, set, allTensors)
	for _, n := range set.Names() {
		if info, _ := set.Info(n); !IgnoredTensor(n) {
			r.Parameters += info.NumElements()
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err == nil {
		if r.Tokenizer, err = ReadTokenizerInfo(dir); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// configSummary is the config keys inspect reports.
func configSummary(c *Config) map[string]any {
	m := map[string]any{
		"hidden_size": c.HiddenSize, "intermediate_size": c.IntermediateSize, "num_hidden_layers": c.NumHiddenLayers,
		"num_attention_heads": c.NumAttentionHeads, "num_key_value_heads": c.NumKeyValueHeads, "head_dim": c.HeadDim,
		"vocab_size": c.VocabSize, "max_position_embeddings": c.MaxPositionEmbeddings, "rms_norm_eps": c.RMSNormEps,
		"rope_theta": c.RopeTheta, "rope_scaling": c.RopeScaling, "tie_word_embeddings": c.TieWordEmbeddings,
		"attention_bias": c.AttentionBias, "qk_norm": c.QKNorm, "sliding_window": c.SlidingWindow,
		"bos_token_id": c.BOSTokenID, "eos_token_ids": c.EOSTokenIDs,
	}
	return m
}

// tensorSummary lists the tensors of set (files relative to dir).
func tensorSummary(dir string, set Tensors, all bool) TensorSummary {
	t := TensorSummary{ByDType: map[string]int{}}
	for _, f := range set.Files() {
		rel, err := filepath.Rel(dir, f)
		if err != nil {
			rel = f
		}
		t.Files = append(t.Files, rel)
	}
	names := set.Names()
	t.Count = len(names)
	for i, n := range names {
		info, _ := set.Info(n)
		t.Bytes += info.Length
		t.ByDType[info.DType]++
		if all || i < 5 || i >= len(names)-5 {
			t.List = append(t.List, TensorEntry{n, info.DType, info.Shape})
		}
	}
	t.Omitted = t.Count - len(t.List)
	return t
}
