package safetensors

import (
	"fmt"
	"os"

	"github.com/goeval/goeval/internal/errs"
)

// MapPrivate maps tensor name's bytes from its file on their own, private
// (copy-on-write) and writable: reading a page brings it in from the file
// (the page cache's copy, shared), writing one gives this process its own
// copy, and the file never changes. A weight that is only gathered from
// (an embedding table) can be held so: only the rows read become
// resident. The mapping outlives the Set (Close does not unmap it) and is
// never unmapped (a caller done with it drops its pages instead, as
// releaseBytes does): the slice may still be referenced. ok is false
// where private mappings are not available (non-unix).
func (s *Set) MapPrivate(name string) (data []byte, ok bool, err error) {
	t, found := s.infos[name]
	if !found {
		return nil, false, errs.BadInputf("%s: no tensor %q", s.source, name)
	}
	if t.Length == 0 {
		return nil, false, nil
	}
	f, err := os.Open(t.File)
	if err != nil {
		return nil, false, fmt.Errorf("map %s privately: %w", name, err)
	}
	defer f.Close()
	page := int64(os.Getpagesize())
	start := t.Offset - t.Offset%page
	m, ok, err := mmapPrivate(f, start, int(t.Offset+t.Length-start))
	if err != nil || !ok {
		return nil, ok, err
	}
	return m[t.Offset-start:], true, nil
}
