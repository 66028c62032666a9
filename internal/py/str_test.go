package py

import "testing"

// TestLowerFinalSigma checks str.lower()'s final-sigma rule where it
// depends on Unicode's Cased and Case_Ignorable properties beyond the
// letter categories (expected values from CPython 3.11).
func TestLowerFinalSigma(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ΑΣ", "ας"},
		{"AΣ b", "aς b"},
		{"AΣb", "aσb"},
		{"AΣ\u2160", "aσ\u2170"},     // Ⅰ is Other_Uppercase: cased, so Σ is not final
		{"\u2160Σ", "\u2170ς"},       // … and counts as the letter before it
		{"AΣ\u24b6", "aσ\u24d0"},     // Ⓐ likewise
		{"\u00aaΣ", "\u00aaς"},       // ª is Other_Lowercase
		{"A\u2018Σ", "a\u2018ς"},     // ‘ is case-ignorable (MidNumLet)
		{"A\uff0eΣ", "a\uff0eς"},     // ．likewise
		{"A\u0387Σ b", "a\u0387ς b"}, // · (ano teleia) is MidLetter
		{"AΣ\u2024b", "aσ\u2024b"},   // ․ is skipped, b follows
		{"İ", "i\u0307"},
	} {
		if got := Lower(c.in); got != c.want {
			t.Errorf("Lower(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
