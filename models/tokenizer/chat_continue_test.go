package tokenizer

import "testing"

// TestContinueChatTemplate: the final message is continued, cut where its
// content ends, whether the template keeps the text after the content
// (ChatML) or trims it (a template that strips contents).
func TestContinueChatTemplate(t *testing.T) {
	chatml := "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
	strip := "{% for m in messages %}[{{ m.role }}] {{ m.content | trim }}\n{% endfor %}"
	msgs := []Message{{"user", "Q: 2+2?"}, {"assistant", "The best answer is "}}
	cases := []struct{ src, want string }{
		{chatml, "<|im_start|>user\nQ: 2+2?<|im_end|>\n<|im_start|>assistant\nThe best answer is "},
		{strip, "[user] Q: 2+2?\n[assistant] The best answer is"},
	}
	for _, c := range cases {
		got, err := ContinueChatTemplate(c.src, msgs, nil)
		if err != nil || got != c.want {
			t.Errorf("got %q (err %v), want %q", got, err, c.want)
		}
	}
	if _, err := ContinueChatTemplate("{% for m in messages %}{{ m.role }}{% endfor %}", msgs, nil); err == nil {
		t.Error("a template that never prints contents: want an error")
	}
}
