// Package lmcache makes interrupted evaluations cheap to resume: it wraps an
// lm.LM so that every answered request is committed to a crash-safe
// on-disk store (bbolt) and served from there when asked again.
//
// One file per model identity lives in the cache folder
// (<first 16 hex digits of sha256(model key)>.bolt); the full model key is
// recorded inside it and checked on open. A request's key is a SHA-256 over
// its kind and every one of its fields (strings, token ids, stop strings,
// max tokens and the sampling settings), so a change to any of them is a
// miss. Misses are sent to the wrapped LM in chunks, and each chunk's
// results are committed in one transaction before the next chunk starts: a
// killed process loses at most one chunk of work.
//
// The package links nothing heavy (no GoMLX), like lm itself.
package lmcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/goeval/goeval/internal/errs"
)

// Bucket and meta key names inside a store file.
var (
	bucketMeta    = []byte("meta")
	bucketResults = []byte("results")
	metaModelKey  = []byte("model_key")
)

// lockTimeout is how long Open waits for another process's lock on the
// same file before giving up with a clear message.
const lockTimeout = time.Second

// Store is one model's cache file. It is safe for concurrent use.
type Store struct {
	db       *bolt.DB
	path     string
	modelKey string
}

// FileName is the name of modelKey's file inside a cache folder.
func FileName(modelKey string) string {
	sum := sha256.Sum256([]byte(modelKey))
	return hex.EncodeToString(sum[:])[:16] + ".bolt"
}

// Check makes sure dir can hold cache files before any work starts: it
// creates dir (and its parents) when missing and proves it writable with a
// probe file. A path that is a file, or a folder that cannot be created or
// written, is bad input naming dir.
func Check(dir string) error {
	if dir == "" {
		return errs.BadInputf("cache folder is empty: give a folder, e.g. --use-cache cache")
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return errs.BadInputf("cache folder %s is a file: give a folder", dir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errs.BadInputf("cache folder %s: %v", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return errs.BadInputf("cache folder %s cannot be created: %v", dir, pathless(err))
	}
	probe, err := os.CreateTemp(dir, ".goeval-write-probe-*")
	if err != nil {
		return errs.BadInputf("cache folder %s is not writable: %v", dir, pathless(err))
	}
	name := probe.Name()
	probe.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("cache folder %s: remove write probe: %w", dir, err)
	}
	return nil
}

// pathless drops the path from a *fs.PathError (the message names it).
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Open opens (creating when needed) modelKey's cache file in dir. A file
// that another process holds is reported after about a second instead of
// waiting; a file that records another model key is refused.
func Open(dir, modelKey string) (*Store, error) {
	if modelKey == "" {
		return nil, fmt.Errorf("lmcache: empty model key")
	}
	if err := Check(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName(modelKey))
	db, err := bolt.Open(path, 0o644, &bolt.Options{Timeout: lockTimeout})
	if errors.Is(err, bolt.ErrTimeout) {
		return nil, errs.BadInputf("cache file %s is in use by another goeval process: wait for it to finish or use another cache folder", path)
	}
	if err != nil {
		return nil, fmt.Errorf("cache file %s: %w", path, err)
	}
	s := &Store{db: db, path: path, modelKey: modelKey}
	if err := s.init(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// init creates the buckets and records or checks the model key.
func (s *Store) init() error {
	return s.db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return fmt.Errorf("cache file %s: %w", s.path, err)
		}
		if _, err := tx.CreateBucketIfNotExists(bucketResults); err != nil {
			return fmt.Errorf("cache file %s: %w", s.path, err)
		}
		got := meta.Get(metaModelKey)
		if got == nil {
			return meta.Put(metaModelKey, []byte(s.modelKey))
		}
		if !bytes.Equal(got, []byte(s.modelKey)) {
			return fmt.Errorf("cache file %s belongs to another model (key %.60q, want %.60q): remove the file or use another cache folder", s.path, got, s.modelKey)
		}
		return nil
	})
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Len is the number of results stored.
func (s *Store) Len() (int, error) {
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketResults).Stats().KeyN
		return nil
	})
	return n, err
}

// Close closes the file (and releases its lock).
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close cache file %s: %w", s.path, err)
	}
	return nil
}

// get copies the values stored under keys (nil for a miss).
func (s *Store) get(keys [][]byte) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketResults)
		for i, k := range keys {
			if v := b.Get(k); v != nil {
				out[i] = bytes.Clone(v) // bbolt's slices die with the transaction
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read cache file %s: %w", s.path, err)
	}
	return out, nil
}

// put commits keys[i] → vals[i] in one transaction.
func (s *Store) put(keys, vals [][]byte) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketResults)
		for i, k := range keys {
			if err := b.Put(k, vals[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write cache file %s: %w", s.path, err)
	}
	return nil
}
