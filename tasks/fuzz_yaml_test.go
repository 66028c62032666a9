package tasks

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzTaskYAML feeds arbitrary task files to the loader and the spec
// builder: they may fail (with an error), never panic.
func FuzzTaskYAML(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "lmeval_yaml", "tasks", "*", "*.yaml"))
	for i, s := range seeds {
		if i >= 40 {
			break
		}
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("task: t\ninclude: t.yaml\n"))
	f.Add([]byte("group: g\ntask: [a, {task: b}]\naggregate_metric_list: {metric: acc}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "t.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := loadYAMLFile(path)
		if err != nil {
			return
		}
		if g, _ := c.get("group"); g != nil {
			_, _ = groupFromConfig(c)
			return
		}
		if s, err := newYAMLSpec(c, nil, nil); err == nil {
			_ = s.Config()
		}
	})
}

// FuzzJinja renders arbitrary templates over a document: errors are fine,
// panics and hangs are not.
func FuzzJinja(f *testing.F) {
	for _, s := range []string{"{{question.strip()}}", "{{[a, b]}}", "{{ text.split(' ')[:-1]|join(' ') }}",
		"{% for c in l %}{{loop.index}}{{c}}{% endfor %}", "{{ (n|int) - 1 }}", "{{ l.index(a) }}",
		"{{ a | regex_replace('(x)', '\\\\1') }}", "{% set p = a %}{{ p ~ b }}", "{{ d.k }}"} {
		f.Add(s)
	}
	doc := Doc{"question": " q? ", "a": "x'y", "b": "é", "text": "one two", "n": "3",
		"l": []any{"x'y", int64(2), 1.5, nil, true}, "d": map[string]any{"k": []any{"v"}}}
	f.Fuzz(func(t *testing.T, src string) {
		defer jinjaTpls.Clear() // one entry per input would grow without bound
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = renderJinja(src, doc, nil)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("rendering %q takes more than 5 s", src)
		}
	})
}
