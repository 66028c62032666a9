package models

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// PEFT file names inside an adapter directory.
const (
	AdapterConfigFile  = "adapter_config.json"
	AdapterWeightsFile = "adapter_model.safetensors"
	adapterPickleFile  = "adapter_model.bin"
)

// AdapterConfig is PEFT's adapter_config.json (LoRA fields only).
type AdapterConfig struct {
	PeftType      string          `json:"peft_type"`
	BaseModel     string          `json:"base_model_name_or_path"`
	R             int             `json:"r"`
	LoraAlpha     float64         `json:"lora_alpha"`
	TargetModules json.RawMessage `json:"target_modules"` // list, "all-linear" or a regex
	UseRSLoRA     bool            `json:"use_rslora"`
	UseDoRA       bool            `json:"use_dora"`
	// FanInFanOut is ignored: PEFT turns it off for nn.Linear layers, and
	// every projection of the architectures here is one.
	FanInFanOut   bool               `json:"fan_in_fan_out"`
	Bias          string             `json:"bias"` // "none", "lora_only" or "all"
	ModulesToSave []string           `json:"modules_to_save"`
	RankPattern   map[string]int     `json:"rank_pattern"`
	AlphaPattern  map[string]float64 `json:"alpha_pattern"`
	// layers_to_transform needs no handling: the file holds factors for
	// exactly the layers that were adapted.
}

// LoRALayer is one adapted module: ΔW = Scale · B·A.
//
//	A: [Rank, In]   (lora_A.weight, or lora_embedding_A [Rank, vocab])
//	B: [Out, Rank]  (lora_B.weight, or lora_embedding_B [dim, Rank])
//
// For an embedding (Embedding true) the base weight is [vocab, dim] and
// ΔW = Scale · (B·A)ᵀ, so In is the vocabulary and Out the hidden size.
type LoRALayer struct {
	Module    string // PEFT module key, e.g. "model.layers.0.self_attn.q_proj"
	Weight    string // base tensor it adapts, e.g. Module + ".weight"
	A, B      []float32
	Rank      int
	In, Out   int
	Scale     float64
	Embedding bool
	BiasDelta []float32 // Scale·lora_B.bias (PEFT lora_bias), or nil
}

// Adapter is a loaded and validated PEFT LoRA adapter.
type Adapter struct {
	Dir    string
	Config AdapterConfig
	// Layers maps a base tensor name ("….q_proj.weight") to its LoRA factors.
	Layers map[string]*LoRALayer
	// Replace maps a base tensor name to a full replacement (modules_to_save,
	// and biases saved with bias "all" / "lora_only").
	Replace map[string][]float32
	shapes  map[string][]int // shapes of Replace entries
}

// LoadAdapter reads a PEFT LoRA adapter directory and validates it against
// the base checkpoint: every adapter tensor must name a base weight, and
// every shape must agree. Errors are errs.BadInput and name the file and
// tensor at fault.
func LoadAdapter(dir string, base Tensors) (*Adapter, error) {
	cfg, err := readAdapterConfig(dir)
	if err != nil {
		return nil, err
	}
	a := &Adapter{Dir: dir, Config: *cfg, Layers: map[string]*LoRALayer{},
		Replace: map[string][]float32{}, shapes: map[string][]int{}}
	wpath := filepath.Join(dir, AdapterWeightsFile)
	if _, err := os.Stat(wpath); errors.Is(err, os.ErrNotExist) {
		if _, e := os.Stat(filepath.Join(dir, adapterPickleFile)); e == nil {
			return nil, errs.BadInputf("%s: adapter_model.bin is a pickle file, which goeval does not load; convert it with: "+
				"python -c \"import torch; from safetensors.torch import save_file; "+
				"save_file({k: v.contiguous() for k, v in torch.load('%s', map_location='cpu').items()}, '%s')\"",
				dir, filepath.Join(dir, adapterPickleFile), wpath)
		}
		return nil, errs.BadInputf("%s: no %s", dir, AdapterWeightsFile)
	}
	set, err := safetensors.OpenFile(wpath)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	if err := a.readTensors(set, base); err != nil {
		return nil, err
	}
	if len(a.Layers) == 0 && len(a.Replace) == 0 {
		return nil, errs.BadInputf("%s: holds no LoRA tensors", wpath)
	}
	return a, nil
}

