package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/goeval/goeval/internal/errs"
)

// Client talks to one Hub endpoint and fills one cache.
type Client struct {
	Config
	Cache    Cache
	HTTP     *http.Client
	Workers  int       // parallel file downloads (default 8)
	Progress io.Writer // progress bar destination (nil: none)
	Retries  int       // extra attempts of a failed transfer, resuming (default 3)
}

// New returns a client for cfg, caching under cfg.CacheDir.
func New(cfg Config) *Client {
	return &Client{Config: cfg, Cache: Cache{Dir: cfg.CacheDir},
		HTTP: &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 15 * time.Second}).DialContext,
			TLSHandshakeTimeout:   15 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
			MaxIdleConnsPerHost:   16,
		}},
		Workers: 8, Retries: 3}
}

// repoInfo is the part of /api/{models,datasets}/ID/revision/REV used.
type repoInfo struct {
	SHA      string `json:"sha"`
	Siblings []struct {
		RFilename string `json:"rfilename"`
	} `json:"siblings"`
}

// info resolves r's revision to a commit and lists its files.
func (c *Client) info(ctx context.Context, r Repo) (*repoInfo, error) {
	u := c.Endpoint + r.apiPath() + "/revision/" + escapeRev(r.Rev())
	resp, err := c.do(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, c.netError(r, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.statusError(r, "", resp)
	}
	var info repoInfo
	if err := json.NewDecoder(resp.Body).Decode(&info); err != nil {
		return nil, fmt.Errorf("%s %s: bad reply from %s: %w", r.kindLabel(), r, u, err)
	}
	if !IsCommit(info.SHA) {
		return nil, fmt.Errorf("%s %s: %s answered no commit sha", r.kindLabel(), r, u)
	}
	return &info, nil
}

// escapeRev quotes a revision for a URL path segment (refs/convert/parquet
// → refs%2Fconvert%2Fparquet), as huggingface_hub does.
func escapeRev(rev string) string { return strings.ReplaceAll(escapeFile(rev), "/", "%2F") }

// do sends one request with the token (the Go client drops it on
// redirects to another host, such as a CDN).
func (c *Client) do(ctx context.Context, method, url string, hdr http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	req.Header.Set("User-Agent", "goeval; hf_hub-compatible")
	return c.HTTP.Do(req)
}

// netError is the one line for a server that cannot be reached.
func (c *Client) netError(r Repo, err error) error {
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%s %s: cannot reach %s (%v); check the network or HF_ENDPOINT, or set HF_HUB_OFFLINE=1 to use only the cache (%s)",
		r.kindLabel(), r, c.Endpoint, shortNetErr(err), c.Cache.Dir)
}

func shortNetErr(err error) string {
	var ue interface{ Unwrap() error }
	for errors.As(err, &ue) {
		inner := ue.Unwrap()
		if inner == nil {
			break
		}
		if _, ok := inner.(interface{ Unwrap() error }); !ok {
			return inner.Error()
		}
		err = inner
	}
	return err.Error()
}

// statusError turns a non-2xx reply into one clear line (bad input for
// 401, 403 and 404: the user must fix the id, the revision or the token).
func (c *Client) statusError(r Repo, file string, resp *http.Response) error {
	code := resp.Header.Get("X-Error-Code")
	msg := strings.TrimSpace(resp.Header.Get("X-Error-Message"))
	what := fmt.Sprintf("%s %s", r.kindLabel(), r)
	page := c.Endpoint + "/" + r.ID
	if r.Type == Dataset {
		page = c.Endpoint + "/datasets/" + r.ID
	}
	tokenHint := "set HF_TOKEN or run `huggingface-cli login`"
	if c.Token != "" {
		tokenHint = "the token in use (HF_TOKEN or the login token file) has no access"
	}
	switch {
	case code == "GatedRepo" || (resp.StatusCode == http.StatusForbidden && strings.Contains(strings.ToLower(msg), "gated")):
		return errs.BadInputf("%s is gated: accept its conditions at %s, then %s", what, page, tokenHint)
	case resp.StatusCode == http.StatusUnauthorized:
		return errs.BadInputf("%s: 401 unauthorized at %s: the repository is private or does not exist; %s", what, c.Endpoint, tokenHint)
	case resp.StatusCode == http.StatusForbidden:
		return errs.BadInputf("%s: 403 forbidden at %s: %s", what, c.Endpoint, tokenHint)
	case code == "RevisionNotFound":
		return errs.BadInputf("%s: revision %q not found at %s; check the part after @", what, r.Rev(), page)
	case code == "EntryNotFound" || (resp.StatusCode == http.StatusNotFound && file != "" && code != "RepoNotFound"):
		return errs.BadInputf("%s: file %s not found at revision %s", what, file, r.Rev())
	case resp.StatusCode == http.StatusNotFound:
		return errs.BadInputf("%s: not found at %s; check the id (private repositories need HF_TOKEN)", what, c.Endpoint)
	case resp.StatusCode == http.StatusTooManyRequests:
		wait := "a while"
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			wait = fmt.Sprintf("%d s", s)
		}
		return fmt.Errorf("%s: rate limited by %s (429); retry after %s, or set HF_TOKEN for a higher limit", what, c.Endpoint, wait)
	}
	if msg == "" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		msg = strings.Join(strings.Fields(string(b)), " ")
	}
	return fmt.Errorf("%s: %s from %s: %s", what, resp.Status, c.Endpoint, msg)
}
