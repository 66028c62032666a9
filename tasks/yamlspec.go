package tasks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
	"github.com/goeval/goeval/internal/pyworker"
)

// Building a task from an lm-eval task YAML (TaskConfig's fields). Every key
// is either used, accepted with no effect on goeval (listed in ignoredKeys),
// or an error naming the file and the key: nothing is silently dropped.

// taskKeys are the TaskConfig keys goeval reads.
var taskKeys = map[string]bool{
	"task": true, "task_alias": true, "tag": true, "dataset_path": true, "dataset_name": true,
	"dataset_kwargs": true, "training_split": true, "validation_split": true, "test_split": true,
	"fewshot_split": true, "process_docs": true, "doc_to_text": true, "doc_to_target": true,
	"doc_to_choice": true, "process_results": true, "description": true, "target_delimiter": true,
	"fewshot_delimiter": true, "fewshot_config": true, "num_fewshot": true, "metric_list": true,
	"output_type": true, "generation_kwargs": true, "repeats": true, "filter_list": true,
	"metadata": true, "unsafe_code": true, "gen_prefix": true, "doc_to_image": true, "doc_to_audio": true,
	"class": true, "custom_dataset": true, "use_prompt": true, "task_list": true,
}

// ignoredKeys change nothing goeval computes: decontamination runs only
// with lm-eval's --decontamination_ngrams_path, which goeval does not have.
var ignoredKeys = map[string]bool{"should_decontaminate": true, "doc_to_decontamination_query": true}

// cfgReader reads typed keys of one configuration, remembering the first
// error (which names the file and key).
type cfgReader struct {
	c      yamlConfig
	hooks  hookLookup        // resolves !function names (the task's Index)
	py     *pyworker.Runtime // runs the Python functions no Go hook answers (nil: none)
	err    error
	scorer *yamlScorer // set by metrics, completed by filterList
	// pyDoc are the Python doc_to_* hooks read so far (the spec
	// prefetches their values in batches); keys is the spec's document
	// key order, which they send documents in.
	pyDoc  []*pyDocHook
	pyDocs map[string]*pyDocHook // pyDoc by function, shared with fewshot_config's reader
	keys   func() map[string][]string
}

func (r *cfgReader) failf(key, format string, args ...any) {
	if r.err == nil {
		r.err = errs.BadInputf("%s: %s: %s", r.c.path, key, fmt.Sprintf(format, args...))
	}
}

// str reads an optional string ("" when absent or null).
func (r *cfgReader) str(key string) string {
	v, _ := r.c.get(key)
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	r.failf(key, "want a string, got %s", yamlKind(v))
	return ""
}

// strDefault reads a string that defaults to def when absent (null is "").
func (r *cfgReader) strDefault(key, def string) string {
	if _, ok := r.c.get(key); !ok {
		return def
	}
	return r.str(key)
}

func (r *cfgReader) has(key string) bool {
	v, ok := r.c.get(key)
	return ok && v != nil
}

