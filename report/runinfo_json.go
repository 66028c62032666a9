package report

import (
	"encoding/json"
	"fmt"

	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/lm"
)

// runInfoJSON is RunInfo as a shard manifest stores it. The values typed
// any (batch size, gen kwargs, model args, metadata) are kept in Python's
// JSON spelling and read back as json.Number, so an int stays "8" and a
// float "0.7": the results file that goeval merge writes from a decoded
// RunInfo spells them as the shard's run did.
type runInfoJSON struct {
	ModelName  string            `json:"model_name"`
	Settings   settingsJSON      `json:"settings"`
	Prompt     PromptSettings    `json:"prompt"`
	Model      *lm.Info          `json:"model,omitempty"`
	Timing     *Timing           `json:"timing,omitempty"`
	DatasetSHA map[string]string `json:"dataset_sha,omitempty"`
	Metadata   json.RawMessage   `json:"metadata,omitempty"`
	GitHash    string            `json:"git_hash,omitempty"`
	Backend    string            `json:"backend,omitempty"`
}

// settingsJSON is RunSettings with its untyped values in Python's JSON.
type settingsJSON struct {
	RunSettings
	BatchSize json.RawMessage `json:"BatchSize"`
	GenKwargs json.RawMessage `json:"GenKwargs"`
	ModelArgs json.RawMessage `json:"ModelArgs,omitempty"`
}

// EncodeRunInfo is info as a shard manifest records it (DecodeRunInfo
// reads it back, equal for every results-file purpose).
func EncodeRunInfo(info RunInfo) (json.RawMessage, error) {
	j := runInfoJSON{ModelName: info.ModelName, Prompt: info.Prompt, Model: info.Model, Timing: info.Timing,
		DatasetSHA: info.DatasetSHA, GitHash: info.GitHash, Backend: info.Backend}
	j.Settings.RunSettings = info.Settings
	j.Settings.RunSettings.BatchSize, j.Settings.RunSettings.GenKwargs, j.Settings.RunSettings.ModelArgs = nil, nil, nil
	var err error
	for _, f := range []struct {
		dst *json.RawMessage
		v   any
	}{{&j.Settings.BatchSize, info.Settings.BatchSize}, {&j.Settings.GenKwargs, info.Settings.GenKwargs},
		{&j.Settings.ModelArgs, info.Settings.ModelArgs}, {&j.Metadata, info.Metadata}} {
		if *f.dst, err = pyRaw(f.v); err != nil {
			return nil, fmt.Errorf("encode run info: %w", err)
		}
	}
	return json.Marshal(j)
}

// pyRaw is v in Python's JSON (nil for a nil map or value).
func pyRaw(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case *py.Map[any]:
		if x == nil {
			return nil, nil
		}
	case map[string]any:
		if x == nil {
			return nil, nil
		}
	}
	return py.JSON(v, false)
}

// DecodeRunInfo reads what EncodeRunInfo wrote.
func DecodeRunInfo(data []byte) (RunInfo, error) {
	var j runInfoJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return RunInfo{}, fmt.Errorf("decode run info: %w", err)
	}
	info := RunInfo{ModelName: j.ModelName, Settings: j.Settings.RunSettings, Prompt: j.Prompt, Model: j.Model,
		Timing: j.Timing, DatasetSHA: j.DatasetSHA, GitHash: j.GitHash, Backend: j.Backend}
	var err error
	if info.Settings.BatchSize, err = pyValue(j.Settings.BatchSize); err != nil {
		return RunInfo{}, fmt.Errorf("decode run info: batch size: %w", err)
	}
	if gk, err := pyValue(j.Settings.GenKwargs); err != nil {
		return RunInfo{}, fmt.Errorf("decode run info: gen kwargs: %w", err)
	} else if m, ok := gk.(*py.Map[any]); ok {
		info.Settings.GenKwargs = map[string]any{}
		for _, k := range m.Keys() {
			info.Settings.GenKwargs[k] = m.Value(k)
		}
	}
	if info.Settings.ModelArgs, err = pyMap(j.Settings.ModelArgs); err != nil {
		return RunInfo{}, fmt.Errorf("decode run info: model args: %w", err)
	}
	if info.Metadata, err = pyMap(j.Metadata); err != nil {
		return RunInfo{}, fmt.Errorf("decode run info: metadata: %w", err)
	}
	return info, nil
}

// pyValue parses raw Python JSON (nil for none).
func pyValue(raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	return py.ParseJSON(raw)
}

// pyMap parses a raw JSON object into an ordered map (nil for none).
func pyMap(raw json.RawMessage) (*py.Map[any], error) {
	v, err := pyValue(raw)
	if v == nil || err != nil {
		return nil, err
	}
	m, ok := v.(*py.Map[any])
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return m, nil
}
