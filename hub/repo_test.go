package hub

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseRepo(t *testing.T) {
	for in, want := range map[string]Repo{
		"Qwen/Qwen2.5-0.5B":                                {Model, "Qwen/Qwen2.5-0.5B", ""},
		"org/name@v1.0":                                    {Model, "org/name", "v1.0"},
		"org/name@refs/convert/parquet":                    {Model, "org/name", "refs/convert/parquet"},
		"a_b/c.d@0123456789abcdef0123456789abcdef01234567": {Model, "a_b/c.d", "0123456789abcdef0123456789abcdef01234567"},
	} {
		got, err := ParseRepo(in, Model)
		if err != nil || got != want {
			t.Errorf("ParseRepo(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"gpt2", "a/b/c", "/abs/path", "./x/y", "org/name@", "../x", "org/..", "o/n@../x", "org/name.git", ""} {
		if _, err := ParseRepo(bad, Model); err == nil {
			t.Errorf("ParseRepo(%q): no error", bad)
		}
	}
}

func TestRepoPaths(t *testing.T) {
	m, _ := ParseRepo("org/name", Model)
	d, _ := ParseRepo("org/data@refs/convert/parquet", Dataset)
	for got, want := range map[string]string{
		m.FolderName(): "models--org--name",
		d.FolderName(): "datasets--org--data",
		m.resolvePath(m.Rev(), "sub dir/a+b.json"):      "/org/name/resolve/main/sub%20dir/a+b.json",
		d.resolvePath(d.Rev(), "c/train.parquet"):       "/datasets/org/data/resolve/refs%2Fconvert%2Fparquet/c/train.parquet",
		d.apiPath() + "/revision/" + escapeRev(d.Rev()): "/api/datasets/org/data/revision/refs%2Fconvert%2Fparquet",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestFromEnv checks huggingface_hub's environment names and precedence.
func TestFromEnv(t *testing.T) {
	home := t.TempDir()
	for _, k := range []string{"HF_ENDPOINT", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH", "HF_HUB_OFFLINE",
		"TRANSFORMERS_OFFLINE", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "XDG_CACHE_HOME"} {
		t.Setenv(k, "")
	}
	t.Setenv("HF_HOME", home)
	if err := os.WriteFile(filepath.Join(home, "token"), []byte("hf_fromfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := FromEnv()
	if c.Endpoint != DefaultEndpoint || c.Token != "hf_fromfile" || c.Offline || c.CacheDir != filepath.Join(home, "hub") {
		t.Errorf("defaults: %+v", c)
	}
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:9/")
	t.Setenv("HF_TOKEN", "hf_env")
	t.Setenv("HF_HUB_OFFLINE", "yes")
	t.Setenv("HF_HUB_CACHE", filepath.Join(home, "elsewhere"))
	c = FromEnv()
	if c.Endpoint != "http://127.0.0.1:9" || c.Token != "hf_env" || !c.Offline || c.CacheDir != filepath.Join(home, "elsewhere") {
		t.Errorf("overrides: %+v", c)
	}
	t.Setenv("HF_HUB_OFFLINE", "0")
	t.Setenv("HF_HOME", "")
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "xdg"))
	if c = FromEnv(); c.Offline || c.CacheDir != filepath.Join(home, "xdg", "huggingface", "hub") {
		t.Errorf("XDG_CACHE_HOME: %+v", c)
	}
}

func TestMatch(t *testing.T) {
	pats := []string{"config.json", "*.safetensors", "main/test-*.parquet"}
	for f, want := range map[string]bool{
		"config.json": true, "model-00001-of-00002.safetensors": true, "sub/model.safetensors": false,
		"main/test-00000-of-00001.parquet": true, "main/train-00000-of-00001.parquet": false, "pytorch_model.bin": false,
	} {
		if Match(pats, f) != want {
			t.Errorf("Match(%q) = %v", f, !want)
		}
	}
}
