#!/usr/bin/env node
// Scores loglikelihood requests with llama.cpp (the prebuilt CPU build shipped
// in the npm package node-llama-cpp), for goeval's peer benchmark and parity.
//
// Usage: node llamacpp_score.mjs --model FILE.gguf --requests FILE
//          [--out FILE] [--threads 2] [--sequences 4] [--full] [--max-length N]
//
// Requests are {"context_ids","continuation_ids"} lines. The model input is
// (ctx+cont)[-(maxLen+1):][:-1] (lm-eval's rule); the last len(cont)
// positions are scored. With --full every scored position returns all vocab
// logits and the log-softmax is a float64 log-sum-exp in JS (for parity);
// without it llama.cpp returns only the target and max logits plus
// Σexp(logit-max), which is what the benchmark times. Weights f32, KV cache
// f32, no flash attention. Prints one summary line (tokens/s) on stderr.
import fs from "node:fs";
import { getLlama, LlamaLogLevel } from "node-llama-cpp";

function parseArgs(argv) {
    const opts = { threads: 2, sequences: 4, full: false, maxLength: 0, out: "" };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        const next = () => {
            if (i + 1 >= argv.length) throw new Error(`flag ${a} needs a value`);
            return argv[++i];
        };
        if (a === "--model") opts.model = next();
        else if (a === "--requests") opts.requests = next();
        else if (a === "--out") opts.out = next();
        else if (a === "--threads") opts.threads = Number(next());
        else if (a === "--sequences") opts.sequences = Number(next());
        else if (a === "--max-length") opts.maxLength = Number(next());
        else if (a === "--full") opts.full = true;
        else throw new Error(`unknown flag ${a}`);
    }
    if (!opts.model || !opts.requests) throw new Error("--model and --requests are required");
    return opts;
}

function readRequests(file) {
    return fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l, i) => {
        const r = JSON.parse(l);
        if (!Array.isArray(r.context_ids) || !Array.isArray(r.continuation_ids) ||
            r.context_ids.length === 0 || r.continuation_ids.length === 0)
            throw new Error(`${file}:${i + 1}: need non-empty context_ids and continuation_ids`);
        return r;
    });
}

// logprobFull turns a full logits map into (log p(target), is_greedy).
function logprobFull(logits, target) {
    let max = -Infinity, argmax = -1;
    for (const [tok, v] of logits) if (v > max) { max = v; argmax = tok; }
    let sum = 0;
    for (const v of logits.values()) sum += Math.exp(v - max);
    return [logits.get(target) - max - Math.log(sum), argmax === target];
}

// logprobFiltered uses llama.cpp's top logit and its Σexp(logit-max)
// (accumulated in float32 by llama.cpp, so only good to ~1e-5).
function logprobFiltered(next, target) {
    const [, maxLogit] = next.logits.entries().next().value;
    const lp = next.logits.get(target) - maxLogit - Math.log(next.totalLogitWeight);
    return [lp, next.token === target || next.logits.get(target) === maxLogit];
}

async function scoreOne(seq, req, opts, maxLen) {
    const ctx = req.context_ids, cont = req.continuation_ids;
    const input = ctx.concat(cont).slice(-(maxLen + 1)).slice(0, -1);
    const first = input.length - cont.length;
    const items = input.map((tok, i) => {
        if (i < first) return tok;
        const target = cont[i - first];
        const generateNext = opts.full
            ? { logits: true }
            : { token: true, totalLogitWeight: true, logits: { filter: { tokens: [target], includeTop: 1 } } };
        return [tok, { generateNext }];
    });
    await seq.clearHistory();
    const res = await seq.controlledEvaluate(items);
    const tokenLogprobs = [], greedy = [];
    for (let i = first; i < input.length; i++) {
        const target = cont[i - first];
        const [lp, g] = opts.full ? logprobFull(res[i].next.logits, target) : logprobFiltered(res[i].next, target);
        tokenLogprobs.push(lp);
        greedy.push(g);
    }
    return {
        logprob_sum: tokenLogprobs.reduce((a, b) => a + b, 0),
        is_greedy: greedy.every((g) => g),
        token_logprobs: tokenLogprobs,
        token_is_greedy: greedy,
    };
}

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    const reqs = readRequests(opts.requests);
    const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error, maxThreads: opts.threads });
    const model = await llama.loadModel({ modelPath: opts.model, gpuLayers: 0 });
    const maxLen = opts.maxLength || model.trainContextSize;
    const longest = Math.max(...reqs.map((r) => Math.min(r.context_ids.length + r.continuation_ids.length - 1, maxLen)));
    const context = await model.createContext({
        contextSize: Math.max(longest, 16) * opts.sequences,
        sequences: opts.sequences,
        batchSize: Math.max(512, longest),
        threads: { ideal: opts.threads, min: opts.threads },
        flashAttention: false,
        experimentalKvCacheKeyType: "F32",
        experimentalKvCacheValueType: "F32",
    });
    const seqs = Array.from({ length: opts.sequences }, () => context.getSequence());
    const results = new Array(reqs.length);
    // Longest first, like lm-eval; each sequence takes the next request.
    const order = reqs.map((_, i) => i).sort((a, b) =>
        (reqs[b].context_ids.length + reqs[b].continuation_ids.length) -
        (reqs[a].context_ids.length + reqs[a].continuation_ids.length));
    let nextIdx = 0, tokens = 0;
    const t0 = process.hrtime.bigint();
    await Promise.all(seqs.map(async (seq) => {
        while (nextIdx < order.length) {
            const i = order[nextIdx++];
            results[i] = await scoreOne(seq, reqs[i], opts, maxLen);
            tokens += Math.min(reqs[i].context_ids.length + reqs[i].continuation_ids.length - 1, maxLen);
        }
    }));
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    if (opts.out) fs.writeFileSync(opts.out, results.map((r) => JSON.stringify(r)).join("\n") + "\n");
    console.error(`llama.cpp: ${reqs.length} requests, ${tokens} tokens in ${secs.toFixed(3)} s = ` +
        `${(tokens / secs).toFixed(1)} tokens/s (threads ${opts.threads}, sequences ${opts.sequences}, ` +
        `${opts.full ? "full logits" : "filtered logits"})`);
    console.log(JSON.stringify({ peer: "llama.cpp", requests: reqs.length, tokens, seconds: secs, tokens_per_s: tokens / secs }));
    await context.dispose();
    await model.dispose();
}

main().catch((e) => {
    console.error(`llamacpp_score: ${e.message}`);
    process.exit(1);
});
