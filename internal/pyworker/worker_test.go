package pyworker

import (
	"errors"
	"math"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goeval/goeval/internal/py"
)

// python3 runs these tests; without one they are skipped (make test needs
// no Python; CI has one).
func testRuntime(t *testing.T, timeout time.Duration) *Runtime {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 on PATH")
	}
	r := New("python3", timeout)
	t.Cleanup(func() { r.Close() })
	return r
}

func hooksRef(t *testing.T, module, attr string) *py.Map[any] {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", module+".py"))
	if err != nil {
		t.Fatal(err)
	}
	m := py.NewMap[any]()
	m.Set("file", p)
	m.Set("attr", attr)
	return m
}

// call runs hooks.attr(args...) and returns its value.
func call(t *testing.T, r *Runtime, attr string, args ...any) (any, error) {
	t.Helper()
	req := py.NewMap[any]()
	req.Set("ref", hooksRef(t, "hooks", attr))
	req.Set("args", append([]any{}, args...))
	v, err := r.Call("call", req)
	if err != nil {
		return nil, err
	}
	return v.(*py.Map[any]).Value("value"), nil
}

// TestValuesToPython: what Go sends is the Python value it means (types
// included).
func TestValuesToPython(t *testing.T) {
	r := testRuntime(t, time.Minute)
	doc := py.NewMap[any]()
	doc.Set("b", int64(2))
	doc.Set("a", 1.0)
	doc.Set("$tag", "not a tag")
	single := py.NewMap[any]()
	single.Set("$tuple", []any{1})
	cases := []struct {
		v    any
		want string
	}{
		{int64(1), "int:1"},
		{1.0, "float:1.0"},
		{1e-5, "float:1e-05"},
		{1e16, "float:1e+16"},
		{math.Copysign(0, -1), "float:-0.0"},
		{math.Inf(1), "float:inf"},
		{BigInt("-1180591620717411303424"), "int:-1180591620717411303424"},
		{Tuple{int64(1), "x", nil, true}, "(int:1, str:'x', NoneType:None, bool:True)"},
		{doc, "{str:'b': int:2, str:'a': float:1.0, str:'$tag': str:'not a tag'}"},
		{single, "{str:'$tuple': [int:1]}"},
		{Dict{{int64(1), "a"}, {Tuple{int64(1), int64(2)}, "b"}, {nil, 0.5}}, "{int:1: str:'a', (int:1, int:2): str:'b', NoneType:None: float:0.5}"},
		{Set{"x"}, "{str:'x'}"},
		{[]byte{0, 255}, "bytes:b'\\x00\\xff'"},
		{"línea\n\"quoted\"\t\\", `str:'línea\n"quoted"\t\\'`},
	}
	for _, c := range cases {
		got, err := call(t, r, "show", c.v)
		if err != nil {
			t.Fatalf("%#v: %v", c.v, err)
		}
		if got != c.want {
			t.Errorf("%#v reached Python as %v, want %s", c.v, got, c.want)
		}
	}
	if got, _ := call(t, r, "show", math.NaN()); got != "float:nan" {
		t.Errorf("NaN reached Python as %v", got)
	}
}

// TestValuesFromPython: what a hook returns comes back as the same Python
// value, and goes back to Python unchanged.
func TestValuesFromPython(t *testing.T) {
	r := testRuntime(t, time.Minute)
	v, err := call(t, r, "made")
	if err != nil {
		t.Fatal(err)
	}
	d, ok := v.(Dict)
	if !ok {
		t.Fatalf("made() came back as %T, want a Dict (it has non-str keys)", v)
	}
	got := map[string]any{}
	for _, it := range d {
		k, _ := Marshal(it.Key)
		got[string(k)] = it.Value
	}
	want := map[string]any{`"int"`: int64(1), `"float"`: 1.0, `"big"`: BigInt("1180591620717411303424"),
		`"neg"`: int64(math.MinInt64), `"tuple"`: Tuple{int64(1), "a", nil}, `3`: "int key",
		`{"$tuple": [1, 2]}`: "tuple key", `"set"`: Set{int64(7)}, `"bytes"`: []byte{0, 255}}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("key %s: %#v, want %#v", k, got[k], w)
		}
	}
	if f, _ := got[`"nan"`].(float64); !math.IsNaN(f) {
		t.Errorf("nan came back as %#v", got[`"nan"`])
	}
	if f, _ := got[`"inf"`].(float64); !math.IsInf(f, -1) {
		t.Errorf("-inf came back as %#v", got[`"inf"`])
	}
	// The round trip: sent back, Python sees what it made.
	shown, err := call(t, r, "show", v)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"str:'float': float:1.0", "int:3: str:'int key'", "(int:1, int:2): str:'tuple key'",
		"str:'nested': [{str:'$x': int:1}]", "str:'big': int:1180591620717411303424"} {
		if !strings.Contains(shown.(string), s) {
			t.Errorf("round trip lost %s: %s", s, shown)
		}
	}
}

