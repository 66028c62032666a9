package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const testModel = "fake"

func start(t *testing.T, f *fakeLM, o Options, chat bool) (*httptest.Server, *Server) {
	t.Helper()
	m := Model{Name: testModel, LM: f, Scorer: f, Tok: fakeTok{}, EOS: []int32{fakeEOS}, MaxLength: 64}
	if chat {
		m.Chat = f
	}
	s, err := New(m, o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts, s
}

// post sends body (a JSON value or a raw string) and decodes the answer.
func post(t *testing.T, url string, body any) (int, map[string]any) {
	t.Helper()
	raw, ok := body.(string)
	if !ok {
		b, _ := json.Marshal(body)
		raw = string(b)
	}
	resp, err := http.Post(url, "application/json", strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	data, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %d, not JSON: %s", url, resp.StatusCode, data)
	}
	return resp.StatusCode, out
}

// events reads a server-sent event stream: each data payload, and whether
// it ended with [DONE].
func events(t *testing.T, url string, body any) (chunks []map[string]any, done bool) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream: status %d, %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), data)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		switch {
		case !ok:
		case line == "[DONE]":
			done = true
		default:
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("event %q: %v", line, err)
			}
			chunks = append(chunks, m)
		}
	}
	return chunks, done
}

func choices(t *testing.T, out map[string]any) []map[string]any {
	t.Helper()
	cs, ok := out["choices"].([]any)
	if !ok {
		t.Fatalf("no choices in %v", out)
	}
	var res []map[string]any
	for _, c := range cs {
		res = append(res, c.(map[string]any))
	}
	return res
}

