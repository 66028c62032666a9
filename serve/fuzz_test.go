package serve

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequest posts arbitrary bodies to both endpoints of a server on the
// fake model: never a panic or a hang, always an OpenAI-shaped answer — a
// JSON object with choices (200), a JSON error (4xx/503), or a stream.
func FuzzRequest(f *testing.F) {
	for _, s := range []string{
		`{"model":"fake","prompt":"ab","max_tokens":3,"temperature":0}`,
		`{"model":"fake","prompt":[[1,2,3],[4]],"max_tokens":1,"temperature":0,"echo":true,"logprobs":1}`,
		`{"model":"fake","prompt":["a","b"],"n":2,"seed":5,"temperature":0.5,"stop":["c"],"max_tokens":4}`,
		`{"model":"fake","prompt":"a","stream":true,"stream_options":{"include_usage":true},"max_tokens":2}`,
		`{"model":"fake","messages":[{"role":"user","content":"hi"}],"max_tokens":2,"logprobs":true,"top_logprobs":1}`,
		`{"model":"fake","messages":[{"role":"user","content":[{"type":"text","text":"x"}]}],"stream":true,"max_tokens":2}`,
		`{"model":"fake","prompt":[300],"max_tokens":0,"echo":true}`,
		`[]`, `null`, `{"model":1}`,
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	m := Model{Name: "fake", LM: &fakeLM{}, Scorer: &fakeLM{}, Chat: &fakeLM{}, Tok: fakeTok{}, EOS: []int32{fakeEOS}, MaxLength: 64}
	srv, err := New(m, Options{BatchWindow: -1, MaxBody: 1 << 16})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	h := srv.Handler()
	f.Fuzz(func(t *testing.T, body string, chat bool) {
		path := "/v1/completions"
		if chat {
			path = "/v1/chat/completions"
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, path, strings.NewReader(body)))
		out := rec.Body.String()
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream") {
			if rec.Code != 200 || !strings.HasSuffix(out, "data: [DONE]\n\n") {
				t.Fatalf("stream %d not ending with [DONE]: %q", rec.Code, out)
			}
			return
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("status %d, body not a JSON object: %q", rec.Code, out)
		}
		_, hasErr := v["error"]
		switch {
		case rec.Code == 200 && v["choices"] == nil:
			t.Fatalf("200 without choices: %q", out)
		case rec.Code != 200 && (!hasErr || (rec.Code != 400 && rec.Code != 404 && rec.Code != 413)):
			t.Fatalf("status %d: %q", rec.Code, out)
		}
	})
}
