package engine

import "fmt"

// Family opens the models of a base + adapters run. In separate mode the
// base weights are loaded once, with every adapter, and each model is a
// WithAdapter view of them; in merged mode each model is opened on its own
// (the base alone, or the base with one adapter merged in).
type Family struct {
	base     string
	adapters []string
	opts     Options
	shared   *Engine // separate mode: the engine every view shares
}

// OpenFamily prepares base with adapters in mode (AdapterMerged or
// AdapterSeparate). Separate mode loads the weights now; merged mode loads
// nothing until Open.
func OpenFamily(base string, adapters []string, mode string, o Options) (*Family, error) {
	f := &Family{base: base, adapters: adapters, opts: o}
	switch mode {
	case AdapterSeparate:
		o.Adapters, o.AdapterMode = adapters, AdapterSeparate
		e, err := Open(base, o)
		if err != nil {
			return nil, err
		}
		f.shared = e
	case AdapterMerged:
	default:
		return nil, fmt.Errorf("adapter family: mode %q (want %s or %s)", mode, AdapterMerged, AdapterSeparate)
	}
	return f, nil
}

// Open returns the model with adapter i applied (-1: the base alone). The
// caller closes it; in separate mode that frees only the view's graphs.
func (f *Family) Open(i int) (*Engine, error) {
	if i < -1 || i >= len(f.adapters) {
		return nil, fmt.Errorf("adapter family: adapter %d out of range (%d adapters)", i, len(f.adapters))
	}
	if f.shared != nil {
		return f.shared.WithAdapter(i)
	}
	o := f.opts
	if i >= 0 {
		o.Adapters, o.AdapterMode = []string{f.adapters[i]}, AdapterMerged
	}
	return Open(f.base, o)
}

// Close frees the shared weights (separate mode) and any view still open.
func (f *Family) Close() error {
	if f.shared == nil {
		return nil
	}
	err := f.shared.Close()
	f.shared = nil
	return err
}
