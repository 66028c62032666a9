package engine

// window is one disjoint rolling window: score targets given ctx.
type window struct{ ctx, cont []int32 }

// rollingWindows is lm-eval's get_rolling_token_windows(context_len=1)
// followed by make_disjoint_window (spec §8.2): every token is predicted
// exactly once; the first window is prefixed with prefix; later windows
// get a full maxLen-token context.
//
//	tokens 0 1 2 3 4 5 6 7, maxLen 4:
//	  window 0: input [p 0 1 2]     predict 0 1 2 3
//	  window 1: input [3 4 5 6]... → input tokens[end-L-1:end-1], predict 4 5 6 7
func rollingWindows(tokens []int32, maxLen int, prefix int32) []window {
	if len(tokens) == 0 {
		return nil
	}
	first := min(maxLen, len(tokens))
	in0 := append([]int32{prefix}, tokens[:first-1]...)
	out := []window{disjoint(in0, tokens[:first])}
	for pred := first; pred < len(tokens); {
		w := min(len(tokens)-pred, maxLen)
		end := pred + w
		out = append(out, disjoint(tokens[end-maxLen-1:end-1], tokens[end-w:end]))
		pred += w
	}
	return out
}

// disjoint is make_disjoint_window: the context is the input minus the
// positions that are themselves predicted.
func disjoint(input, pred []int32) window {
	return window{ctx: input[:len(input)-(len(pred)-1)], cont: pred}
}
