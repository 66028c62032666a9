package serve

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStreamJoinsToAnswer: the streamed pieces of every choice join to the
// non-streamed text of the same request (stop strings held back until they
// cannot complete, then cut), each choice ends with its finish_reason,
// usage comes when asked for, and the stream ends with [DONE].
func TestStreamJoinsToAnswer(t *testing.T) {
	ts, _ := start(t, &fakeLM{}, Options{}, false)
	for _, body := range []map[string]any{
		{"prompt": "ab", "max_tokens": 8, "temperature": 0},
		{"prompt": "ab", "max_tokens": 12, "temperature": 0, "stop": []string{"ghi", "xyz"}},
		{"prompt": []string{"ab", "mn"}, "max_tokens": 5, "temperature": 0.5, "n": 2, "seed": 7, "stop": "q"},
		{"prompt": "\x1d", "max_tokens": 9, "temperature": 0, "echo": true},
	} {
		t.Run(fmt.Sprint(body), func(t *testing.T) {
			body["model"] = testModel
			_, whole := post(t, ts.URL+"/v1/completions", body)
			want := choices(t, whole)
			body["stream"] = true
			body["stream_options"] = map[string]any{"include_usage": true}
			chunks, done := events(t, ts.URL+"/v1/completions", body)
			if !done {
				t.Fatal("stream did not end with [DONE]")
			}
			got := make([]string, len(want))
			finish := make([]any, len(want))
			var usage any
			for _, c := range chunks {
				if u, ok := c["usage"]; ok {
					usage = u
					continue
				}
				for _, ch := range choices(t, c) {
					i := int(ch["index"].(float64))
					got[i] += ch["text"].(string)
					if ch["finish_reason"] != nil {
						finish[i] = ch["finish_reason"]
					}
				}
			}
			for i, w := range want {
				if got[i] != w["text"] || finish[i] != w["finish_reason"] {
					t.Errorf("choice %d: streamed %q (%v), whole %q (%v)", i, got[i], finish[i], w["text"], w["finish_reason"])
				}
			}
			if fmt.Sprint(usage) != fmt.Sprint(whole["usage"]) {
				t.Errorf("usage %v, whole %v", usage, whole["usage"])
			}
		})
	}
}

func TestSettled(t *testing.T) {
	for _, c := range []struct {
		text string
		hold int
		want string
	}{
		{"hello", 0, "hello"},
		{"hello", 2, "hel"},
		{"hi", 5, ""},
		{"ab\xe2\x82", 0, "ab"}, // an incomplete character waits
		{"abc€", 1, "abc"},      // never cut inside a character
		{"ok\uFFFD", 0, "ok"},   // a replacement character may still become one
	} {
		if got := settled(c.text, c.hold); got != c.want {
			t.Errorf("settled(%q, %d) = %q, want %q", c.text, c.hold, got, c.want)
		}
	}
}

func TestChat(t *testing.T) {
	f := &fakeLM{}
	ts, _ := start(t, f, Options{}, true)
	body := map[string]any{"model": testModel, "messages": []map[string]any{{"role": "system", "content": "s"},
		{"role": "user", "content": []map[string]any{{"type": "text", "text": "ab"}}}}, "max_tokens": 3, "temperature": 0,
		"logprobs": true, "top_logprobs": 1}
	code, out := post(t, ts.URL+"/v1/chat/completions", body)
	if code != 200 {
		t.Fatalf("status %d: %v", code, out)
	}
	c := choices(t, out)[0]
	msg := c["message"].(map[string]any)
	// The template ends with "<assistant>": the fake counts up from '>'.
	if msg["role"] != "assistant" || msg["content"] != "?@A" || c["finish_reason"] != "length" {
		t.Errorf("chat answer %v", c)
	}
	content := c["logprobs"].(map[string]any)["content"].([]any)
	if len(content) != 3 || content[0].(map[string]any)["logprob"] != -0.5 {
		t.Errorf("chat logprobs %v", content)
	}
	delete(body, "logprobs")
	delete(body, "top_logprobs")
	body["stream"] = true
	chunks, done := events(t, ts.URL+"/v1/chat/completions", body)
	var text string
	var role, finish any
	for _, ch := range chunks {
		for _, c := range choices(t, ch) {
			d := c["delta"].(map[string]any)
			if r, ok := d["role"]; ok {
				role = r
			}
			if s, ok := d["content"].(string); ok {
				text += s
			}
			if c["finish_reason"] != nil {
				finish = c["finish_reason"]
			}
		}
	}
	if !done || role != "assistant" || text != "?@A" || finish != "length" {
		t.Errorf("chat stream: done %v role %v text %q finish %v", done, role, text, finish)
	}
	ts2, _ := start(t, f, Options{}, false)
	if code, out := post(t, ts2.URL+"/v1/chat/completions", body); code != 400 || !strings.Contains(fmt.Sprint(out), "chat template") {
		t.Errorf("no chat template: %d %v", code, out)
	}
}

