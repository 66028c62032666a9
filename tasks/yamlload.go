package tasks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
)

// Reading lm-eval task YAML files as lm-eval's _yaml_loader.load_yaml does:
// a mapping per file, `!function module.name` tags kept as hook references,
// `include:` files (one or a list, relative to the including file) merged
// first and overridden by the file's own keys, include cycles refused.
//
// PyYAML reads YAML 1.1, yaml.v3 YAML 1.2; the difference that reaches task
// files is plain (unquoted) yes/no/on/off, which PyYAML reads as booleans —
// so does this loader.

// hookRef is a `!function module.name` value: Name as written, Dir the
// folder of the YAML file that wrote it (lm-eval imports module.py from
// there).
type hookRef struct{ Name, Dir string }

// yamlConfig is one task or group configuration with its file.
type yamlConfig struct {
	m    *py.Map[any]
	path string // the file the configuration was read from
}

func (c yamlConfig) get(key string) (any, bool) { return c.m.Get(key) }

// loadYAMLFile reads path and merges its includes.
func loadYAMLFile(path string) (yamlConfig, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return yamlConfig{}, errs.BadInputf("%s: %v", path, err)
	}
	m, err := loadYAMLMerged(abs, map[string]bool{})
	return yamlConfig{m: m, path: abs}, err
}

func loadYAMLMerged(path string, seen map[string]bool) (*py.Map[any], error) {
	if seen[path] {
		return nil, errs.BadInputf("%s: include cycle (the file includes itself through its includes)", path)
	}
	seen[path] = true
	m, err := readYAMLMap(path)
	if err != nil {
		return nil, err
	}
	inc, ok := m.Get("include")
	if !ok {
		return m, nil
	}
	m.Delete("include")
	var names []any
	switch x := inc.(type) {
	case string:
		names = []any{x}
	case []any:
		names = x
	default:
		return nil, errs.BadInputf("%s: include must be a file name or a list of them, not %s", path, yamlKind(inc))
	}
	merged := py.NewMap[any]()
	for _, n := range names {
		name, ok := n.(string)
		if !ok {
			return nil, errs.BadInputf("%s: include entries must be file names, not %s", path, yamlKind(n))
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(filepath.Dir(path), name)
		}
		sub, err := loadYAMLMerged(name, seen)
		if err != nil {
			return nil, err
		}
		sub.Delete("task_list")
		for _, k := range sub.Keys() {
			merged.Set(k, sub.Value(k))
		}
	}
	for _, k := range m.Keys() {
		merged.Set(k, m.Value(k))
	}
	return merged, nil
}

// readYAMLMap parses one file into an ordered map.
func readYAMLMap(path string) (*py.Map[any], error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, errs.BadInputf("task file %s does not exist", path)
		}
		return nil, errs.BadInputf("task file %s: %v", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		fixed, ok := slashEscapes(data) // `\/`, which PyYAML reads (yamlescape.go)
		if !ok || yaml.Unmarshal(fixed, &doc) != nil {
			return nil, errs.BadInputf("%s: not valid YAML: %v", path, err)
		}
	}
	if len(doc.Content) == 0 {
		return nil, errs.BadInputf("%s: empty YAML file (a task file is a mapping with a task: key)", path)
	}
	v, err := yamlValue(doc.Content[0], filepath.Dir(path))
	if err != nil {
		return nil, errs.BadInputf("%s: %v", path, err)
	}
	m, ok := v.(*py.Map[any])
	if !ok {
		return nil, errs.BadInputf("%s: the file holds %s, want a mapping of task keys", path, yamlKind(v))
	}
	return m, nil
}

// yamlValue converts a node: mappings to ordered maps, sequences to []any,
// scalars by their resolved tag, !function to hookRef.
func yamlValue(n *yaml.Node, dir string) (any, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return yamlValue(n.Alias, dir)
	case yaml.MappingNode:
		m := py.NewMap[any]()
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				return nil, fmt.Errorf("line %d: keys must be plain names (merge keys are not supported)", k.Line)
			}
			v, err := yamlValue(n.Content[i+1], dir)
			if err != nil {
				return nil, err
			}
			m.Set(k.Value, v)
		}
		return m, nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlValue(c, dir)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.ScalarNode:
		return yamlScalar(n, dir)
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node", n.Line)
}

func yamlScalar(n *yaml.Node, dir string) (any, error) {
	switch n.Tag {
	case "!function":
		return hookRef{Name: strings.TrimSpace(n.Value), Dir: dir}, nil
	case "!!str":
		if n.Style == 0 { // plain: YAML 1.1 booleans, as PyYAML reads them
			switch n.Value {
			case "yes", "Yes", "YES", "on", "On", "ON":
				return true, nil
			case "no", "No", "NO", "off", "Off", "OFF":
				return false, nil
			}
		}
		return n.Value, nil
	case "!!int", "!!float", "!!bool", "!!null":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %v", n.Line, err)
		}
		return v, nil
	}
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return nil, fmt.Errorf("line %d: unknown tag %s (lm-eval task files use only !function)", n.Line, n.Tag)
	}
	return n.Value, nil
}

// yamlKind names a YAML value's type for error messages.
func yamlKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int:
		return "an integer"
	case float64:
		return "a number"
	case []any:
		return "a list"
	case *py.Map[any]:
		return "a mapping"
	case hookRef:
		return "a !function hook"
	}
	return fmt.Sprintf("%T", v)
}
