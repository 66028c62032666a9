package tasks

// repeats reads a task YAML's repeats (lm-eval's TaskConfig.repeats): each
// generate request is answered that many times, and the filters see the
// list of answers (take_first, take_first_k, majority_vote: yamlfilters.go).
// The evaluator gives every answer its own sampling seed.
func (r *cfgReader) repeats(s *spec) {
	v, ok := r.c.get("repeats")
	if !ok || v == nil {
		return
	}
	n, isInt := v.(int)
	if !isInt || n < 1 {
		r.failf("repeats", "want a count >= 1, got %v", v)
		return
	}
	if n > 1 && s.output != GenerateUntil {
		r.failf("repeats", "goeval repeats generate_until requests only (this task is %s): a log-likelihood is the same every time", s.output)
		return
	}
	s.repeats = n
}

// Repeats is how many answers each of the task's generate requests gets
// (lm-eval's repeats; 1 for the built-in tasks).
func (s *spec) Repeats() int { return max(1, s.repeats) }
