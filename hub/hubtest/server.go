// Package hubtest is an in-process double of the Hugging Face Hub for
// tests: the revision API, the resolve endpoint (200 with the git blob
// sha1 as ETag for small files; a 302 to a CDN path with X-Linked-Etag =
// sha256 for LFS files), HTTP ranges, the Hub's X-Error-Code replies, and
// hooks to fail or cut transfers. The real-server proof is
// scripts/hub_test.sh (olah and huggingface_hub); this double covers the
// client's error paths, resume and corruption in `make test`.
package hubtest

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Repo is one repository: its commit per revision and its files.
type Repo struct {
	Commit string
	Files  map[string][]byte
	Refs   map[string]*Repo // other revisions (e.g. "refs/convert/parquet")
	Token  string           // required bearer token ("" = public)
	Gated  bool             // a wrong token is 403 GatedRepo instead of 401
}

// Server is the double. Served counts file-body bytes sent.
type Server struct {
	*httptest.Server
	cdn    *httptest.Server // LFS content, on another host as the Hub's CDN
	mu     sync.Mutex
	repos  map[string]*Repo // "models/org/name", "datasets/org/name"
	Served atomic.Int64
	Gets   atomic.Int64 // file GETs
	// Status, when set, answers every request with this status (e.g. 429).
	Status atomic.Int32
	// CutAfter, when > 0, aborts the next file GET after that many body
	// bytes (the connection drops, as a killed transfer), then resets.
	CutAfter atomic.Int64
}