func TestModels(t *testing.T) {
	ts, _ := start(t, &fakeLM{}, Options{}, false)
	resp, err := http.Get(ts.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Object string
		Data   []struct{ ID, Object string }
	}
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if list.Object != "list" || len(list.Data) != 1 || list.Data[0].ID != testModel || list.Data[0].Object != "model" {
		t.Fatalf("/v1/models = %+v", list)
	}
	for path, want := range map[string]int{"/v1/models/fake": 200, "/v1/models/other": 404, "/v1/nothing": 404} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// TestEchoLogprobs: lm-eval's local-completions log-likelihood request
// (token-id prompts, echo, logprobs 1, max_tokens 1, temperature 0): one
// choice per prompt in order, the prompt's log-probs (the first null) and
// the greedy next token, each top_logprobs holding the argmax — and one
// scoring call, no generation.
func TestEchoLogprobs(t *testing.T) {
	f := &fakeLM{}
	ts, _ := start(t, f, Options{}, false)
	prompts := [][]int32{{10, 11, 12, 20}, {65, 66}, {1, 5, 9}}
	code, out := post(t, ts.URL+"/v1/completions", map[string]any{"model": testModel, "prompt": prompts,
		"max_tokens": 1, "temperature": 0, "logprobs": 1, "echo": true, "seed": 1234})
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	cs := choices(t, out)
	if len(cs) != len(prompts) {
		t.Fatalf("%d choices for %d prompts", len(cs), len(prompts))
	}
	for i, c := range cs {
		p := prompts[i]
		if c["index"].(float64) != float64(i) {
			t.Errorf("choice %d has index %v", i, c["index"])
		}
		lp := c["logprobs"].(map[string]any)
		lps, tops, toks := lp["token_logprobs"].([]any), lp["top_logprobs"].([]any), lp["tokens"].([]any)
		if len(lps) != len(p)+1 || lps[0] != nil || tops[0] != nil || len(toks) != len(p)+1 {
			t.Fatalf("choice %d: %d token log-probs for %d prompt tokens + 1: %v", i, len(lps), len(p), lp)
		}
		for k := 1; k < len(p); k++ {
			if want := fakeLP(p[k-1], p[k]); lps[k].(float64) != want {
				t.Errorf("choice %d token %d: log-prob %v, want %v", i, k, lps[k], want)
			}
			top := tops[k].(map[string]any)
			if v, ok := top[(fakeTok{}).Decode([]int32{fakeNext(p[k-1])}, false)]; !ok || v.(float64) != -0.5 {
				t.Errorf("choice %d token %d: top %v", i, k, top)
			}
		}
		next := fakeNext(p[len(p)-1])
		if got, want := c["text"].(string), (fakeTok{}).Decode(append(append([]int32{}, p...), next), false); got != want {
			t.Errorf("choice %d: text %q", i, got)
		}
		if lps[len(p)].(float64) != -0.5 {
			t.Errorf("choice %d: generated token's log-prob %v", i, lps[len(p)])
		}
	}
	if len(f.calls) != 1 || f.calls[0] != len(prompts) {
		t.Errorf("model calls %v, want one scoring call of %d", f.calls, len(prompts))
	}
}

// TestGenerate: text, stop strings, EOS, max_tokens, n with seeds, usage.
func TestGenerate(t *testing.T) {
	ts, _ := start(t, &fakeLM{}, Options{}, false)
	for _, c := range []struct {
		name   string
		body   map[string]any
		texts  []string
		finish string
	}{
		{"greedy counts up", map[string]any{"prompt": "ab", "max_tokens": 4, "temperature": 0}, []string{"cdef"}, "length"},
		{"stop string", map[string]any{"prompt": "ab", "max_tokens": 10, "temperature": 0, "stop": []string{"ef"}}, []string{"cd"}, "stop"},
		{"stop not met", map[string]any{"prompt": "q", "max_tokens": 6, "temperature": 0, "stop": "zz"}, []string{"rstuvw"}, "length"},
		{"EOS", map[string]any{"prompt": "\x1f", "max_tokens": 10, "temperature": 0}, []string{" !"}, "stop"},
		{"n with seed", map[string]any{"prompt": "a", "max_tokens": 2, "temperature": 0.7, "n": 2, "seed": 1}, []string{"ce", "dg"}, "length"},
		{"echo", map[string]any{"prompt": "ab", "max_tokens": 2, "temperature": 0, "echo": true}, []string{"abcd"}, "length"},
		{"max_tokens 0 with echo", map[string]any{"prompt": "ab", "max_tokens": 0, "echo": true}, []string{"ab"}, "length"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.body["model"] = testModel
			code, out := post(t, ts.URL+"/v1/completions", c.body)
			if code != 200 {
				t.Fatalf("status %d: %v", code, out)
			}
			cs := choices(t, out)
			if len(cs) != len(c.texts) {
				t.Fatalf("%d choices, want %d", len(cs), len(c.texts))
			}
			for i, ch := range cs {
				if ch["text"] != c.texts[i] || ch["finish_reason"] != c.finish {
					t.Errorf("choice %d: %q %v, want %q %s", i, ch["text"], ch["finish_reason"], c.texts[i], c.finish)
				}
			}
		})
	}
	_, out := post(t, ts.URL+"/v1/completions", map[string]any{"model": testModel, "prompt": "ab", "max_tokens": 3, "temperature": 0})
	if u := out["usage"].(map[string]any); u["prompt_tokens"] != 3.0 || u["completion_tokens"] != 3.0 || u["total_tokens"] != 6.0 {
		t.Errorf("usage %v, want 3 prompt (BOS + 2) and 3 completion tokens", u)
	}
}

// TestEchoWithoutLogprobs: echo alone costs one generation call, no
// scoring, and the choice's logprobs stay null.
func TestEchoWithoutLogprobs(t *testing.T) {
	f := &fakeLM{}
	ts, _ := start(t, f, Options{}, false)
	_, out := post(t, ts.URL+"/v1/completions", map[string]any{"model": testModel, "prompt": "ab", "max_tokens": 3, "temperature": 0, "echo": true})
	c := choices(t, out)[0]
	if c["text"] != "abcde" || c["logprobs"] != nil || len(f.calls) != 1 {
		t.Errorf("echo: %v, model calls %v", c, f.calls)
	}
}
