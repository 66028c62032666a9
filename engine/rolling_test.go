package engine

import (
	"reflect"
	"testing"
)

// TestRollingWindowsTable pins lm-eval's get_rolling_token_windows
// (context_len=1) + make_disjoint_window on small cases worked by hand.
func TestRollingWindowsTable(t *testing.T) {
	ids := []int32{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	const p = 1
	cases := []struct {
		tokens []int32
		maxLen int
		want   []window
	}{
		{nil, 4, nil},
		{ids[:3], 4, []window{{ctx: []int32{p}, cont: ids[:3]}}},
		{ids[:4], 4, []window{{ctx: []int32{p}, cont: ids[:4]}}},
		// 10 tokens, L=4: predict 0-3 from [p 0 1 2]; 4-7 from input
		// tokens[3:7] (context = [13]); 8-9 from input tokens[5:9]
		// (context = [15 16 17]).
		{ids, 4, []window{
			{ctx: []int32{p}, cont: ids[0:4]},
			{ctx: []int32{13}, cont: ids[4:8]},
			{ctx: []int32{15, 16, 17}, cont: ids[8:10]},
		}},
		{ids[:5], 1, []window{
			{ctx: []int32{p}, cont: ids[0:1]},
			{ctx: []int32{10}, cont: ids[1:2]},
			{ctx: []int32{11}, cont: ids[2:3]},
			{ctx: []int32{12}, cont: ids[3:4]},
			{ctx: []int32{13}, cont: ids[4:5]},
		}},
	}
	for _, c := range cases {
		got := rollingWindows(c.tokens, c.maxLen, p)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("rollingWindows(%v, %d) = %v, want %v", c.tokens, c.maxLen, got, c.want)
		}
	}
}
