package main

import (
	"reflect"
	"testing"
)

// TestThinkModelArgs: lm-eval's chat_template_args and enable_thinking
// model arguments become the chat template's variables (enable_thinking
// merged over chat_template_args, as HFLM merges them), and reach the
// engine's options.
func TestThinkModelArgs(t *testing.T) {
	f, err := parseRunFlags([]string{"--model", "hf", "--model_args",
		`{"pretrained": "m", "chat_template_args": {"enable_thinking": true, "x": {"y": 1}}, "enable_thinking": false, "think_end_token": "</think>"}`,
		"--tasks", "gsm8k"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"enable_thinking": false, "x": map[string]any{"y": int64(1)}}
	got := f.think.chatArgs()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("chat args %#v, want %#v", got, want)
	}
	if f.think.endToken != "</think>" {
		t.Fatalf("think_end_token %q", f.think.endToken)
	}
	if _, err := parseRunFlags([]string{"--model", "m", "--tasks", "gsm8k", "--enable-thinking"}); err == nil {
		t.Fatal("--enable-thinking without a think-end token was accepted")
	}
}
