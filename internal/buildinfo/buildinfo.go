// Package buildinfo says which goeval is running: the module version and
// the git commit it was built from, for `goeval version` and for the
// results files (lm-eval's git_hash).
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// gitHash may be set at link time (the Makefile does:
// -ldflags "-X github.com/goeval/goeval/internal/buildinfo.gitHash=…"), for
// builds where Go records no VCS stamp (-buildvcs=false, builds outside a
// checkout).
var gitHash string

// version may be set at link time the same way: the wheels do
// (python/build_wheels.py: -X …/internal/buildinfo.version=<the wheel's
// version>), so the binary pip installs names the release it came in.
var version string

// Version is the version stamped at link time (a wheel's, "0.3.1"), else
// the module version ("v0.3.1" for `go install …@v0.3.1`, "(devel)" for a
// build in a checkout).
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// GitHash is the commit goeval was built from, shortened to 7 hex digits
// as lm-eval writes its own, with "-dirty" for a modified tree; "" when
// unknown.
func GitHash() string {
	if gitHash != "" {
		return short(gitHash)
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return ""
	}
	if modified == "true" {
		return short(rev) + "-dirty"
	}
	return short(rev)
}

func short(h string) string {
	h = strings.TrimSpace(h)
	base, dirty := strings.CutSuffix(h, "-dirty")
	if len(base) > 7 {
		base = base[:7]
	}
	if dirty {
		return base + "-dirty"
	}
	return base
}

// String is the one-line version: "goeval v0.3.1 (abc1234)".
func String() string {
	s := "goeval " + Version()
	if h := GitHash(); h != "" {
		s += " (" + h + ")"
	}
	return s
}
