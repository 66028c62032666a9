package tasks

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
)

// ParseGenKwargs reads --gen-kwargs as lm-eval's CLI does: a JSON object
// (integers stay integers: 40 is recorded as 40, not 40.0), or k=v pairs
// split on the commas outside brackets and quotes, whose values are typed
// (py.CLIValue: true/false, int, float, Python literals such as
// until=["a","\n"], else string). Unknown keys, keys goeval cannot
// honour and values out of range are bad input, as are syntax errors.
func ParseGenKwargs(s string) (map[string]any, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	out := map[string]any{}
	if strings.HasPrefix(s, "{") {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		if err := d.Decode(&out); err != nil {
			return nil, errs.BadInputf("--gen-kwargs: bad JSON object: %v", err)
		}
		for k, v := range out {
			out[k] = jsonNumbers(v)
		}
		return checked(out)
	}
	for _, kv := range py.SplitTopLevel(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, errs.BadInputf("--gen-kwargs %q: %q is not key=value", s, kv)
		}
		out[strings.TrimSpace(k)] = py.CLIValue(strings.TrimSpace(v))
	}
	return checked(out)
}

// jsonNumbers turns json.Numbers into int (integers) or float64, as
// Python's json.loads does.
func jsonNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.Atoi(string(x)); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = jsonNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = jsonNumbers(x[k])
		}
	}
	return v
}

// checked is kw when checkGenKwargs accepts it.
func checked(kw map[string]any) (map[string]any, error) {
	if err := checkGenKwargs(kw); err != nil {
		return nil, err
	}
	return kw, nil
}
