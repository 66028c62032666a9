package bench

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/internal/jsonl"
	"github.com/goeval/goeval/models/tokenizer"
)

// TokenizeOptions configure [Tokenize].
type TokenizeOptions struct {
	// Tokenizer is a tokenizer directory or tokenizer.json file.
	Tokenizer string
	// Corpus is a file of JSON lines {"text": str}, gzip-compressed when
	// its name ends in .gz.
	Corpus string
	// MinTime is the minimum measuring time per mode.
	MinTime time.Duration
	// Threads is the number of goroutines of the batch mode (< 1 means 1).
	Threads int
}

// TokenizeReport is the result of [Tokenize].
type TokenizeReport struct {
	Tokenizer        string  // as given in the options
	Texts, Bytes     int     // size of the corpus
	SingleThreadMBps float64 // encode throughput on one goroutine, MB/s
	BatchMBps        float64 // encode throughput on Threads goroutines, MB/s
	Threads          int
}

// Tokenize measures encode throughput in MB/s on a corpus, single-thread
// and batch (Threads goroutines), after one warm-up pass over the corpus.
func Tokenize(ctx context.Context, o TokenizeOptions) (*TokenizeReport, error) {
	if o.Tokenizer == "" {
		return nil, errs.BadInputf("bench: no tokenizer given")
	}
	tok, err := tokenizer.Load(o.Tokenizer)
	if err != nil {
		return nil, err
	}
	texts, err := ReadCorpus(o.Corpus)
	if err != nil {
		return nil, err
	}
	r := &TokenizeReport{Tokenizer: o.Tokenizer, Texts: len(texts), Threads: o.Threads}
	for _, t := range texts {
		r.Bytes += len(t)
	}
	encodeAll := func() {
		for _, t := range texts {
			tok.Encode(t, false)
		}
	}
	encodeAll() // warm the word cache, as a long run would
	if r.SingleThreadMBps, err = measure(ctx, o.MinTime, r.Bytes, encodeAll); err != nil {
		return nil, err
	}
	r.BatchMBps, err = measure(ctx, o.MinTime, r.Bytes, func() { encodeParallel(tok, texts, o.Threads) })
	if err != nil {
		return nil, err
	}
	return r, nil
}

// WriteText writes the report as the line `goeval bench tokenize` prints.
func (r *TokenizeReport) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "tokenizer=%s texts=%d bytes=%d single_thread_MBps=%.2f batch_MBps=%.2f threads=%d\n",
		r.Tokenizer, r.Texts, r.Bytes, r.SingleThreadMBps, r.BatchMBps, r.Threads)
	return err
}

// measure runs f until minTime has passed (at least once) and returns MB/s.
func measure(ctx context.Context, minTime time.Duration, size int, f func()) (float64, error) {
	start := time.Now()
	n := 0
	for time.Since(start) < minTime || n == 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		f()
		n++
	}
	return float64(size*n) / 1e6 / time.Since(start).Seconds(), nil
}

// encodeParallel encodes every text once on threads goroutines.
func encodeParallel(tok *tokenizer.Tokenizer, texts []string, threads int) {
	var wg sync.WaitGroup
	next := make(chan int, len(texts))
	for i := range texts {
		next <- i
	}
	close(next)
	for range max(threads, 1) {
		wg.Go(func() {
			for i := range next {
				tok.Encode(texts[i], false)
			}
		})
	}
	wg.Wait()
}

// ReadCorpus reads the "text" of every JSON line of the file name,
// gunzipping it when the name ends in .gz. Unreadable or malformed files
// are bad input.
func ReadCorpus(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, errs.BadInput(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, errs.BadInputf("%s: %v", name, err)
		}
		r = zr
	}
	var out []string
	err = jsonl.Lines(r, func(line int, b []byte) error {
		var v struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(b, &v); err != nil || v.Text == nil {
			return errs.BadInputf("%s line %d: want {\"text\": str}", name, line)
		}
		out = append(out, *v.Text)
		return nil
	})
	if err != nil && !errs.IsBadInput(err) {
		return nil, errs.BadInputf("%s: %v", name, err)
	}
	return out, err
}
