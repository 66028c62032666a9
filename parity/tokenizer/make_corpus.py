"""Deterministic tokenizer parity corpus (>= 2000 varied texts).

Writes models/tokenizer/testdata/corpus.jsonl.gz: one {"text": ...} per line.
Run: .venv/bin/python parity/tokenizer/make_corpus.py [OUT]
"""
import gzip, json, random, sys, os

SEED = 20240531
PROSE = ("The quick brown fox jumps over the lazy dog. It wasn't the first time; she'd said "
         "they'll never know what we've done, and I'm sure you're right. Numbers like 3.14159, "
         "1,000,000 and 2024-05-31 appear in reports. DON'T SHOUT! He's here. We'LL see. "
         "Mr. O'Neil paid $12.50 (plus 7% tax) for e-mail@example.com at https://example.org/a?b=c&d=e.").split(" ")
LANGS = {
    "fr": "Le cœur a ses raisons que la raison ne connaît point. Où est l'hôpital ? Ça va très bien, merci !",
    "de": "Größenwahn ist schön; Straße, Fußgängerübergänge und Äpfel über alles. Das Mädchen läuft.",
    "es": "¿Dónde está la biblioteca? ¡Qué bonito día! El niño comió paella en Peñíscola.",
    "ru": "Съешь же ещё этих мягких французских булок, да выпей чаю. Москва — столица России.",
    "el": "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Η Αθήνα είναι όμορφη τον Μάιο.",
    "ar": "مرحبا بالعالم. اللغة العربية جميلة جدا، وأرقامها ١٢٣٤٥٦٧٨٩٠.",
    "he": "שלום עולם! עברית נכתבת מימין לשמאל.",
    "hi": "नमस्ते दुनिया। हिंदी भाषा देवनागरी लिपि में लिखी जाती है। १२३",
    "bn": "আমার সোনার বাংলা, আমি তোমায় ভালোবাসি।",
    "ta": "யாமறிந்த மொழிகளிலே தமிழ்மொழி போல் இனிதாவது எங்கும் காணோம்.",
    "th": "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ สวัสดีครับ",
    "zh": "你好，世界！我们今天去公园散步吧。中文没有空格，标点符号是全角的：“引号”。",
    "ja": "こんにちは世界。カタカナとひらがなと漢字を混ぜて書きます。東京タワー",
    "ko": "안녕하세요 세계! 한국어는 한글로 씁니다. 감사합니다.",
    "ka": "გამარჯობა მსოფლიო, ქართული ანბანი ლამაზია.",
    "hy": "Բարեւ աշխարհ, հայերենը հին լեզու է։",
    "am": "ሰላም ለዓለም። አማርኛ በግዕዝ ፊደል ይጻፋል።",
    "vi": "Tiếng Việt có rất nhiều dấu: ắ ằ ẳ ẵ ặ. Xin chào thế giới!",
    "tr": "İstanbul'da ılık bir gün. IĞDIR ŞİŞLİ çğıöşü.",
    "pl": "Zażółć gęślą jaźń. Łódź jest w Polsce.",
    "fa": "سلام دنیا، فارسی هم از راست به چپ نوشته می‌شود.",
    "my": "မင်္ဂလာပါ ကမ္ဘာလောက",
    "km": "សួស្តី​ពិភពលោក",
    "si": "ආයුබෝවන් ලෝකය",
}
CODE = [
    "def fib(n):\n    if n < 2:\n        return n\n    return fib(n-1) + fib(n-2)\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i] * b[i];\n}\n",
    "func main() {\n\tfmt.Println(\"hello, 世界\")\n}\n",
    "SELECT id, name FROM users WHERE age >= 18 AND name LIKE '%son' ORDER BY id DESC;",
    "const x = {a: 1, 'b': [2, 3], \"c\": null}; // comment\nconsole.log(x?.a ?? 0);",
    "#include <stdio.h>\r\nint main(void) {\r\n    printf(\"%d\\n\", 42);\r\n    return 0;\r\n}\r\n",
    "<html><body><p class=\"x\">Hello &amp; welcome</p></body></html>",
    "    indented    with    spaces\n\t\ttabs\there\n        \n",
    "fn main() -> Result<(), Box<dyn Error>> { let v: Vec<u8> = vec![0xFF; 16]; Ok(()) }",
    "$ ls -la | grep '^d' && echo \"done\" >> /tmp/log.txt 2>&1",
    "x = [i**2 for i in range(10) if i % 2 == 0]  # squares\nprint(f\"{x!r:>10}\")",
    "{\"key\": \"value\", \"list\": [1, 2.5e-3, true, false, null], \"nested\": {\"a\": \"\\u00e9\"}}",
]
MAN = [
    "NAME\n       ls - list directory contents\n\nSYNOPSIS\n       ls [OPTION]... [FILE]...\n",
    "DESCRIPTION\n       -a, --all\n              do not ignore entries starting with .\n\n       -l     use a long listing format\n",
    "EXIT STATUS\n       0      if OK,\n       1      if minor problems (e.g., cannot access subdirectory),\n       2      if serious trouble.\n",
]
EMOJI = ["😀", "👍🏽", "👩‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇺🇸", "🇯🇵", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "❤️", "✨", "🔥", "🤖", "👁️‍🗨️", "🧑🏿‍🚀", "☺", "⭐", "🫠", "1️⃣", "#️⃣"]
WS = [" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", "\r", "\u00a0", "\u2009", "\u3000", "\u200b", "\u200c", "\u200d", "\ufeff", "\u2028", "\u0085", " \n ", "\t \t", "\u202f", "\u1680", "\x0b", "\x0c"]
SPECIAL = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<s>", "</s>", "<unk>", "<|begin_of_text|>", "<|eot_id|>",
           "<|start_header_id|>", "<bos>", "<eos>", "<start_of_turn>", "<end_of_turn>", "<unused12>", "<pad>", "<mask>",
           "<think>", "</think>", "[INST]", "[/INST]", "<|im_start", "im_end|>", "< s>", "<s >", "<|endoftext|", "<<s>>",
           "<|reserved_special_token_5|>", "<0x41>", "<image_soft_token>", "[multimodal]", "<tool_call>"]
