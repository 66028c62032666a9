package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// loadServer answers /v1/models and completions echoing the prompt; every
// failEvery-th completion gets a 500 and every swapEvery-th another text.
func loadServer(failEvery, swapEvery int64) *httptest.Server {
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"object":"list","data":[{"id":"m"}]}`))
	})
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt    string
			MaxTokens int `json:"max_tokens"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		time.Sleep(time.Duration(req.MaxTokens) * time.Millisecond) // a token a millisecond
		k := n.Add(1)
		switch {
		case failEvery > 0 && k%failEvery == 0:
			http.Error(w, `{"error":{"message":"boom"}}`, 500)
			return
		case swapEvery > 0 && k%swapEvery == 0:
			req.Prompt = "someone else's"
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"text": req.Prompt + " ok"}},
			"usage": map[string]int{"completion_tokens": 2}})
	})
	return httptest.NewServer(mux)
}

func TestServeLoad(t *testing.T) {
	for _, c := range []struct {
		name                   string
		fail, swap             int64
		wantErrs, wantMismatch bool
	}{
		{"clean", 0, 0, false, false},
		{"errors counted", 5, 0, true, false},
		{"swapped answers caught", 0, 7, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := loadServer(c.fail, c.swap)
			defer ts.Close()
			r, err := ServeLoad(context.Background(), ServeLoadOptions{URL: ts.URL, Clients: 8, Duration: 200 * time.Millisecond, MaxTokens: 2})
			if err != nil {
				t.Fatal(err)
			}
			if r.Requests < 8 || r.OK+r.Errors+r.Mismatched != r.Requests || r.Model != "m" {
				t.Fatalf("report %+v", r)
			}
			if (r.Errors > 0) != c.wantErrs || (r.Mismatched > 0) != c.wantMismatch {
				t.Errorf("errors %d mismatched %d, want errors %v mismatches %v", r.Errors, r.Mismatched, c.wantErrs, c.wantMismatch)
			}
			if r.CompletionTokens != 2*r.OK || r.P50 <= 0 || r.P99 < r.P50 {
				t.Errorf("tokens %d for %d ok, p50 %v p99 %v", r.CompletionTokens, r.OK, r.P50, r.P99)
			}
			var b strings.Builder
			r.WriteText(&b)
			if !strings.Contains(b.String(), "p99_ms=") || (c.wantErrs || c.wantMismatch) != strings.Contains(b.String(), "first problem") {
				t.Errorf("report text %q", b.String())
			}
		})
	}
}

// TestServeLoadMix: with lengths mixed, clients cycle through them and the
// report gives each length's median latency, in the mix's order: the
// 40-token requests (40 ms here) are the slower.
func TestServeLoadMix(t *testing.T) {
	ts := loadServer(0, 0)
	defer ts.Close()
	r, err := ServeLoad(context.Background(), ServeLoadOptions{URL: ts.URL, Clients: 4, Duration: 300 * time.Millisecond, Mix: []int{1, 40, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.P50ByTokens) != 2 || r.P50ByTokens[0].MaxTokens != 1 || r.P50ByTokens[1].MaxTokens != 40 ||
		r.P50ByTokens[1].P50 < 40*time.Millisecond || r.P50ByTokens[0].P50 >= r.P50ByTokens[1].P50 {
		t.Fatalf("medians by length %+v", r.P50ByTokens)
	}
	var b strings.Builder
	r.WriteText(&b)
	if !strings.Contains(b.String(), "bench serve: p50_ms by max_tokens 1:") {
		t.Errorf("report text %q", b.String())
	}
}
