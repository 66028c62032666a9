package env

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// The only writes goeval makes to its process environment. Each one is a
// default: what the user set wins. The table's Sets says when each
// happens; children goeval starts inherit the values.

// SetDefault sets v to value unless the user has set it: a variable in the
// environment counts as set, even empty, unless v.EmptyIsUnset. It reports
// whether it set v. v must be a variable the table documents as set
// (v.Sets), else SetDefault sets nothing and returns an error.
func SetDefault(v *Var, value string) (bool, error) {
	if v.Sets == "" {
		return false, fmt.Errorf("env: %s is not documented as set by goeval (add when to its Sets)", v.Name)
	}
	if cur, set := v.Lookup(); set && (cur != "" || !v.EmptyIsUnset) {
		return false, nil
	}
	if err := os.Setenv(v.Name, value); err != nil {
		return false, fmt.Errorf("env: setting %s: %w", v.Name, err)
	}
	return true, nil
}

// AddXLAFlag appends flag (--name or --name=value) to XLA_FLAGS unless
// XLA_FLAGS already has an entry for that option (--name, --name=…, or
// --noname), in which case the user's choice stands. It reports whether it
// added the flag.
func AddXLAFlag(flag string) (bool, error) {
	name := flagName(flag)
	if name == "" {
		return false, fmt.Errorf("env: XLA flag %q: want --name or --name=value", flag)
	}
	flags := XLAFlags.Get()
	for _, f := range strings.Fields(flags) {
		if n := flagName(f); n == name || n == "no"+name {
			return false, nil
		}
	}
	if err := os.Setenv(XLAFlags.Name, strings.TrimSpace(flags+" "+flag)); err != nil {
		return false, fmt.Errorf("env: setting %s: %w", XLAFlags.Name, err)
	}
	return true, nil
}

// flagName is the option name of one XLA flag ("--a=b" → "a"; "" when it
// is not a flag).
func flagName(f string) string {
	rest, ok := strings.CutPrefix(f, "--")
	if !ok {
		if rest, ok = strings.CutPrefix(f, "-"); !ok {
			return ""
		}
	}
	name, _, _ := strings.Cut(rest, "=")
	return name
}

// AddXLAListItem adds item to the comma-separated list of the XLA option
// name (e.g. xla_disable_hlo_passes) in XLA_FLAGS: a new --name=item when
// XLA_FLAGS has no entry for the option, else item merged into the user's
// list (the last entry, which XLA reads) unless the list has it already.
// An entry with an empty list (--name=) is the user's choice of none and
// stands. It reports whether it changed XLA_FLAGS.
func AddXLAListItem(name, item string) (bool, error) {
	if name == "" || strings.ContainsAny(name, "= ") || item == "" || strings.ContainsAny(item, ", ") {
		return false, fmt.Errorf("env: XLA list option %q item %q: want a name and one item", name, item)
	}
	fields := strings.Fields(XLAFlags.Get())
	last := -1
	for i, f := range fields {
		if flagName(f) == name {
			last = i
		}
	}
	if last < 0 {
		fields = append(fields, "--"+name+"="+item)
	} else {
		_, list, _ := strings.Cut(fields[last], "=")
		if list == "" || slices.Contains(strings.Split(list, ","), item) {
			return false, nil
		}
		fields[last] += "," + item
	}
	if err := os.Setenv(XLAFlags.Name, strings.Join(fields, " ")); err != nil {
		return false, fmt.Errorf("env: setting %s: %w", XLAFlags.Name, err)
	}
	return true, nil
}
