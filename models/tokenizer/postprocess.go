package tokenizer

import (
	"encoding/json"
	"fmt"
	"slices"
)

// postProcessor adds special tokens around an encoded single sequence.
// Only the ids matter here; ByteLevel (offsets only) is a no-op.
type postProcessor struct {
	prefix, suffix []int32
	template       *templateJSON
	cls, sep       *[2]json.RawMessage
	children       []*postProcessor
}

type templateJSON struct {
	Single []struct {
		SpecialToken *struct {
			ID string `json:"id"`
		} `json:"SpecialToken"`
		Sequence *struct {
			ID string `json:"id"`
		} `json:"Sequence"`
	} `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int32 `json:"ids"`
	} `json:"special_tokens"`
}

type postJSON struct {
	Type       string              `json:"type"`
	Processors []json.RawMessage   `json:"processors"`
	Cls        *[2]json.RawMessage `json:"cls"`
	Sep        *[2]json.RawMessage `json:"sep"`
}

func parsePostProcessor(raw json.RawMessage) (*postProcessor, error) {
	typ, err := typeOf(raw)
	if err != nil || typ == "" {
		return &postProcessor{}, err
	}
	var j postJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return nil, fmt.Errorf("%s: %w", typ, err)
	}
	switch typ {
	case "ByteLevel":
		return &postProcessor{}, nil
	case "TemplateProcessing":
		var t templateJSON
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("TemplateProcessing: %w", err)
		}
		return &postProcessor{template: &t}, nil
	case "BertProcessing", "RobertaProcessing":
		if j.Cls == nil || j.Sep == nil {
			return nil, fmt.Errorf("%s: missing cls or sep", typ)
		}
		return &postProcessor{cls: j.Cls, sep: j.Sep}, nil
	case "Sequence":
		p := &postProcessor{}
		for i, r := range j.Processors {
			c, err := parsePostProcessor(r)
			if err != nil {
				return nil, fmt.Errorf("processors[%d]: %w", i, err)
			}
			p.children = append(p.children, c)
		}
		return p, nil
	}
	return nil, fmt.Errorf("unsupported post_processor type %q", typ)
}

// resolve computes the ids added before and after the sequence.
func (p *postProcessor) resolve(m *bpe) error {
	switch {
	case p.template != nil:
		seen := false
		for i, it := range p.template.Single {
			switch {
			case it.Sequence != nil:
				seen = true
			case it.SpecialToken != nil:
				st, ok := p.template.SpecialTokens[it.SpecialToken.ID]
				if !ok {
					return fmt.Errorf("single[%d]: special token %q is not in special_tokens", i, it.SpecialToken.ID)
				}
				if seen {
					p.suffix = append(p.suffix, st.IDs...)
				} else {
					p.prefix = append(p.prefix, st.IDs...)
				}
			}
		}
	case p.cls != nil:
		var cls, sep int32
		if err := json.Unmarshal(p.cls[1], &cls); err != nil {
			return fmt.Errorf("cls: %w", err)
		}
		if err := json.Unmarshal(p.sep[1], &sep); err != nil {
			return fmt.Errorf("sep: %w", err)
		}
		p.prefix, p.suffix = []int32{cls}, []int32{sep}
	}
	for _, c := range p.children {
		if err := c.resolve(m); err != nil {
			return err
		}
		p.prefix = append(append([]int32(nil), c.prefix...), p.prefix...)
		p.suffix = append(p.suffix, c.suffix...)
	}
	for _, id := range slices.Concat(p.prefix, p.suffix) {
		if id < 0 {
			return fmt.Errorf("special token id %d is negative", id)
		}
	}
	return nil
}
