package buildinfo

import "testing"

func TestShortAndLinkTimeHash(t *testing.T) {
	for in, want := range map[string]string{
		"0123456789abcdef":       "0123456",
		"0123456789abcdef-dirty": "0123456-dirty",
		" abc\n":                 "abc",
	} {
		if got := short(in); got != want {
			t.Errorf("short(%q) = %q, want %q", in, got, want)
		}
	}
	old := gitHash
	defer func() { gitHash = old }()
	gitHash = "feedfacecafebeef"
	if got := GitHash(); got != "feedfac" {
		t.Errorf("GitHash with a link-time hash = %q, want feedfac", got)
	}
	if got := String(); got != "goeval "+Version()+" (feedfac)" {
		t.Errorf("String() = %q", got)
	}
}
