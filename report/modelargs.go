package report

import (
	"strings"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/py"
)

// ArgMap is a parsed lm-eval dictionary argument, keys in order.
type ArgMap = *py.Map[any]

// ParseArgString reads an lm-eval CLI dictionary argument (--model_args,
// --metadata): a JSON object, or key=value pairs split on the commas
// outside brackets and quotes with values typed as lm-eval types them
// (true/false, int, float, Python literal, else string). Keys keep their
// order: the results file records model_args as given. flag names the
// argument in errors.
func ParseArgString(flag, s string) (ArgMap, error) {
	s = strings.TrimSpace(s)
	out := py.NewMap[any]()
	if s == "" {
		return out, nil
	}
	if strings.HasPrefix(s, "{") {
		v, err := py.ParseJSON([]byte(s))
		m, ok := v.(*py.Map[any])
		if err != nil || !ok {
			return nil, errs.BadInputf("--%s: not a JSON object (%v); give key=value pairs or {\"key\": value}", flag, err)
		}
		return m, nil
	}
	for _, kv := range py.SplitTopLevel(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, errs.BadInputf("--%s %q: %q is not key=value", flag, s, kv)
		}
		out.Set(strings.TrimSpace(k), py.CLIValue(strings.TrimSpace(v)))
	}
	return out, nil
}
