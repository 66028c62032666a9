package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/goeval/goeval/internal/errs"
)

// Snapshot is a repository revision available in the cache.
type Snapshot struct {
	Repo   Repo
	Commit string   // the resolved commit
	Dir    string   // snapshots/<commit>
	Files  []string // the files matching the request, present in Dir
	Moved  int64    // bytes transferred over the network
	Cached bool     // served from the cache without the network
}

// Fetch makes the files of r matching patterns (nil: every file) present in the cache and
// returns the snapshot. Online, the revision is resolved on the server,
// missing or corrupt files are downloaded (in parallel, resumable,
// verified) and patterns without a wildcard that the repository lacks are
// recorded in .no_exist as huggingface_hub does; offline (HF_HUB_OFFLINE)
// or when the server cannot be reached, the cached revision is used.
func (c *Client) Fetch(ctx context.Context, r Repo, patterns []string) (*Snapshot, error) {
	return c.fetch(ctx, r, patterns, true)
}

// fetch is Fetch; markAbsent says whether wildcard-free patterns missing
// from the repository are recorded in .no_exist (they are real file names
// for models, guesses at a layout for datasets).
func (c *Client) fetch(ctx context.Context, r Repo, patterns []string, markAbsent bool) (*Snapshot, error) {
	if c.Offline {
		return c.fromCache(r, patterns, "HF_HUB_OFFLINE is set")
	}
	info, err := c.info(ctx, r)
	if err != nil {
		if errs.IsBadInput(err) || errors.Is(err, context.Canceled) {
			return nil, err
		}
		if s, cerr := c.fromCache(r, patterns, ""); cerr == nil {
			c.warn(fmt.Sprintf("warning: %v; using the cached %s", err, s.Commit[:12]))
			return s, nil
		}
		return nil, err
	}
	var files []string
	for _, s := range info.Siblings {
		if patterns == nil || Match(patterns, s.RFilename) {
			files = append(files, s.RFilename)
		}
	}
	s := &Snapshot{Repo: r, Commit: info.SHA, Dir: c.Cache.SnapshotDir(r, info.SHA), Files: files}
	if err := c.fetchFiles(ctx, s); err != nil {
		return nil, err
	}
	if err := c.Cache.WriteRef(r, info.SHA); err != nil {
		return nil, err
	}
	c.Cache.writeTag()
	for _, p := range patterns {
		if markAbsent && !strings.ContainsAny(p, "*?[") && !contains(files, p) {
			_ = c.Cache.MarkNoExist(r, info.SHA, p)
		}
	}
	return s, nil
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func (c *Client) warn(s string) {
	if c.Progress != nil {
		fmt.Fprintln(c.Progress, s)
	}
}

// fromCache is the snapshot of r's revision in the cache.
func (c *Client) fromCache(r Repo, patterns []string, why string) (*Snapshot, error) {
	commit, ok := c.Cache.CachedCommit(r)
	if !ok {
		return nil, errs.BadInputf("%s %s is not in the cache %s and %s; fetch it first with 'goeval download %s' where %s is reachable",
			r.kindLabel(), r, c.Cache.Dir, orDefault(why, "the Hub cannot be reached"), downloadArg(r), c.Endpoint)
	}
	all, err := c.Cache.SnapshotFiles(r, commit)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Repo: r, Commit: commit, Dir: c.Cache.SnapshotDir(r, commit), Cached: true}
	for _, f := range all {
		if patterns == nil || Match(patterns, f) {
			s.Files = append(s.Files, f)
		}
	}
	return s, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func downloadArg(r Repo) string {
	if r.Type == Dataset {
		return "--dataset " + r.String()
	}
	return r.String()
}

// fetchFiles checks the snapshot's links and blobs, asks the server about
// the files missing or corrupt, downloads them and links them.
func (c *Client) fetchFiles(ctx context.Context, s *Snapshot) error {
	var need []string
	for _, f := range s.Files {
		if !c.linkValid(s, f) {
			need = append(need, f)
		}
	}
	if len(need) == 0 {
		return nil
	}
	metas := make([]fileMeta, len(need))
	if err := c.parallel(ctx, len(need), func(ctx context.Context, i int) (err error) {
		metas[i], err = c.head(ctx, s.Repo, s.Commit, need[i])
		return err
	}); err != nil {
		return err
	}
	p := newProgress(c.Progress, fmt.Sprintf("%s %d file(s)", s.Repo.ID, len(need)))
	for _, m := range metas {
		p.total.Add(max(m.Size, 0))
	}
	err := c.parallel(ctx, len(metas), func(ctx context.Context, i int) error {
		if err := c.fetchBlob(ctx, s.Repo, metas[i], p); err != nil {
			return err
		}
		return c.Cache.Link(s.Repo, s.Commit, metas[i].File, metas[i].Etag)
	})
	p.draw(true)
	s.Moved = p.moved.Load()
	return err
}

// linkValid reports whether snapshot file f links to a blob whose content
// matches its name (the ETag).
func (c *Client) linkValid(s *Snapshot, f string) bool {
	dst := filepath.Join(s.Dir, filepath.FromSlash(f))
	target, err := os.Readlink(dst)
	if err != nil {
		return false
	}
	etag := path.Base(filepath.ToSlash(target))
	if filepath.Clean(filepath.Join(filepath.Dir(dst), target)) != c.Cache.BlobPath(s.Repo, etag) {
		return false
	}
	return verifyFile(c.Cache.BlobPath(s.Repo, etag), etag, -1) == nil
}

// parallel runs fn(0..n-1) on up to c.Workers goroutines and returns the
// first error (the others are cancelled).
func (c *Client) parallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	workers := max(1, min(c.Workers, n))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := fn(ctx, i); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
