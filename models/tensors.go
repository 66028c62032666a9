package models

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goeval/goeval/internal/errs"
)

// IgnoredTensor reports tensors that checkpoints may carry but no model
// uses: rotary caches some exporters save (transformers ignores them too).
func IgnoredTensor(name string) bool {
	return strings.HasSuffix(name, ".rotary_emb.inv_freq")
}

// CheckTensors verifies that s holds exactly the tensors c implies, with
// the implied shapes. The error names the file, the first problem and how
// many more there are.
func CheckTensors(c *Config, s Tensors) error {
	problems := TensorProblems(c, s)
	if len(problems) == 0 {
		return nil
	}
	msg := problems[0]
	if len(problems) > 1 {
		msg += fmt.Sprintf(" (and %d more problems)", len(problems)-1)
	}
	return errs.BadInputf("%s", msg)
}

// TensorProblems lists every mismatch between s and ExpectedTensors(c), one
// message per tensor, missing tensors first, in name order.
func TensorProblems(c *Config, s Tensors) []string {
	want := ExpectedTensors(c)
	var missing, other []string
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		info, ok := s.Info(n)
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%s: missing tensor %s", s.Source(), n))
		case !equalShape(info.Shape, want[n]):
			other = append(other, fmt.Sprintf("%s: tensor %s has shape %v, %s implies %v", info.File, n, info.Shape, configName(c), want[n]))
		}
	}
	for _, n := range s.Names() {
		if _, ok := want[n]; !ok && !IgnoredTensor(n) {
			info, _ := s.Info(n)
			other = append(other, fmt.Sprintf("%s: unexpected tensor %s", info.File, n))
		}
	}
	return append(missing, other...)
}

func configName(c *Config) string {
	if c.Path != "" {
		return c.Path
	}
	return ConfigFile
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
