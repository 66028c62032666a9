package main

import (
	"testing"

	"github.com/goeval/goeval/engine"
)

// TestDequant4Flag: --dequantize-4bit dequantizes, =false keeps 4-bit
// weights packed on every device, and leaving it out leaves the choice to
// the device; anything else is refused.
func TestDequant4Flag(t *testing.T) {
	for _, c := range []struct {
		args          []string
		dequant, keep bool
	}{
		{nil, false, false},
		{[]string{"--dequantize-4bit"}, true, false},
		{[]string{"--dequantize-4bit=false"}, false, true},
		{[]string{"--dequantize-4bit=true"}, true, false},
	} {
		f, err := parseRunFlags(append([]string{"--model", "m", "--tasks", "arc_easy"}, c.args...))
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		o := f.engineOptions(engine.DeviceChoice{Device: "xla-cpu"})
		if o.Dequantize4Bit != c.dequant || o.Keep4BitPacked != c.keep {
			t.Errorf("%v: Dequantize4Bit %v, Keep4BitPacked %v; want %v, %v", c.args, o.Dequantize4Bit, o.Keep4BitPacked, c.dequant, c.keep)
		}
	}
	if _, err := parseRunFlags([]string{"--model", "m", "--tasks", "arc_easy", "--dequantize-4bit=maybe"}); err == nil {
		t.Error("--dequantize-4bit=maybe accepted")
	}
}
