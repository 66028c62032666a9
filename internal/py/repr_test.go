package py

import (
	"encoding/json"
	"testing"
)

// TestReprJSONNumber: numbers read from JSON print as the numbers Python's
// json module makes of them, not as strings.
func TestReprJSONNumber(t *testing.T) {
	v := []any{json.Number("8"), json.Number("2.50"), json.Number("1e5"), json.Number("NaN"), json.Number("-Infinity"), json.Number("123456789012345678901234")}
	want := "[8, 2.5, 100000.0, nan, -inf, 123456789012345678901234]"
	if got, err := ReprValue(v); err != nil || got != want {
		t.Errorf("ReprValue = %q, %v; want %q", got, err, want)
	}
	if got, _ := StrValue(json.Number("2.50")); got != "2.5" {
		t.Errorf("StrValue(2.50) = %q, want 2.5", got)
	}
}
