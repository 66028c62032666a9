package report

import (
	"strings"
	"testing"
	"time"

	"github.com/goeval/goeval/internal/py"
)

// TestTimingFields: goeval_timing's keys in their order, seconds to the
// millisecond, the computed ratio to four places and only with scoring
// tokens, the prefix store's peak in MiB to one place.
func TestTimingFields(t *testing.T) {
	tm := Timing{ForwardPasses: 7, ScoringTokensRequested: 3, ScoringTokensComputed: 2, ScoringPaddedTokens: 1,
		CachedPrefixesComputed: 4, CachedPrefixHits: 5, CachedPrefixPeakBytes: 3 << 19, PromptTokensRequested: 9,
		PrefillTokens: 8, DecodedTokens: 6, ShapesCompiled: 2, Compile: 1234567 * time.Microsecond, Forward: 2 * time.Millisecond}
	want := `{"forward_passes": 7, "scoring_tokens_requested": 3, "scoring_tokens_computed": 2, "scoring_computed_ratio": 0.6667, ` +
		`"scoring_padded_tokens": 1, "cached_prefixes_computed": 4, "cached_prefix_hits": 5, "cached_prefix_peak_mb": 1.5, ` +
		`"prompt_tokens_requested": 9, "prefill_tokens": 8, "decoded_tokens": 6, "shapes_compiled": 2, "compile_seconds": 1.235, ` +
		`"forward_seconds": 0.002}`
	if b, _ := py.JSON(tm.fields(), false); string(b) != want {
		t.Errorf("fields = %s\nwant %s", b, want)
	}
	if b, _ := py.JSON(Timing{}.fields(), false); string(b) == "" || strings.Contains(string(b), "scoring_computed_ratio") {
		t.Errorf("no scoring tokens: %s, want no scoring_computed_ratio", b)
	}
}

// TestTimingBatches: the shapes loaded from the compile cache, batches,
// back-offs and peak resident memory come last, each only when not 0, the
// memory in whole MiB.
func TestTimingBatches(t *testing.T) {
	tm := Timing{ShapesFromCache: 3, ScoringBatch: 4, Backoffs: 1, PeakRSS: 1536 << 20}
	b, _ := py.JSON(tm.fields(), false)
	want := `"forward_seconds": 0.0, "shapes_from_compile_cache": 3, "scoring_batch_size": 4, "oom_backoffs": 1, "peak_rss_mb": 1536}`
	if !strings.HasSuffix(string(b), want) {
		t.Errorf("fields = %s\nwant it to end %s", b, want)
	}
	tm = Timing{GenerationBatch: 32}
	if b, _ := py.JSON(tm.fields(), false); !strings.HasSuffix(string(b), `"forward_seconds": 0.0, "generation_batch_size": 32}`) {
		t.Errorf("fields = %s, want only generation_batch_size after forward_seconds", b)
	}
}