// readAdapterConfig parses and checks adapter_config.json.
func readAdapterConfig(dir string) (*AdapterConfig, error) {
	path := filepath.Join(dir, AdapterConfigFile)
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.BadInputf("%s: no %s; is this a PEFT adapter directory?", dir, AdapterConfigFile)
		}
		return nil, fmt.Errorf("read adapter config: %w", err)
	}
	var c AdapterConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, errs.BadInputf("%s: malformed JSON: %v", path, err)
	}
	switch {
	case c.PeftType != "" && !strings.EqualFold(c.PeftType, "LORA"):
		return nil, errs.BadInputf("%s: peft_type %q is not supported; only LORA adapters load", path, c.PeftType)
	case c.UseDoRA:
		return nil, errs.BadInputf("%s: use_dora is true; DoRA adapters are not supported (merge it with peft's merge_and_unload and load the merged model)", path)
	case c.R <= 0:
		return nil, errs.BadInputf("%s: r must be a positive integer, got %d", path, c.R)
	case c.LoraAlpha == 0:
		return nil, errs.BadInputf("%s: lora_alpha is missing or 0", path)
	}
	for p, r := range c.RankPattern {
		if r <= 0 {
			return nil, errs.BadInputf("%s: rank_pattern %q: rank must be a positive integer, got %d", path, p, r)
		}
	}
	switch c.Bias {
	case "", "none", "all", "lora_only":
	default:
		return nil, errs.BadInputf("%s: bias %q must be \"none\", \"all\" or \"lora_only\"", path, c.Bias)
	}
	if _, err := c.targetMatcher(); err != nil {
		return nil, errs.BadInputf("%s: target_modules: %v", path, err)
	}
	return &c, nil
}

// targetMatcher returns PEFT's check_target_module_exists for this config:
// a list matches a module key exactly or as a ".name" suffix, "all-linear"
// matches every linear layer except the output layer, and any other string
// is a regular expression matched against the whole key.
func (c *AdapterConfig) targetMatcher() (func(key string) bool, error) {
	raw := strings.TrimSpace(string(c.TargetModules))
	if raw == "" || raw == "null" {
		return nil, errors.New("missing (a list of module names, \"all-linear\" or a regex)")
	}
	var list []string
	if err := json.Unmarshal(c.TargetModules, &list); err == nil {
		return func(key string) bool {
			for _, t := range list {
				if key == t || strings.HasSuffix(key, "."+t) {
					return true
				}
			}
			return false
		}, nil
	}
	var s string
	if err := json.Unmarshal(c.TargetModules, &s); err != nil {
		return nil, fmt.Errorf("must be a list of strings or a string, got %s", raw)
	}
	if s == "all-linear" {
		return func(key string) bool { return !isEmbeddingOrHead(key) }, nil
	}
	re, err := regexp.Compile(`^(?:` + s + `)$`)
	if err != nil {
		return nil, fmt.Errorf("regex %q does not compile in Go (RE2): %v", s, err)
	}
	return re.MatchString, nil
}

// isEmbeddingOrHead reports whether a module key is an input embedding or
// the output layer, which "all-linear" leaves out.
func isEmbeddingOrHead(key string) bool {
	last := key[strings.LastIndex(key, ".")+1:]
	switch last {
	case "lm_head", "embed_tokens", "embed_out", "wte", "wpe", "output":
		return true
	}
	return false
}

// patternValue returns the rank_pattern / alpha_pattern entry for key using
// PEFT's get_pattern_key rule (re.match(rf"(.*\.)?({pattern})$", key)).
func patternValue[T any](patterns map[string]T, key string) (T, bool) {
	keys := make([]string, 0, len(patterns))
	for k := range patterns {
		keys = append(keys, k)
	}
	sort.Strings(keys) // Python dicts keep file order; sorted is our stable stand-in
	for _, p := range keys {
		re, err := regexp.Compile(`^(?:.*\.)?(?:` + p + `)$`)
		if err == nil && re.MatchString(key) {
			return patterns[p], true
		}
	}
	var zero T
	return zero, false
}

// scaleFor returns the LoRA scaling of a module with the given rank:
// alpha/r, or alpha/√r with use_rslora; alpha comes from alpha_pattern when
// one matches.
func (c *AdapterConfig) scaleFor(module string, rank int) float64 {
	alpha := c.LoraAlpha
	if v, ok := patternValue(c.AlphaPattern, module); ok {
		alpha = v
	}
	if c.UseRSLoRA {
		return alpha / math.Sqrt(float64(rank))
	}
	return alpha / float64(rank)
}

// rankFor returns r, or the rank_pattern entry matching module.
func (c *AdapterConfig) rankFor(module string) int {
	if v, ok := patternValue(c.RankPattern, module); ok {
		return v
	}
	return c.R
}