NUMS = ["0", "7", "42", "123", "1234", "12345", "1234567890123", "3.14159", "-0.5", "1e10", "1,000,000", "١٢٣", "１２３",
        "²³", "Ⅻ", "½", "0x1F", "100%", "$5", "2024-01-01", "12:30:45", "+1 (555) 123-4567"]
CONTRACT = ["don't", "DON'T", "it's", "IT'S", "we'll", "We'LL", "I'm", "you're", "they've", "he'd", "'s", "'t", "'re", "'ve",
            "'m", "'ll", "'d", "'S", "'T", "'RE", "'VE", "'M", "'LL", "'D", "rock'n'roll", "''", "'", "’s", "it’s"]
BLOCKS = [(0x20, 0x7e), (0xa0, 0x24f), (0x370, 0x3ff), (0x400, 0x4ff), (0x590, 0x5ff), (0x600, 0x6ff), (0x900, 0x97f),
          (0xe00, 0xe7f), (0x1100, 0x11ff), (0x2000, 0x206f), (0x2190, 0x22ff), (0x2500, 0x257f), (0x3040, 0x30ff),
          (0x4e00, 0x4fff), (0xac00, 0xacff), (0xff00, 0xffef), (0x1f300, 0x1f64f), (0x1d400, 0x1d4ff), (0x10000, 0x1007f)]


def rand_unicode(rng, n):
    out = []
    for _ in range(n):
        lo, hi = rng.choice(BLOCKS)
        out.append(chr(rng.randint(lo, hi)))
    return "".join(out)


def mix(rng, k):
    pools = [PROSE, list(LANGS.values()), CODE, EMOJI, WS, SPECIAL, NUMS, CONTRACT]
    parts = []
    for _ in range(k):
        pool = rng.choice(pools)
        parts.append(rng.choice(pool))
        if rng.random() < 0.6:
            parts.append(rng.choice([" ", "", "\n", "  ", "\t"]))
    return "".join(parts)


def generators(rng):
    yield from [("empty", ""), ("space", " "), ("spaces", "     "), ("newline", "\n"), ("crlf", "\r\n\r\n")]
    for t in SPECIAL + NUMS + CONTRACT + EMOJI + WS:
        yield ("atom", t)
    for lang, t in LANGS.items():
        yield ("lang-" + lang, t)
        yield ("lang-" + lang + "-ws", " " + t.replace(" ", "  ") + " \n")
    for t in CODE + MAN:
        yield ("code", t)
    for i in range(400):
        words = [rng.choice(PROSE) for _ in range(rng.randint(1, 60))]
        yield ("prose", " ".join(words))
    for i in range(500):
        yield ("mix", mix(rng, rng.randint(1, 25)))
    for i in range(250):
        yield ("unicode", rand_unicode(rng, rng.randint(1, 40)))
    for i in range(150):
        yield ("emoji", "".join(rng.choice(EMOJI + [" ", "\n", "ok"]) for _ in range(rng.randint(1, 20))))
    for i in range(200):
        yield ("ws", "".join(rng.choice(WS + ["a", "b", "1", ".", "é"]) for _ in range(rng.randint(1, 30))))
    for i in range(150):
        yield ("numbers", " ".join(rng.choice(NUMS) + rng.choice(["", "", "x", "."]) for _ in range(rng.randint(1, 12))))
    for i in range(150):
        yield ("special", "".join(rng.choice(SPECIAL + [" ", "hi", "\n", " world "]) for _ in range(rng.randint(1, 10))))
    for i in range(100):
        yield ("contractions", " ".join(rng.choice(CONTRACT + PROSE) for _ in range(rng.randint(1, 15))))
    for i in range(60):
        c = rng.choice(["a", "ab", "ä", "中", "=", "-", "0", " ", "\n", "😀", "x "])
        yield ("repeat", c * rng.randint(20, 400))
    for i in range(60):
        yield ("combining", "".join(rng.choice(["e\u0301", "a\u0308", "n\u0303", "\u0301", "Å", "ﬁ", "Ⅸ", "㎏", "ｶ", "ｱ"]) for _ in range(rng.randint(1, 20))))
    for i in range(40):
        yield ("long", mix(rng, rng.randint(60, 200)))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "models", "tokenizer", "testdata", "corpus.jsonl.gz")
    rng = random.Random(SEED)
    rows = [{"kind": k, "text": t} for k, t in generators(rng)]
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        for r in rows:
            f.write((json.dumps(r, ensure_ascii=False) + "\n").encode())
    print(f"{out}: {len(rows)} texts", file=sys.stderr)


if __name__ == "__main__":
    main()
