package tokenizer

import (
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// continueTag marks the end of the final message while rendering, as
// transformers' continue_final_message does.
const continueTag = "CONTINUE_FINAL_MESSAGE_TAG "

// ContinueChatTemplate renders msgs so that the model continues the final
// message (transformers' apply_chat_template with
// add_generation_prompt=False, continue_final_message=True — how lm-eval's
// HF model renders a gen_prefix): the final message's content is tagged,
// the conversation rendered, and the text cut where the tag starts (with
// trailing whitespace trimmed when the template trimmed the tag's space).
func (t *Tokenizer) ContinueChatTemplate(msgs []Message) (string, error) {
	return t.ContinueChatTemplateArgs(msgs, nil)
}

// ContinueChatTemplateArgs is ContinueChatTemplate with more template
// variables (see ApplyChatTemplateArgs).
func (t *Tokenizer) ContinueChatTemplateArgs(msgs []Message, args map[string]any) (string, error) {
	if t.cfg.chatTemplate == "" {
		return "", errNoTemplate
	}
	return ContinueChatTemplate(t.cfg.chatTemplate, msgs, t.templateVars(args))
}

// ContinueChatTemplate is RenderChatTemplate continuing the final message.
func ContinueChatTemplate(src string, msgs []Message, vars map[string]any) (string, error) {
	if len(msgs) == 0 {
		return "", fmt.Errorf("chat template: no message to continue")
	}
	if !strings.Contains(src, "content") {
		return "", fmt.Errorf("chat template: it never reads a message's content, so the final message cannot be continued")
	}
	final := msgs[len(msgs)-1].Content
	tagged := append(append([]Message{}, msgs[:len(msgs)-1]...), msgs[len(msgs)-1])
	tagged[len(tagged)-1].Content += continueTag
	out, err := RenderChatTemplate(src, tagged, false, vars)
	if err != nil {
		return "", err
	}
	tag := py.Strip(continueTag)
	i := strings.LastIndex(out, tag)
	if !strings.Contains(out, py.Strip(final)) || i < 0 {
		return "", fmt.Errorf("chat template: the final message does not appear in the rendered chat, so it cannot be continued")
	}
	if strings.HasPrefix(out[i:], continueTag) {
		return out[:i], nil
	}
	return strings.TrimRightFunc(out[:i], py.IsSpace), nil
}
