package lm

// ChatMessage is one chat turn given to a chat template.
type ChatMessage struct{ Role, Content string }

// ChatTemplater is implemented by models that carry a chat template
// (tokenizer_config.json's chat_template). The evaluator renders prompts
// with it when its options ask for a chat template, and refuses to run
// when the model has none.
type ChatTemplater interface {
	// ChatTemplate is the template's source, as a results file records it
	// ("" when the model has none: the evaluator then refuses to apply it).
	ChatTemplate() string
	// ApplyChatTemplate renders msgs; addGenerationPrompt appends the
	// assistant header that starts a model turn. Without it the final
	// message is continued (transformers' continue_final_message), as
	// lm-eval's HF model renders a task's gen_prefix.
	ApplyChatTemplate(msgs []ChatMessage, addGenerationPrompt bool) (string, error)
}

// Token is one vocabulary entry: its text and id.
type Token struct {
	Text string
	ID   int32
}

// Info describes a model the way a results file records it: the special
// tokens and the context length lm-eval's HF backend reports. A nil token
// is absent from the tokenizer.
type Info struct {
	BOS, EOS  *Token
	Pad       *Token // the padding token used (lm-eval falls back to EOS)
	EOT       *Token // end-of-text token generation stops on
	MaxLength int    // max_length: the context window used for requests
}

// Describer is implemented by models that can describe themselves for
// results files.
type Describer interface {
	Info() Info
}
