package engine

import (
	"os"
	"path/filepath"

	"github.com/goeval/goeval/internal/env"
	"github.com/goeval/goeval/internal/xlacache"
)

// compileCache is where an XLA backend keeps its compiled executables
// (internal/xlacache): a folder, or none.
type compileCache struct {
	dir   string // "": no cache
	warnf func(format string, args ...any)
}

// compileCacheOf resolves o.CompileCache: "off" none, a folder that
// folder, "" $GOEVAL_COMPILE_CACHE (the same values), else
// <user cache dir>/goeval/xla (none when there is no user cache dir).
func compileCacheOf(o Options) compileCache {
	dir := o.CompileCache
	if dir == "" {
		dir = env.CompileCache.Get()
	}
	if dir == "" {
		if c, err := os.UserCacheDir(); err == nil {
			dir = filepath.Join(c, "goeval", "xla")
		}
	}
	if dir == "off" {
		dir = ""
	}
	return compileCache{dir: dir, warnf: o.Warnf}
}

// install puts the cache in front of plugin's compiles. Only a plugin
// given as a file can be (a go-xla plugin name is left to go-xla); a cache
// that cannot be installed is a warning, and the run compiles as before.
func (c compileCache) install(plugin string) {
	if c.dir == "" || !filepath.IsAbs(plugin) {
		return
	}
	warn := func(msg string) {
		if c.warnf != nil {
			c.warnf("%s", msg)
		}
	}
	if err := xlacache.Install(plugin, c.dir, warn); err != nil {
		warn(err.Error() + "; compiling every shape")
	}
}

// CompileCacheDir is the compile cache folder an engine of o would use
// ("" when off).
func CompileCacheDir(o Options) string { return compileCacheOf(o).dir }

// CompileCacheUsage counts the entries in a compile cache folder and
// their bytes.
func CompileCacheUsage(dir string) (entries int, bytes int64) { return xlacache.Usage(dir) }

// CompileCacheStats returns how many of this process's XLA compiles were
// loaded from the compile cache (hits) and how many were compiled and
// saved into it (stores).
func CompileCacheStats() (hits, stores int64) { return xlacache.Stats() }
