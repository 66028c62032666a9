package tasks

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// ParseGenKwargs reads --gen-kwargs as lm-eval does: a JSON object, or
// k=v pairs whose values are typed (true/false, int, float, else string).
// Unknown keys, keys goeval cannot honour and values out of range are
// bad input, as are syntax errors.
func ParseGenKwargs(s string) (map[string]any, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	out := map[string]any{}
	if strings.HasPrefix(s, "{") {
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			return nil, errs.BadInputf("--gen-kwargs: bad JSON object: %v", err)
		}
		return checked(out)
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, errs.BadInputf("--gen-kwargs %q: %q is not key=value", s, kv)
		}
		out[strings.TrimSpace(k)] = typedValue(strings.TrimSpace(v))
	}
	return checked(out)
}

// checked is kw when checkGenKwargs accepts it.
func checked(kw map[string]any) (map[string]any, error) {
	if err := checkGenKwargs(kw); err != nil {
		return nil, err
	}
	return kw, nil
}

// typedValue types a k=v value as lm-eval's simple_parse_args_string does.
func typedValue(v string) any {
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return int(n)
	}
	if x, err := strconv.ParseFloat(v, 64); err == nil {
		return x
	}
	return v
}
