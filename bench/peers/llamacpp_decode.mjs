#!/usr/bin/env node
// Times greedy decode with llama.cpp (the prebuilt CPU build of the npm
// package node-llama-cpp, as bench/peers/llamacpp_score.mjs uses), one
// sequence, for the packed 4-bit decode benchmark (bench/q4/decode.sh).
//
// Usage: node llamacpp_decode.mjs --model FILE.gguf [--prompt-len 64]
//          [--steps 32] [--threads 2] [--seed 1] [--vocab 128256]
//
// The prompt is prompt-len seeded random ids below the vocabulary size;
// the first generated token comes from the prefill, the other steps-1 are
// decode steps, timed. KV cache f32, no flash attention. Prints one JSON
// line: prefill and decode tokens/s.
import { getLlama, LlamaLogLevel } from "node-llama-cpp";

function parseArgs(argv) {
    const opts = { promptLen: 64, steps: 32, threads: 2, seed: 1, vocab: 128256 };
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i], v = argv[i + 1];
        if (v === undefined) throw new Error(`flag ${a} needs a value`);
        i++;
        if (a === "--model") opts.model = v;
        else if (a === "--prompt-len") opts.promptLen = Number(v);
        else if (a === "--steps") opts.steps = Number(v);
        else if (a === "--threads") opts.threads = Number(v);
        else if (a === "--seed") opts.seed = Number(v);
        else if (a === "--vocab") opts.vocab = Number(v);
        else throw new Error(`unknown flag ${a}`);
    }
    if (!opts.model) throw new Error("--model is required");
    return opts;
}

// randomIDs draws n ids in [1000, vocab) with a small LCG (seeded).
function randomIDs(n, vocab, seed) {
    let s = BigInt(seed) * 6364136223846793005n + 1442695040888963407n;
    const ids = [];
    for (let i = 0; i < n; i++) {
        s = (s * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
        ids.push(1000 + Number((s >> 33n) % BigInt(vocab - 1000)));
    }
    return ids;
}

async function main() {
    const opts = parseArgs(process.argv.slice(2));
    const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error, maxThreads: opts.threads });
    const model = await llama.loadModel({ modelPath: opts.model, gpuLayers: 0 });
    const context = await model.createContext({
        contextSize: opts.promptLen + opts.steps + 16,
        batchSize: Math.max(512, opts.promptLen),
        threads: { ideal: opts.threads, min: opts.threads },
        flashAttention: false,
        experimentalKvCacheKeyType: "F32",
        experimentalKvCacheValueType: "F32",
    });
    const seq = context.getSequence();
    const prompt = randomIDs(opts.promptLen, opts.vocab, opts.seed);
    const t0 = process.hrtime.bigint();
    let tFirst = 0n, n = 0;
    for await (const _ of seq.evaluate(prompt, { temperature: 0 })) {
        n++;
        if (n === 1) tFirst = process.hrtime.bigint();
        if (n >= opts.steps) break;
    }
    const tEnd = process.hrtime.bigint();
    const prefill = Number(tFirst - t0) / 1e9, decode = Number(tEnd - tFirst) / 1e9;
    console.log(JSON.stringify({
        peer: "llama.cpp", prompt_len: opts.promptLen, steps: n, threads: opts.threads,
        prefill_tokens_per_s: opts.promptLen / prefill, decode_tokens_per_s: (n - 1) / decode,
    }));
    await context.dispose();
    await model.dispose();
}

main().catch((e) => { console.error(e); process.exit(1); });
