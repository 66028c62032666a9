package tasks

import (
	_ "embed"
	"encoding/json"
	"sync"

	"github.com/goeval/goeval/internal/py"
)

// lmevalConfigs holds lm-eval 0.4.13's "configs" entry of every built-in
// task (TaskConfig.dump_config() at the default few-shot, run-specific
// metadata removed), written by parity/lmeval/dump_configs.py. Values lm-eval
// renders from Python functions (process_docs, doc_to_text, …) are the
// function source or "<function name>", as lm-eval writes them.
//
//go:embed lmeval_configs.json
var lmevalConfigs []byte

var (
	configsOnce sync.Once
	configsErr  error
	configsMap  map[string]json.RawMessage
)

// lmevalConfig returns name's lm-eval configs entry as JSON (key order kept).
func lmevalConfig(name string) (json.RawMessage, bool) {
	configsOnce.Do(func() { configsErr = json.Unmarshal(lmevalConfigs, &configsMap) })
	if configsErr != nil {
		return nil, false
	}
	c, ok := configsMap[name]
	return c, ok
}

// Config returns the task's lm-eval "configs" entry as a JSON object in
// lm-eval's key order, "num_fewshot" at the task default. Tasks missing from
// lm-eval's table get the fields goeval knows.
func (s *spec) Config() json.RawMessage {
	if s.config != nil {
		b, err := py.JSON(s.config(), false)
		if err == nil {
			return b
		}
	}
	if c, ok := lmevalConfig(s.name); ok {
		return append(json.RawMessage{}, c...)
	}
	b, _ := json.Marshal(s.fallbackConfig())
	return b
}

// fallbackConfig is a minimal configs entry built from the spec.
func (s *spec) fallbackConfig() map[string]any {
	c := map[string]any{"task": s.name, "dataset_path": s.ds.Path, "output_type": s.output.String(),
		"num_fewshot": s.numFewshot, "target_delimiter": s.targetDelim, "fewshot_delimiter": s.fewDelim,
		"repeats": 1, "metadata": map[string]any{"version": s.version}}
	if s.ds.Name != "" {
		c["dataset_name"] = s.ds.Name
	}
	var ml []any
	for _, m := range s.metrics {
		ml = append(ml, map[string]any{"metric": m.Name, "aggregation": m.Aggregation, "higher_is_better": m.HigherIsBetter})
	}
	c["metric_list"] = ml
	return c
}
