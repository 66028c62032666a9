package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models"
)

func init() {
	register("inspect", "summarise a checkpoint: architecture, parameters, tensors, tokenizer, consistency check", runInspect)
}

// runInspect implements "goeval inspect --model DIR [--json] [--tensors]".
func runInspect(args []string) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	dir := fs.String("model", "", "checkpoint directory (config.json + model.safetensors or a sharded index)")
	asJSON := fs.Bool("json", false, "print one JSON object instead of text")
	all := fs.Bool("tensors", false, "list every tensor (default: the first and last 5)")
	setUsage(fs, "Usage: goeval inspect --model DIR [--json] [--tensors]\n\nPrints the architecture, parameter count, dtypes, config, tensors, tokenizer, and whether\nthe tensors match what config.json implies (exit status stays 0 when they do not).\n\nFlags:")
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if *dir == "" || fs.NArg() > 0 {
		return errs.BadInputf("inspect needs --model DIR and no other arguments")
	}
	if err := checkModelDir(*dir); err != nil {
		return err
	}
	r, err := models.Inspect(*dir, *all)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(inspectOutput{r, autoDTypes(r.TorchDType)})
	}
	printInspect(os.Stdout, r)
	return nil
}

func printInspect(w io.Writer, r *models.Inspection) {
	c := r.Config
	fmt.Fprintf(w, "model:        %s\n", r.Model)
	fmt.Fprintf(w, "architecture: %s (model_type %s)\n", r.Architecture, r.ModelType)
	fmt.Fprintf(w, "parameters:   %s (%d)\n", humanCount(r.Parameters), r.Parameters)
	auto := autoDTypes(r.TorchDType)
	fmt.Fprintf(w, "dtypes:       torch_dtype %s; tensors %s; --dtype auto: %s on cuda, %s on a CPU\n",
		orNone(r.TorchDType), dtypeCounts(r.Tensors.ByDType), auto["cuda"], auto["cpu"])
	if q := r.Quantization; q != nil {
		fmt.Fprintf(w, "quantized:    %s; %d weights%s, %s\n", q.Description, q.Tensors, blocksizes(q.Blocksizes), quantRun(q.Config))
	}
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

// inspectOutput is inspect --json's object: the inspection and what --dtype
// auto resolves to on each device.
type inspectOutput struct {
	*models.Inspection
	DTypeAuto map[string]string `json:"dtype_auto"`
}

// autoDTypes is what --dtype auto resolves to for a checkpoint whose
// config.json names torchDType, by device (engine.ResolveDType).
func autoDTypes(torchDType string) map[string]string {
	out := map[string]string{}
	for _, d := range []string{"cpu", "xla-cpu", "cuda"} {
		out[d], _ = engine.ResolveDType(engine.DTypeAuto, d, torchDType)
	}
	return out
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

// blocksizes is " (blocksize 64: 14, …)" for a bitsandbytes checkpoint's
// weights by block size, "" when there are none.
func blocksizes(m map[int]int) string {
	if len(m) == 0 {
		return ""
	}
	sizes := make([]int, 0, len(m))
	for b := range m {
		sizes = append(sizes, b)
	}
	sort.Ints(sizes)
	parts := make([]string, len(sizes))
	for i, b := range sizes {
		parts[i] = fmt.Sprintf("blocksize %d: %d", b, m[b])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// quantRun says how goeval computes with q's quantized weights (models.Load
// logs the same per run, with the device and adapters known).
func quantRun(q *models.Quantization) string {
	const dequant = "dequantized at load to the compute dtype"
	switch {
	case q == nil:
		return dequant
	case q.Method == "bitsandbytes" && q.LoadIn8Bit:
		return fmt.Sprintf("multiplied as LLM.int8 (int8 codes, llm_int8_threshold %g); %s under a merged adapter", q.Int8Threshold(), dequant)
	case q.Method == "bitsandbytes" || q.Bits == 4:
		return "kept packed (4-bit) where their blocks lie within rows: multiplied packed on --device cpu, dequantized in the graph on cuda (and on xla-cpu where the dense weights do not fit half the memory available); " + dequant + " under a merged adapter or --dequantize-4bit"
	}
	return dequant
}
