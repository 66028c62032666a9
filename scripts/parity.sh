#!/usr/bin/env bash
# Regenerates every committed golden from the live reference engines and
# fails on any difference. Called by `make parity` (after `make venv build`).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
export HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
fail=0
BIN=$(mktemp -d)/goeval
go build -o "$BIN" ./cmd/goeval
check() {
	local name=$1
	shift
	echo "== parity: $name"
	local t0=$SECONDS
	if "$@"; then
		echo "== parity: $name ok ($((SECONDS - t0)) s)"
	else
		echo "== parity: $name FAILED"
		fail=1
	fi
}
check "metrics vs lm-eval"        $PY parity/metrics/golden.py --check
# truthfulqa_gen's process_docs/process_results (sacrebleu intl BLEU, rouge_score) on 2,400
# generated cases, correctly rounded exp/log, the regex module's \p{N}/\p{P}/\p{S}; then the Go side.
check "truthfulqa_gen BLEU/ROUGE vs lm-eval" bash -c "$PY parity/metrics/truthfulqa_golden.py --check && go test -count=1 -run 'TestTruthfulQAGen|TestLibmCorrectlyRounded|TestIntlCategoriesMatchRegex' ./tasks/ ./internal/py/ ./metrics/"
check "python random (few-shot)"  $PY parity/lmeval/pyrandom_golden.py --check tasks/testdata/pyrandom.json
check "task prompts vs lm-eval"   $PY parity/lmeval/dump_tasks.py --check
check "task configs vs lm-eval"   $PY parity/lmeval/dump_configs.py --check
check "YAML task prompts vs lm-eval" $PY parity/lmeval/dump_yaml_tasks.py --check
check "group aggregation, inline members vs lm-eval" bash -c "$PY parity/lmeval/group_golden.py --check && go test -count=1 -run TestGroups ."
check "YAML tasks with Python hooks vs lm-eval" $PY parity/lmeval/dump_pyhook_tasks.py --check
# The same Python functions through goeval's worker, with the venv's Python
# (the tests skip without it: here a skip fails).
no_skip() { local out rc=0; out=$("$@" 2>&1) || rc=$?; echo "$out" | grep -E '^(--- |ok|FAIL)'; [ $rc -eq 0 ] && ! grep -q -- '--- SKIP' <<<"$out"; }
check "Python hooks through goeval's worker vs lm-eval" no_skip \
	go test -count=1 -v -run 'TestLMEvalPythonHooksParity|TestGoHooksMatchPython|TestIfevalHooksMatchPython|TestIfevalTaskWithoutPython' ./tasks/