func TestNumPyValues(t *testing.T) {
	var python string
	for _, p := range []string{"../../.venv/bin/python", "python3"} {
		if p != "" && exec.Command(p, "-c", "import numpy").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("no Python with numpy (make venv)")
	}
	r := New(python, time.Minute)
	defer r.Close()
	v, err := call(t, r, "made_numpy")
	if err != nil {
		t.Fatal(err)
	}
	shown, err := call(t, r, "show", v)
	if err != nil {
		t.Fatal(err)
	}
	want := "[float64:np.float64(0.5), int64:np.int64(3), bool:np.True_, ndarray:array([[1, 2],\n       [3, 4]], dtype=int32)]"
	old := "[float64:0.5, int64:3, bool_:True, ndarray:array([[1, 2],\n       [3, 4]], dtype=int32)]" // numpy < 2
	if shown != want && shown != old {
		t.Errorf("numpy values came back as %q", shown)
	}
}

// TestHookFailures: every way a hook fails is one line of the right kind,
// and the worker goes on (or starts again) for the next call.
func TestHookFailures(t *testing.T) {
	r := testRuntime(t, 3*time.Second)
	cases := []struct{ attr, kind, msg string }{
		{"boom", "raised", "raised ValueError: no way (hooks.py:"},
		{"loud", "stdout", "wrote to stdout ('hello from the hook')"},
		{"opaque", "value", "a value of type builtins.object cannot be passed to goeval"},
		{"nope", "no_attr", "hooks.py has no nope"},
		{"two", "raised", "raised TypeError"},
		{"hang", "timeout", "no answer within 3s"},
		{"die", "exited", "the Python worker ended (exit status 3)"},
	}
	for _, c := range cases {
		_, err := call(t, r, c.attr, "x")
		var pe *Error
		if !errors.As(err, &pe) || pe.Kind != c.kind || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v (kind %v), want kind %s with %q on one line", c.attr, err, pe, c.kind, c.msg)
		}
	}
	if got, err := call(t, r, "ident", "after"); err != nil || got != "after" {
		t.Errorf("after the failures: %v %v", got, err)
	}
	if got, err := call(t, r, "reads_stdin", "x"); err != nil || got != "" {
		t.Errorf("a hook reading stdin got %q (%v), want nothing", got, err)
	}
	if got, err := call(t, r, "c_level_stdout", "kept"); err != nil || got != "kept" {
		t.Errorf("a C-level write to stdout broke the protocol: %v %v", got, err)
	}
	if n := r.Starts(); n != 3 { // the first, after the timeout, after the exit
		t.Errorf("%d worker starts, want 3", n)
	}
}

func TestMissingModuleAndPackage(t *testing.T) {
	r := testRuntime(t, time.Minute)
	req := py.NewMap[any]()
	req.Set("ref", hooksRef(t, "needs_pkg", "f"))
	_, err := r.Call("resolve", req)
	var pe *Error
	if !errors.As(err, &pe) || pe.Kind != "no_package" || pe.Package != "goeval_no_such_package" {
		t.Errorf("missing package: %v", err)
	}
	req.Set("ref", hooksRef(t, "no_such_module", "f"))
	if _, err := r.Call("resolve", req); !errors.As(err, &pe) || pe.Kind != "no_module" {
		t.Errorf("missing module: %v", err)
	}
	req.Set("ref", hooksRef(t, "hooks", "two"))
	req.Set("nargs", 1)
	req.Set("want", "one argument (the document)")
	if _, err := r.Call("resolve", req); !errors.As(err, &pe) || pe.Kind != "arity" ||
		!strings.Contains(err.Error(), "two(a, b) cannot be called with one argument (the document)") {
		t.Errorf("wrong arity: %v", err)
	}
}

func TestNoPython(t *testing.T) {
	r := New(filepath.Join(t.TempDir(), "no-python"), 0)
	var pe *Error
	if err := r.Available(); !errors.As(err, &pe) || pe.Kind != "no_python" {
		t.Errorf("Available: %v", err)
	}
	if _, err := r.Call("hello", nil); err == nil || r.Starts() != 0 {
		t.Errorf("a call without Python: %v, %d starts", err, r.Starts())
	}
}

func TestClosed(t *testing.T) {
	r := testRuntime(t, time.Minute)
	if _, err := call(t, r, "ident", 1.0); err != nil {
		t.Fatal(err)
	}
	r.Close()
	var pe *Error
	if _, err := call(t, r, "ident", 1.0); !errors.As(err, &pe) || pe.Kind != "closed" {
		t.Errorf("after Close: %v", err)
	}
}

// TestImportPrints: a module that prints while it is imported (lm-eval's
// leaderboard/ifeval/instructions_util.py) loads, its print going to
// stderr as on lm-eval's console; its functions' own prints still fail.
func TestImportPrints(t *testing.T) {
	r := testRuntime(t, time.Minute)
	req := py.NewMap[any]()
	req.Set("ref", hooksRef(t, "loud_import", "ident"))
	req.Set("args", []any{"x"})
	v, err := r.Call("call", req)
	if err != nil {
		t.Fatalf("a module printing at import: %v", err)
	}
	if got := v.(*py.Map[any]).Value("value"); got != "x" {
		t.Errorf("ident(x) = %v", got)
	}
}
