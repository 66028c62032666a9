package hub

import (
	"os"
	"path/filepath"
	"strings"
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
	c := Config{Endpoint: strings.TrimRight(os.Getenv("HF_ENDPOINT"), "/")}
	if c.Endpoint == "" {
		c.Endpoint = DefaultEndpoint
	}
	c.Offline = isTrue(os.Getenv("HF_HUB_OFFLINE")) || isTrue(os.Getenv("TRANSFORMERS_OFFLINE"))
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
	if h := os.Getenv("HF_HOME"); h != "" {
		return expand(h)
	}
	base := os.Getenv("XDG_CACHE_HOME")
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
	for _, k := range []string{"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"} {
		if v := os.Getenv(k); v != "" {
			return expand(v)
		}
	}
	return filepath.Join(Home(), "hub")
}

// token is HF_TOKEN, HUGGING_FACE_HUB_TOKEN, else the first line of
// $HF_TOKEN_PATH (default Home()/token, written by `huggingface-cli login`).
func token() string {
	for _, k := range []string{"HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			return v
		}
	}
	path := os.Getenv("HF_TOKEN_PATH")
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
	return os.ExpandEnv(p)
}
