package pjrt

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/goeval/goeval/internal/env"
)

// InstallOptions configure [Install].
type InstallOptions struct {
	// Dir is the cache folder (default: [Dir]).
	Dir string
	// URL replaces the plugin's download address, e.g. a mirror of the same
	// wheel (default: $GOEVAL_PJRT_URL, else Plugin.URL). The hashes are
	// checked all the same.
	URL string
	// Client makes the request (default: a client with a 30 s connect and
	// header timeout and no overall limit).
	Client *http.Client
	// Progress receives a progress bar (nil: none).
	Progress io.Writer
}

// ErrOffline is returned by Install when GOEVAL_OFFLINE forbids downloads.
var ErrOffline = errors.New("GOEVAL_OFFLINE is set, so the PJRT plugin is not downloaded")

// Install downloads p's wheel, checks its sha256, extracts the plugin,
// checks the plugin's sha256 and renames it into place, so the plugin's
// path holds either nothing or the whole verified file. An installed
// plugin is returned at once. Temporary files sit beside the target and are
// removed on every error.
func Install(ctx context.Context, p Plugin, o InstallOptions) (string, error) {
	if o.Dir == "" {
		d, err := Dir()
		if err != nil {
			return "", err
		}
		o.Dir = d
	}
	if path, ok := p.Installed(o.Dir); ok {
		return path, nil
	}
	if Offline() {
		return "", ErrOffline
	}
	if o.URL == "" {
		o.URL = env.PJRTURL.Get()
	}
	if o.URL == "" {
		o.URL = p.URL
	}
	path := p.Path(o.Dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("PJRT plugin folder: %w", err)
	}
	wheel, err := download(ctx, p, o)
	if err != nil {
		return "", err
	}
	defer os.Remove(wheel)
	if err := extract(wheel, p, path); err != nil {
		return "", err
	}
	return path, nil
}

// download fetches the wheel into a temporary file beside the target and
// checks its size and sha256.
func download(ctx context.Context, p Plugin, o InstallOptions) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.URL, nil)
	if err != nil {
		return "", fmt.Errorf("PJRT plugin URL %q: %w", o.URL, err)
	}
	client := o.Client
	if client == nil {
		client = defaultClient()
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", p, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("downloading %s from %s: HTTP %s", p, o.URL, resp.Status)
	}
	f, err := os.CreateTemp(filepath.Dir(p.Path(o.Dir)), ".wheel-*")
	if err != nil {
		return "", fmt.Errorf("PJRT plugin folder: %w", err)
	}
	bar := newBar(o.Progress, "downloading PJRT plugin "+p.String(), p.WheelSize)
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h, bar), resp.Body)
	bar.done(err == nil)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = checkHash(fmt.Sprintf("wheel %s", o.URL), n, p.WheelSize, h.Sum(nil), p.WheelSHA256)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("downloading %s: %w", p, err)
	}
	return f.Name(), nil
}

// extract writes p.Member of the wheel to path through a verified
// temporary file and an atomic rename.
func extract(wheel string, p Plugin, path string) (err error) {
	zr, err := zip.OpenReader(wheel)
	if err != nil {
		return fmt.Errorf("%s: the downloaded wheel is not a zip file: %w", p, err)
	}
	defer zr.Close()
	var member *zip.File
	for _, f := range zr.File {
		if f.Name == p.Member {
			member = f
		}
	}
	if member == nil {
		return fmt.Errorf("%s: the wheel has no %s", p, p.Member)
	}
	r, err := member.Open()
	if err != nil {
		return fmt.Errorf("%s: %s: %w", p, p.Member, err)
	}
	defer r.Close()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".plugin-*")
	if err != nil {
		return fmt.Errorf("PJRT plugin folder: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(r, p.Size+1))
	if err != nil {
		return fmt.Errorf("%s: extracting %s: %w", p, p.Member, err)
	}
	if err := checkHash(p.Member, n, p.Size, h.Sum(nil), p.SHA256); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if err := finish(tmp, path); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}

// finish makes the verified temporary file executable, syncs it and
// renames it to path.
func finish(tmp *os.File, path string) error {
	if err := tmp.Chmod(0o755); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// checkHash compares a file's size and sha256 with the pinned ones.
func checkHash(what string, n, size int64, sum []byte, want string) error {
	if n != size {
		return fmt.Errorf("%s has %d bytes, want %d", what, n, size)
	}
	if got := hex.EncodeToString(sum); got != want {
		return fmt.Errorf("%s has sha256 %s, want %s (a corrupted or substituted file; nothing was installed)", what, got, want)
	}
	return nil
}

// defaultClient times out connecting and waiting for headers, never a
// long transfer.
func defaultClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 30 * time.Second
	t.TLSHandshakeTimeout = 30 * time.Second
	return &http.Client{Transport: t}
}