// TestBatchingAcrossClients: concurrent clients share model calls, and
// every client gets its own answer (none lost, none swapped).
func TestBatchingAcrossClients(t *testing.T) {
	f := &fakeLM{}
	ts, s := start(t, f, Options{BatchWindow: 100 * time.Millisecond}, false)
	const clients = 16
	var wg sync.WaitGroup
	got := make([]string, clients)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prompt := string(rune('A' + i))
			_, out := post(t, ts.URL+"/v1/completions", map[string]any{"model": testModel, "prompt": prompt, "max_tokens": 2, "temperature": 0})
			got[i] = choices(t, out)[0]["text"].(string)
		}()
	}
	wg.Wait()
	for i, g := range got {
		if want := string([]rune{rune('A' + i + 1), rune('A' + i + 2)}); g != want {
			t.Errorf("client %d got %q, want %q", i, g, want)
		}
	}
	if st := s.Stats(); st.Requests != clients || f.maxCall() < 2 {
		t.Errorf("stats %+v, largest call %d: want %d requests sharing calls", st, f.maxCall(), clients)
	}
}

// TestQueueFull: with the model busy and the queue full, a request gets
// 503 with Retry-After at once; the others are answered once it frees.
func TestQueueFull(t *testing.T) {
	f := &fakeLM{block: make(chan struct{})}
	ts, _ := start(t, f, Options{MaxQueue: 1, BatchWindow: -1}, false)
	body := map[string]any{"model": testModel, "prompt": "a", "max_tokens": 1, "temperature": 0.5}
	codes := make(chan int, 2)
	for range 2 { // one runs (blocked), one waits in the queue
		go func() { code, _ := post(t, ts.URL+"/v1/completions", body); codes <- code }()
		time.Sleep(100 * time.Millisecond)
	}
	resp, err := http.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(`{"model":"fake","prompt":"a","max_tokens":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("full queue: %d (Retry-After %q), want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	close(f.block)
	for range 2 {
		if c := <-codes; c != 200 {
			t.Errorf("queued request: %d, want 200", c)
		}
	}
}

// TestBadRequests: each mistake is one 400 (404 for another model) naming
// the parameter, before any model call.
func TestBadRequests(t *testing.T) {
	f := &fakeLM{}
	ts, s := start(t, f, Options{}, false)
	for _, c := range []struct {
		body  string
		code  int
		param string
	}{
		{`{"model":"fake","prompt":"a","foo":1}`, 400, "foo"},
		{`{"model":"fake","prompt":"a","temperature":3}`, 400, "temperature"},
		{`{"model":"fake","prompt":"a","top_p":0}`, 400, "top_p"},
		{`{"model":"fake","prompt":"a","logprobs":5}`, 400, "logprobs"},
		{`{"model":"fake","prompt":"a","max_tokens":-1}`, 400, "max_tokens"},
		{`{"model":"fake","prompt":"a","max_tokens":100}`, 400, "max_tokens"},
		{`{"model":"fake","prompt":[]}`, 400, "prompt"},
		{`{"model":"fake","prompt":[[]]}`, 400, "prompt"},
		{`{"model":"fake","prompt":[9999]}`, 400, "prompt"},
		{`{"model":"fake","prompt":{"a":1}}`, 400, "prompt"},
		{`{"model":"fake"}`, 400, "prompt"},
		{`{"model":"fake","prompt":"a","n":0}`, 400, "n"},
		{`{"model":"fake","prompt":"a","stop":[1]}`, 400, "stop"},
		{`{"model":"fake","prompt":"a","presence_penalty":1}`, 400, "presence_penalty"},
		{`{"model":"fake","prompt":"a","stream":true,"logprobs":1}`, 400, "logprobs"},
		{`{"prompt":"a"}`, 400, "model"},
		{`{"model":"other","prompt":"a"}`, 404, "model"},
		{`not json`, 400, ""},
	} {
		code, out := post(t, ts.URL+"/v1/completions", c.body)
		e, _ := out["error"].(map[string]any)
		if code != c.code || e == nil || e["message"] == "" || (c.param != "" && e["param"] != c.param) {
			t.Errorf("%s: %d %v, want %d naming %q", c.body, code, out, c.code, c.param)
		}
	}
	if st := s.Stats(); st.Calls != 0 {
		t.Errorf("bad requests reached the model: %+v", st)
	}
}

// TestClose: after Close new requests get 503; nothing queued is lost.
func TestClose(t *testing.T) {
	f := &fakeLM{}
	ts, s := start(t, f, Options{}, false)
	if code, _ := post(t, ts.URL+"/v1/completions", map[string]any{"model": testModel, "prompt": "a", "max_tokens": 1}); code != 200 {
		t.Fatalf("before Close: %d", code)
	}
	s.Close()
	if code, out := post(t, ts.URL+"/v1/completions", map[string]any{"model": testModel, "prompt": "a", "max_tokens": 1}); code != 503 {
		t.Errorf("after Close: %d %v, want 503", code, out)
	}
}

// TestEarlyAnswers: a job is answered as soon as the LM reports its
// requests final (lm.DoneFunc), not when the call carrying it returns:
// two clients sharing a call both get their answers, streamed and not,
// while the call is held open.
func TestEarlyAnswers(t *testing.T) {
	f := &fakeLM{hold: make(chan struct{})}
	ts, _ := start(t, f, Options{BatchWindow: 200 * time.Millisecond}, false)
	release := sync.OnceFunc(func() { close(f.hold) })
	t.Cleanup(release) // before the server closes: its worker is in the call
	got := make(chan string, 2)
	go func() {
		_, out := post(t, ts.URL+"/v1/completions", map[string]any{"model": testModel, "prompt": "A", "max_tokens": 2, "temperature": 0})
		got <- choices(t, out)[0]["text"].(string)
	}()
	go func() {
		chunks, _ := events(t, ts.URL+"/v1/completions", map[string]any{"model": testModel, "prompt": "a", "max_tokens": 3, "temperature": 0, "stream": true})
		var text string
		for _, c := range chunks {
			text += choices(t, c)[0]["text"].(string)
		}
		got <- text
	}()
	var texts []string
	for range 2 {
		select {
		case g := <-got:
			texts = append(texts, g)
		case <-time.After(20 * time.Second):
			t.Fatal("a client's answer waited for its call to return")
		}
	}
	release()
	slices.Sort(texts)
	if want := []string{"BC", "bcd"}; !slices.Equal(texts, want) || f.maxCall() != 2 {
		t.Errorf("answers %q, largest call %d; want %q from one call", texts, f.maxCall(), want)
	}
}

// TestFeedRunningCall: a job arriving while a generation call runs joins
// it (lm.WithFeed) and is answered before the call ends; a job that does
// not fit the running call (here: more than 10 tokens) is set aside and
// runs, in order, in the next call once the running one returns.
func TestFeedRunningCall(t *testing.T) {
	f := &fakeLM{feeding: make(chan struct{})}
	ts, s := start(t, f, Options{BatchWindow: -1}, false)
	stop := sync.OnceFunc(func() { close(f.feeding) })
	t.Cleanup(stop) // before the server closes: its worker is in the call
	ask := func(prompt string, tokens int) <-chan string {
		got := make(chan string, 1)
		go func() {
			_, out := post(t, ts.URL+"/v1/completions", map[string]any{"model": testModel, "prompt": prompt, "max_tokens": tokens, "temperature": 0})
			got <- choices(t, out)[0]["text"].(string)
		}()
		return got
	}
	wait := func(got <-chan string, want, what string) {
		t.Helper()
		select {
		case g := <-got:
			if g != want {
				t.Errorf("%s: %q, want %q", what, g, want)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: no answer while the call runs", what)
		}
	}
	wait(ask("A", 2), "BC", "the call's own job")
	wait(ask("a", 3), "bcd", "a job fed into the running call")
	long := ask("0", 12)
	select {
	case g := <-long:
		t.Fatalf("a job that does not fit the running call was answered (%q) before it returned", g)
	case <-time.After(300 * time.Millisecond):
	}
	stop()
	wait(long, "123456789:;<", "the job set aside, after the call")
	if st := s.Stats(); st.Calls != 2 || st.Fed != 1 || st.Jobs != 3 || st.Requests != 3 {
		t.Errorf("stats %+v: want 2 calls, 3 jobs and requests, 1 fed", st)
	}
}
