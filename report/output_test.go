package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
)

func TestPrepareOutput(t *testing.T) {
	dir := t.TempDir()
	nested := filepath.Join(dir, "a", "b")
	if err := PrepareOutput(nested); err != nil {
		t.Fatalf("new nested folder: %v", err)
	}
	if st, err := os.Stat(nested); err != nil || !st.IsDir() {
		t.Fatalf("folder not created: %v", err)
	}
	if left, _ := os.ReadDir(nested); len(left) != 0 {
		t.Errorf("probe left behind: %v", left)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"a file": file, "under a file": filepath.Join(file, "x")} {
		err := PrepareOutput(path)
		if !errs.IsBadInput(err) || !strings.Contains(err.Error(), "--output-path") {
			t.Errorf("%s: %v, want a bad-input error naming --output-path", name, err)
		}
	}
	if os.Geteuid() != 0 { // root writes anywhere: the permission case needs a normal user
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := PrepareOutput(ro); !errs.IsBadInput(err) || !strings.Contains(err.Error(), "not writable") {
			t.Errorf("read-only folder: %v, want not writable", err)
		}
	}
}
