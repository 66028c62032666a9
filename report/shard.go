package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/goeval/goeval"
	"github.com/goeval/goeval/internal/py"
)

// Shard folders: what `goeval run --shard i/N --output-path OUT` writes
// into OUT/<model name sanitized>/shard-i-of-N/ and `goeval merge` reads.
// A folder holds one samples file per task (samples_<task>.jsonl, every
// filter's lines, as lm-eval writes them) and, written last, shard.json:
// its manifest. A folder without shard.json is a shard that did not
// finish.

// ShardManifestName is the manifest's file name in a shard folder.
const ShardManifestName = "shard.json"

// ShardFormat names the manifest's format; goeval merge reads this one.
const ShardFormat = "goeval-shard/1"

// ShardDirName is shard index of count's folder name: shard-2-of-4.
func ShardDirName(index, count int) string { return fmt.Sprintf("shard-%d-of-%d", index, count) }

// ShardManifest describes one shard of a run: which goeval ran which
// model on what settings, and the documents the shard holds. goeval merge
// requires the shards of a run to agree on everything but their index,
// documents, host and times.
type ShardManifest struct {
	Format        string `json:"format"`
	GoevalVersion string `json:"goeval_version"`
	GitHash       string `json:"git_hash"`
	Index         int    `json:"shard_index"`
	Count         int    `json:"shard_count"`
	ModelName     string `json:"model_name"`
	// ModelIdentity is a digest of what the model's answers depend on (a
	// checkpoint's files and the engine's settings: engine.Identity).
	ModelIdentity string       `json:"model_identity"`
	Seeds         string       `json:"seeds"` // lm-eval's four seeds (SeedsText)
	Run           EvalSettings `json:"run"`
	// Info is the results file's header (EncodeRunInfo) of the shard's run;
	// goeval merge writes the run's results file with it.
	Info  json.RawMessage `json:"results_header"`
	Tasks []ShardTask     `json:"tasks"`
	Host  string          `json:"host"`
	// Started and Seconds are when the shard's evaluation started and how
	// long it took.
	Started time.Time `json:"started"`
	Seconds float64   `json:"seconds"`
	// Reused and Computed count the requests answered from the request
	// cache (--use-cache) and by the model.
	Reused   int `json:"requests_reused"`
	Computed int `json:"requests_computed"`
}

// EvalSettings are the evaluation settings a shard manifest records:
// what goeval merge needs to build the run's documents again (the
// evaluation's options without the model). Paths are absolute; the
// shards of a run may name other folders (other machines), and goeval
// merge reads the first shard's unless told otherwise: whatever the
// folders hold must give the shards' prompts, which the merge checks.
type EvalSettings struct {
	Tasks              []string         `json:"tasks"`
	IncludePath        string           `json:"include_path" shard:"path"`
	DataDir            string           `json:"data_dir" shard:"path"`
	HubCache           string           `json:"hub_cache" shard:"path"`
	NumFewshot         int              `json:"num_fewshot"`
	Limit              float64          `json:"limit"`
	FewshotSeed        int64            `json:"fewshot_seed"`
	ApplyChatTemplate  bool             `json:"apply_chat_template"`
	FewshotAsMultiturn bool             `json:"fewshot_as_multiturn"`
	SystemInstruction  string           `json:"system_instruction"`
	GenKwargs          string           `json:"gen_kwargs"` // --gen-kwargs as given
	Samples            map[string][]int `json:"samples,omitempty"`
	BootstrapIters     int              `json:"bootstrap_iters"`
	LogSamples         bool             `json:"log_samples"`
	// Python and PythonTimeout are the run's --python and
	// --python-timeout (the interpreter of the task files' Python
	// functions), goeval merge's defaults; like the paths, they may differ
	// between shards (other machines), and the first shard's is used.
	Python        string  `json:"python,omitempty" shard:"path"`
	PythonTimeout float64 `json:"python_timeout_seconds,omitempty" shard:"path"`
}

