package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Cache is a huggingface_hub cache folder ($HF_HUB_CACHE):
//
//	models--ORG--NAME/
//	    blobs/<etag>                  file contents, named by ETag (git sha1, or sha256 for LFS)
//	    refs/<revision>               the commit a branch or tag resolved to (no newline)
//	    snapshots/<commit>/<file>     relative symlink to ../../blobs/<etag> (deeper files: more ../)
//	    .no_exist/<commit>/<file>     empty: the file is known to be absent at that commit
type Cache struct{ Dir string }

// RepoDir is the repository's folder in the cache.
func (c Cache) RepoDir(r Repo) string { return filepath.Join(c.Dir, r.FolderName()) }

// SnapshotDir is the snapshot folder of commit.
func (c Cache) SnapshotDir(r Repo, commit string) string {
	return filepath.Join(c.RepoDir(r), "snapshots", commit)
}

// BlobPath is the blob of etag.
func (c Cache) BlobPath(r Repo, etag string) string {
	return filepath.Join(c.RepoDir(r), "blobs", etag)
}

// CachedCommit resolves r's revision without the network: a full commit
// hash as is, else the content of refs/<revision>. ok is false when the
// cache has no such ref or no snapshot of the commit.
func (c Cache) CachedCommit(r Repo) (commit string, ok bool) {
	commit = r.Rev()
	if !IsCommit(commit) {
		b, err := os.ReadFile(filepath.Join(c.RepoDir(r), "refs", filepath.FromSlash(commit)))
		if err != nil {
			return "", false
		}
		commit = strings.TrimSpace(string(b))
	}
	st, err := os.Stat(c.SnapshotDir(r, commit))
	return commit, err == nil && st.IsDir()
}

// WriteRef records that r's revision resolved to commit (nothing when the
// revision is the commit itself), atomically, as huggingface_hub does.
func (c Cache) WriteRef(r Repo, commit string) error {
	rev := r.Rev()
	if rev == commit {
		return nil
	}
	p := filepath.Join(c.RepoDir(r), "refs", filepath.FromSlash(rev))
	if b, err := os.ReadFile(p); err == nil && string(b) == commit {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cache ref: %w", err)
	}
	tmp := p + ".goeval.tmp"
	if err := os.WriteFile(tmp, []byte(commit), 0o644); err != nil {
		return fmt.Errorf("cache ref: %w", err)
	}
	return os.Rename(tmp, p)
}

// Link points snapshots/<commit>/<file> at blobs/<etag> with a relative
// symlink (replacing what was there).
func (c Cache) Link(r Repo, commit, file, etag string) error {
	dst := filepath.Join(c.SnapshotDir(r, commit), filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("cache snapshot: %w", err)
	}
	rel, err := filepath.Rel(filepath.Dir(dst), c.BlobPath(r, etag))
	if err != nil {
		return fmt.Errorf("cache snapshot: %w", err)
	}
	if cur, err := os.Readlink(dst); err == nil && cur == rel {
		return nil
	}
	_ = os.Remove(dst)
	if err := os.Symlink(rel, dst); err != nil {
		return fmt.Errorf("cache snapshot: %w", err)
	}
	return nil
}

// MarkNoExist records that file is absent at commit (.no_exist/<commit>/<file>).
func (c Cache) MarkNoExist(r Repo, commit, file string) error {
	p := filepath.Join(c.RepoDir(r), ".no_exist", commit, filepath.FromSlash(file))
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, nil, 0o644)
}

// SnapshotFiles lists the files of a snapshot (slash-separated, relative,
// sorted) whose link resolves to an existing file.
func (c Cache) SnapshotFiles(r Repo, commit string) ([]string, error) {
	root := c.SnapshotDir(r, commit)
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	sort.Strings(out)
	return out, err
}

// Match reports whether file matches one of patterns (path.Match globs on
// the whole slash-separated path; "**/" prefix matches any folder depth).
func Match(patterns []string, file string) bool {
	for _, p := range patterns {
		if rest, ok := strings.CutPrefix(p, "**/"); ok {
			if ok, _ := path.Match(rest, path.Base(file)); ok {
				return true
			}
			continue
		}
		if ok, _ := path.Match(p, file); ok {
			return true
		}
	}
	return false
}

// cacheDirTag is the CACHEDIR.TAG huggingface_hub writes at the cache root
// (backup tools skip tagged folders).
const cacheDirTag = "Signature: 8a477f597d28d172789f06886806bc55\n" +
	"# This file is a cache directory tag created by huggingface_hub.\n" +
	"# For information about cache directory tags, see:\n" +
	"#\thttps://bford.info/cachedir/\n"

// writeTag writes CACHEDIR.TAG unless there is one.
func (c Cache) writeTag() {
	p := filepath.Join(c.Dir, "CACHEDIR.TAG")
	if _, err := os.Stat(p); err != nil {
		_ = os.WriteFile(p, []byte(cacheDirTag), 0o644)
	}
}
