// Package tokenizer reads Hugging Face tokenizer.json / tokenizer_config.json
// in pure Go and encodes and decodes exactly like the Rust tokenizers
// (BPE byte-level and sentencepiece-style, normalizers, pre-tokenizers,
// added tokens, post-processors, decoders), and renders chat templates.
//
// A *Tokenizer is safe for concurrent use.
package tokenizer

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// fileJSON is the top level of tokenizer.json.
type fileJSON struct {
	AddedTokens   []addedTokenJSON `json:"added_tokens"`
	Normalizer    json.RawMessage  `json:"normalizer"`
	PreTokenizer  json.RawMessage  `json:"pre_tokenizer"`
	PostProcessor json.RawMessage  `json:"post_processor"`
	Decoder       json.RawMessage  `json:"decoder"`
	Model         json.RawMessage  `json:"model"`
}

type addedTokenJSON struct {
	ID         int32  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	LStrip     bool   `json:"lstrip"`
	RStrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// Load reads a tokenizer from a directory holding tokenizer.json (and
// optionally tokenizer_config.json, special_tokens_map.json,
// generation_config.json, chat_template.jinja) or from a tokenizer.json path.
// Any of these files may instead be gzipped with a .gz suffix. Errors on malformed files are
// marked errs.BadInput and name the file.
func Load(path string) (*Tokenizer, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, errs.BadInputf("tokenizer: %w", err)
	}
	dir, file := path, filepath.Join(path, "tokenizer.json")
	if _, err := os.Stat(file); err != nil && st.IsDir() {
		if _, errGz := os.Stat(file + ".gz"); errGz == nil {
			file += ".gz"
		}
	}
	if !st.IsDir() {
		dir, file = filepath.Dir(path), path
	}
	data, err := readMaybeGzip(file)
	if err != nil {
		return nil, errs.BadInputf("tokenizer: %w", err)
	}
	t, err := FromJSON(data)
	if err != nil {
		return nil, errs.BadInputf("tokenizer: %s: %w", file, err)
	}
	if err := t.loadConfig(dir); err != nil {
		return nil, err
	}
	return t, nil
}

// readMaybeGzip reads a file, gunzipping it when its name ends in .gz.
func readMaybeGzip(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil || !strings.HasSuffix(name, ".gz") {
		return data, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// FromJSON builds a tokenizer from the contents of a tokenizer.json file,
// without any tokenizer_config.json. Errors are not marked; Load marks them.
func FromJSON(data []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if len(f.Model) == 0 || string(f.Model) == "null" {
		return nil, fmt.Errorf("missing \"model\"")
	}
	t := &Tokenizer{}
	var err error
	if t.model, err = parseModel(f.Model); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if t.normalizer, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	if t.preTok, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	if t.post, err = parsePostProcessor(f.PostProcessor); err != nil {
		return nil, fmt.Errorf("post_processor: %w", err)
	}
	if t.decoder, err = parseDecoder(f.Decoder); err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	if err := t.post.resolve(t.model); err != nil {
		return nil, fmt.Errorf("post_processor: %w", err)
	}
	t.added = newAddedVocab(f.AddedTokens, t.normalizer)
	t.finish()
	return t, nil
}

// typeOf reads the "type" field of a JSON object; "" for null or absent.
func typeOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var h struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return "", fmt.Errorf("invalid JSON: %w", err)
	}
	if h.Type == "" {
		return "", fmt.Errorf("missing \"type\"")
	}
	return h.Type, nil
}

// decodeTyped reads a component's "type" and decodes raw into j; typ is ""
// (and nothing decoded) when raw is null. Errors name the type.
func decodeTyped(raw json.RawMessage, j any) (typ string, err error) {
	if typ, err = typeOf(raw); err != nil || typ == "" {
		return typ, err
	}
	if err := json.Unmarshal(raw, j); err != nil {
		return "", fmt.Errorf("%s: %w", typ, err)
	}
	return typ, nil
}

// parseSequence parses the parts of a "Sequence" component with parse,
// dropping null parts; field names the JSON list in errors.
func parseSequence[T comparable](raws []json.RawMessage, field string, parse func(json.RawMessage) (T, error)) ([]T, error) {
	var out []T
	var none T
	for i, r := range raws {
		x, err := parse(r)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		if x != none {
			out = append(out, x)
		}
	}
	return out, nil
}
