package main

import (
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/goeval/goeval/hub"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/tasks"
)

func init() {
	register("download", "fetch Hub models and task datasets into the Hugging Face cache (for offline runs)", runDownload)
}

const downloadUsage = `Usage: goeval download [--tasks a,b] [--dataset] [--all-files] [ORG/NAME[@REVISION] …]
Fetches model repositories (the files goeval reads: config, safetensors weights and index, tokenizer,
generation config; or a PEFT adapter's) and, with --tasks, the dataset splits those tasks read, into
the Hugging Face cache that huggingface_hub, transformers and datasets share. Use it on a login node;
then 'goeval run' on a machine without network, with HF_HUB_OFFLINE=1, finds everything there.

Environment, as huggingface_hub: HF_ENDPOINT (server, default https://huggingface.co), HF_TOKEN (else
the token file 'huggingface-cli login' writes: $HF_HOME/token), HF_HUB_CACHE or HF_HOME (cache:
default ~/.cache/huggingface/hub), HF_HUB_OFFLINE=1 (no network: only checks the cache).
Downloads are parallel, resume an interrupted file, and are verified (sha256 of LFS files, git sha1
of the others); a corrupt cached file is fetched again.

Flags:`

// runDownload is "goeval download".
func runDownload(args []string) error {
	fs := flag.NewFlagSet("download", flag.ContinueOnError)
	taskList := fs.String("tasks", "", "comma-separated task or group names whose dataset splits to fetch")
	dataset := fs.Bool("dataset", false, "the ids are dataset repositories (fetched whole)")
	all := fs.Bool("all-files", false, "fetch every file of the model repositories, not only those goeval reads")
	setUsage(fs, downloadUsage)
	if help, err := parseFlags(fs, args); help || err != nil {
		return err
	}
	if fs.NArg() == 0 && *taskList == "" {
		return errs.BadInputf("download needs repository ids (ORG/NAME[@REVISION]) or --tasks")
	}
	kind, files := hub.Model, append(append([]string{}, hub.ModelFiles...), hub.AdapterFiles[:2]...)
	if *dataset {
		kind, files = hub.Dataset, nil
	} else if *all {
		files = nil
	}
	var repos []hub.Repo
	for _, id := range fs.Args() {
		r, err := hub.ParseRepo(id, kind)
		if err != nil {
			return errs.BadInput(err)
		}
		repos = append(repos, r)
	}
	ctx, stop := signalContext()
	defer stop()
	c := newHubClient()
	for _, r := range repos {
		s, err := c.Fetch(ctx, r, files)
		if err != nil {
			return err
		}
		printSnapshot(s)
	}
	if *taskList == "" {
		return nil
	}
	datasets, _, err := fetchDatasets(ctx, tasks.NewIndex(), strings.Split(*taskList, ","))
	if err != nil {
		return err
	}
	paths := make([]string, 0, len(datasets))
	for p := range datasets {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		printSnapshot(datasets[p])
	}
	return nil
}

func printSnapshot(s *hub.Snapshot) {
	how := fmt.Sprintf("%s transferred", humanSize(s.Moved))
	if s.Cached {
		how = "from the cache (offline)"
	}
	fmt.Printf("%s %s@%s: %d file(s) in %s (%s)\n", s.Repo.Type, s.Repo.ID, s.Commit, len(s.Files), s.Dir, how)
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
