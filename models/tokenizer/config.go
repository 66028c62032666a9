package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/goeval/goeval/internal/errs"
)

// config is what goeval uses from tokenizer_config.json,
// special_tokens_map.json, generation_config.json and chat_template.jinja.
type config struct {
	bos, eos       string
	hasBOS, hasEOS bool
	pad, unk       string // pad_token, unk_token ("" when absent)
	addBOS, addEOS *bool
	cleanup        bool
	maxLen         int
	chatTemplate   string
	genEOS         []int32
}

type tokenizerConfigJSON struct {
	AddBOS       *bool           `json:"add_bos_token"`
	AddEOS       *bool           `json:"add_eos_token"`
	BOS          json.RawMessage `json:"bos_token"`
	EOS          json.RawMessage `json:"eos_token"`
	Pad          json.RawMessage `json:"pad_token"`
	Unk          json.RawMessage `json:"unk_token"`
	Cleanup      *bool           `json:"clean_up_tokenization_spaces"`
	ModelMaxLen  *float64        `json:"model_max_length"`
	ChatTemplate json.RawMessage `json:"chat_template"`
}

// loadConfig reads the optional side files of dir.
func (t *Tokenizer) loadConfig(dir string) error {
	var tc tokenizerConfigJSON
	name := filepath.Join(dir, "tokenizer_config.json")
	if err := readJSON(name, &tc); err != nil {
		return err
	}
	var sm struct {
		BOS json.RawMessage `json:"bos_token"`
		EOS json.RawMessage `json:"eos_token"`
		Pad json.RawMessage `json:"pad_token"`
		Unk json.RawMessage `json:"unk_token"`
	}
	smName := filepath.Join(dir, "special_tokens_map.json")
	if err := readJSON(smName, &sm); err != nil {
		return err
	}
	c := &t.cfg
	var err error
	if c.bos, c.hasBOS, err = firstToken(tc.BOS, sm.BOS); err != nil {
		return errs.BadInputf("tokenizer: %s: bos_token: %w", name, err)
	}
	if c.eos, c.hasEOS, err = firstToken(tc.EOS, sm.EOS); err != nil {
		return errs.BadInputf("tokenizer: %s: eos_token: %w", name, err)
	}
	if c.pad, _, err = firstToken(tc.Pad, sm.Pad); err != nil {
		return errs.BadInputf("tokenizer: %s: pad_token: %w", name, err)
	}
	if c.unk, _, err = firstToken(tc.Unk, sm.Unk); err != nil {
		return errs.BadInputf("tokenizer: %s: unk_token: %w", name, err)
	}
	c.addBOS, c.addEOS = tc.AddBOS, tc.AddEOS
	c.cleanup = tc.Cleanup != nil && *tc.Cleanup
	if tc.ModelMaxLen != nil && *tc.ModelMaxLen > 0 && *tc.ModelMaxLen < math.MaxInt32 {
		c.maxLen = int(*tc.ModelMaxLen)
	}
	if c.chatTemplate, err = parseChatTemplate(tc.ChatTemplate); err != nil {
		return errs.BadInputf("tokenizer: %s: chat_template: %w", name, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "chat_template.jinja")); err == nil {
		c.chatTemplate = string(b)
	}
	return t.loadGenerationConfig(filepath.Join(dir, "generation_config.json"))
}

// readJSON decodes name into v; a missing file leaves v untouched.
func readJSON(name string, v any) error {
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		name += ".gz"
		b, err = readMaybeGzip(name)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return errs.BadInputf("tokenizer: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return errs.BadInputf("tokenizer: %s: invalid JSON: %w", name, err)
	}
	return nil
}

// firstToken reads a token given as "str" or {"content": "str"}, preferring a.
func firstToken(a, b json.RawMessage) (string, bool, error) {
	for _, raw := range []json.RawMessage{a, b} {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			return s, true, nil
		}
		var o struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			return "", false, fmt.Errorf("want a string or {\"content\": ...}")
		}
		return o.Content, true, nil
	}
	return "", false, nil
}

// parseChatTemplate accepts a string or [{"name", "template"}] (the
// "default" entry, else the first).
func parseChatTemplate(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var list []struct{ Name, Template string }
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", fmt.Errorf("want a string or a list of {name, template}")
	}
	for _, e := range list {
		if e.Name == "default" {
			return e.Template, nil
		}
	}
	if len(list) > 0 {
		return list[0].Template, nil
	}
	return "", nil
}

// loadGenerationConfig reads eos_token_id (an int or a list) if present.
func (t *Tokenizer) loadGenerationConfig(name string) error {
	var g struct {
		EOS json.RawMessage `json:"eos_token_id"`
	}
	if err := readJSON(name, &g); err != nil || len(g.EOS) == 0 || string(g.EOS) == "null" {
		return err
	}
	var one int32
	if err := json.Unmarshal(g.EOS, &one); err == nil {
		t.cfg.genEOS = []int32{one}
		return nil
	}
	if err := json.Unmarshal(g.EOS, &t.cfg.genEOS); err != nil {
		return errs.BadInputf("tokenizer: %s: eos_token_id: want an int or a list of ints", name)
	}
	return nil
}

// BOS returns the beginning-of-sequence token id from the config.
func (t *Tokenizer) BOS() (int32, bool) {
	if !t.cfg.hasBOS {
		return 0, false
	}
	return t.TokenToID(t.cfg.bos)
}

// EOS returns the end-of-sequence token id from the config.
func (t *Tokenizer) EOS() (int32, bool) {
	if !t.cfg.hasEOS {
		return 0, false
	}
	return t.TokenToID(t.cfg.eos)
}

// Pad returns pad_token's id from the config; ok is false without one (or
// when it is not in the vocabulary).
func (t *Tokenizer) Pad() (int32, bool) { return t.configToken(t.cfg.pad) }

// Unk returns unk_token's id from the config; ok is false without one.
func (t *Tokenizer) Unk() (int32, bool) { return t.configToken(t.cfg.unk) }

func (t *Tokenizer) configToken(s string) (int32, bool) {
	if s == "" {
		return 0, false
	}
	return t.TokenToID(s)
}

// EOSIDs returns every id that ends generation: the config's eos_token and
// generation_config.json's eos_token_id, without duplicates.
func (t *Tokenizer) EOSIDs() []int32 {
	var out []int32
	add := func(id int32) {
		for _, x := range out {
			if x == id {
				return
			}
		}
		out = append(out, id)
	}
	if id, ok := t.EOS(); ok {
		add(id)
	}
	for _, id := range t.cfg.genEOS {
		add(id)
	}
	return out
}

// AddBOSToken reports tokenizer_config's add_bos_token (set, value).
func (t *Tokenizer) AddBOSToken() (bool, bool) {
	if t.cfg.addBOS == nil {
		return false, false
	}
	return *t.cfg.addBOS, true
}

// ModelMaxLength is tokenizer_config's model_max_length, 0 when absent or huge.
func (t *Tokenizer) ModelMaxLength() int { return t.cfg.maxLen }

// ChatTemplate returns the Jinja chat template, "" when there is none.
func (t *Tokenizer) ChatTemplate() string { return t.cfg.chatTemplate }
