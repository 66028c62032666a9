package report

// PromptSettings are the prompt options of a run, as a results file
// records them (lm-eval's GeneralConfigTracker.log_experiment_args).
type PromptSettings struct {
	SystemInstruction string // --system_instruction; "" when not given
	ApplyChatTemplate bool   // --apply_chat_template
	ChatTemplate      string // the template text used (with ApplyChatTemplate)
	// FewshotAsMultiturn is the --fewshot_as_multiturn value in effect:
	// nil when neither it nor a chat template was given (null in the file).
	FewshotAsMultiturn *bool
}

// promptFields are the results-file keys of p: system_instruction and its
// sha256, fewshot_as_multiturn, chat_template and its sha256. A key that is
// not set is left out, and written as null (Results.Encode).
func promptFields(p PromptSettings) map[string]any {
	out := map[string]any{}
	if p.SystemInstruction != "" {
		out["system_instruction"], out["system_instruction_sha"] = p.SystemInstruction, HashString(p.SystemInstruction)
	}
	if p.FewshotAsMultiturn != nil {
		out["fewshot_as_multiturn"] = *p.FewshotAsMultiturn
	}
	if p.ApplyChatTemplate && p.ChatTemplate != "" {
		out["chat_template"], out["chat_template_sha"] = p.ChatTemplate, HashString(p.ChatTemplate)
	}
	return out
}

// PromptKeyNames are the top-level keys the prompt settings set.
var PromptKeyNames = []string{"system_instruction", "system_instruction_sha", "fewshot_as_multiturn",
	"chat_template", "chat_template_sha"}
