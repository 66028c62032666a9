// Package hub fetches model and dataset repositories from a Hugging Face
// Hub-compatible server into the cache huggingface_hub uses, byte for byte
// the same layout ($HF_HUB_CACHE/models--ORG--NAME/{blobs,refs,snapshots},
// relative symlinks, .no_exist markers), so files Python downloaded are
// reused and files goeval downloaded are found by Python offline.
//
// hub knows nothing about models, tasks or evaluation: callers say which
// repository and which files (glob patterns) they need and get back the
// local snapshot folder and the resolved commit.
package hub

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// RepoType is a Hub repository kind.
type RepoType string

// The repository kinds goeval fetches.
const (
	Model   RepoType = "model"
	Dataset RepoType = "dataset"
)

// Repo names one repository at one revision.
type Repo struct {
	Type     RepoType
	ID       string // "org/name"
	Revision string // branch, tag or commit; "" = main
}

var (
	idPart = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	commit = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// ParseRepo parses "org/name" or "org/name@revision" as a repository of
// kind t. The revision may contain slashes (refs/convert/parquet).
func ParseRepo(s string, t RepoType) (Repo, error) {
	id, rev, hasRev := strings.Cut(s, "@")
	if hasRev && rev == "" {
		return Repo{}, fmt.Errorf("repo id %q: empty revision after @", s)
	}
	org, name, ok := strings.Cut(id, "/")
	if !ok || strings.Contains(name, "/") || !idPart.MatchString(org) || !idPart.MatchString(name) ||
		strings.Contains(id, "..") || strings.HasSuffix(name, ".git") {
		return Repo{}, fmt.Errorf("repo id %q: want ORG/NAME or ORG/NAME@REVISION (letters, digits, '-', '_', '.')", s)
	}
	if strings.Contains(rev, "..") || strings.HasPrefix(rev, "/") {
		return Repo{}, fmt.Errorf("repo id %q: bad revision %q", s, rev)
	}
	return Repo{Type: t, ID: id, Revision: rev}, nil
}

// LooksLikeRepoID reports whether s has the shape ORG/NAME[@REV] (it may
// still also be a relative path: callers check the file system first).
func LooksLikeRepoID(s string) bool {
	_, err := ParseRepo(s, Model)
	return err == nil
}

// Rev is the revision, "main" when unset.
func (r Repo) Rev() string {
	if r.Revision == "" {
		return "main"
	}
	return r.Revision
}

// String is "org/name" or "org/name@rev".
func (r Repo) String() string {
	if r.Revision == "" {
		return r.ID
	}
	return r.ID + "@" + r.Revision
}

// kindLabel is "model" or "dataset", for messages.
func (r Repo) kindLabel() string { return string(r.Type) }

// FolderName is the cache folder of the repository, as huggingface_hub's
// repo_folder_name: "models--org--name", "datasets--org--name".
func (r Repo) FolderName() string {
	return string(r.Type) + "s--" + strings.ReplaceAll(r.ID, "/", "--")
}

// apiPath is the Hub API prefix: "/api/models/org/name".
func (r Repo) apiPath() string { return "/api/" + string(r.Type) + "s/" + r.ID }

// resolvePath is the resolve endpoint of file at rev:
// "/org/name/resolve/REV/FILE" (models), "/datasets/org/name/resolve/…".
func (r Repo) resolvePath(rev, file string) string {
	p := "/" + r.ID + "/resolve/" + url.PathEscape(rev) + "/" + escapeFile(file)
	if r.Type == Dataset {
		p = "/datasets" + p
	}
	return p
}

// escapeFile escapes each segment of a repo file path.
func escapeFile(file string) string {
	parts := strings.Split(file, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}

// IsCommit reports whether rev is a full commit hash.
func IsCommit(rev string) bool { return commit.MatchString(rev) }
