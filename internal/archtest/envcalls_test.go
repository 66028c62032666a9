package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// envFuncs are the functions that read or write the process environment,
// per import path. Production code calls them only in internal/env, whose
// table documents every variable (docs/ENVIRONMENT.md).
var envFuncs = map[string][]string{
	"os":                    {"Getenv", "LookupEnv", "Setenv", "Unsetenv", "Environ", "Clearenv", "ExpandEnv"},
	"syscall":               {"Getenv", "Setenv", "Unsetenv", "Environ", "Clearenv"},
	"golang.org/x/sys/unix": {"Getenv", "Setenv", "Unsetenv", "Environ", "Clearenv"},
}

// envPackage is the one package allowed to touch the environment.
const envPackage = "internal/env"

// envAllowed are files (relative to the repository root) that may still
// read the environment themselves, with the variable; keep it empty: a
// listed file that no longer touches the environment fails the test too.
var envAllowed = map[string]string{}

// TestEnvOnlyThroughPackage fails on any use of envFuncs in non-test Go
// code outside internal/env and envAllowed.
func TestEnvOnlyThroughPackage(t *testing.T) {
	root := repoRoot(t)
	uses, files := envUses(t, root)
	if files < 50 {
		t.Fatalf("parsed only %d Go files: the walk is broken", files)
	}
	seen := map[string]bool{}
	for _, u := range uses {
		rel := u.file
		if strings.HasPrefix(rel, envPackage+"/") {
			continue
		}
		if _, ok := envAllowed[rel]; ok {
			seen[rel] = true
			continue
		}
		t.Errorf("%s:%d: %s: read or set environment variables through internal/env (add the variable to its table)", rel, u.line, u.call)
	}
	for f, v := range envAllowed {
		if !seen[f] {
			t.Errorf("%s (%s) no longer touches the environment: remove it from envAllowed in internal/archtest", f, v)
		}
	}
}

// envUse is one reference to an environment function.
type envUse struct {
	file string // relative to the repository root, slash-separated
	line int
	call string // e.g. os.Getenv
}

// envUses parses every non-test Go file under root and returns its
// references to envFuncs (called or not), and how many files it parsed.
func envUses(t *testing.T, root string) ([]envUse, int) {
	t.Helper()
	var out []envUse
	files := 0
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", path, err)
		}
		files++
		rel, _ := filepath.Rel(root, path)
		for _, u := range fileEnvUses(fset, f) {
			u.file = filepath.ToSlash(rel)
			out = append(out, u)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, files
}

// fileEnvUses lists f's references pkg.Func to envFuncs, through whatever
// name f imports the package under.
func fileEnvUses(fset *token.FileSet, f *ast.File) []envUse {
	local := map[string]string{} // name in the file → import path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := envFuncs[path]; !ok {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		local[name] = path
	}
	var out []envUse
	if len(local) == 0 {
		return nil
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		path, ok := local[x.Name]
		if !ok {
			return true
		}
		for _, fn := range envFuncs[path] {
			if sel.Sel.Name == fn {
				out = append(out, envUse{line: fset.Position(sel.Pos()).Line, call: x.Name + "." + fn})
			}
		}
		return true
	})
	return out
}
