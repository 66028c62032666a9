package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/goeval/goeval/internal/errs"
)

// lmevalCommandLine is args in goeval's spelling (lmevalArgs), with the
// options of a --config YAML file put first so that flags given on the
// command line win, as in lm-eval.
func lmevalCommandLine(args []string, fs *flag.FlagSet) ([]string, error) {
	args, err := lmevalArgs(args, fs)
	if err != nil {
		return nil, err
	}
	var file string
	for _, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--config="); ok {
			file = v
		}
	}
	if file == "" {
		return args, nil
	}
	fromFile, err := configFileArgs(file)
	if err != nil {
		return nil, err
	}
	if fromFile, err = lmevalArgs(fromFile, fs); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return append(fromFile, args...), nil
}

// configFileArgs reads an lm-eval --config YAML file (a mapping of run
// options, lm-eval's names) as command-line flags, in key order.
func configFileArgs(file string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, errs.BadInputf("--config: %v", err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, errs.BadInputf("--config %s: not a YAML mapping of lm-eval options: %v", file, err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if k == "config" {
			continue
		}
		v, err := configValue(m[k])
		if err != nil {
			return nil, errs.BadInputf("--config %s: %s: %v", file, k, err)
		}
		if v != nil {
			out = append(out, "--"+k+"="+*v)
		}
	}
	return out, nil
}

// configValue spells a YAML value as its flag value: lists of tasks joined
// by commas, mappings (model_args, gen_kwargs, metadata, samples) as JSON;
// nil (null) leaves the flag out.
func configValue(v any) (*string, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fmt.Sprint(e)
		}
		s = strings.Join(parts, ",")
	case map[string]any:
		b, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		s = string(b)
	default:
		s = fmt.Sprint(x)
	}
	return &s, nil
}
