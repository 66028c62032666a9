"""The tolerance golden regeneration checks allow, shared by the parity scripts."""

import json

# A regenerated golden may differ from the committed one by the reference's
# own float32 kernels: torch picks different matmul kernels on AVX2 and
# AVX-512 machines (measured: up to 5.1e-6 on a log-prob sum). The check
# fails above REF_TOL, 5x below the 1e-4 the Go tests hold goeval to.
REF_TOL = 2e-5


def same_within(a, b, tol=REF_TOL):
    """True when a and b have the same structure, equal non-floats and
    floats within tol."""
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= tol
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same_within(a[k], b[k], tol) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same_within(x, y, tol) for x, y in zip(a, b))
    return a == b


def put(path, value, check, jsonl=False):
    """Writes value to path, or compares it (floats within REF_TOL); returns 1 on a difference."""
    if not check:
        with open(path, "w") as f:
            if jsonl:
                f.writelines(json.dumps(x) + "\n" for x in value)
            else:
                f.write(json.dumps(value, indent=1, sort_keys=True) + "\n")
        return 0
    with open(path) as f:
        old = [json.loads(x) for x in f if x.strip()] if jsonl else json.load(f)
    if not same_within(old, value):
        print(f"{path}: differs from the reference beyond {REF_TOL:g}")
        return 1
    return 0


# Half-precision goldens (bfloat16, float16) drift more: torch's bf16/f16
# CPU kernels differ between machines (AVX512-BF16, AMX or AVX2
# emulation; their f32 accumulation order), and a product rounded to 8 or
# 11 bits then lands on the neighbouring value now and then, as a second
# engine would. A regenerated golden may differ from the committed one by
# DTYPE_REF_K·ε·M on each token's log-prob (M: its largest |logit|, ε the
# dtype's unit roundoff) and by the sum of those on a request's: an eighth
# of the smallest bound parity/models/dtype_test.go holds goeval to (K =
# 4·√63 ≈ 31.7 for float16 on 2 layers), so a golden inside it changes no
# test outcome. Greedy flags and ids may differ only where the committed
# golden has a near tie (its two best log-probs within twice that).
EPS = {"bfloat16": 2.0**-8, "float16": 2.0**-11}
DTYPE_REF_K = 4.0


def dtype_differences(old, new, dtype, where):
    """Descriptions of the differences between two half-precision golden
    lines (dicts) beyond the drift above."""
    out = []
    if set(old) != set(new):
        return [f"{where}: keys {sorted(old)} vs {sorted(new)}"]
    n = len(old["token_logprobs"])
    if any(len(new[k]) != n for k in ("token_logprobs", "token_is_greedy", "greedy_ids", "logit_absmax", "top2_logprobs")):
        return [f"{where}: token counts differ"]
    tol = [DTYPE_REF_K * EPS[dtype] * m for m in old["logit_absmax"]]
    ties = [t[0] - t[1] <= 2 * tol[i] for i, t in enumerate(old["top2_logprobs"])]

    def near(a, b, t, what):
        if not abs(a - b) <= t:
            out.append(f"{where}: {what} {b!r}, was {a!r} (tolerance {t:.3g})")

    near(old["logprob_sum"], new["logprob_sum"], sum(tol), "logprob_sum")
    for i in range(n):
        near(old["token_logprobs"][i], new["token_logprobs"][i], tol[i], f"token {i} logprob")
        near(old["logit_absmax"][i], new["logit_absmax"][i], 2 * tol[i], f"token {i} logit_absmax")
        for j in range(2):
            near(old["top2_logprobs"][i][j], new["top2_logprobs"][i][j], tol[i], f"token {i} top2[{j}]")
        for k in ("token_is_greedy", "greedy_ids"):
            if old[k][i] != new[k][i] and not ties[i]:
                out.append(f"{where}: token {i} {k} {new[k][i]!r}, was {old[k][i]!r} (no near tie)")
    if old["is_greedy"] != new["is_greedy"] and not any(ties):
        out.append(f"{where}: is_greedy {new['is_greedy']}, was {old['is_greedy']} (no near tie)")
    return out
