package tasks

import (
	"encoding/json"
	"testing"
)

// TestLMEvalConfigsAgree checks that every built-in task has lm-eval's
// configs entry and that the entry agrees with the task's own definition
// (so the embedded table and the Go specs cannot drift apart).
func TestLMEvalConfigsAgree(t *testing.T) {
	for _, name := range NewIndex().List() {
		s := builtinTasks[name]
		raw, ok := lmevalConfig(name)
		if !ok {
			t.Errorf("%s: no lm-eval config in lmeval_configs.json", name)
			continue
		}
		var c struct {
			Task, DatasetPath, DatasetName, OutputType string
			TrainingSplit, ValidationSplit, TestSplit  string
			FewshotSplit, TargetDelimiter              string
			FewshotDelimiter                           string
			NumFewshot                                 int
			MetricList                                 []struct{ Metric string }
			Metadata                                   struct{ Version float64 }
		}
		if err := json.Unmarshal(snakeToCamel(t, raw), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := []struct{ field, got, want string }{
			{"task", c.Task, name}, {"dataset_path", c.DatasetPath, s.ds.Path}, {"dataset_name", c.DatasetName, s.ds.Name},
			{"output_type", c.OutputType, s.output.String()}, {"training_split", c.TrainingSplit, s.trainSplit},
			{"validation_split", c.ValidationSplit, s.valSplit}, {"test_split", c.TestSplit, s.testSplit},
			{"fewshot_split", c.FewshotSplit, s.fewshotSplit}, {"target_delimiter", c.TargetDelimiter, s.targetDelim},
			{"fewshot_delimiter", c.FewshotDelimiter, s.fewDelim},
		}
		for _, w := range want {
			if w.got != w.want {
				t.Errorf("%s: lm-eval %s %q, goeval %q", name, w.field, w.got, w.want)
			}
		}
		if c.NumFewshot != s.numFewshot || c.Metadata.Version != s.version {
			t.Errorf("%s: lm-eval num_fewshot %d version %v, goeval %d %v", name, c.NumFewshot, c.Metadata.Version, s.numFewshot, s.version)
		}
		if len(c.MetricList) != len(s.metrics) {
			t.Errorf("%s: lm-eval metric_list %v, goeval %v", name, c.MetricList, s.metrics)
			continue
		}
		for i, m := range c.MetricList {
			if m.Metric != s.metrics[i].Name {
				t.Errorf("%s: metric %d lm-eval %q goeval %q", name, i, m.Metric, s.metrics[i].Name)
			}
		}
	}
}

// snakeToCamel re-keys the top-level snake_case fields so encoding/json's
// case-insensitive matching maps them onto Go field names.
func snakeToCamel(t *testing.T, raw json.RawMessage) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for k, v := range m {
		b := []byte{}
		for i := 0; i < len(k); i++ {
			if k[i] != '_' {
				b = append(b, k[i])
			}
		}
		out[string(b)] = v
	}
	data, _ := json.Marshal(out)
	return data
}

func TestConfigIsOrderedJSON(t *testing.T) {
	task, err := NewIndex().Get("arc_easy")
	if err != nil {
		t.Fatal(err)
	}
	c := task.Config()
	// lm-eval's TaskConfig field order starts task, dataset_path, dataset_name.
	want := `{"task": "arc_easy", "dataset_path": "allenai/ai2_arc", "dataset_name": "ARC-Easy",`
	if len(c) < 80 || string(compact(c)[:len(want)]) != want {
		t.Errorf("arc_easy config starts %q", string(compact(c)[:80]))
	}
}

// compact writes JSON with Python's ", " and ": " separators for the
// prefix comparison above.
func compact(raw json.RawMessage) []byte {
	var out []byte
	inStr, esc := false, false
	for _, b := range []byte(raw) {
		switch {
		case inStr:
			out = append(out, b)
			if esc {
				esc = false
			} else if b == '\\' {
				esc = true
			} else if b == '"' {
				inStr = false
			}
		case b == '"':
			inStr = true
			out = append(out, b)
		case b == ' ' || b == '\n' || b == '\t':
		case b == ',' || b == ':':
			out = append(out, b, ' ')
		default:
			out = append(out, b)
		}
	}
	return out
}
