package lmenc

import (
	"reflect"
	"strings"
	"testing"
)

// charTok is a toy tokenizer: one token per byte, BOS = 1 prepended when
// addSpecial (Llama-like), "<s>" decodes BOS.
type charTok struct{}

func (charTok) Encode(s string, add bool) []int32 {
	var out []int32
	if add {
		if strings.HasPrefix(s, "<s>") {
			panic("TokEncode must not add BOS to text starting with <s>")
		}
		out = append(out, 1)
	}
	for _, b := range []byte(s) {
		out = append(out, int32(b))
	}
	return out
}
func (charTok) Decode(ids []int32, _ bool) string {
	var sb strings.Builder
	for _, id := range ids {
		if id == 1 {
			sb.WriteString("<s>")
		} else {
			sb.WriteByte(byte(id))
		}
	}
	return sb.String()
}
func (charTok) BOS() (int32, bool) { return 1, true }
func (charTok) EOS() (int32, bool) { return 2, true }

func TestEncodePair(t *testing.T) {
	no, yes := false, true
	bos := Specials{Prefix: 1}
	cases := []struct {
		ctx, cont      string
		wantC, wantCon []int32
		sp             Specials
	}{
		// Trailing space moves to the continuation.
		{"ab ", "c", []int32{1, 'a', 'b'}, []int32{' ', 'c'}, bos},
		{"ab", " c", []int32{1, 'a', 'b'}, []int32{' ', 'c'}, bos},
		// Empty context → [prefix], continuation without special tokens.
		{"", "xy", []int32{1}, []int32{'x', 'y'}, bos},
		{"", "xy", []int32{2}, []int32{'x', 'y'}, Specials{Prefix: 2}},
		// A context already starting with the BOS text gets no second BOS.
		{"<s>a", "b", []int32{'<', 's', '>', 'a'}, []int32{'b'}, bos},
		// add_bos_token=False: no special tokens at all; True: the default.
		{"ab", "c", []int32{'a', 'b'}, []int32{'c'}, Specials{Prefix: 1, AddBOS: &no}},
		{"ab", "c", []int32{1, 'a', 'b'}, []int32{'c'}, Specials{Prefix: 1, AddBOS: &yes}},
		// The prefix token's text (here EOS, byte 2) turns special tokens off, as tok_encode does.
		{"\x02a", "b", []int32{2, 'a'}, []int32{'b'}, Specials{Prefix: 2}},
	}
	for _, c := range cases {
		gc, gk := Pair(charTok{}, c.ctx, c.cont, c.sp)
		if !reflect.DeepEqual(gc, c.wantC) || !reflect.DeepEqual(gk, c.wantCon) {
			t.Errorf("Pair(%q, %q) = %v, %v; want %v, %v", c.ctx, c.cont, gc, gk, c.wantC, c.wantCon)
		}
	}
	// Empty context whose continuation starts with the prefix token.
	if c, k := SplitEmptyContext(1, []int32{1, 5}); !reflect.DeepEqual(c, []int32{1}) || !reflect.DeepEqual(k, []int32{5}) {
		t.Errorf("SplitEmptyContext = %v, %v", c, k)
	}
}

// TestRollingWindowsTable pins lm-eval's get_rolling_token_windows
// (context_len=1) + make_disjoint_window on small cases worked by hand.
func TestRollingWindowsTable(t *testing.T) {
	ids := []int32{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	const p = 1
	cases := []struct {
		tokens []int32
		maxLen int
		want   []Window
	}{
		{nil, 4, nil},
		{ids[:3], 4, []Window{{Ctx: []int32{p}, Cont: ids[:3]}}},
		{ids[:4], 4, []Window{{Ctx: []int32{p}, Cont: ids[:4]}}},
		// 10 tokens, L=4: predict 0-3 from [p 0 1 2]; 4-7 from input
		// tokens[3:7] (context = [13]); 8-9 from input tokens[5:9]
		// (context = [15 16 17]).
		{ids, 4, []Window{
			{Ctx: []int32{p}, Cont: ids[0:4]},
			{Ctx: []int32{13}, Cont: ids[4:8]},
			{Ctx: []int32{15, 16, 17}, Cont: ids[8:10]},
		}},
		{ids[:5], 1, []Window{
			{Ctx: []int32{p}, Cont: ids[0:1]},
			{Ctx: []int32{10}, Cont: ids[1:2]},
			{Ctx: []int32{11}, Cont: ids[2:3]},
			{Ctx: []int32{12}, Cont: ids[3:4]},
			{Ctx: []int32{13}, Cont: ids[4:5]},
		}},
	}
	for _, c := range cases {
		got := RollingWindows(c.tokens, c.maxLen, p)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("RollingWindows(%v, %d) = %v, want %v", c.tokens, c.maxLen, got, c.want)
		}
	}
}
