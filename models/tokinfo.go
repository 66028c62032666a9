package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/goeval/goeval/internal/errs"
)

// TokenizerInfo summarises a Hugging Face tokenizer directory by reading
// tokenizer.json and tokenizer_config.json directly (no tokenization).
type TokenizerInfo struct {
	Path        string `json:"path"`
	ModelType   string `json:"model_type"`   // tokenizer.json model.type: BPE, Unigram, WordPiece, WordLevel
	ModelVocab  int    `json:"model_vocab"`  // entries in model.vocab
	AddedTokens int    `json:"added_tokens"` // entries in added_tokens
	VocabSize   int    `json:"vocab_size"`   // highest id + 1 over both
	BOSToken    string `json:"bos_token,omitempty"`
	EOSToken    string `json:"eos_token,omitempty"`
	PadToken    string `json:"pad_token,omitempty"`
	BOSID       int    `json:"bos_id"` // -1 when there is none
	EOSID       int    `json:"eos_id"`
	PadID       int    `json:"pad_id"`
	// ids maps token text to id (model vocab and added tokens).
	ids map[string]int
}

// ReadTokenizerInfo reads dir/tokenizer.json and, if present,
// dir/tokenizer_config.json.
func ReadTokenizerInfo(dir string) (*TokenizerInfo, error) {
	path := filepath.Join(dir, "tokenizer.json")
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errs.BadInputf("%s: no such file", path)
		}
		return nil, fmt.Errorf("read tokenizer: %w", err)
	}
	var tj struct {
		Model struct {
			Type  string          `json:"type"`
			Vocab json.RawMessage `json:"vocab"`
		} `json:"model"`
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
		} `json:"added_tokens"`
	}
	if err := json.Unmarshal(data, &tj); err != nil {
		return nil, errs.BadInputf("%s: malformed JSON: %v", path, err)
	}
	ti := &TokenizerInfo{Path: path, ModelType: tj.Model.Type, AddedTokens: len(tj.AddedTokens),
		BOSID: -1, EOSID: -1, PadID: -1, ids: map[string]int{}}
	if err := ti.readVocab(path, tj.Model.Vocab); err != nil {
		return nil, err
	}
	for _, a := range tj.AddedTokens {
		ti.ids[a.Content] = a.ID
		ti.VocabSize = max(ti.VocabSize, a.ID+1)
	}
	if err := ti.readConfig(filepath.Join(dir, "tokenizer_config.json")); err != nil {
		return nil, err
	}
	return ti, nil
}

// readVocab accepts a {token: id} map (BPE, WordPiece, WordLevel) or a
// [[piece, score], ...] list (Unigram, where the index is the id).
func (ti *TokenizerInfo) readVocab(path string, raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return errs.BadInputf("%s: model.vocab is missing", path)
	case raw[0] == '[':
		var list [][2]any
		if err := json.Unmarshal(raw, &list); err != nil {
			return errs.BadInputf("%s: model.vocab: %v", path, err)
		}
		for i, e := range list {
			if s, ok := e[0].(string); ok {
				ti.ids[s] = i
			}
		}
		ti.ModelVocab, ti.VocabSize = len(list), len(list)
	default:
		var m map[string]int
		if err := json.Unmarshal(raw, &m); err != nil {
			return errs.BadInputf("%s: model.vocab: %v", path, err)
		}
		for s, id := range m {
			ti.ids[s] = id
			ti.VocabSize = max(ti.VocabSize, id+1)
		}
		ti.ModelVocab = len(m)
	}
	return nil
}

// readConfig reads bos/eos/pad tokens from tokenizer_config.json (absent
// file: no special tokens). A token is a string, null, or {"content": ...}.
func (ti *TokenizerInfo) readConfig(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("read tokenizer config: %w", err)
	}
	var tc map[string]any
	if err := json.Unmarshal(data, &tc); err != nil {
		return errs.BadInputf("%s: malformed JSON: %v", path, err)
	}
	tokText := func(k string) string {
		switch v := tc[k].(type) {
		case string:
			return v
		case map[string]any:
			s, _ := v["content"].(string)
			return s
		}
		return ""
	}
	if dec, ok := tc["added_tokens_decoder"].(map[string]any); ok {
		for id, v := range dec {
			var n int
			entry, _ := v.(map[string]any)
			content, _ := entry["content"].(string)
			if _, err := fmt.Sscan(id, &n); err == nil && content != "" {
				if _, seen := ti.ids[content]; !seen {
					ti.ids[content] = n
				}
			}
		}
	}
	ti.BOSToken, ti.EOSToken, ti.PadToken = tokText("bos_token"), tokText("eos_token"), tokText("pad_token")
	ti.BOSID, ti.EOSID, ti.PadID = ti.lookup(ti.BOSToken), ti.lookup(ti.EOSToken), ti.lookup(ti.PadToken)
	for _, tok := range []string{ti.BOSToken, ti.EOSToken, ti.PadToken} {
		if tok != "" && ti.lookup(tok) < 0 {
			return errs.BadInputf("%s: special token %q is not in %s", path, tok, ti.Path)
		}
	}
	return nil
}

// lookup returns the id of token text, or -1.
func (ti *TokenizerInfo) lookup(tok string) int {
	if tok == "" {
		return -1
	}
	if id, ok := ti.ids[tok]; ok {
		return id
	}
	return -1
}
