package tasks

import "github.com/goeval/goeval/internal/py"

// The results file's "configs" entry of a task YAML.

// configOrder is TaskConfig's field order, in which lm-eval writes a
// task's "configs" entry (None fields left out; tags are the index's, not
// the config's).
var configOrder = []string{"task", "task_alias", "dataset_path", "dataset_name", "dataset_kwargs",
	"training_split", "validation_split", "test_split", "fewshot_split", "process_docs", "doc_to_text",
	"doc_to_target", "unsafe_code", "doc_to_choice", "process_results", "description", "target_delimiter",
	"fewshot_delimiter", "fewshot_config", "num_fewshot", "metric_list", "output_type", "generation_kwargs",
	"repeats", "filter_list", "should_decontaminate", "doc_to_decontamination_query", "gen_prefix", "metadata"}

// fewshotConfigOrder is FewshotConfig's field order.
var fewshotConfigOrder = []string{"sampler", "split", "process_docs", "fewshot_indices", "samples", "doc_to_text",
	"doc_to_choice", "doc_to_target", "gen_prefix", "fewshot_delimiter", "target_delimiter"}

// yamlConfigEntry is the results file's configs entry of a YAML task, as
// lm-eval's TaskConfig.to_dict() writes it: the file's values with
// TaskConfig's defaults and __post_init__ completions (generation_kwargs,
// fewshot_config), hooks written as "!function name" (lm-eval writes
// their Python source).
func yamlConfigEntry(s *spec, c yamlConfig) any {
	defaults := map[string]any{"unsafe_code": false, "description": "", "target_delimiter": " ",
		"fewshot_delimiter": "\n\n", "num_fewshot": s.numFewshot, "output_type": s.output.String(),
		"repeats": 1, "should_decontaminate": false}
	out := py.NewMap[any]()
	for _, k := range configOrder {
		v, ok := c.get(k)
		switch k {
		case "fewshot_config":
			v, ok = fewshotConfigEntry(c, defaults), true
		case "generation_kwargs":
			v, ok = nil, false
			if s.genKwargs != nil {
				g := py.NewMap[any]()
				for _, gk := range s.genKeys {
					g.Set(gk, s.genKwargs[gk])
				}
				v, ok = g, true
			}
		}
		if !ok || v == nil {
			v, ok = defaults[k]
		}
		if ok && v != nil {
			out.Set(k, configValue(v))
		}
	}
	return out
}

// fewshotConfigEntry is FewshotConfig.from_dict's result: fewshot_config's
// own keys over the task's split, delimiters and doc_to_* fields.
func fewshotConfigEntry(c yamlConfig, defaults map[string]any) *py.Map[any] {
	fc, _ := c.m.Value("fewshot_config").(*py.Map[any])
	inherit := map[string]string{"split": "fewshot_split", "process_docs": "process_docs", "doc_to_text": "doc_to_text",
		"doc_to_choice": "doc_to_choice", "doc_to_target": "doc_to_target", "gen_prefix": "gen_prefix",
		"fewshot_delimiter": "fewshot_delimiter", "target_delimiter": "target_delimiter"}
	out := py.NewMap[any]()
	for _, k := range fewshotConfigOrder {
		var v any
		found := false
		if fc != nil {
			v, found = fc.Get(k)
		}
		if !found {
			if src, ok := inherit[k]; ok {
				if v, found = c.get(src); !found {
					v = defaults[src]
				}
			}
		}
		if k == "sampler" && v == nil {
			v = "default"
		}
		out.Set(k, configValue(v))
	}
	return out
}

// configValue writes hooks as "!function name".
func configValue(v any) any {
	switch x := v.(type) {
	case hookRef:
		return "!function " + x.Name
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = configValue(e)
		}
		return out
	case *py.Map[any]:
		m := py.NewMap[any]()
		for _, k := range x.Keys() {
			m.Set(k, configValue(x.Value(k)))
		}
		return m
	}
	return v
}
