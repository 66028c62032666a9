package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goeval/goeval/hub"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/tasks"
)

// hubState records the Hub repositories a run resolved to cache snapshots:
// --model and --adapter ids → snapshot, dataset path → snapshot.
type hubState struct {
	models   map[string]*hub.Snapshot
	datasets map[string]*hub.Snapshot
}

// isHubID reports whether a --model or --adapter value names a Hub
// repository: ORG/NAME[@REV] that is not an existing local path.
func isHubID(s string) bool {
	if _, err := os.Stat(s); err == nil {
		return false
	}
	return hub.LooksLikeRepoID(s)
}

// localDir is the folder to open for a --model or --adapter value: its
// cache snapshot when it named a Hub repository, else the value itself.
func (h *hubState) localDir(name string) string {
	if s, ok := h.models[name]; ok {
		return s.Dir
	}
	return name
}

func (h *hubState) localDirs(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = h.localDir(n)
	}
	return out
}

// newHubClient is the client of the environment (HF_ENDPOINT, HF_TOKEN,
// HF_HUB_OFFLINE, HF_HOME, HF_HUB_CACHE), drawing progress on stderr.
func newHubClient() *hub.Client {
	c := hub.New(hub.FromEnv())
	c.Progress = os.Stderr
	return c
}

// resolveHubModels fetches, before any other work, the adapters and the
// --model values (comma-separated) that name Hub repositories, and
// returns --model (for an empty one, the first adapter's
// base_model_name_or_path) with the snapshots; engine then opens local
// folders only.
func resolveHubModels(ctx context.Context, model string, adapters []string) (string, hubState, error) {
	hs := hubState{models: map[string]*hub.Snapshot{}}
	var c *hub.Client
	client := func() *hub.Client {
		if c == nil {
			c = newHubClient()
		}
		return c
	}
	for _, a := range adapters {
		if isHubID(a) {
			if err := hs.fetchModel(ctx, client(), a, hub.AdapterFiles, "adapter_config.json"); err != nil {
				return "", hs, err
			}
		}
	}
	if model == "" {
		var err error
		if model, err = adapterBase(hs.localDir(adapters[0]), adapters[0]); err != nil {
			return "", hs, err
		}
	}
	for _, m := range strings.Split(model, ",") {
		if m = strings.TrimSpace(m); isHubID(m) {
			if err := hs.fetchModel(ctx, client(), m, hub.ModelFiles, "config.json"); err != nil {
				return "", hs, err
			}
		}
	}
	return model, hs, nil
}

// fetchModel fetches the files of model or adapter repository id into h;
// the snapshot must hold need.
func (h *hubState) fetchModel(ctx context.Context, c *hub.Client, id string, files []string, need string) error {
	r, err := hub.ParseRepo(id, hub.Model)
	if err != nil {
		return errs.BadInput(err)
	}
	s, err := c.Fetch(ctx, r, files)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(s.Dir, need)); err != nil {
		return errs.BadInputf("model %s (commit %s) has no %s; is it a Hugging Face transformers repository?", id, s.Commit, need)
	}
	h.models[id] = s
	return nil
}

// adapterBase is base_model_name_or_path of the adapter in dir.
func adapterBase(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "adapter_config.json"))
	if err != nil {
		return "", errs.BadInputf("--adapter %s: %v", name, err)
	}
	var cfg struct {
		Base string `json:"base_model_name_or_path"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil || cfg.Base == "" {
		return "", errs.BadInputf("--adapter %s: adapter_config.json names no base_model_name_or_path; give the base with --model", name)
	}
	fmt.Fprintf(os.Stderr, "base model from %s: %s\n", name, cfg.Base)
	return cfg.Base, nil
}

// fetchDatasets fetches the dataset splits each task of names reads into
// the hub cache, where the tasks find them (offline, a dataset missing
// from the cache is left for the tasks to report), and returns the
// snapshots by dataset path and the cache folder.
func fetchDatasets(ctx context.Context, ix *tasks.Index, names []string) (map[string]*hub.Snapshot, string, error) {
	ts, _, err := ix.Expand(names)
	if err != nil {
		return nil, "", err
	}
	c := newHubClient()
	// The tasks would search $HF_HUB_CACHE, else $HF_HOME/hub: the caller
	// hands them the folder the client fills (tasks.Options.HubCache), also
	// when only XDG_CACHE_HOME or the legacy HUGGINGFACE_HUB_CACHE named it.
	want := map[string][]string{}
	var order []string
	for _, t := range ts {
		path, pats, err := ix.DataFiles(t.Name())
		if err != nil {
			continue // not a built-in dataset task
		}
		if _, seen := want[path]; !seen {
			order = append(order, path)
		}
		want[path] = append(want[path], pats...)
	}
	out := map[string]*hub.Snapshot{}
	for _, path := range order {
		r, err := hub.ParseRepo(path, hub.Dataset)
		if err != nil {
			return nil, "", err
		}
		s, err := c.FetchDataset(ctx, r, want[path])
		if err != nil {
			if c.Offline {
				continue // the tasks say what is missing, and where they looked
			}
			return nil, "", err
		}
		out[path] = s
	}
	return out, c.Cache.Dir, nil
}

// modelInfo is lm-eval's model_revision and model_sha for model (and
// peft_sha for adapter) when they came from the Hub.
func (h *hubState) modelInfo(model, adapter string) (rev, sha, peftSHA string) {
	if s, ok := h.models[model]; ok {
		rev, sha = s.Repo.Rev(), s.Commit
	}
	if s, ok := h.models[adapter]; ok {
		peftSHA = s.Commit
	}
	return rev, sha, peftSHA
}
