package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
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
	fmt.Fprintf(h, "%s\n%s\ndevice %s\nmax_length %d\nprefix %d\n", identityVersion, e.prec, e.device.Device, e.maxLen, e.prefix)
	if e.lpRound != nil {
		fmt.Fprintf(h, "softmax %s\n", e.softmax)
	}
	if err := e.hashModelAndAdapters(h, "identity", sampleFile); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
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
