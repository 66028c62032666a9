package tasks

import (
	"fmt"
	"math"

	"github.com/goeval/goeval/internal/errs"
)

// spec is a built-in task: the typed form of an lm-eval task YAML.
type spec struct {
	name, alias string
	tags        []string
	version     float64
	ds          dataset
	// splits as in the YAML; "" = None
	trainSplit, valSplit, testSplit, fewshotSplit string
	output                                        OutputType
	// process is process_docs for one doc (nil = identity); added lists the
	// keys it appends after the dataset's columns.
	process func(Doc) (Doc, error)
	added   []string
	// processAll is a process_docs hook of a task YAML: the whole split.
	processAll DocsHook
	// randDocs is a Go process_docs that draws from lm-eval's global
	// random (lmrandom.go); lm is where that stream stands for this task.
	randDocs randDocsHook
	lm       lmRandomState
	// pyDocs is a Python process_docs (pydocs.go); pyDoc the Python
	// doc_to_* hooks, whose values Build fetches in batches; ownAgg the
	// Python aggregations by metric name.
	pyDocs *pyFunc
	pyDoc  []*pyDocHook
	// custom is a Python custom_dataset (pydataset.go): the splits come
	// from it, not from dataset_path.
	custom *customDataset
	ownAgg map[string]AggregateFunc
	// samplesFn is a Python fewshot_config.samples: the few-shot pool.
	samplesFn func() ([]Doc, error)
	text      func(Doc) (string, error) // doc_to_text
	target    func(Doc) (any, error)    // doc_to_target: int index or string
	// choices is doc_to_choice (nil = none). For multiple-input tasks
	// (winogrande) it returns the contexts and goldIdx the doc_to_text int.
	choices          func(Doc) ([]string, error)
	multiInput       bool
	goldIdx          func(Doc) (int, error)
	description      func(Doc) (string, error)
	targetDelim      string
	emptyTargetDelim bool // target_delimiter: "" (drop)
	fewDelim         string
	numFewshot       int  // YAML num_fewshot (0 when unset)
	fixedZero        bool // YAML sets num_fewshot: 0 explicitly: --num-fewshot is ignored
	firstN           bool // fewshot_config.sampler: first_n
	samples          []Doc
	genKwargs        map[string]any
	genKeys          []string // generation_kwargs key order, as lm-eval logs it
	filters          []string
	metrics          []MetricSpec
	score            func(s *spec, inst *Instance, resps []Response) (map[string]SampleResult, error)

	// Set by task YAML files (yamlspec.go); zero for the built-ins.
	versionAny any        // metadata.version as written (int, float or string)
	repeats    int        // answers per generate request (lm-eval's repeats; 0 = 1)
	unsafe     bool       // unsafe_code: the metrics execute the generated code
	code       CodeRunner // runs that code (set by Build when unsafe)
	genPrefix  string     // gen_prefix: a field name or template ("" = none)
	// multiTarget: the first evaluation document's target is a list, so
	// every target is read as a list (lm-eval's multiple_target).
	multiTarget bool
	// keyOrder is the field order of the documents' nested mappings
	// (table.Keys of the last split loaded), for templates.
	keyOrder map[string][]string
	fewshot  *fewshotFmt // fewshot_config's formatting overrides
	config   func() any  // the results file's configs entry
	// prepare decides what lm-eval decides from the first evaluation
	// document (a multiple-input task: doc_to_text gives an int).
	prepare func(s *spec, first Doc) error
}

// fewshotFmt is how few-shot documents are formatted when fewshot_config
// overrides the task's doc_to_* or delimiters.
type fewshotFmt struct {
	text        func(Doc) (string, error)
	goldIdx     func(Doc) (int, error)
	target      func(Doc) (any, error)
	choices     func(Doc) ([]string, error) // nil: no choices
	targetDelim string
	fewDelim    string
	genPrefix   string
}

func (s *spec) Name() string           { return s.name }
func (s *spec) OutputType() OutputType { return s.output }
func (s *spec) Version() any {
	if s.versionAny != nil {
		return s.versionAny
	}
	return s.version
}
func (s *spec) Metrics() []MetricSpec { return s.metrics }
func (s *spec) Filters() []string {
	if len(s.filters) == 0 {
		return []string{"none"}
	}
	return s.filters
}

// Alias is task_alias, else the task name.
func (s *spec) Alias() string {
	if s.alias != "" {
		return s.alias
	}
	return s.name
}

// NumFewshot is the effective shot count: the --num-fewshot override unless
// the task fixes 0, else the task default.
func (s *spec) NumFewshot(opts Options) int {
	if opts.NumFewshot >= 0 && !s.fixedZero {
		return opts.NumFewshot
	}
	return s.numFewshot
}

// Process scores one instance.
func (s *spec) Process(inst *Instance, resps []Response) (map[string]SampleResult, error) {
	if len(resps) != len(inst.Requests) {
		return nil, fmt.Errorf("%s doc %d: %d responses for %d requests", s.name, inst.DocID, len(resps), len(inst.Requests))
	}
	return s.score(s, inst, resps)
}

// evalSplit is test_split if set, else validation_split.
func (s *spec) evalSplit() string {
	if s.testSplit != "" {
		return s.testSplit
	}
	return s.valSplit
}

