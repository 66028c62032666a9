package main

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/goeval/goeval/models/tokenizer"
)

// benchTokenize implements `goeval bench tokenize`: encode throughput in
// MB/s, single-thread and all-cores batch, on a JSON-lines corpus.
func benchTokenize(args []string) error {
	fs := flag.NewFlagSet("bench tokenize", flag.ContinueOnError)
	tokPath := fs.String("tokenizer", "", "tokenizer directory or tokenizer.json file")
	corpus := fs.String("corpus", "models/tokenizer/testdata/corpus.jsonl.gz", "JSON lines of {\"text\": str} (optionally .gz)")
	minTime := fs.Duration("time", 3*time.Second, "minimum measuring time per mode")
	threads := fs.Int("threads", runtime.NumCPU(), "goroutines for the batch mode")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return nil
		}
		return badInput(err)
	}
	if *tokPath == "" {
		return badInputf("--tokenizer is required")
	}
	tok, err := tokenizer.Load(*tokPath)
	if err != nil {
		return err
	}
	texts, err := readCorpus(*corpus)
	if err != nil {
		return err
	}
	size := 0
	for _, t := range texts {
		size += len(t)
	}
	for _, t := range texts { // warm the word cache, as a long run would
		tok.Encode(t, false)
	}
	single := measure(*minTime, size, func() {
		for _, t := range texts {
			tok.Encode(t, false)
		}
	})
	batch := measure(*minTime, size, func() { encodeParallel(tok, texts, *threads) })
	fmt.Printf("tokenizer=%s texts=%d bytes=%d single_thread_MBps=%.2f batch_MBps=%.2f threads=%d\n",
		*tokPath, len(texts), size, single, batch, *threads)
	return nil
}

// measure runs f until minTime has passed and returns MB/s.
func measure(minTime time.Duration, size int, f func()) float64 {
	start := time.Now()
	n := 0
	for time.Since(start) < minTime || n == 0 {
		f()
		n++
	}
	return float64(size*n) / 1e6 / time.Since(start).Seconds()
}

func encodeParallel(tok *tokenizer.Tokenizer, texts []string, threads int) {
	var wg sync.WaitGroup
	next := make(chan int, len(texts))
	for i := range texts {
		next <- i
	}
	close(next)
	for range max(threads, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				tok.Encode(texts[i], false)
			}
		}()
	}
	wg.Wait()
}

// readCorpus reads the "text" of every JSON line of name.
func readCorpus(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, badInput(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, badInputf("%s: %v", name, err)
		}
		r = zr
	}
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<28)
	for line := 1; sc.Scan(); line++ {
		var v struct {
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil || v.Text == nil {
			return nil, badInputf("%s line %d: want {\"text\": str}", name, line)
		}
		out = append(out, *v.Text)
	}
	if err := sc.Err(); err != nil {
		return nil, badInputf("%s: %v", name, err)
	}
	return out, nil
}
