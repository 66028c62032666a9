package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// ServeLoadOptions configure ServeLoad.
type ServeLoadOptions struct {
	URL       string        // server root, e.g. http://127.0.0.1:8000
	Clients   int           // concurrent clients, each one request at a time
	Duration  time.Duration // how long clients start new requests
	MaxTokens int           // generated tokens per request (greedy)
	// Mix, when set, replaces MaxTokens: client c's requests generate
	// Mix[c mod len(Mix)] tokens, so that short and long requests share the
	// server; the report adds each length's median latency.
	Mix []int
}

// ServeReport is what ServeLoad measured.
type ServeReport struct {
	Model                     string
	Clients                   int
	Wall                      time.Duration
	Requests, OK              int
	Errors                    int           // transport errors and non-200 answers
	Mismatched                int           // a 200 whose text is not its own prompt's continuation
	ByStatus                  map[int]int   // non-200 statuses
	FirstError                string        // the first error or mismatch, for the report
	CompletionTokens          int           // summed usage.completion_tokens of OK answers
	P50, P90, P99, MaxLatency time.Duration // of OK answers
	// P50ByTokens is, with ServeLoadOptions.Mix, each length's median
	// latency, in Mix's order.
	P50ByTokens []TokensLatency
}

// TokensLatency is one request length's median latency.
type TokensLatency struct {
	MaxTokens int
	P50       time.Duration
}

// ServeLoad runs Clients clients against an OpenAI-compatible server for
// Duration: each sends greedy completions with echo, every prompt unique
// ("client c request i:"), and checks that its answer starts with its own
// prompt — a lost, swapped or duplicated answer shows as an error or a
// mismatch. Latency is per request, send to last byte.
func ServeLoad(ctx context.Context, o ServeLoadOptions) (*ServeReport, error) {
	mix := o.Mix
	if len(mix) == 0 {
		mix = []int{o.MaxTokens}
	}
	if o.Clients < 1 || o.Duration <= 0 || slices.Min(mix) < 1 {
		return nil, fmt.Errorf("bench serve: clients, duration and max tokens must be positive")
	}
	base := strings.TrimRight(o.URL, "/")
	model, err := servedModel(ctx, base)
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: o.Clients}}
	r := &ServeReport{Model: model, Clients: o.Clients, ByStatus: map[int]int{}}
	var mu sync.Mutex
	lat := map[int][]time.Duration{} // by max tokens
	start := time.Now()
	deadline := start.Add(o.Duration)
	var wg sync.WaitGroup
	for c := range o.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := mix[c%len(mix)]
			for i := 0; time.Now().Before(deadline) && ctx.Err() == nil; i++ {
				prompt := fmt.Sprintf("client %d request %d:", c, i)
				t0 := time.Now()
				status, text, tokens, err := complete(ctx, client, base, model, prompt, n)
				d := time.Since(t0)
				mu.Lock()
				if r.record(status, text, tokens, err, prompt) {
					lat[n] = append(lat[n], d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	r.Wall = time.Since(start)
	var all []time.Duration
	seen := map[int]bool{}
	for _, n := range mix {
		if seen[n] {
			continue
		}
		seen[n] = true
		l := lat[n]
		slices.Sort(l)
		all = append(all, l...)
		if len(o.Mix) > 0 && len(l) > 0 {
			r.P50ByTokens = append(r.P50ByTokens, TokensLatency{n, l[len(l)/2]})
		}
	}
	slices.Sort(all)
	if n := len(all); n > 0 {
		r.P50, r.P90, r.P99, r.MaxLatency = all[n*50/100], all[n*90/100], all[min(n-1, n*99/100)], all[n-1]
	}
	return r, nil
}

// record adds one request's outcome (under the caller's lock) and reports
// whether it was OK.
func (r *ServeReport) record(status int, text string, tokens int, err error, prompt string) bool {
	r.Requests++
	switch {
	case err != nil || status != http.StatusOK:
		r.Errors++
		if status != 0 {
			r.ByStatus[status]++
		}
		if r.FirstError == "" {
			r.FirstError = fmt.Sprintf("%q: status %d, %v %s", prompt, status, err, text)
		}
	case !strings.HasPrefix(text, prompt):
		r.Mismatched++
		if r.FirstError == "" {
			r.FirstError = fmt.Sprintf("%q answered with %q", prompt, text)
		}
	default:
		r.OK++
		r.CompletionTokens += tokens
		return true
	}
	return false
}

// serverWait is how long servedModel waits for a server that is starting.
var serverWait = 30 * time.Second

// servedModel asks /v1/models for the model id, retrying while nothing
// listens yet (a server started just before), for up to serverWait.
func servedModel(ctx context.Context, base string) (string, error) {
	var resp *http.Response
	var err error
	for start := time.Now(); ; time.Sleep(100 * time.Millisecond) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
		resp, err = http.DefaultClient.Do(req)
		if err == nil || ctx.Err() != nil || time.Since(start) > serverWait {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("bench serve: %s/v1/models: %w (is goeval serve running there?)", base, err)
	}
	defer resp.Body.Close()
	var list struct{ Data []struct{ ID string } }
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Data) == 0 {
		return "", fmt.Errorf("bench serve: %s/v1/models answered %d without a model list", base, resp.StatusCode)
	}
	return list.Data[0].ID, nil
}

// complete sends one greedy completion with echo and returns the status,
// the choice's text (or the error body) and usage.completion_tokens.
func complete(ctx context.Context, c *http.Client, base, model, prompt string, maxTokens int) (int, string, int, error) {
	body, _ := json.Marshal(map[string]any{"model": model, "prompt": prompt, "max_tokens": maxTokens, "temperature": 0, "echo": true})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp.StatusCode, string(data), 0, err
	}
	var out struct {
		Choices []struct{ Text string }
		Usage   struct {
			CompletionTokens int `json:"completion_tokens"`
		}
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Choices) != 1 {
		return resp.StatusCode, string(data), 0, fmt.Errorf("not one completion choice")
	}
	return resp.StatusCode, out.Choices[0].Text, out.Usage.CompletionTokens, nil
}

// WriteText prints the report's line.
func (r *ServeReport) WriteText(w io.Writer) error {
	secs := r.Wall.Seconds()
	_, err := fmt.Fprintf(w, "bench serve: model=%s clients=%d wall=%.1fs requests=%d ok=%d errors=%d mismatched=%d "+
		"req/s=%.1f completion_tok/s=%.1f p50_ms=%.0f p90_ms=%.0f p99_ms=%.0f max_ms=%.0f\n",
		r.Model, r.Clients, secs, r.Requests, r.OK, r.Errors, r.Mismatched, float64(r.OK)/secs,
		float64(r.CompletionTokens)/secs, ms(r.P50), ms(r.P90), ms(r.P99), ms(r.MaxLatency))
	if err == nil && len(r.P50ByTokens) > 0 {
		parts := make([]string, len(r.P50ByTokens))
		for i, t := range r.P50ByTokens {
			parts[i] = fmt.Sprintf("%d:%.0f", t.MaxTokens, ms(t.P50))
		}
		_, err = fmt.Fprintf(w, "bench serve: p50_ms by max_tokens %s\n", strings.Join(parts, " "))
	}
	if err == nil && r.FirstError != "" {
		_, err = fmt.Fprintf(w, "bench serve: first problem: %s (statuses %v)\n", r.FirstError, r.ByStatus)
	}
	return err
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
