package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goeval/goeval/engine"
	"github.com/goeval/goeval/internal/errs"
	"github.com/goeval/goeval/tasks"
)

// TestLMEvalFlagSpellings parses every lm-eval spelling goeval run
// accepts (issue 16) and checks what it sets; the ones that mean nothing
// for goeval must give one bad-input line (exit status 2) saying why.
func TestLMEvalFlagSpellings(t *testing.T) {
	dir := t.TempDir()
	yamlFile := filepath.Join(dir, "run.yaml")
	writeFile(t, yamlFile, "model: hf\nmodel_args:\n  pretrained: m\n  dtype: bfloat16\ntasks: [arc_easy, hellaswag]\nnum_fewshot: 5\nbatch_size: 2\nlog_samples: true\noutput_path: out\n")
	adapter := filepath.Join(dir, "ad")
	writeFile(t, filepath.Join(adapter, "adapter_config.json"), `{"peft_type": "LORA"}`)
	samplesFile := filepath.Join(dir, "samples.json")
	writeFile(t, samplesFile, `{"arc_easy": [3]}`)
	no, yes, seven := false, true, int32(7)
	cases := []struct {
		name string
		args string // after "--tasks arc_easy" unless it sets --tasks or --config
		want func(f *runFlags) any
		is   any
		err  string // a bad-input error containing this
	}{
		{"model hf + model_args", "--model hf --model_args pretrained=m,dtype=bfloat16,max_length=128,add_bos_token=True,prefix_token_id=7,truncation=False",
			func(f *runFlags) any {
				eo := f.engineOptions(engine.DeviceChoice{})
				return words(f.model, f.dtype, eo.MaxLength, *eo.AddBOSToken, *eo.PrefixToken, f.lmeval.args.Keys())
			}, words("m", "bfloat16", 128, yes, seven, []string{"pretrained", "dtype", "max_length", "add_bos_token", "prefix_token_id", "truncation"}), ""},
		{"model_args peft", "--model_args pretrained=m,peft=" + adapter, func(f *runFlags) any { return words(f.model, f.adapters, f.skipBase) },
			words("m", []string{adapter}, true), ""},
		{"model_args JSON, add_bos_token false", `--model_args {"pretrained":"m","add_bos_token":false}`, func(f *runFlags) any { return *f.engineOptions(engine.DeviceChoice{}).AddBOSToken }, no, ""},
		{"model_args space-separated", "--model_args pretrained=m dtype=auto", func(f *runFlags) any { return f.dtype }, "auto", ""},
		{"model_args revision of a Hub id", "--model_args revision=v2,pretrained=org/name", func(f *runFlags) any { return f.model }, "org/name@v2", ""},
		{"model_args unknown key", "--model_args pretrained=m,parallelize=True", nil, nil, `--model_args key "parallelize" is not supported`},
		{"model_args truncation", "--model_args pretrained=m,truncation=True", nil, nil, "truncation=True is not supported"},
		{"model_args float16", "--model_args pretrained=m,dtype=float16", func(f *runFlags) any { return f.dtype }, "float16", ""},
		{"model_args half", "--model_args pretrained=m,dtype=half", func(f *runFlags) any { return f.dtype }, "half", ""},
		{"model_args int8", "--model_args pretrained=m,dtype=int8", nil, nil, "dtype=int8: want float32, bfloat16, float16 (half) or auto"},
		{"model_args softmax_dtype float32", "--model_args pretrained=m,dtype=bfloat16,softmax_dtype=float32", func(f *runFlags) any { return f.dtype }, "bfloat16", ""},
		{"model_args softmax_dtype bfloat16", "--model_args pretrained=m,dtype=bfloat16,softmax_dtype=bfloat16", func(f *runFlags) any { return f.engineOptions(engine.DeviceChoice{}).SoftmaxDType }, "bfloat16", ""},
		{"model_args softmax_dtype int8", "--model_args pretrained=m,softmax_dtype=int8", nil, nil, "softmax_dtype=int8: want float32, bfloat16 or float16 (half)"},
		{"model hf without model_args", "--model hf", nil, nil, "--model hf needs --model_args pretrained=DIR"},
		{"model vllm", "--model vllm --model_args pretrained=m", nil, nil, "--model vllm is an lm-eval model type goeval does not have"},
		{"model and pretrained", "--model a --model_args pretrained=b", nil, nil, "both --model a and --model_args pretrained=b"},
		{"batch_size auto:N, max_batch_size", "--model m --batch_size auto:4 --max_batch_size 2",
			func(f *runFlags) any { return words(f.batch, f.engineOptions(engine.DeviceChoice{}).BatchSize) }, "auto:4 2", ""},
		{"batch_size auto:x", "--model m --batch_size auto:x", nil, nil, `--batch-size "auto:x"`},
		{"device cuda:0", "--model m --device cuda:0", func(f *runFlags) any { return f.device + " " + f.lmeval.deviceGiven }, "cuda cuda:0", ""},
		{"device cuda:1", "--model m --device cuda:1", nil, nil, "CUDA_VISIBLE_DEVICES=1"},
		{"device mps", "--model m --device mps", nil, nil, "--device mps"},
		{"samples JSON", `--model m --samples {"arc_easy":[0,2]}`, func(f *runFlags) any { return f.lmeval.sampleIDs }, map[string][]int{"arc_easy": {0, 2}}, ""},
		{"samples file, short -E", "--model m -E " + samplesFile, func(f *runFlags) any { return f.lmeval.sampleIDs }, map[string][]int{"arc_easy": {3}}, ""},
		{"samples with limit", `--model m --samples {"arc_easy":[0]} --limit 2`, nil, nil, "--samples and --limit exclude each other"},
		{"write_out, show_config", "--model m --write_out --show_config", func(f *runFlags) any { return f.lmeval.writeOut && f.lmeval.showConfig }, true, ""},
		{"short -w", "--model m -w", func(f *runFlags) any { return f.lmeval.writeOut }, true, ""},
		{"metadata JSON", `--model m --metadata {"run":"a","n":1}`, func(f *runFlags) any { return f.lmeval.meta.Keys() }, []string{"run", "n"}, ""},
		{"metadata k=v", "--model m --metadata run=a", func(f *runFlags) any { return f.lmeval.meta.Value("run") }, "a", ""},
		{"config YAML, command line wins", "--config " + yamlFile + " --num_fewshot 1",
			func(f *runFlags) any {
				return words(f.model, f.dtype, f.tasks, f.fewshot, f.batch, f.logSamples, f.out)
			}, "m bfloat16 arc_easy,hellaswag 1 2 true out", ""},
		{"config missing", "--config " + filepath.Join(dir, "none.yaml"), nil, nil, "--config: "},
		{"underscored flags", "--model m --num_fewshot 2 --output_path o --log_samples --use_cache c --system_instruction hi --bootstrap_iters 10 --data_dir d",
			func(f *runFlags) any {
				return words(f.fewshot, f.out, f.logSamples, f.useCache, f.sysInstr, f.bootstrap, f.dataDir)
			}, "2 o true c hi 10 d", ""},
		{"apply_chat_template, fewshot_as_multiturn false", "--model m --apply_chat_template --fewshot_as_multiturn false",
			func(f *runFlags) any { return words(f.chat, f.multiturn.or(true)) }, "true false", ""},
		{"fewshot_as_multiturn no", "--model m --apply_chat_template --fewshot_as_multiturn no", func(f *runFlags) any { return f.multiturn.or(true) }, false, ""},
		{"fewshot_as_multiturn bare", "--model m --apply_chat_template --fewshot_as_multiturn", func(f *runFlags) any { return f.multiturn.or(false) }, true, ""},
		{"apply_chat_template NAME", "--model m --apply_chat_template chatml", nil, nil, "named templates are not supported"},
		{"gen_kwargs lm-eval example", "--model m --gen_kwargs " + genExample,
			func(f *runFlags) any { kw, err := tasks.ParseGenKwargs(f.genKwargs); return words(kw, err) },
			words(map[string]any{"max_new_tokens": 12, "until": []any{"e", " the", "\n"}}, nil), ""},
		{"gen_kwargs space-separated", "--model m --gen_kwargs temperature=0 top_p=1", func(f *runFlags) any { return f.genKwargs }, "temperature=0,top_p=1", ""},
		{"tasks space-separated", "--model m --tasks arc_easy hellaswag", func(f *runFlags) any { return f.tasks }, "arc_easy,hellaswag", ""},
		{"short flags", "-M hf -a pretrained=m -t arc_easy -f 2 -b 4 -L 3 -o out -s -c cache -C " + yamlFile,
			func(f *runFlags) any {
				return words(f.model, f.tasks, f.fewshot, f.batch, f.limit, f.out, f.logSamples, f.useCache)
			},
			"m arc_easy 2 4 3 out true cache", ""},
		{"trust_remote_code", "--model m --trust_remote_code", func(f *runFlags) any { return f.lmeval.trustRemoteCode }, true, ""},
		{"predict_only", "--model m --predict_only", nil, nil, "--predict_only (lm-eval) is not supported"},
		{"short -x", "--model m -x", nil, nil, "--predict_only (lm-eval) is not supported"},
		{"check_integrity", "--model m --check_integrity", nil, nil, "--check_integrity (lm-eval) is not supported"},
		{"include_path", "--model m --include_path tasks/", func(f *runFlags) any { return f.includePath }, "tasks/", ""},
		{"wandb_args", "--model m --wandb_args project=x", nil, nil, "Weights & Biases"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := strings.Fields(strings.ReplaceAll(c.args, genExample, "GENEXAMPLE"))
			for i, a := range args {
				if a == "GENEXAMPLE" {
					args[i] = genExample // one shell word with spaces inside
				}
			}
			if !strings.Contains(c.args, "--tasks") && !strings.Contains(c.args, "-t ") && !strings.Contains(c.args, "--config") {
				args = append([]string{"--tasks", "arc_easy"}, args...)
			}
			f, err := parseRunFlags(args)
			if c.err != "" {
				if err == nil || !errs.IsBadInput(err) || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("%q: error %v, want one bad-input line containing %q", c.args, err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%q: %v", c.args, err)
			}
			if got := c.want(f); !reflect.DeepEqual(got, c.is) {
				t.Errorf("%q: got %#v, want %#v", c.args, got, c.is)
			}
		})
	}
}

// genExample is lm-eval's documented --gen_kwargs value.
const genExample = `max_new_tokens=12,until=["e"," the","\n"]`

// words is its arguments space-separated.
func words(a ...any) string { return strings.TrimSuffix(fmt.Sprintln(a...), "\n") }

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
