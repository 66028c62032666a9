package main

// setRunMetadata gives the run's Index lm-eval's TaskManager metadata:
// --model_args with --metadata over them (evaluator.simple_evaluate). Task
// files' custom_dataset functions get it (RULER sizes its documents with
// the tokenizer it names). A checkpoint given as --model DIR, without
// model_args naming one, is pretrained=DIR, as lm-eval's --model hf
// --model_args pretrained=DIR has it (a sweep: its first checkpoint).
func (p *runPlan) setRunMetadata(f *runFlags, models []string) {
	dir := ""
	if len(models) > 0 && !f.api.on() {
		dir = models[0]
	}
	p.eval.Index.SetMetadata(f.lmeval.args, f.lmeval.meta, dir)
}
