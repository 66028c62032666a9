package ifeval

import (
	"strings"

	"github.com/goeval/goeval/internal/py"
)

// jsonFormat is JsonFormat.check_following: the response, less a fence,
// loads with Python's json.loads.
func jsonFormat(v string) (bool, error) {
	v = py.Strip(v)
	for _, p := range []string{"```json", "```Json", "```JSON", "```"} {
		v = strings.TrimPrefix(v, p)
	}
	v = py.Strip(strings.TrimSuffix(v, "```"))
	return py.JSONValid(v), nil
}