// ShardTask is a shard's part of one task.
type ShardTask struct {
	Name         string          `json:"name"`
	Version      json.RawMessage `json:"version"`
	ConfigSHA256 string          `json:"config_sha256"` // of the task's config (goeval.TaskResult.Config)
	NumFewshot   int             `json:"num_fewshot"`
	RunDocs      int             `json:"run_docs"` // the task's documents in the whole run
	Docs         []int           `json:"docs"`     // the shard's, in dataset order
	Tokens       int             `json:"tokens"`   // their estimated tokens (goeval.DocTokens)
	RunTokens    int             `json:"run_tokens"`
	Samples      string          `json:"samples"` // the samples file's name in the folder
	SamplesSHA   string          `json:"samples_sha256"`
	Lines        int             `json:"lines"`
}

// ShardTaskOf is task tr's entry in a shard manifest (the samples
// file's name, digest and lines are WriteShard's).
func ShardTaskOf(tr *goeval.TaskResult) (ShardTask, error) {
	version, err := py.JSON(tr.Version, false)
	if err != nil {
		return ShardTask{}, fmt.Errorf("task %s: version: %w", tr.Name, err)
	}
	sum := sha256.Sum256(tr.Config)
	st := ShardTask{Name: tr.Name, Version: version, ConfigSHA256: hex.EncodeToString(sum[:]), NumFewshot: tr.NumFewshot, Docs: []int{}}
	if s := tr.Shard; s != nil {
		st.RunDocs, st.Tokens, st.RunTokens = s.RunDocs, s.Tokens, s.RunTokens
		st.Docs = append(st.Docs, s.DocIDs...)
	}
	return st, nil
}

// SeedsText is lm-eval's four seeds as a manifest records them.
func SeedsText(s Seeds) string {
	v := func(p *int64) string {
		if p == nil {
			return "None"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("random %s, numpy %s, torch %s, fewshot %s", v(s.Random), v(s.NumPy), v(s.Torch), v(s.Fewshot))
}

// WriteShard writes a shard folder: m's tasks' samples (task → lines),
// then m itself, with the samples files' names, digests and line counts
// filled in. The old manifest is removed first, so an interrupted rewrite
// leaves a folder goeval merge refuses rather than one it misreads.
func WriteShard(dir string, m *ShardManifest, samples map[string][]Sample) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write shard: %w", err)
	}
	manifest := filepath.Join(dir, ShardManifestName)
	if err := os.Remove(manifest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write shard: %w", err)
	}
	m.Format = ShardFormat
	for i := range m.Tasks {
		t := &m.Tasks[i]
		data, err := encodeShardSamples(samples[t.Name])
		if err != nil {
			return fmt.Errorf("write shard: samples of %s: %w", t.Name, err)
		}
		t.Samples, t.Lines = "samples_"+t.Name+".jsonl", len(samples[t.Name])
		sum := sha256.Sum256(data)
		t.SamplesSHA = hex.EncodeToString(sum[:])
		if err := WriteAtomic(filepath.Join(dir, t.Samples), data); err != nil {
			return err
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("write shard: %w", err)
	}
	return WriteAtomic(manifest, append(data, '\n'))
}

// encodeShardSamples is lines as a samples file holds them, hashes filled.
func encodeShardSamples(lines []Sample) ([]byte, error) {
	var b bytes.Buffer
	for _, s := range lines {
		line, err := EncodeSampleLine(s)
		if err != nil {
			return nil, err
		}
		b.Write(line)
	}
	return b.Bytes(), nil
}

// EncodeSampleLine is s's line in a samples file (its hashes filled in a
// copy when empty), as WriteRun writes it.
func EncodeSampleLine(s Sample) ([]byte, error) {
	if err := s.FillHashes(); err != nil {
		return nil, err
	}
	return s.EncodeLine()
}
