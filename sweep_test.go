package goeval

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestExpandModels(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"step-200", "step-100", "notes.txt"} {
		p := filepath.Join(dir, n)
		if filepath.Ext(n) == ".txt" {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ExpandModels("base, " + filepath.Join(dir, "step-*") + ",base")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"base", filepath.Join(dir, "step-100"), filepath.Join(dir, "step-200")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ExpandModels = %v, want %v", got, want)
	}
	for _, bad := range []string{filepath.Join(dir, "nothing-*"), filepath.Join(dir, "*.txt"), " , "} {
		if _, err := ExpandModels(bad); err == nil {
			t.Errorf("ExpandModels(%q) accepted", bad)
		}
	}
}
