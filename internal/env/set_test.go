package env

import (
	"os"
	"regexp"
	"testing"
)

// unset removes name for the rest of the test (t.Setenv restores it).
func unset(t *testing.T, name string) {
	t.Helper()
	t.Setenv(name, "")
	os.Unsetenv(name)
}

// TestSetDefault: the user's value wins, even empty, except for a
// variable whose readers take empty as unset; an undocumented write is
// refused.
func TestSetDefault(t *testing.T) {
	unset(t, NvidiaTF32Override.Name)
	if set, err := SetDefault(NvidiaTF32Override, "0"); !set || err != nil || os.Getenv(NvidiaTF32Override.Name) != "0" {
		t.Errorf("unset: set %v, err %v, value %q; want 0", set, err, os.Getenv(NvidiaTF32Override.Name))
	}
	for _, user := range []string{"", "1"} {
		t.Setenv(NvidiaTF32Override.Name, user)
		if set, err := SetDefault(NvidiaTF32Override, "0"); set || err != nil || os.Getenv(NvidiaTF32Override.Name) != user {
			t.Errorf("user's %q: set %v, err %v, value %q", user, set, err, os.Getenv(NvidiaTF32Override.Name))
		}
	}
	t.Setenv(GoPJRTCUDAChecks.Name, "")
	if set, _ := SetDefault(GoPJRTCUDAChecks, "0"); !set || os.Getenv(GoPJRTCUDAChecks.Name) != "0" {
		t.Errorf("empty %s (empty is unset): set %v, value %q; want 0", GoPJRTCUDAChecks, set, os.Getenv(GoPJRTCUDAChecks.Name))
	}
	t.Setenv(GoPJRTCUDAChecks.Name, "yes")
	if set, _ := SetDefault(GoPJRTCUDAChecks, "0"); set || os.Getenv(GoPJRTCUDAChecks.Name) != "yes" {
		t.Errorf("user's %s=yes overwritten: %q", GoPJRTCUDAChecks, os.Getenv(GoPJRTCUDAChecks.Name))
	}
	unset(t, HFHubCache.Name)
	if set, err := SetDefault(HFHubCache, "/tmp/x"); set || err == nil || os.Getenv(HFHubCache.Name) != "" {
		t.Errorf("undocumented write of %s: set %v, err %v; want refused", HFHubCache, set, err)
	}
}

// TestAddXLAFlag: the flag is appended once, after the user's flags, and
// not at all when XLA_FLAGS already has an entry for the option.
func TestAddXLAFlag(t *testing.T) {
	const flag = "--xla_gpu_enable_triton_gemm=false"
	for _, c := range []struct{ user, want string }{
		{"", flag},
		{"--xla_dump_to=/tmp/d", "--xla_dump_to=/tmp/d " + flag},
		{"--xla_gpu_enable_triton_gemm=true", "--xla_gpu_enable_triton_gemm=true"},
		{"--xla_gpu_enable_triton_gemm", "--xla_gpu_enable_triton_gemm"},
		{"--noxla_gpu_enable_triton_gemm --a=1", "--noxla_gpu_enable_triton_gemm --a=1"},
		{"--xla_gpu_enable_triton_gemm_any=true", "--xla_gpu_enable_triton_gemm_any=true " + flag}, // another option
	} {
		t.Setenv(XLAFlags.Name, c.user)
		for range 2 { // the second call adds nothing
			if _, err := AddXLAFlag(flag); err != nil {
				t.Fatal(err)
			}
		}
		if got := os.Getenv(XLAFlags.Name); got != c.want {
			t.Errorf("XLA_FLAGS=%q: got %q, want %q", c.user, got, c.want)
		}
	}
	if _, err := AddXLAFlag("xla_foo"); err == nil {
		t.Error("a flag without -- is accepted")
	}
}

// TestTable: every row is whole, names are unique environment variable
// names, and Lookup finds each.
func TestTable(t *testing.T) {
	name := regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	seen := map[string]bool{}
	for _, v := range All() {
		if !name.MatchString(v.Name) || seen[v.Name] {
			t.Errorf("%q: not a variable name, or listed twice", v.Name)
		}
		seen[v.Name] = true
		if v.Group == "" || v.Default == "" || v.Doc == "" || v.ReadBy == "" {
			t.Errorf("%s: group, default, doc and reader are all required: %+v", v.Name, v)
		}
		if p, ok := Lookup(v.Name); !ok || p.Name != v.Name {
			t.Errorf("Lookup(%s) = %v, %v", v.Name, p, ok)
		}
	}
	if _, ok := Lookup("NOT_A_GOEVAL_VARIABLE"); ok {
		t.Error("Lookup finds a variable not in the table")
	}
	if len(seen) < 30 { // 31 when the table was made; GOEVAL_PROGRESS_CHUNK then moved to the tests
		t.Errorf("the table has %d variables, want at least the 30 goeval reads", len(seen))
	}
}

// TestAddXLAListItem: the item becomes a new entry, or joins the user's
// list of the option (its last entry) once; the user's empty list stands.
func TestAddXLAListItem(t *testing.T) {
	const pass = "triton-softmax-rewriter"
	for _, c := range []struct{ user, want string }{
		{"", "--xla_disable_hlo_passes=" + pass},
		{"--xla_dump_to=/tmp/d", "--xla_dump_to=/tmp/d --xla_disable_hlo_passes=" + pass},
		{"--xla_disable_hlo_passes=foo", "--xla_disable_hlo_passes=foo," + pass},
		{"--xla_disable_hlo_passes=foo," + pass + " --a=1", "--xla_disable_hlo_passes=foo," + pass + " --a=1"},
		{"--xla_disable_hlo_passes=a --xla_disable_hlo_passes=b", "--xla_disable_hlo_passes=a --xla_disable_hlo_passes=b," + pass},
		{"--xla_disable_hlo_passes=", "--xla_disable_hlo_passes="},
		{"--xla_disable_hlo_passes_x=foo", "--xla_disable_hlo_passes_x=foo --xla_disable_hlo_passes=" + pass}, // another option
	} {
		t.Setenv(XLAFlags.Name, c.user)
		for i := range 2 { // the second call adds nothing
			changed, err := AddXLAListItem("xla_disable_hlo_passes", pass)
			if err != nil {
				t.Fatal(err)
			}
			if i == 1 && changed {
				t.Errorf("XLA_FLAGS=%q: the second call changed it", c.user)
			}
		}
		if got := os.Getenv(XLAFlags.Name); got != c.want {
			t.Errorf("XLA_FLAGS=%q: got %q, want %q", c.user, got, c.want)
		}
	}
	for _, bad := range [][2]string{{"", pass}, {"a=b", pass}, {"xla_disable_hlo_passes", "a,b"}, {"xla_disable_hlo_passes", ""}} {
		if _, err := AddXLAListItem(bad[0], bad[1]); err == nil {
			t.Errorf("AddXLAListItem(%q, %q) is accepted", bad[0], bad[1])
		}
	}
}
