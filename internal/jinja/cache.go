package jinja

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// Cache parses each template source once (keyed by its content).
type Cache struct {
	Prefix string // the template ids' prefix, e.g. "chat"
	m      sync.Map
}

// Parse returns src parsed with cfg and env, every string repetition
// bounded (repeat.go; env gains the guard filter); prepare, if not nil,
// runs on a newly parsed template before it is cached.
func (c *Cache) Parse(src string, cfg *config.Config, env *exec.Environment, prepare func(*exec.Template)) (*exec.Template, error) {
	key := sha256.Sum256([]byte(src))
	if t, ok := c.m.Load(key); ok {
		return t.(*exec.Template), nil
	}
	id := fmt.Sprintf("%s-%x", c.Prefix, key[:8])
	base, err := loaders.NewFileSystemLoader("")
	if err != nil {
		return nil, err
	}
	ld, err := loaders.NewShiftedLoader(id, bytes.NewReader([]byte(src)), base)
	if err != nil {
		return nil, err
	}
	if !env.Filters.Exists(repeatGuard) {
		if err := env.Filters.Register(repeatGuard, filterRepeatGuard); err != nil && !env.Filters.Exists(repeatGuard) {
			return nil, err
		}
	}
	tpl, err := exec.NewTemplate(id, cfg, ld, env)
	if err != nil {
		return nil, err
	}
	guardRepeats(tpl.Root())
	if prepare != nil {
		prepare(tpl)
	}
	c.m.Store(key, tpl)
	return tpl, nil
}

// Clear forgets every parsed template (fuzz targets parse one per input).
func (c *Cache) Clear() { c.m.Clear() }