check "task Jinja templates vs lm-eval" $PY parity/lmeval/jinja_golden.py --check
check "multi_choice_regex vs lm-eval" $PY parity/lmeval/mcregex_golden.py --check
# math-verify's verdicts on the corpus regenerated (the package's own tests
# from its pinned sdist plus generated variants), then goeval's port on it.
check "math-verify corpus vs math-verify" $PY parity/mathverify/golden.py --check
# ifeval's instruction checks: lm-eval's verdicts on generated cases, then
# goeval's Go checks (internal/ifeval) on them.
check "ifeval checks corpus vs lm-eval" $PY parity/ifeval/golden.py --check
check "internal/ifeval vs the corpus" go test -count=1 -run TestAgreement ./internal/ifeval/
check "metrics/mathverify vs the corpus" go test -count=1 -run TestCorpusAgreement ./metrics/mathverify/
# minerva_math's exact_match: lm-eval's sympy is_equiv on normalised answer
# pairs regenerated, then goeval's Go IsEquiv on them.
check "minerva is_equiv golden vs lm-eval (sympy)" $PY parity/minerva/golden.py --check
check "metrics/mathverify IsEquiv vs the golden" go test -count=1 -run 'TestIsEquiv' ./metrics/mathverify/
check "lm-eval output files"      $PY parity/report/lmeval_fixture.py --check
check "summary tables vs lm-eval make_table" bash -c "$PY parity/report/table_golden.py --check && go test -count=1 -run TestSummaryTable ./report/"
check "safetensors writer bytes" $PY parity/synth/check_synth.py golden --out models/safetensors/testdata --check
check "synth models load in HF"   $PY parity/synth/check_synth.py hf --goeval "$BIN"
check "tokenizers vs Rust + chat" parity/tokenizer/check.sh
check "model log-probs vs transformers (float32, bfloat16, float16)" parity/models/make_goldens.sh --check
check "weight-only bfloat16 vs transformers float32" parity/models/make_bf16_goldens.sh --check
# The XLA CPU device on the plugin `goeval setup` installs (the one --device
# auto uses), against the same transformers goldens (bfloat16 and float16
# computed natively there: parity/models/dtype_test.go).
check "model log-probs on XLA CPU (PJRT)" bash -c "'$BIN' setup && GOEVAL_HFPARITY_DEVICE=xla-cpu go test -count=1 -timeout 30m ./parity/models/"
# Packed rows, cached and shared prefixes on XLA CPU against its unpacked rows
# (engine/pack_test.go: ≤ 1e-6 per token, a model's own floor, or twice XLA's own batch noise),
# generation's shared prompt prefixes and its measured batch size there; the
# Phi, Gemma, MoE and LongRoPE goldens through the engine (scores, greedy
# generation, LongRoPE generation across its switch).
check "packing, shared prefixes, batch auto, archs on XLA CPU" bash -c "'$BIN' setup && GOEVAL_TEST_DEVICE=xla-cpu go test -count=1 -timeout 45m -run 'TestCompileCache|TestPackedExact|TestPrefixCacheExact|TestGeneratePrefixShared|TestGenBatchAuto|TestCompileAhead|TestArchsThroughEngine|TestGenerateCrossesLongRope' ./engine/"
check "LoRA vs peft"               $PY parity/lora/peft_golden.py --check
check "bitsandbytes 4-bit (dequantize_4bit, transformers, peft)" $PY parity/bnb/bnb_golden.py --check
check "bitsandbytes quantize_4bit (--load-in-4bit's quantizer)" $PY parity/bnb/quantize_golden.py --check
check "load_in_4bit vs transformers + bitsandbytes (nf4, fp4, double quant, QLoRA)" $PY parity/bnb/loadin4bit_golden.py --check
check "synth --quantize bnb-* checkpoints load in transformers as load_in_4bit" $PY parity/bnb/loadin4bit_golden.py --synth "$BIN"
check "LLM.int8 (load_in_8bit, 8-bit checkpoints) vs transformers + bitsandbytes" $PY parity/bnb/int8_golden.py --check
check "GPTQ, AWQ (NumPy dequantizer), bitsandbytes 8-bit (int8_vectorwise_dequant); transformers, peft" $PY parity/quant/quant_golden.py --check
check "fixture refs vs llama.cpp (testdata/fixtures)" parity/fixtures/make_refs.sh --check
# Held-out: the original llama.cpp fixtures beside the repository, when present.
shared="$(cd .. && pwd)/shared/fixtures"
if [[ -d "$shared" ]]; then
	check "held-out ../shared/fixtures vs llama.cpp" env GOEVAL_SHARED_FIXTURES="$shared" \
		go test -count=1 -tags sharedfixtures ./parity/fixtures/
else
	echo "== parity: held-out ../shared/fixtures check NOT RUN: $shared does not exist"
fi
check "Phi, Gemma, MoE, long-rope vs transformers"  $PY parity/archs/arch_golden.py --check
check "3,000-token rows (chunked attention) vs transformers" $PY parity/archs/long_golden.py --check
check "Phi, Gemma, MoE synth load in HF" $PY parity/archs/arch_golden.py --synth "$BIN"
# RULER (niah_single_1, niah_multikey_2/3, ruler_fwe at 4k, documents from lm-eval's custom_dataset in goeval's worker) and 8
# LongBench tasks on synthetic documents: goeval generates, lm-eval scores the same answers.
check "RULER and LongBench vs lm-eval (long context)" $PY parity/longctx/longctx.py --goeval "$BIN" --python "$PY"
check "goeval run vs lm_eval --model hf (end to end)" $PY parity/e2e/e2e.py --check
check "bfloat16 runs vs lm_eval in bfloat16: per-document agreement ≥ 99 % (cpu, xla-cpu)" bash -c "'$BIN' setup && parity/e2e/bf16_agree.sh '$BIN'"
check "Open LLM Leaderboard v2 vs lm_eval --tasks leaderboard (end to end)" $PY parity/leaderboard/leaderboard.py --check
# repeats, take_first_k, majority_vote and maj@k: lm-eval over goeval's sampled answers (the code
# runs also need evaluate's code_eval folder: reason.py --runs code,pass_at_k --code-eval DIR).
check "repeats, voting and reasoning cut vs lm-eval (replayed answers)" $PY parity/reason/reason.py --check --runs self_consistency,vote,first,think
check "goeval serve: lm_eval local-completions, openai client" $PY parity/serve/serve_check.py "$BIN"
exit $fail
