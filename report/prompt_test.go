package report

import (
	"reflect"
	"testing"
)

// TestPromptKeys checks the prompt keys lm-eval writes for each flag
// combination: nothing set is all null; an explicit
// --fewshot_as_multiturn false is recorded as false.
func TestPromptFields(t *testing.T) {
	no, yes := false, true
	cases := []struct {
		name string
		p    PromptSettings
		want map[string]any
	}{
		{"none", PromptSettings{}, map[string]any{}},
		{"system only", PromptSettings{SystemInstruction: "Be brief."}, map[string]any{
			"system_instruction": "Be brief.", "system_instruction_sha": HashString("Be brief.")}},
		{"chat, inline few-shot", PromptSettings{ApplyChatTemplate: true, ChatTemplate: "T", FewshotAsMultiturn: &no},
			map[string]any{"fewshot_as_multiturn": false, "chat_template": "T", "chat_template_sha": HashString("T")}},
		{"chat, multiturn", PromptSettings{ApplyChatTemplate: true, ChatTemplate: "T", FewshotAsMultiturn: &yes},
			map[string]any{"fewshot_as_multiturn": true, "chat_template": "T", "chat_template_sha": HashString("T")}},
	}
	for _, c := range cases {
		if got := promptFields(c.p); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	r := &Results{}
	for k, v := range promptFields(cases[2].p) {
		r.Extra.Set(k, v)
	}
	m := r.ordered()
	for _, k := range PromptKeyNames {
		if _, ok := m.Get(k); !ok {
			t.Errorf("results file lacks %s", k)
		}
	}
	if v, _ := m.Get("system_instruction"); v != nil {
		t.Errorf("system_instruction %v, want null", v)
	}
	if v, _ := m.Get("fewshot_as_multiturn"); v != false {
		t.Errorf("fewshot_as_multiturn %v, want false", v)
	}
}
