package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/goeval/goeval/models"
)

// identityVersion heads the hashed text of Identity.
const identityVersion = "goeval-engine-identity-v1"

// identityBlocks and identityBlockSize are the samples of a weight file
// Identity reads: its first block (the safetensors header's start) and
// blocks spread evenly over it.
const (
	identityBlocks    = 64
	identityBlockSize = 4096
)

// Identity identifies what e's answers depend on, like Fingerprint, but
// from content rather than file times and paths, so that the shards of a
// run on other machines, with copies of the checkpoint, agree: the bytes
// of config.json and the tokenizer files, every weight file's name, size
// and 64 blocks of 4 KiB spread over it (a checkpoint of other weights
// differs in them; reading them costs milliseconds, hashing whole files
// minutes), the same of each adapter, the adapter mode and the applied
// adapter, the compute dtype, the kind of device (not the plugin's path),
// max length and the prefix token.
func (e *Engine) Identity() (string, error) {
	h := sha256.New()
	mode, _ := models.ParseAdapterMode(e.opts.AdapterMode)
	fmt.Fprintf(h, "%s\n%s\ndevice %s\nmax_length %d\nprefix %d\n", identityVersion, e.prec, e.device.Device, e.maxLen, e.prefix)
	if err := identityOfDir(h, e.dir, fingerprintFiles); err != nil {
		return "", fmt.Errorf("identity of %s: %w", e.dir, err)
	}
	if len(e.opts.Adapters) > 0 {
		fmt.Fprintf(h, "adapter mode %s, applied %d of %d\n", mode, e.adapter, len(e.opts.Adapters))
	}
	for i, a := range e.opts.Adapters {
		fmt.Fprintf(h, "adapter %d\n", i)
		if err := identityOfDir(h, a, []string{models.AdapterConfigFile}); err != nil {
			return "", fmt.Errorf("identity of adapter %s: %w", a, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// identityOfDir writes into h the bytes of dir's small files and samples
// of its weight files.
func identityOfDir(h hash.Hash, dir string, small []string) error {
	for _, name := range small {
		for _, n := range []string{name, name + ".gz"} {
			if err := hashFile(h, filepath.Join(dir, n)); err != nil {
				return err
			}
		}
	}
	weights, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if err != nil {
		return err
	}
	sort.Strings(weights)
	for _, w := range weights {
		if err := sampleFile(h, w); err != nil {
			return err
		}
	}
	return nil
}

// sampleFile writes path's name, size and identityBlocks blocks of it
// (all of a small file) into h.
func sampleFile(h hash.Hash, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	fmt.Fprintf(h, "weights %q %d\n", filepath.Base(path), size)
	if size <= identityBlocks*identityBlockSize {
		_, err := io.Copy(h, f)
		return err
	}
	buf := make([]byte, identityBlockSize)
	step := (size - identityBlockSize) / (identityBlocks - 1)
	for i := range int64(identityBlocks) {
		if _, err := f.ReadAt(buf, i*step); err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		h.Write(buf)
	}
	return nil
}
