package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/jsonl"
)

// readJSONLines decodes every non-empty line of r (stdin) as a T and hands
// it to each with its line number. Errors name the stdin line.
func readJSONLines[T any](r io.Reader, each func(line int, v T) error) error {
	err := jsonl.Decode(r, each)
	var le *jsonl.LineError
	switch {
	case errors.As(err, &le):
		var v T
		return errs.BadInputf("stdin line %d: %s", le.Line, jsonProblem(le.Err, reflect.TypeOf(v)))
	case err != nil && !errs.IsBadInput(err) && strings.HasPrefix(err.Error(), "read: "):
		return errs.BadInputf("reading stdin: %v", errors.Unwrap(err))
	}
	return err
}

// jsonProblem says what is wrong with a line that did not decode into a
// value of type t, in JSON's words rather than Go's: "text" must be a
// string, not a number.
func jsonProblem(err error, t reflect.Type) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return "invalid JSON: " + err.Error()
	}
	got := jsonValueName(te.Value)
	if te.Field == "" {
		return fmt.Sprintf("want a JSON object, not %s", got)
	}
	if ft := jsonFieldType(t, te.Field); ft != nil && ft != te.Type && (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) {
		return fmt.Sprintf("each item of %q must be %s, not %s", te.Field, jsonTypeName(te.Type), got)
	}
	return fmt.Sprintf("%q must be %s, not %s", te.Field, jsonTypeName(te.Type), got)
}

// jsonFieldType is the type of the field at the dotted JSON path in
// struct type t, or nil.
func jsonFieldType(t reflect.Type, path string) reflect.Type {
	for _, name := range strings.Split(path, ".") {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		var found reflect.Type
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == name || (tag == "" && strings.EqualFold(f.Name, name)) {
				found = f.Type
				break
			}
		}
		if found == nil {
			return nil
		}
		t = found
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// jsonTypeName describes the JSON values a Go type accepts.
func jsonTypeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch k := t.Kind(); {
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "true or false"
	case k >= reflect.Int && k <= reflect.Int64:
		return fmt.Sprintf("an integer in [%d, %d]", -1<<(t.Bits()-1), 1<<(t.Bits()-1)-1)
	case k >= reflect.Uint && k <= reflect.Uint64:
		return fmt.Sprintf("an integer in [0, %d]", uint64(math.MaxUint64)>>(64-t.Bits()))
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	case k == reflect.Slice || k == reflect.Array:
		return "a list"
	}
	return "an object"
}

// jsonValueName names a JSON value as encoding/json reports it ("number
// 1.5", "string", "array") in plain words.
func jsonValueName(v string) string {
	if n, ok := strings.CutPrefix(v, "number "); ok {
		return n
	}
	switch v {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true/false"
	case "number", "string":
		return "a " + v
	}
	return v
}

// writeJSONLines writes one JSON object per line.
func writeJSONLines[T any](w io.Writer, rows []T) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
	}
	return bw.Flush()
}

// stdinLine rewrites an engine error about request i of a call of n
// requests as an error naming the stdin line line(i); bad input stays bad
// input.
func stdinLine(err error, n int, line func(i int) int) error {
	var re *engine.RequestError
	if errors.As(err, &re) && re.Index >= 0 && re.Index < n {
		err = fmt.Errorf("stdin line %d: %w", line(re.Index), re.Err)
		if errs.IsBadInput(re.Err) {
			return errs.BadInput(err)
		}
	}
	return err
}
