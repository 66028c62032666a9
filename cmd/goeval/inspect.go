package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
	"github.com/goeval/goeval/models/safetensors"
)

func init() {
	register("inspect", "summarise a checkpoint: architecture, parameters, tensors, tokenizer, consistency check", runInspect)
}

// inspectReport is what "goeval inspect --json" prints.
type inspectReport struct {
	Model        string                `json:"model"`
	Architecture string                `json:"architecture"`
	ModelType    string                `json:"model_type"`
	Parameters   int64                 `json:"parameters"`
	TorchDType   string                `json:"torch_dtype"`
	Config       map[string]any        `json:"config"`
	Tensors      inspectTensors        `json:"tensors"`
	Tokenizer    *models.TokenizerInfo `json:"tokenizer"`
	Check        inspectCheck          `json:"check"`
}

type inspectTensors struct {
	Count   int             `json:"count"`
	Bytes   int64           `json:"bytes"`
	Files   []string        `json:"files"`
	ByDType map[string]int  `json:"by_dtype"`
	List    []inspectTensor `json:"list"`
	Omitted int             `json:"omitted"` // tensors left out of List (use --tensors)
}

type inspectTensor struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
}

type inspectCheck struct {
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
}

// runInspect implements "goeval inspect --model DIR [--json] [--tensors]".
func runInspect(args []string) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	dir := fs.String("model", "", "checkpoint directory (config.json + model.safetensors or a sharded index)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	all := fs.Bool("tensors", false, "list every tensor (default: the first and last 5)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: goeval inspect --model DIR [--json] [--tensors]\n\nPrints the architecture, parameter count, dtypes, config, tensors, tokenizer, and whether\nthe tensors match what config.json implies (exit status stays 0 when they do not).\n\nFlags:")
		fs.PrintDefaults()
	}
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *dir == "" || fs.NArg() > 0 {
		return errs.BadInputf("inspect needs --model DIR and no other arguments")
	}
	r, err := inspectModel(*dir, *all)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	printInspect(os.Stdout, r)
	return nil
}

// inspectModel loads the config and maps the weights (nothing is copied).
func inspectModel(dir string, all bool) (*inspectReport, error) {
	cfg, err := models.LoadConfig(dir)
	if err != nil {
		return nil, err
	}
	set, err := safetensors.Open(dir)
	if err != nil {
		return nil, err
	}
	defer set.Close()
	r := &inspectReport{Model: dir, Architecture: cfg.Arch(), ModelType: cfg.ModelType, TorchDType: cfg.TorchDType,
		Config: configSummary(cfg), Check: inspectCheck{Problems: models.TensorProblems(cfg, set)}}
	r.Check.OK = len(r.Check.Problems) == 0
	r.Tensors = tensorSummary(dir, set, all)
	for _, n := range set.Names() {
		if info, _ := set.Info(n); !models.IgnoredTensor(n) {
			r.Parameters += info.NumElements()
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tokenizer.json")); err == nil {
		if r.Tokenizer, err = models.ReadTokenizerInfo(dir); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func configSummary(c *models.Config) map[string]any {
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

func tensorSummary(dir string, set *safetensors.Set, all bool) inspectTensors {
	t := inspectTensors{ByDType: map[string]int{}}
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
			t.List = append(t.List, inspectTensor{n, info.DType, info.Shape})
		}
	}
	t.Omitted = t.Count - len(t.List)
	return t
}

func printInspect(w io.Writer, r *inspectReport) {
	c := r.Config
	fmt.Fprintf(w, "model:        %s\n", r.Model)
	fmt.Fprintf(w, "architecture: %s (model_type %s)\n", r.Architecture, r.ModelType)
	fmt.Fprintf(w, "parameters:   %s (%d)\n", humanCount(r.Parameters), r.Parameters)
	fmt.Fprintf(w, "dtypes:       torch_dtype %s; tensors %s\n", orNone(r.TorchDType), dtypeCounts(r.Tensors.ByDType))
	fmt.Fprintf(w, "config:       hidden %v, %v layers, %v heads (%v KV, head_dim %v), intermediate %v, vocab %v\n",
		c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], c["intermediate_size"], c["vocab_size"])
	rs := "none"
	if s, ok := c["rope_scaling"].(*models.RopeScaling); ok && s != nil {
		rs = fmt.Sprintf("%s factor %g low %g high %g original %d", s.Type, s.Factor, s.LowFreqFactor, s.HighFreqFactor, s.OriginalMaxPositionEmbeddings)
	}
	fmt.Fprintf(w, "              rope_theta %g, rope_scaling %s, max positions %v, tied %v, qkv bias %v, qk norm %v, sliding window %v\n",
		c["rope_theta"], rs, c["max_position_embeddings"], c["tie_word_embeddings"], c["attention_bias"], c["qk_norm"], c["sliding_window"])
	fmt.Fprintf(w, "tensors:      %d in %s, %s\n", r.Tensors.Count, strings.Join(r.Tensors.Files, ", "), humanBytes(r.Tensors.Bytes))
	for i, t := range r.Tensors.List {
		if r.Tensors.Omitted > 0 && i == 5 {
			fmt.Fprintf(w, "  ... %d more (--tensors lists all)\n", r.Tensors.Omitted)
		}
		fmt.Fprintf(w, "  %-50s %-4s %v\n", t.Name, t.DType, t.Shape)
	}
	if tk := r.Tokenizer; tk != nil {
		fmt.Fprintf(w, "tokenizer:    %s, vocab %d (%d model + %d added), bos %s, eos %s\n",
			tk.ModelType, tk.VocabSize, tk.ModelVocab, tk.AddedTokens, tokName(tk.BOSToken, tk.BOSID), tokName(tk.EOSToken, tk.EOSID))
	} else {
		fmt.Fprintln(w, "tokenizer:    none (no tokenizer.json)")
	}
	if r.Check.OK {
		fmt.Fprintln(w, "check:        ok: tensors match config.json")
	} else {
		fmt.Fprintf(w, "check:        FAILED: %d problems\n", len(r.Check.Problems))
		for _, p := range r.Check.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
}

func dtypeCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, m[k])
	}
	return orNone(strings.Join(parts, ", "))
}

func tokName(tok string, id int) string {
	if tok == "" {
		return "none"
	}
	return fmt.Sprintf("%q (%d)", tok, id)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func humanCount(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func humanBytes(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
