package engine

// window is one disjoint rolling window: score targets given ctx.
type window struct{ ctx, cont []int32 }

// rollingWindows is lm-eval's get_rolling_token_windows(context_len=1)
// followed by make_disjoint_window (spec §8.2): every token is predicted
// exactly once; the first window is prefixed with prefix; later windows
// get a full maxLen-token context.
//
//	tokens t0 … t9, maxLen 4, prefix p:
//	  window 0: input [p t0 t1 t2]   predict t0 t1 t2 t3  → ctx [p],          cont t0…t3
//	  window 1: input [t3 t4 t5 t6]  predict t4 t5 t6 t7  → ctx [t3],         cont t4…t7
//	  window 2: input [t5 t6 t7 t8]  predict t8 t9        → ctx [t5 t6 t7],   cont t8 t9
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
