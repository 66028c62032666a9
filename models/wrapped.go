package models

import (
	"encoding/json"
	"maps"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/safetensors"
)

// Multimodal checkpoints scored as their text model. lm-eval's `--model hf`
// loads google/gemma-3-4b-it (and every larger Gemma 3) through
// AutoModelForCausalLM, which maps model_type gemma3 to
// Gemma3ForConditionalGeneration, and feeds it text alone: the vision
// tower and its projector never run, and the log-probs are those of the
// text model under text_config. goeval reads such a checkpoint as that
// text model: its config is text_config, with the text config class's
// defaults for the keys it omits (the Hub's configs give only those that
// differ) and the keys the wrapper holds for the whole model, and its
// tensors are those under the text model's prefixes, renamed to the text
// model's own names, the vision tensors dropped.

// wrapper is a multimodal architecture whose text model goeval scores.
type wrapper struct {
	name string // the wrapper's architecture (its key in wrappers, set when read)
	text string // the text model's registered architecture
	// prefixes maps a checkpoint tensor prefix to the text model's (the
	// first that matches): the Hub's layout and transformers 4.52's.
	prefixes [][2]string
	drop     []string // prefixes of the tensors text never reaches
	// defaults are the text config class's values for keys text_config
	// may omit; rope holds, per key, the keys whose presence stands in
	// for it (a rotary base given another way).
	defaults string
	rope     map[string][]string
}

// wrappers are the multimodal architectures read as their text model.
var wrappers = map[string]wrapper{
	// transformers 5.23's Gemma3TextConfig defaults; parity/archs checks
	// them against the class (testdata/archs/gemma3mm/text_defaults.json).
	"Gemma3ForConditionalGeneration": {
		text: "Gemma3ForCausalLM",
		prefixes: [][2]string{{"language_model.model.", "model."}, {"model.language_model.", "model."},
			{"language_model.lm_head.", "lm_head."}, {"lm_head.", "lm_head."}},
		drop: []string{"vision_tower.", "multi_modal_projector.", "model.vision_tower.", "model.multi_modal_projector."},
		defaults: `{"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216,
			"num_hidden_layers": 26, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
			"hidden_activation": "gelu_pytorch_tanh", "max_position_embeddings": 131072, "rms_norm_eps": 1e-6,
			"pad_token_id": 0, "eos_token_id": 1, "bos_token_id": 2, "attention_bias": false,
			"query_pre_attn_scalar": 256, "sliding_window": 4096, "final_logit_softcapping": null,
			"attn_logit_softcapping": null, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0}`,
		rope: map[string][]string{"rope_theta": {"rope_parameters"}, "rope_local_base_freq": {"rope_parameters"}},
	},
}

// wholeModelKeys are the wrapper's config.json keys that describe the
// whole model, and so the text model read alone: top-level first, else
// text_config's, else the defaults.
var wholeModelKeys = []string{"quantization_config", "torch_dtype", "dtype", "eos_token_id", "bos_token_id", "pad_token_id"}

// unwrapConfig returns config.json bytes as the text model's config when
// data is a wrapper's (see above), with the wrapper; else data itself and
// nil.
func unwrapConfig(path string, data []byte) ([]byte, *wrapper, error) {
	var whole map[string]json.RawMessage
	if err := json.Unmarshal(data, &whole); err != nil {
		return nil, nil, jsonError(path, data, err)
	}
	var archs []string
	if json.Unmarshal(whole["architectures"], &archs) != nil || len(archs) == 0 {
		return data, nil, nil // ParseConfig names what is wrong
	}
	w, ok := wrappers[archs[0]]
	if !ok {
		return data, nil, nil
	}
	w.name = archs[0]
	var text map[string]json.RawMessage
	if err := json.Unmarshal(whole["text_config"], &text); err != nil || text == nil {
		return nil, nil, errs.BadInputf("%s: %s needs a text_config object (the text model's configuration)", path, archs[0])
	}
	out, err := w.textConfig(text, whole)
	if err != nil {
		return nil, nil, errs.BadInputf("%s: text_config: %v", path, err)
	}
	// transformers ties the LM head to the embedding by the wrapper's own
	// tie_word_embeddings (default true), not text_config's.
	out["tie_word_embeddings"] = json.RawMessage("true")
	if string(whole["tie_word_embeddings"]) == "false" {
		out["tie_word_embeddings"] = json.RawMessage("false")
	}
	b, err := json.Marshal(out)
	return b, &w, err
}

// textConfig is the text model's config from text_config and the
// wrapper's whole config.
func (w *wrapper) textConfig(text, whole map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	var defaults map[string]json.RawMessage
	if err := json.Unmarshal([]byte(w.defaults), &defaults); err != nil {
		return nil, err // a bad table is a programming error the tests catch
	}
	out := maps.Clone(text)
	for k, v := range defaults {
		if _, ok := out[k]; ok || anyKey(text, w.rope[k]) {
			continue
		}
		out[k] = v
	}
	for _, k := range wholeModelKeys {
		if v, ok := whole[k]; ok {
			out[k] = v
		}
	}
	arch, _ := json.Marshal([]string{w.text})
	out["architectures"] = arch
	return out, nil
}

// anyKey reports whether m has one of keys.
func anyKey(m map[string]json.RawMessage, keys []string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// textName is the text model's name for checkpoint tensor (or module)
// name, keep false for one text never reaches; a name under no known
// prefix is kept as it is (CheckTensors then reports it).
func (w *wrapper) textName(name string) (string, bool) {
	for _, p := range w.drop {
		if strings.HasPrefix(name, p) {
			return "", false
		}
	}
	for _, p := range w.prefixes {
		if rest, ok := strings.CutPrefix(name, p[0]); ok {
			return p[1] + rest, true
		}
	}
	return name, true
}

// openCheckpoint maps dir's safetensors as the model c describes reads
// them: renamed to the text model's names for a wrapper (see above).
func openCheckpoint(dir string, c *Config) (*safetensors.Set, error) {
	set, err := safetensors.Open(dir)
	if err != nil || c.wrapper == nil {
		return set, err
	}
	if err := set.Rename(c.wrapper.textName); err != nil {
		set.Close()
		return nil, err
	}
	return set, nil
}

// renamedAs is the name tensor set s gives checkpoint tensor name: the
// text model's, keep false for a tensor text never reaches, where s reads
// a multimodal checkpoint (openCheckpoint); else name itself.
func renamedAs(s Tensors, name string) (string, bool) {
	if r, ok := s.(interface{ Renamed(string) (string, bool) }); ok {
		return r.Renamed(name)
	}
	return name, true
}
