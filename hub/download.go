package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// fileMeta is what the resolve endpoint's HEAD says about one file.
type fileMeta struct {
	File   string
	Etag   string // normalized: no W/ and no quotes
	Size   int64  // -1 when unknown
	Commit string // X-Repo-Commit
	URL    string // resolve URL pinned to the commit
}

// head asks the resolve endpoint for file's ETag and size without
// following a redirect that already carries them (LFS files redirect to a
// CDN with X-Linked-Etag and X-Linked-Size).
func (c *Client) head(ctx context.Context, r Repo, commit, file string) (fileMeta, error) {
	m := fileMeta{File: file, Size: -1, URL: c.Endpoint + r.resolvePath(commit, file)}
	noRedirect := *c.HTTP
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	u := m.URL
	for hops := 0; hops < 5; hops++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodHead, u, nil)
		if err != nil {
			return m, err
		}
		if c.Token != "" {
			req.Header.Set("Authorization", "Bearer "+c.Token)
		}
		req.Header.Set("Accept-Encoding", "identity")
		resp, err := noRedirect.Do(req)
		if err != nil {
			return m, c.netError(r, err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 400 {
			return m, c.statusError(r, file, resp)
		}
		etag := resp.Header.Get("X-Linked-Etag")
		if etag == "" {
			etag = resp.Header.Get("ETag")
		}
		if m.Commit == "" {
			m.Commit = resp.Header.Get("X-Repo-Commit")
		}
		size := resp.Header.Get("X-Linked-Size")
		if size == "" && resp.StatusCode == http.StatusOK {
			size = resp.Header.Get("Content-Length")
		}
		if n, err := strconv.ParseInt(size, 10, 64); err == nil {
			m.Size = n
		}
		loc := resp.Header.Get("Location")
		cur, err := url.Parse(u)
		if err != nil {
			return m, err
		}
		next, err := cur.Parse(loc)
		if resp.StatusCode < 300 || resp.StatusCode >= 400 || loc == "" || err != nil || next.Host != cur.Host {
			// No redirect, or one off the Hub (a CDN): this reply has the metadata.
			m.Etag = normalizeEtag(etag)
			break
		}
		u = next.String() // a redirect on the Hub (a renamed repository): follow it
	}
	if m.Etag == "" || strings.ContainsAny(m.Etag, "/\\") || m.Etag == "." || m.Etag == ".." {
		return m, fmt.Errorf("%s %s: %s: the server sent no usable ETag", r.kindLabel(), r, file)
	}
	return m, nil
}

// normalizeEtag is huggingface_hub's _normalize_etag.
func normalizeEtag(e string) string {
	return strings.Trim(strings.TrimLeft(e, "W/"), `"`)
}

// errCorrupt marks a file whose content does not match its ETag.
var errCorrupt = errors.New("content does not match its ETag")

// verifyFile checks p against etag: sha256 for a 64-hex ETag (LFS), the
// git blob sha1 for a 40-hex one, the size alone otherwise (size < 0:
// unknown).
func verifyFile(p, etag string, size int64) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if size >= 0 && st.Size() != size {
		return fmt.Errorf("%w: %d bytes, want %d", errCorrupt, st.Size(), size)
	}
	var h hash.Hash
	switch {
	case isHex(etag, 64):
		h = sha256.New()
	case isHex(etag, 40):
		h = sha1.New()
		fmt.Fprintf(h, "blob %d\x00", st.Size())
	default:
		return nil
	}
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != etag {
		return fmt.Errorf("%w: hash %s", errCorrupt, got)
	}
	return nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// fetchBlob makes blobs/<etag> hold m's verified content: an existing
// valid blob is kept, a corrupt one replaced; the transfer goes to
// blobs/<etag>.incomplete, resumed with an HTTP range after an
// interruption, and is renamed into place once verified.
func (c *Client) fetchBlob(ctx context.Context, r Repo, m fileMeta, p *progress) error {
	blob := c.Cache.BlobPath(r, m.Etag)
	fc := &fileCredit{p: p}
	if _, err := os.Stat(blob); err == nil {
		if verifyFile(blob, m.Etag, m.Size) == nil {
			fc.set(max(m.Size, 0))
			return nil
		}
		p.note(fmt.Sprintf("%s: cached blob %s is corrupt; fetching it again", m.File, m.Etag))
	}
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	inc := blob + ".incomplete"
	var err error
	for attempt := 0; attempt <= c.Retries; attempt++ {
		if err = c.transfer(ctx, r, m, inc, fc); err == nil {
			if err = verifyFile(inc, m.Etag, m.Size); err == nil {
				return os.Rename(inc, blob)
			}
			os.Remove(inc) // corrupt: start again from byte 0
		}
		var se *statusErr
		if ctx.Err() != nil || errors.As(err, &se) {
			break
		}
	}
	return fmt.Errorf("%s %s: download %s: %w", r.kindLabel(), r, m.File, err)
}

// statusErr wraps a reply that retrying will not change.
type statusErr struct{ err error }

func (e *statusErr) Error() string { return e.err.Error() }
func (e *statusErr) Unwrap() error { return e.err }

// transfer appends the rest of m's content to inc (from its current
// length, with a Range request); a server that ignores the range sends
// the whole file, which then replaces inc.
func (c *Client) transfer(ctx context.Context, r Repo, m fileMeta, inc string, fc *fileCredit) error {
	var off int64
	if st, err := os.Stat(inc); err == nil {
		off = st.Size()
	}
	hdr := http.Header{"Accept-Encoding": {"identity"}}
	if off > 0 {
		hdr.Set("Range", fmt.Sprintf("bytes=%d-", off))
	}
	resp, err := c.do(ctx, http.MethodGet, m.URL, hdr)
	if err != nil {
		return c.netError(r, err)
	}
	defer resp.Body.Close()
	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && strings.HasPrefix(resp.Header.Get("Content-Range"), fmt.Sprintf("bytes %d-", off)):
		flags |= os.O_APPEND
		fc.set(off)
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC
		fc.set(0)
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && off == m.Size:
		fc.set(off)
		return nil
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable || resp.StatusCode == http.StatusPartialContent:
		os.Remove(inc)
		return fmt.Errorf("range reply %s does not continue byte %d", resp.Status, off)
	default:
		return &statusErr{c.statusError(r, m.File, resp)}
	}
	f, err := os.OpenFile(inc, flags, 0o644)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	_, err = io.Copy(f, fc.reader(resp.Body))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
