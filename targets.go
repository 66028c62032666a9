package goeval

// Target is one model a run evaluates and the names its results file
// records: a checkpoint, or a checkpoint with one LoRA adapter.
type Target struct {
	Name    string // model_name; the results folder is its sanitized form
	Base    string // the checkpoint (model_args pretrained)
	Adapter string // the adapter directory (model_args peft); "" for none
	Index   int    // the adapter's position in the run's adapter list; -1 for the base model
}

// Label names the target in progress lines and errors.
func (t Target) Label() string {
	if t.Adapter == "" {
		return "base " + t.Base
	}
	return "adapter " + t.Adapter
}

// AdapterTargets lists what a base + adapters run evaluates, in order: the
// base model (unless skipBase), then each adapter. An adapter's model_name
// is its directory, as lm-eval names a peft=DIR run.
func AdapterTargets(base string, adapters []string, skipBase bool) []Target {
	var out []Target
	if !skipBase {
		out = append(out, Target{Name: base, Base: base, Index: -1})
	}
	for i, a := range adapters {
		out = append(out, Target{Name: a, Base: base, Adapter: a, Index: i})
	}
	return out
}