// docs loads and processes one split.
func (s *spec) docs(loc dataLoc, split string) (*table, error) {
	var t *table
	var err error
	if s.custom != nil {
		t, err = s.custom.split(split)
	} else {
		t, err = loadSplit(loc, s.ds, split)
	}
	if err != nil {
		return nil, err
	}
	s.keyOrder = t.Keys
	if s.pyDocs != nil {
		if err := pyProcessDocs(s.pyDocs, t, s.lmState()); err != nil {
			return nil, errs.BadInputf("%s: split %s: %w", s.name, split, err)
		}
		s.keyOrder = t.Keys
	}
	if s.processAll != nil || s.randDocs != nil {
		rows, err := s.processAllDocs(t.Rows)
		if err != nil {
			return nil, errs.BadInputf("%s: split %s: %w", s.name, split, err)
		}
		if len(rows) != len(t.Rows) {
			t.Src = make([]string, len(rows))
			for i := range rows {
				t.Src[i] = fmt.Sprintf("split %s doc %d (after process_docs)", split, i)
			}
		}
		t.Rows = rows
		s.addKeys(t)
	}
	if s.process == nil {
		return t, nil
	}
	for i, d := range t.Rows {
		p, err := s.process(d)
		if err != nil {
			return nil, errs.BadInputf("%s: %s: %w", s.name, t.Src[i], err)
		}
		t.Rows[i] = p
	}
	s.addKeys(t)
	return t, nil
}

// processAllDocs runs the whole-split process_docs hook (a random one at
// lm-eval's global random for this task).
func (s *spec) processAllDocs(rows []Doc) ([]Doc, error) {
	if s.randDocs == nil {
		return s.processAll(rows)
	}
	st := s.lmState()
	rnd, done := st.stream.at(st.taskIDs)
	defer done()
	return s.randDocs(rows, rnd)
}

// addKeys appends the fields process_docs adds to the column order.
func (s *spec) addKeys(t *table) {
	for _, k := range s.added {
		if !contains(t.Keys[""], k) {
			t.Keys[""] = append(t.Keys[""], k)
		}
	}
}

// limitDocs is lm-eval's limit: a fraction below 1 → ceil(n*limit), else
// int(limit); 0 = all.
func limitDocs(n int, limit float64) (int, error) {
	switch {
	case limit == 0:
		return n, nil
	case limit < 0 || math.IsNaN(limit) || math.IsInf(limit, 0):
		return 0, errs.BadInputf("--limit %v out of range: use a fraction in (0,1) or a document count >= 1", limit)
	case limit < 1:
		return min(n, int(math.Ceil(float64(n)*limit))), nil
	}
	return min(n, int(limit)), nil
}

// LimitCount is the number of documents --limit selects out of n.
func LimitCount(n int, limit float64) (int, error) { return limitDocs(n, limit) }

// selectDocs are the indices of the documents evaluated out of n: the
// first --limit ones, or those --samples lists for this task (in dataset
// order, each once, as lm-eval's doc_iterator takes them).
func (s *spec) selectDocs(n int, opts Options) ([]int, error) {
	if ids, ok := opts.Samples[s.name]; ok {
		want := map[int]bool{}
		for _, i := range ids {
			if i < 0 || i >= n {
				return nil, errs.BadInputf("--samples %s: index %d out of range: the split has %d documents (0 to %d)", s.name, i, n, n-1)
			}
			want[i] = true
		}
		var out []int
		for i := 0; i < n; i++ {
			if want[i] {
				out = append(out, i)
			}
		}
		return out, nil
	}
	limit := opts.Limit
	if opts.Samples != nil {
		limit = 0 // lm-eval: --samples and --limit exclude each other; unnamed tasks run whole
	}
	k, err := limitDocs(n, limit)
	if err != nil {
		return nil, err
	}
	out := make([]int, k)
	for i := range out {
		out[i] = i
	}
	return out, nil
}

// Build loads the eval docs, applies the limit and renders every instance.
func (s *spec) Build(opts Options) ([]Instance, error) {
	if opts.ApplyChatTemplate && opts.ChatTemplate == nil {
		return nil, errs.BadInputf("%s: ApplyChatTemplate is set but Options.ChatTemplate is nil: give the model's chat template", s.name)
	}
	if err := s.codeRunner(opts); err != nil {
		return nil, err
	}
	evalT, err := s.docs(opts.dataLoc(), s.evalSplit())
	if err != nil {
		return nil, err
	}
	docs, err := s.selectDocs(len(evalT.Rows), opts)
	if err != nil {
		return nil, err
	}
	if s.prepare != nil && len(evalT.Rows) > 0 {
		if err := s.prepare(s, evalT.Rows[0]); err != nil {
			return nil, errs.BadInputf("%s: %s: %w", s.name, evalT.Src[0], err)
		}
	}
	if len(s.pyDoc) > 0 {
		sel := make([]Doc, len(docs))
		for j, i := range docs {
			sel[j] = evalT.Rows[i]
		}
		if err := s.prefetchDocs(sel); err != nil {
			return nil, err
		}
	}
	k := s.NumFewshot(opts)
	fs, err := s.newSampler(opts, k)
	if err != nil {
		return nil, err
	}
	out := make([]Instance, 0, len(docs))
	for _, i := range docs {
		inst, err := s.instance(opts, fs, k, i, evalT.Rows[i])
		if err != nil {
			return nil, errs.BadInputf("%s: %s: %w", s.name, evalT.Src[i], err)
		}
		inst.DocKeys = evalT.Keys
		inst.SplitDocs = len(evalT.Rows)
		out = append(out, inst)
	}
	return out, nil
}
