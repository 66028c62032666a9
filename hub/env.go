package hub

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/goeval/goeval/internal/env"
)

// DefaultEndpoint is the Hugging Face Hub.
const DefaultEndpoint = "https://huggingface.co"

// Config is what the client takes from the environment, with
// huggingface_hub's names and precedence.
type Config struct {
	Endpoint string // HF_ENDPOINT (default https://huggingface.co), no trailing slash
	Token    string // HF_TOKEN, HUGGING_FACE_HUB_TOKEN, else the file `huggingface-cli login` writes
	Offline  bool   // HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE is 1, ON, YES or TRUE
	CacheDir string // HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, else HF_HOME/hub
}

// FromEnv reads the Config from the environment.
func FromEnv() Config {
	c := Config{Endpoint: strings.TrimRight(env.HFEndpoint.Get(), "/")}
	if c.Endpoint == "" {
		c.Endpoint = DefaultEndpoint
	}
	c.Offline = isTrue(env.HFHubOffline.Get()) || isTrue(env.TransformersOffline.Get())
	c.CacheDir = CacheDir()
	c.Token = token()
	return c
}

// isTrue is huggingface_hub's _is_true.
func isTrue(v string) bool {
	switch strings.ToUpper(v) {
	case "1", "ON", "YES", "TRUE":
		return true
	}
	return false
}

// Home is $HF_HOME, else $XDG_CACHE_HOME/huggingface, else
// ~/.cache/huggingface.
func Home() string {
	if h := env.HFHome.Get(); h != "" {
		return expand(h)
	}
	base := env.XDGCacheHome.Get()
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return filepath.Join(".cache", "huggingface")
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "huggingface")
}

// CacheDir is the hub cache: $HF_HUB_CACHE, $HUGGINGFACE_HUB_CACHE, else
// Home()/hub.
func CacheDir() string {
	for _, k := range []*env.Var{env.HFHubCache, env.HuggingFaceHubCache} {
		if v := k.Get(); v != "" {
			return expand(v)
		}
	}
	return filepath.Join(Home(), "hub")
}

// token is HF_TOKEN, HUGGING_FACE_HUB_TOKEN, else the first line of
// $HF_TOKEN_PATH (default Home()/token, written by `huggingface-cli login`).
func token() string {
	for _, k := range []*env.Var{env.HFToken, env.HuggingFaceHubToken} {
		if v := strings.TrimSpace(k.Get()); v != "" {
			return v
		}
	}
	path := env.HFTokenPath.Get()
	if path == "" {
		path = filepath.Join(Home(), "token")
	}
	b, err := os.ReadFile(expand(path))
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSpace(line)
}

// expand is Python's os.path.expandvars(os.path.expanduser(p)).
func expand(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			p = h + p[1:]
		}
	}
	return env.Expand(p)
}
