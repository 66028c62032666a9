package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/models/tokenizer"
)

func init() {
	register("tokenize", "encode texts (JSON lines) with a Hugging Face tokenizer", runTokenize)
}

// tokenizeIn and tokenizeOut are the JSON lines of goeval tokenize.
type tokenizeIn struct {
	Text *string `json:"text"`
}

type tokenizeOut struct {
	IDs     []int32 `json:"ids"`
	Decoded string  `json:"decoded"`
}

func runTokenize(args []string) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	tokPath := fs.String("tokenizer", "", "tokenizer directory (with tokenizer.json and optionally tokenizer_config.json) or a tokenizer.json file")
	addSpecial := fs.Bool("add-special-tokens", false, "add the post-processor's special tokens (BOS etc.), like Hugging Face add_special_tokens=True")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: goeval tokenize --tokenizer DIR|FILE [--add-special-tokens] < texts.jsonl")
		fmt.Fprintln(fs.Output(), "Reads {\"text\": str} lines on stdin; writes {\"ids\": [int], \"decoded\": str} lines on stdout.")
		fs.PrintDefaults()
	}
	if help, err := parseNoArgs(fs, args); help || err != nil {
		return err
	}
	if *tokPath == "" {
		return errs.BadInputf("--tokenizer is required")
	}
	if err := checkTokenizerPath(*tokPath); err != nil {
		return err
	}
	tok, err := tokenizer.Load(*tokPath)
	if err != nil {
		return err
	}
	return tokenizeStream(tok, *addSpecial, os.Stdin, os.Stdout)
}

// tokenizeStream encodes every input line and writes one output line each.
func tokenizeStream(tok *tokenizer.Tokenizer, addSpecial bool, r io.Reader, w io.Writer) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	err := readJSONLines(r, func(line int, in tokenizeIn) error {
		if in.Text == nil {
			return errs.BadInputf("stdin line %d: missing \"text\" field", line)
		}
		ids := tok.Encode(*in.Text, addSpecial)
		if ids == nil {
			ids = []int32{}
		}
		if err := enc.Encode(tokenizeOut{IDs: ids, Decoded: tok.Decode(ids, false)}); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// checkTokenizerPath rejects a --tokenizer path that does not exist, or a
// folder without tokenizer.json, in words rather than as an os error.
func checkTokenizerPath(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return errs.BadInputf("tokenizer %s does not exist", path)
	case err != nil || !st.IsDir():
		return nil // tokenizer.Load names the problem
	}
	for _, name := range []string{"tokenizer.json", "tokenizer.json.gz"} {
		if _, err := os.Stat(filepath.Join(path, name)); err == nil {
			return nil
		}
	}
	return errs.BadInputf("%s has no tokenizer.json; --tokenizer takes a tokenizer folder or a tokenizer.json file", path)
}
