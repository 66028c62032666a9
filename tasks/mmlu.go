package tasks

import (
	"fmt"
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// MMLU default variant (lm_eval/tasks/mmlu/default/): 57 subject tasks
// mmlu_<subject> and the groups mmlu_stem, mmlu_other, mmlu_social_sciences,
// mmlu_humanities and mmlu (in that order inside mmlu).

var mmluSubjects = []struct {
	group, alias string
	subjects     []string
}{
	{"mmlu_stem", "stem", []string{"abstract_algebra", "anatomy", "astronomy", "college_biology", "college_chemistry", "college_computer_science", "college_mathematics", "college_physics", "computer_security", "conceptual_physics", "electrical_engineering", "elementary_mathematics", "high_school_biology", "high_school_chemistry", "high_school_computer_science", "high_school_mathematics", "high_school_physics", "high_school_statistics", "machine_learning"}},
	{"mmlu_other", "other", []string{"business_ethics", "clinical_knowledge", "college_medicine", "global_facts", "human_aging", "management", "marketing", "medical_genetics", "miscellaneous", "nutrition", "professional_accounting", "professional_medicine", "virology"}},
	{"mmlu_social_sciences", "social sciences", []string{"econometrics", "high_school_geography", "high_school_government_and_politics", "high_school_macroeconomics", "high_school_microeconomics", "high_school_psychology", "human_sexuality", "professional_psychology", "public_relations", "security_studies", "sociology", "us_foreign_policy"}},
	{"mmlu_humanities", "humanities", []string{"formal_logic", "high_school_european_history", "high_school_us_history", "high_school_world_history", "international_law", "jurisprudence", "logical_fallacies", "moral_disputes", "moral_scenarios", "philosophy", "prehistory", "professional_law", "world_religions"}},
}

// MMLUSubjects returns the 57 MMLU subjects (dataset configs of cais/mmlu).
func MMLUSubjects() []string {
	var out []string
	for _, g := range mmluSubjects {
		out = append(out, g.subjects...)
	}
	return out
}

func mmluText(d Doc) (string, error) {
	q, err := str(d, "question")
	if err != nil {
		return "", err
	}
	c, err := strList(d["choices"], "choices")
	if err != nil {
		return "", err
	}
	if len(c) < 4 {
		return "", fmt.Errorf("choices has %d entries, want 4", len(c))
	}
	return py.Strip(q) + "\nA. " + c[0] + "\nB. " + c[1] + "\nC. " + c[2] + "\nD. " + c[3] + "\nAnswer:", nil
}

func init() {
	var top []string
	for _, g := range mmluSubjects {
		var names []string
		for _, subj := range g.subjects {
			desc := "The following are multiple choice questions (with answers) about " + strings.ReplaceAll(subj, "_", " ") + ".\n\n"
			register(&spec{
				name: "mmlu_" + subj, alias: subj, tags: []string{g.group + "_tasks"}, version: 1.0,
				ds: dataset{Path: "cais/mmlu", Name: subj}, testSplit: "test", fewshotSplit: "dev", firstN: true,
				output:      MultipleChoice,
				description: func(Doc) (string, error) { return desc, nil },
				text:        mmluText,
				target:      func(d Doc) (any, error) { return intAny(integer(d, "answer")) },
				choices:     func(Doc) ([]string, error) { return []string{"A", "B", "C", "D"}, nil },
				metrics:     []MetricSpec{{"acc", "mean", true}}, score: scoreMC,
			})
			names = append(names, "mmlu_"+subj)
		}
		registerGroup(Group{Name: g.group, Alias: g.alias, Subtasks: names, Aggregate: true, WeightBySize: true, Metrics: []string{"acc"}, Version: "2"})
		top = append(top, g.group)
	}
	registerGroup(Group{Name: "mmlu", Subtasks: top, Aggregate: true, WeightBySize: true, Metrics: []string{"acc"}, Version: "2"})
}
