package tasks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
	"github.com/parquet-go/parquet-go"
)

// goldenDocs returns the "doc" of the first n logged samples of the lm-eval
// golden file of task (testdata/lmeval): real dataset rows.
func goldenDocs(f *testing.F, task string, n int) []json.RawMessage {
	f.Helper()
	file, err := os.Open(filepath.Join("testdata", "lmeval", task+".jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<24)
	var out []json.RawMessage
	for sc.Scan() && len(out) < n {
		var line struct{ Doc json.RawMessage }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Doc != nil {
			out = append(out, line.Doc)
		}
	}
	return out
}

// checkDocValue asserts v holds only the value types of a Doc: no
// json.Number, no parquet-go specific types.
func checkDocValue(t *testing.T, v any) {
	t.Helper()
	switch x := v.(type) {
	case nil, string, bool, int64, float64:
	case map[string]any:
		for _, e := range x {
			checkDocValue(t, e)
		}
	case []any:
		for _, e := range x {
			checkDocValue(t, e)
		}
	default:
		t.Fatalf("loaded value %#v of type %T", v, v)
	}
}

// FuzzJSONL reads arbitrary bytes as a JSON-lines dataset file: no panic,
// every error bad input, and an accepted file gives one row per non-blank
// line holding only Doc value types.
func FuzzJSONL(f *testing.F) {
	for _, task := range []string{"arc_easy", "gsm8k", "hellaswag", "drop", "winogrande", "wikitext", "boolq"} {
		var b []byte
		for _, d := range goldenDocs(f, task, 3) {
			b = append(append(b, d...), '\n')
		}
		f.Add(b)
	}
	f.Add([]byte("{\"a\": 1}\n\n  \n{\"a\": 2.5, \"b\": [1, {\"c\": null}]}\r\n"))
	f.Add([]byte("{\"n\": 12345678901234567890, \"m\": 1e400}\n"))
	path := filepath.Join(f.TempDir(), "train.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tb, err := readJSONL(path)
		if err != nil {
			if !errs.IsBadInput(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		lines := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if len(tb.Rows) != lines {
			t.Fatalf("%d rows from %d non-blank lines", len(tb.Rows), lines)
		}
		for _, r := range tb.Rows {
			checkDocValue(t, map[string]any(r))
		}
	})
}

// Parquet row types in the schemas of real task datasets.
type (
	arcChoices struct {
		Text  []string `parquet:"text,list"`
		Label []string `parquet:"label,list"`
	}
	arcRow struct {
		ID        string     `parquet:"id"`
		Question  string     `parquet:"question"`
		Choices   arcChoices `parquet:"choices"`
		AnswerKey string     `parquet:"answerKey"`
	}
	boolqRow struct {
		Question string  `parquet:"question"`
		Passage  string  `parquet:"passage"`
		Idx      int32   `parquet:"idx"`
		Label    int64   `parquet:"label"`
		Score    float32 `parquet:"score,optional"`
		Flag     *bool   `parquet:"flag,optional"`
	}
)

// parquetSeed writes the golden docs of task, decoded into T, as parquet.
func parquetSeed[T any](f *testing.F, task string) []byte {
	f.Helper()
	var rows []T
	for _, d := range goldenDocs(f, task, 3) {
		var r T
		if err := json.Unmarshal(d, &r); err != nil {
			f.Fatal(err)
		}
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	if _, err := w.Write(rows); err != nil {
		f.Fatal(err)
	}
	if err := w.Close(); err != nil {
		f.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzParquet reads arbitrary bytes as a parquet dataset file: no panic
// (parquet-go's are caught by readParquet), every error bad input, and
// accepted rows hold only Doc value types.
func FuzzParquet(f *testing.F) {
	f.Add(parquetSeed[arcRow](f, "arc_easy"))
	f.Add(parquetSeed[boolqRow](f, "boolq"))
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	path := filepath.Join(f.TempDir(), "test.parquet")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tb, err := readParquet(path)
		if err != nil {
			if !errs.IsBadInput(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		for _, r := range tb.Rows {
			checkDocValue(t, map[string]any(r))
		}
	})
}

// formatGenKwargs writes kw in --gen-kwargs' k=v form so that it parses
// back to kw: floats keep a decimal point, and the first key does not start
// with "{" (which would make the string JSON). ok is false when no key can
// go first.
func formatGenKwargs(kw map[string]any) (string, bool) {
	keys := make([]string, 0, len(kw))
	for k := range kw {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		bi, bj := strings.HasPrefix(keys[i], "{"), strings.HasPrefix(keys[j], "{")
		return !bi && bj || bi == bj && keys[i] < keys[j]
	})
	if len(keys) == 0 || strings.HasPrefix(keys[0], "{") {
		return "", false
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		switch v := kw[k].(type) {
		case []any, map[string]any:
			return "", false // Python literals: no canonical k=v spelling here
		case string:
			if strings.ContainsAny(v, "\"'[](){},") {
				return "", false // quotes and brackets group commas (py.SplitTopLevel); a bare comma ends the value
			}
			if again, ok := py.CLIValue(strings.TrimSpace(v)).(string); !ok || again != v {
				return "", false // written bare it would read as another value ("0" → 0)
			}
		}
		s := toString(kw[k])
		if x, ok := kw[k].(float64); ok {
			s = strconv.FormatFloat(x, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eEnN") {
				s += ".0"
			}
		}
		parts[i] = k + "=" + s
	}
	return strings.Join(parts, ","), true
}

// toString writes an int, bool or string k=v value.
func toString(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return ""
}

// sameKwargs compares parsed kwargs, NaN equal to NaN.
func sameKwargs(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, x := range a {
		y, ok := b[k]
		fx, okx := x.(float64)
		fy, oky := y.(float64)
		if !ok || !(reflect.DeepEqual(x, y) || okx && oky && math.IsNaN(fx) && math.IsNaN(fy)) {
			return false
		}
	}
	return true
}

// FuzzGenKwargs parses arbitrary --gen-kwargs strings: no panic, every
// error bad input, and an accepted value survives a round trip, through
// JSON for the JSON form and through the k=v form for k=v input (values
// keep their types).
func FuzzGenKwargs(f *testing.F) {
	for _, s := range []string{"temperature=0.7,do_sample=true", " max_gen_toks = 32 , until=stop ",
		`{"max_gen_toks": 40, "top_p": 0.9, "until": ["\n\n", "Question:"]}`, "temperature=0,top_k=-1,top_p=1e-3,seed=nan",
		"until=a=b,x=", "a=1,a=2.0,b=TRUE", `max_new_tokens=12,until=["e"," the","\n"]`, `until=('a', "b\x41"),top_k=-3`,
		`until={"a": [1, None]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kw, err := ParseGenKwargs(s)
		if err != nil {
			if !errs.IsBadInput(err) {
				t.Fatalf("error is not bad input: %v", err)
			}
			return
		}
		if strings.HasPrefix(strings.TrimSpace(s), "{") {
			b, err := json.Marshal(kw)
			if err != nil {
				t.Fatalf("parsed %q into %v, which does not marshal: %v", s, kw, err)
			}
			again, err := ParseGenKwargs(string(b))
			if err != nil || !reflect.DeepEqual(again, kw) {
				t.Fatalf("round trip %q -> %s -> %v, %v", s, b, again, err)
			}
			return
		}
		text, ok := formatGenKwargs(kw)
		if !ok {
			return
		}
		again, err := ParseGenKwargs(text)
		if err != nil || !sameKwargs(again, kw) {
			t.Fatalf("round trip %q -> %#v -> %q -> %#v, %v", s, kw, text, again, err)
		}
	})
}