// newYAMLSpec builds a task from c, whose "task" key names it; hooks
// resolves its !function names, and py (when not nil) runs those no Go
// hook answers.
func newYAMLSpec(c yamlConfig, hooks hookLookup, py *pyworker.Runtime) (*spec, error) {
	r := &cfgReader{c: c, hooks: hooks, py: py, pyDocs: map[string]*pyDocHook{}}
	for _, k := range c.m.Keys() {
		if !taskKeys[k] && !ignoredKeys[k] {
			r.failf(k, "unknown task key%s (see lm-eval's TaskConfig for the keys a task file may have)", didYouMean(closest(k, sortedKeys(taskKeys))))
		}
	}
	s := &spec{name: r.str("task"), alias: r.str("task_alias")}
	r.keys = func() map[string][]string { return s.keyOrder }
	if s.name == "" {
		r.failf("task", "a task needs a name")
	}
	s.tags = r.strList("tag")
	r.unsupported()
	r.dataset(s)
	r.output(s)
	r.repeats(s)
	r.unsafeCode(s)
	r.formatting(s)
	r.fewshotCfg(s)
	r.version(s)
	r.metrics(s)
	r.generation(s)
	r.filterList(s)
	if r.err != nil {
		return nil, r.err
	}
	s.pyDoc = r.pyDoc
	s.config = func() any { return yamlConfigEntry(s, c) }
	return s, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// strList reads a string or a list of strings.
func (r *cfgReader) strList(key string) []string {
	v, _ := r.c.get(key)
	if v == nil {
		return nil
	}
	out, err := yamlStrings(v, "a name or a list of names", true)
	if err != nil {
		r.failf(key, "%v", err)
	}
	return out
}

// yamlStrings reads a YAML list of strings (or, with one, a single string);
// want says what the value should be, for the error.
func yamlStrings(v any, want string, one bool) ([]string, error) {
	switch x := v.(type) {
	case string:
		if one {
			return []string{x}, nil
		}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("want %s, got %s in the list", want, yamlKind(e))
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want %s, got %s", want, yamlKind(v))
}

// unsupported refuses the keys goeval cannot honour.
func (r *cfgReader) unsupported() {
	for _, u := range []struct{ key, why string }{
		{"class", "a Python task class cannot run in goeval"},
		{"use_prompt", "promptsource prompts are not supported; write doc_to_text and doc_to_target"},
		{"task_list", "task_list is not supported; give each task its own file"},
		{"doc_to_image", "multimodal tasks are not supported"},
		{"doc_to_audio", "multimodal tasks are not supported"},
	} {
		if r.has(u.key) {
			r.failf(u.key, "%s", u.why)
		}
	}
}

// dataset reads dataset_path, dataset_name, dataset_kwargs and the splits.
func (r *cfgReader) dataset(s *spec) {
	s.ds = dataset{Path: r.str("dataset_path"), Name: r.str("dataset_name"), dir: r.c.dirOf()}
	if r.has("custom_dataset") {
		r.customDataset(s)
	} else if s.ds.Path == "" {
		r.failf("dataset_path", "a task needs a dataset (a Hugging Face dataset name, or json/csv/parquet with dataset_kwargs.data_files)")
	}
	if kw, ok := r.c.get("dataset_kwargs"); ok && kw != nil && s.custom == nil {
		m, ok := kw.(*py.Map[any])
		if !ok {
			r.failf("dataset_kwargs", "want a mapping, got %s", yamlKind(kw))
			return
		}
		for _, k := range m.Keys() {
			switch k {
			case "data_files":
				files, err := dataFiles(m.Value(k))
				if err != nil {
					r.failf("dataset_kwargs.data_files", "%v", err)
				}
				s.ds.Files = files
			case "trust_remote_code": // no remote code runs here either way
			case "column_names", "header":
				r.csvOption(&s.ds.csv, "dataset_kwargs."+k, k, m.Value(k))
			default:
				r.failf("dataset_kwargs."+k, "not supported (goeval reads data_files; other load_dataset arguments have no equivalent)")
			}
		}
	}
	if (s.ds.csv.names != nil || s.ds.csv.headerSet) && s.ds.Files == nil {
		r.failf("dataset_kwargs.column_names", "column_names and header apply to csv data_files")
	}
	if s.ds.Files == nil && isFileFormat(s.ds.Path) {
		r.failf("dataset_path", "%q needs dataset_kwargs.data_files naming the files", s.ds.Path)
	}
	s.trainSplit, s.valSplit, s.testSplit = r.str("training_split"), r.str("validation_split"), r.str("test_split")
	s.fewshotSplit = r.str("fewshot_split")
	if s.testSplit == "" && s.valSplit == "" {
		r.failf("test_split", "a task needs a test_split or a validation_split to evaluate")
	}
	if r.has("process_docs") {
		h := r.hookReg("process_docs", hookDocs)
		switch fn := h.fn.(type) {
		case DocsHook:
			s.processAll, s.added = fn, h.added
		case randDocsHook:
			s.randDocs, s.added = fn, h.added
		case *pyFunc:
			s.pyDocs = fn
		}
	}
}

func (c yamlConfig) dirOf() string {
	if i := strings.LastIndexAny(c.path, `/\`); i >= 0 {
		return c.path[:i]
	}
	return "."
}

// dataFiles reads data_files: a file or list of files (split "train") or a
// mapping from split to file(s).
func dataFiles(v any) (map[string][]string, error) {
	list := func(x any) ([]string, error) { return yamlStrings(x, "a file name or a list of them", true) }
	if m, ok := v.(*py.Map[any]); ok {
		out := map[string][]string{}
		for _, split := range m.Keys() {
			f, err := list(m.Value(split))
			if err != nil {
				return nil, fmt.Errorf("split %s: %v", split, err)
			}
			out[split] = f
		}
		return out, nil
	}
	f, err := list(v)
	if err != nil {
		return nil, err
	}
	return map[string][]string{"train": f}, nil
}

// output reads output_type (lm-eval's default: generate_until).
func (r *cfgReader) output(s *spec) {
	switch o := r.strDefault("output_type", "generate_until"); o {
	case "multiple_choice":
		s.output = MultipleChoice
	case "loglikelihood":
		s.output = Loglikelihood
	case "loglikelihood_rolling":
		s.output = LoglikelihoodRolling
	case "generate_until":
		s.output = GenerateUntil
	default:
		r.failf("output_type", "%q is not one of multiple_choice, loglikelihood, loglikelihood_rolling, generate_until", o)
	}
}

// version reads metadata.version (lm-eval's VERSION; "Yaml" when unset).
func (r *cfgReader) version(s *spec) {
	s.versionAny = "Yaml"
	md, ok := r.c.get("metadata")
	if !ok || md == nil {
		return
	}
	m, ok := md.(*py.Map[any])
	if !ok {
		r.failf("metadata", "want a mapping, got %s", yamlKind(md))
		return
	}
	if v, ok := m.Get("version"); ok {
		s.versionAny = v
		if f, ok := v.(float64); ok {
			s.version = f
		}
		if n, ok := v.(int); ok {
			s.version = float64(n)
		}
	}
}

// csvOption reads dataset_kwargs.column_names (the CSV's column names) and
// header (null: the file has no header row; 0: its first row is a header,
// replaced by column_names), as pandas.read_csv takes them.
func (r *cfgReader) csvOption(o *csvOptions, key, k string, v any) {
	switch k {
	case "column_names":
		names, err := yamlStrings(v, "a list of column names", false)
		if err != nil {
			r.failf(key, "%v", err)
		}
		o.names = names
	case "header":
		o.headerSet = true
		switch v {
		case nil:
			o.noHeader = true
		case 0:
		default:
			r.failf(key, "want null (no header row) or 0 (the first row), got %v", v)
		}
	}
}