// New starts a double on loopback.
func New() *Server {
	s := &Server{repos: map[string]*Repo{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	s.cdn = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Close stops the Hub and its CDN.
func (s *Server) Close() {
	s.Server.Close()
	s.cdn.Close()
}

// IsLFS says which files the double serves as LFS: safetensors, parquet.
func IsLFS(name string) bool {
	return strings.HasSuffix(name, ".safetensors") || strings.HasSuffix(name, ".parquet")
}

// Add registers repository id ("org/name") of kind "models" or "datasets"
// and returns it; its commit is a hash of its files (deterministic).
func (s *Server) Add(kind, id string, files map[string][]byte) *Repo {
	r := &Repo{Files: files, Commit: commitOf(files), Refs: map[string]*Repo{}}
	s.mu.Lock()
	s.repos[kind+"/"+id] = r
	s.mu.Unlock()
	return r
}

// AddDir registers the files under dir as repository id.
func (s *Server) AddDir(kind, id, dir string) (*Repo, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.Add(kind, id, files), nil
}

func commitOf(files map[string][]byte) string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha1.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%x\x00", n, sha1.Sum(files[n]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// GitSHA1 is the git blob id of b (the Hub's ETag of a non-LFS file).
func GitSHA1(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// SHA256 is the hex sha256 of b (the Hub's ETag of an LFS file).
func SHA256(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func hubError(w http.ResponseWriter, status int, code, msg string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("X-Error-Message", msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// lookup finds the repository at parts[0:2] of kind; rev picks a revision.
func (s *Server) lookup(w http.ResponseWriter, req *http.Request, kind, id, rev string) *Repo {
	s.mu.Lock()
	r := s.repos[kind+"/"+id]
	s.mu.Unlock()
	if r == nil {
		hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository Not Found")
		return nil
	}
	if r.Token != "" && req.Header.Get("Authorization") != "Bearer "+r.Token {
		if r.Gated {
			hubError(w, http.StatusForbidden, "GatedRepo", "Access to this repo is restricted")
		} else {
			hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository Not Found")
		}
		return nil
	}
	switch {
	case rev == "main" || rev == r.Commit:
		return r
	case r.Refs[rev] != nil:
		return r.Refs[rev]
	}
	for _, o := range r.Refs {
		if o.Commit == rev {
			return o
		}
	}
	hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
	return nil
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	if st := s.Status.Load(); st != 0 {
		w.Header().Set("Retry-After", "7")
		hubError(w, int(st), "", "Too Many Requests")
		return
	}
	segs := strings.Split(strings.TrimPrefix(req.URL.EscapedPath(), "/"), "/")
	for i, p := range segs {
		segs[i], _ = url.PathUnescape(p)
	}
	switch {
	case len(segs) >= 6 && segs[0] == "api" && segs[4] == "revision":
		s.info(w, req, segs[1], segs[2]+"/"+segs[3], segs[5])
	case len(segs) == 2 && segs[0] == "cdn":
		s.cdnFile(w, req, segs[1])
	case len(segs) >= 5 && segs[0] == "datasets" && segs[3] == "resolve":
		s.resolve(w, req, "datasets", segs[1]+"/"+segs[2], segs[4], strings.Join(segs[5:], "/"))
	case len(segs) >= 4 && segs[2] == "resolve":
		s.resolve(w, req, "models", segs[0]+"/"+segs[1], segs[3], strings.Join(segs[4:], "/"))
	default:
		hubError(w, http.StatusNotFound, "", "no such route")
	}
}

func (s *Server) info(w http.ResponseWriter, req *http.Request, kind, id, rev string) {
	r := s.lookup(w, req, kind, id, rev)
	if r == nil {
		return
	}
	var sib []map[string]string
	for _, n := range sortedNames(r.Files) {
		sib = append(sib, map[string]string{"rfilename": n})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": id, "sha": r.Commit, "siblings": sib})
}

func sortedNames(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (s *Server) resolve(w http.ResponseWriter, req *http.Request, kind, id, rev, file string) {
	r := s.lookup(w, req, kind, id, rev)
	if r == nil {
		return
	}
	w.Header().Set("X-Repo-Commit", r.Commit)
	b, ok := r.Files[file]
	if !ok {
		hubError(w, http.StatusNotFound, "EntryNotFound", file+" does not exist on \""+rev+"\"")
		return
	}
	if IsLFS(file) {
		sum := SHA256(b)
		w.Header().Set("X-Linked-Etag", `"`+sum+`"`)
		w.Header().Set("X-Linked-Size", fmt.Sprint(len(b)))
		w.Header().Set("ETag", `"`+GitSHA1([]byte("pointer "+sum))+`"`)
		s.mu.Lock()
		s.repos["cdn/"+sum] = &Repo{Files: map[string][]byte{"": b}}
		s.mu.Unlock()
		http.Redirect(w, req, s.cdn.URL+"/cdn/"+sum, http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+GitSHA1(b)+`"`)
	s.content(w, req, b)
}

func (s *Server) cdnFile(w http.ResponseWriter, req *http.Request, sum string) {
	s.mu.Lock()
	r := s.repos["cdn/"+sum]
	s.mu.Unlock()
	if r == nil {
		http.NotFound(w, req)
		return
	}
	s.content(w, req, r.Files[""])
}

// content serves b with ranges, counting and maybe cutting the body.
func (s *Server) content(w http.ResponseWriter, req *http.Request, b []byte) {
	if req.Method == http.MethodGet {
		s.Gets.Add(1)
	}
	cw := &countWriter{ResponseWriter: w, s: s, cut: s.CutAfter.Swap(0)}
	http.ServeContent(cw, req, "", time.Time{}, bytes.NewReader(b))
}

type countWriter struct {
	http.ResponseWriter
	s   *Server
	n   int64
	cut int64
}

// Write counts bytes before they are written: once the client can have
// them, Served already says so (counting after Write raced with a client
// that read the last chunk and returned first). A short write takes back
// what was not sent.
func (c *countWriter) Write(b []byte) (int, error) {
	if c.cut > 0 && c.n+int64(len(b)) > c.cut {
		b = b[:c.cut-c.n]
		c.s.Served.Add(int64(len(b)))
		n, _ := c.ResponseWriter.Write(b)
		c.s.Served.Add(int64(n - len(b)))
		c.ResponseWriter.(http.Flusher).Flush()
		panic(http.ErrAbortHandler) // drop the connection mid-body
	}
	c.s.Served.Add(int64(len(b)))
	n, err := c.ResponseWriter.Write(b)
	c.n += int64(n)
	c.s.Served.Add(int64(n - len(b)))
	return n, err
}
