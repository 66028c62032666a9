package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/goeval/goeval/models"
)

// fingerprintVersion heads the hashed text; change it when what the
// fingerprint covers changes.
const fingerprintVersion = "goeval-engine-fingerprint-v1"

// fingerprintFiles are the checkpoint's small files that can change a
// result; their bytes are hashed (each may also be gzipped, as the
// tokenizer reads them).
var fingerprintFiles = []string{"config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
	"special_tokens_map.json", "chat_template.jinja", "model.safetensors.index.json"}

// Fingerprint identifies everything about e that can change a result, as
// a hex SHA-256 (a request cache's model key): the bytes of config.json and
// the tokenizer files, every weight file's name, size and modification
// time (the weights themselves are not read), each adapter's
// adapter_config.json bytes and weight files' name, size and time, the
// adapter mode and the adapter this engine applies, the resolved dtype
// (Options.DType "auto" counts as what it resolved to) and, when the
// backend computes in float32 on weights of another dtype, that, the
// backend spec, max length and the prefix token. The folder's path is not
// part of it (a moved checkpoint keeps its fingerprint); the batch size is
// not either (results do not depend on it). An Options.Tokenizer given
// instead of the folder's tokenizer.json is not covered.
func (e *Engine) Fingerprint() (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\ndtype %s\nbackend %q\nmax_length %d\nprefix %d\n", fingerprintVersion, e.prec.weights, e.spec, e.maxLen, e.prefix)
	if e.prec.compute != e.prec.weights {
		fmt.Fprintf(h, "compute %s\n", e.prec.compute)
	}
	if e.lpRound != nil {
		fmt.Fprintf(h, "softmax %s\n", e.softmax)
	}
	if err := e.hashModelAndAdapters(h, "fingerprint", statWeights); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashModelAndAdapters writes into h the model folder's and then each
// adapter's hash (hashModelDir with weight for the weight files), with
// load_in_4bit's settings when set and the adapter mode; what names the
// hash in errors ("fingerprint", "identity").
func (e *Engine) hashModelAndAdapters(h hash.Hash, what string, weight func(hash.Hash, string) error) error {
	if err := hashModelDir(h, e.dir, fingerprintFiles, weight); err != nil {
		return fmt.Errorf("%s of %s: %w", what, e.dir, err)
	}
	if q := e.opts.LoadIn4Bit; q != nil { // quantized at load: other weights than the files'
		fmt.Fprintf(h, "load_in_4bit %s\n", q)
	}
	if q := e.opts.LoadIn8Bit; q != nil {
		fmt.Fprintf(h, "load_in_8bit %s, llm_int8_skip_modules %q\n", q, q.SkipModules)
	}
	lo := models.LoadOptions{Dequantize8Bit: e.opts.Dequantize8Bit, LoadIn8Bit: e.opts.LoadIn8Bit, Adapters: e.opts.Adapters, AdapterMode: e.opts.AdapterMode}
	if c := models.Int8Compute(e.cfg, lo); c != "" { // LLM.int8 and the dequantized model score differently
		fmt.Fprintf(h, "8-bit %s\n", c)
	}
	if len(e.opts.Adapters) > 0 {
		mode, _ := models.ParseAdapterMode(e.opts.AdapterMode)
		fmt.Fprintf(h, "adapter mode %s, applied %d of %d\n", mode, e.adapter, len(e.opts.Adapters))
	}
	for i, a := range e.opts.Adapters {
		fmt.Fprintf(h, "adapter %d\n", i)
		if err := hashModelDir(h, a, []string{models.AdapterConfigFile}, weight); err != nil {
			return fmt.Errorf("%s of adapter %s: %w", what, a, err)
		}
	}
	return nil
}

// hashModelDir writes into h the bytes of dir's small files (absent ones
// as such), then each of its weight files, in name order, through weight.
func hashModelDir(h hash.Hash, dir string, small []string, weight func(hash.Hash, string) error) error {
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
		if err := weight(h, w); err != nil {
			return err
		}
	}
	return nil
}

// statWeights writes a weight file's name, size and modification time.
func statWeights(h hash.Hash, w string) error {
	st, err := os.Stat(w)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "weights %q %d %d\n", filepath.Base(w), st.Size(), st.ModTime().UnixNano())
	return nil
}

// hashFile writes path's base name, length and bytes into h, or that it is
// absent.
func hashFile(h hash.Hash, path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(h, "file %q absent\n", filepath.Base(path))
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %q %d\n", filepath.Base(path), st.Size())
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}
