package py

import "testing"

// The expected strings are Python 3.11's: format(Decimal(s), ".nf"),
// str(int(Decimal(s))).
func TestDecimal(t *testing.T) {
	cases := []struct {
		in           string
		n            int
		fixed, trunc string
		integer      bool
	}{
		{"0.2368", 4, "0.2368", "0", false},
		{"-0.5000", 4, "-0.5000", "0", false},
		{"-0.0000", 2, "-0.00", "0", true},
		{" 1_0.5 ", 0, "10", "10", false}, // half to even: 10
		{"11.5", 0, "12", "11", false},    // half to even: 12
		{"0.000015", 5, "0.00002", "0", false},
		{"0.000025", 5, "0.00002", "0", false},
		{"9.9996", 3, "10.000", "9", false},
		{"1e3", 2, "1000.00", "1000", true},
		{"1.0E-7", 7, "0.0000001", "0", false},
		{".5", 1, "0.5", "0", false},
		{"5.", 1, "5.0", "5", true},
		{"-12.75", 1, "-12.8", "-12", false},
		{"0.004", 2, "0.00", "0", false},
		{"-0.004", 2, "-0.00", "0", false},
		{"١٢", 0, "12", "12", true},       // Arabic-Indic digits
		{"_-3_4_", 0, "-34", "-34", true}, // every underscore dropped, as CPython's Decimal does
		{"1__0.5e_1", 0, "105", "105", true},
	}
	for _, c := range cases {
		d, ok := ParseDecimal(c.in)
		if !ok {
			t.Fatalf("ParseDecimal(%q) failed", c.in)
		}
		if got := d.Fixed(c.n); got != c.fixed {
			t.Errorf("Fixed(%q, %d) = %q, want %q", c.in, c.n, got, c.fixed)
		}
		if got := d.Trunc(); got != c.trunc {
			t.Errorf("Trunc(%q) = %q, want %q", c.in, got, c.trunc)
		}
		if got := d.IsInteger(); got != c.integer {
			t.Errorf("IsInteger(%q) = %v, want %v", c.in, got, c.integer)
		}
	}
	for _, s := range []string{"inf", "-Infinity", "nan", "NaN"} {
		d, ok := ParseDecimal(s)
		if !ok || d.Finite() {
			t.Errorf("ParseDecimal(%q) = %+v, %v; want a non-finite value", s, d, ok)
		}
	}
	if d, _ := ParseDecimal("-inf"); d.Fixed(4) != "Infinity" {
		t.Errorf("Fixed(-inf) = %q, want Infinity (the sign is not kept)", d.Fixed(4))
	}
	for _, s := range []string{"", " ", "_", "1,000", "0x10", "e5", "1e", "abc"} {
		if d, ok := ParseDecimal(s); ok {
			t.Errorf("ParseDecimal(%q) = %+v, want a failure", s, d)
		}
	}
}
