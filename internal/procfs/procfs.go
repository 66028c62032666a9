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
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), key+":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
