package py

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
)

// TestLibmCorrectlyRounded: Exp and Log on BLEU's inputs (100·c/t,
// smoothed precisions, 1 − r/s) and random ones equal mpmath's correctly
// rounded values bit for bit (testdata/libm.json, from
// parity/metrics/truthfulqa_golden.py). Go's math.Exp and math.Log fail
// this on hundreds of them.
func TestLibmCorrectlyRounded(t *testing.T) {
	raw, err := os.ReadFile("testdata/libm.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	hex := func(s string) float64 {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	goDiffers := 0
	for _, r := range rows {
		x := hex(r["x"])
		if s, ok := r["exp"]; ok {
			if got, want := Exp(x), hex(s); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("Exp(%v) = %v, want %v", x, got, want)
			} else if math.Exp(x) != want {
				goDiffers++
			}
		}
		if s, ok := r["log"]; ok {
			if got, want := Log(x), hex(s); math.Float64bits(got) != math.Float64bits(want) {
				t.Errorf("Log(%v) = %v, want %v", x, got, want)
			} else if math.Log(x) != want {
				goDiffers++
			}
		}
	}
	if len(rows) < 6000 {
		t.Fatalf("%d rows, want the golden's 6,008", len(rows))
	}
	t.Logf("%d inputs; Go's math.Exp or math.Log differs on %d values", len(rows), goDiffers)
}
