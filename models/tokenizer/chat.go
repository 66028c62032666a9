package tokenizer

import (
	"errors"
	"fmt"

	"github.com/nikolalohinski/gonja/v2/builtins"
	jcfg "github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"

	"github.com/goeval/goeval/internal/jinja"
)

// Message is one turn of a conversation.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// errNoTemplate is returned when the tokenizer has no chat template.
var errNoTemplate = errors.New("tokenizer has no chat_template")

// ApplyChatTemplate renders the tokenizer's chat template like
// transformers' apply_chat_template(tokenize=False): bos_token, eos_token
// and the other special tokens of the config are available to the template.
func (t *Tokenizer) ApplyChatTemplate(msgs []Message, addGenerationPrompt bool) (string, error) {
	return t.ApplyChatTemplateArgs(msgs, addGenerationPrompt, nil)
}

// ApplyChatTemplateArgs is ApplyChatTemplate with more template variables,
// as transformers' apply_chat_template passes its extra keyword arguments
// (lm-eval's chat_template_args, enable_thinking among them). A special
// token of the config wins over an argument of the same name, as the
// tokenizer's own values do in transformers.
func (t *Tokenizer) ApplyChatTemplateArgs(msgs []Message, addGenerationPrompt bool, args map[string]any) (string, error) {
	if t.cfg.chatTemplate == "" {
		return "", errNoTemplate
	}
	return RenderChatTemplate(t.cfg.chatTemplate, msgs, addGenerationPrompt, t.templateVars(args))
}

// templateVars are args and the config's special tokens a chat template
// may read.
func (t *Tokenizer) templateVars(args map[string]any) map[string]any {
	vars := map[string]any{}
	if t.cfg.hasBOS {
		vars["bos_token"] = t.cfg.bos
	}
	if t.cfg.hasEOS {
		vars["eos_token"] = t.cfg.eos
	}
	for k, v := range args { // transformers: kwargs overwrite special tokens
		vars[k] = v
	}
	return vars
}

// templateCache holds compiled templates by source.
var templateCache = &jinja.Cache{Prefix: "chat"}

// RenderChatTemplate renders a Hugging Face Jinja chat template with the
// environment transformers uses (trim_blocks, lstrip_blocks,
// raise_exception). vars adds template variables such as bos_token.
//
// gonja panics on some templates ("x" * -1, 1 % 0); those panics are
// returned as errors, since a template is input.
func RenderChatTemplate(src string, msgs []Message, addGenerationPrompt bool, vars map[string]any) (_ string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chat template: %v", r)
		}
	}()
	tpl, err := compileTemplate(src)
	if err != nil {
		return "", err
	}
	list := make([]any, len(msgs))
	for i, m := range msgs {
		list[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	data := map[string]any{"messages": list, "add_generation_prompt": addGenerationPrompt, jinja.GuardKey: jinja.NewGuard()}
	for k, v := range vars {
		data[k] = v
	}
	var raised error
	data["raise_exception"] = func(msg string) (string, error) {
		raised = fmt.Errorf("chat template: %s", msg)
		return "", raised
	}
	out, err := tpl.ExecuteToString(exec.NewContext(data))
	if raised != nil {
		return "", raised
	}
	if err != nil {
		return "", fmt.Errorf("chat template: %w", err)
	}
	return out, nil
}

func compileTemplate(src string) (*exec.Template, error) {
	cfg := jcfg.New()
	cfg.TrimBlocks, cfg.LeftStripBlocks = true, true
	env := &exec.Environment{
		Context: exec.EmptyContext().Update(builtins.GlobalFunctions).Update(builtins.GlobalVariables).
			Update(exec.NewContext(map[string]any{"range": jinja.Range})),
		Filters:           builtins.Filters,
		Tests:             builtins.Tests,
		ControlStructures: jinja.ControlStructures,
		Methods:           builtins.Methods,
	}
	tpl, err := templateCache.Parse(jinja.Conditionals(src, cfg), cfg, env, nil)
	if err != nil {
		return nil, fmt.Errorf("chat template: %w", err)
	}
	return tpl, nil
}
