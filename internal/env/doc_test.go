package env

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docPath is the users' copy of the table.
const docPath = "../../docs/ENVIRONMENT.md"

// docTable returns the rows of the first table under the "## "+heading
// section of doc: the cells of each line that starts with "| `", their
// backticks removed.
func docTable(t *testing.T, doc, heading string) [][]string {
	t.Helper()
	_, sec, ok := strings.Cut(doc, "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("%s has no section %q", docPath, heading)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var rows [][]string
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "| "), " | ") {
			cells = append(cells, strings.TrimSpace(strings.ReplaceAll(c, "`", "")))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: section %q has no table rows", docPath, heading)
	}
	return rows
}

// TestDocMatchesTable: docs/ENVIRONMENT.md lists the variables of the
// table with the same groups and defaults, the same variables as set by
// goeval, and no production variable among the test-only ones.
func TestDocMatchesTable(t *testing.T) {
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	inDoc := map[string]bool{}
	for _, r := range docTable(t, doc, "Variables goeval reads") {
		v, ok := Lookup(r[0])
		switch {
		case !ok:
			t.Errorf("%s lists %s, which internal/env's table does not have", docPath, r[0])
		case len(r) != 5:
			t.Errorf("%s: the row of %s has %d cells, want 5", docPath, r[0], len(r))
		case r[1] != string(v.Group) || r[2] != v.Default:
			t.Errorf("%s: %s is group %q, default %q there; the table says %q, %q", docPath, r[0], r[1], r[2], v.Group, v.Default)
		}
		inDoc[r[0]] = true
	}
	var sets []string
	for _, v := range All() {
		if !inDoc[v.Name] {
			t.Errorf("%s is in internal/env's table but not in %s", v.Name, docPath)
		}
		if v.Sets != "" {
			sets = append(sets, v.Name)
		}
	}
	var docSets []string
	for _, r := range docTable(t, doc, "Variables goeval sets") {
		docSets = append(docSets, r[0])
	}
	slices.Sort(sets)
	slices.Sort(docSets)
	if !slices.Equal(sets, docSets) {
		t.Errorf("%s says goeval sets %v; the table says %v", docPath, docSets, sets)
	}
	for _, r := range docTable(t, doc, "Test-only variables") {
		if _, ok := Lookup(r[0]); ok {
			t.Errorf("%s lists %s among the test-only variables, but production code reads it", docPath, r[0])
		}
	}
}

// TestDocListsTestVariables: every GOEVAL_* variable named in a test, a
// script or the Makefile is in docs/ENVIRONMENT.md's tables, and every
// test-only variable there is still named somewhere.
func TestDocListsTestVariables(t *testing.T) {
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, v := range All() {
		documented[v.Name] = true
	}
	testOnly := map[string]bool{}
	for _, r := range docTable(t, string(b), "Test-only variables") {
		documented[r[0]], testOnly[r[0]] = true, true
	}
	named := testNamedVars(t, "../..")
	for name, where := range named {
		if !documented[name] {
			t.Errorf("%s (named in %s) is not in %s: add it to the test-only table", name, where, docPath)
		}
	}
	for name := range testOnly {
		if named[name] == "" {
			t.Errorf("%s lists test-only %s, which no test, script or Makefile names any more", docPath, name)
		}
	}
}

// testNamedVars returns the GOEVAL_* names in root's _test.go files,
// scripts/ and Makefile, each with one file that names it.
func testNamedVars(t *testing.T, root string) map[string]string {
	t.Helper()
	re := regexp.MustCompile(`\bGOEVAL_[A-Z0-9_]*[A-Z0-9]\b`)
	out := map[string]string{}
	scan := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllString(string(b), -1) {
			if out[m] == "" {
				out[m], _ = filepath.Rel(root, path)
			}
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, "_test.go") {
			scan(path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "scripts", "*"))
	for _, s := range append(scripts, filepath.Join(root, "Makefile")) {
		scan(s)
	}
	if len(out) < 10 {
		t.Fatalf("found only %d GOEVAL_* names: the walk is broken", len(out))
	}
	return out
}
