// Package procfs reads the few Linux /proc values goeval reports or
// sizes its work by.
package procfs

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// KB is the value of the "key: N kB" line of the /proc file path, in
// bytes; 0 where the file or the line is missing (outside Linux) or the
// value does not parse.
func KB(path, key string) int64 {
	v, ok := Field(path, key)
	if !ok {
		return 0
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}

// Field is the value of the first "key: value" line of the /proc file
// path (key and colon may be separated by tabs, as /proc/cpuinfo's are),
// trimmed; false where the file or the line is missing.
func Field(path, key string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20) // cpuinfo's flags lines are long
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(name) == key {
			return strings.TrimSpace(value), true
		}
	}
	return "", false
}
