// Package env is goeval's one table of the environment variables it reads
// or sets in production code, and the only production code that touches
// the process environment (internal/archtest checks it).
//
// Each variable is a *Var of this package (vars.go) carrying its row of
// the table: name, group, default, what it does, who reads it and, where
// goeval sets it, when. Readers call its accessors ([Var.Get],
// [Var.Lookup]) and parse the value themselves, naming the variable in any
// bad-input error; writers go through [SetDefault] and [AddXLAFlag] only
// (set.go). docs/ENVIRONMENT.md carries the same table for users; a test
// keeps the two in step.
package env

import (
	"os"
	"slices"
)

// Group says whose variable it is.
type Group string

// The groups of the table.
const (
	Goeval      Group = "goeval"        // goeval's own GOEVAL_*
	HuggingFace Group = "Hugging Face"  // huggingface_hub's and transformers' names and precedence
	System      Group = "XDG"           // the XDG base directory the Hugging Face cache falls back on
	XLA         Group = "XLA/PJRT/CUDA" // GoMLX, go-xla, XLA and CUDA
	OpenAI      Group = "OpenAI"        // the key of OpenAI-compatible APIs
	Go          Group = "Go"            // the Go runtime's
	Python      Group = "Python venv"   // the active virtual environment
	Slurm       Group = "Slurm"         // what Slurm sets in a job array's tasks
	Kubernetes  Group = "Kubernetes"    // what Kubernetes sets in an Indexed Job's pods
)

// Var is one environment variable goeval reads or sets, with its row of
// the table.
type Var struct {
	Name    string // e.g. GOEVAL_DEVICE
	Group   Group
	Default string // what an unset variable means: a value, or in words
	Doc     string // what it does
	ReadBy  string // the packages that read it
	// Sets says when goeval sets the variable in its own process ("" never);
	// only such variables may be passed to [SetDefault].
	Sets string
	// EmptyIsUnset: its readers take an empty value as unset, so
	// [SetDefault] replaces an empty value too.
	EmptyIsUnset bool
}

// table holds every Var in declaration order (def).
var table []*Var

// def adds v to the table.
func def(v Var) *Var {
	p := &v
	table = append(table, p)
	return p
}

// All returns a copy of the table, in the order of vars.go.
func All() []Var {
	out := make([]Var, len(table))
	for i, v := range table {
		out[i] = *v
	}
	return out
}

// Lookup finds a variable of the table by name.
func Lookup(name string) (*Var, bool) {
	i := slices.IndexFunc(table, func(v *Var) bool { return v.Name == name })
	if i < 0 {
		return nil, false
	}
	return table[i], true
}

// Get returns the variable's value ("" when unset).
func (v *Var) Get() string { return os.Getenv(v.Name) }

// Lookup returns the variable's value and whether it is set (even empty).
func (v *Var) Lookup() (string, bool) { return os.LookupEnv(v.Name) }

// String is the variable's name.
func (v *Var) String() string { return v.Name }

// Expand replaces $NAME and ${NAME} in s by the environment's values (""
// when unset: os.ExpandEnv), for the Hugging Face paths (HF_HOME,
// HF_HUB_CACHE, HF_TOKEN_PATH), which may name other variables.
func Expand(s string) string { return os.ExpandEnv(s) }
