package goeval

import (
	"reflect"
	"testing"
)

// TestAdapterTargets checks the evaluation order and names.
func TestAdapterTargets(t *testing.T) {
	got := AdapterTargets("base", []string{"ft/a", "ft/b"}, false)
	want := []Target{{Name: "base", Base: "base", Index: -1}, {Name: "ft/a", Base: "base", Adapter: "ft/a", Index: 0},
		{Name: "ft/b", Base: "base", Adapter: "ft/b", Index: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("targets %v, want %v", got, want)
	}
	one := AdapterTargets("base", []string{"ft/a"}, true)
	if len(one) != 1 || one[0].Adapter != "ft/a" {
		t.Errorf("--skip-base with one adapter: %v; want ft/a alone", one)
	}
	if one[0].Label() != "adapter ft/a" || got[0].Label() != "base base" {
		t.Errorf("labels %q %q", one[0].Label(), got[0].Label())
	}
}
