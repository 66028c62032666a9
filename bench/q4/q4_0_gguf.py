"""Rewrites an f32 GGUF (bench/peers/hf_to_gguf.py) with llama.cpp's Q4_0
weights: every 2-D weight whose rows are whole 32-value blocks becomes
Q4_0 (an f16 scale and 32 4-bit codes per block, quantized by the gguf-py
of the llama.cpp revision node-llama-cpp ships: the reference
quantize_row_q4_0), the token embedding (the LM head when tied) Q4_0 or,
with --embd-type, Q8_0 (llama-quantize's Q4_0 gives the output tensor
Q6_K, which gguf-py does not quantize), or BF16 or F16: a bitsandbytes
4-bit checkpoint keeps its embedding and head unquantized, so BF16 gives
llama.cpp the same head bytes as goeval reads; the rest stays f32.

Usage: q4_0_gguf.py --in F32.gguf --out Q4_0.gguf [--embd-type q4_0|q8_0|bf16|f16]

Needs the .venv (numpy) and the extraction hf_to_gguf.py makes under
.cache/llama.cpp-convert/.
"""

import argparse
import glob
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def gguf_module():
    """Imports the gguf-py that hf_to_gguf.py extracted."""
    found = sorted(glob.glob(os.path.join(ROOT, ".cache", "llama.cpp-convert", "*", "gguf-py")))
    if not found:
        raise SystemExit("q4_0_gguf: run bench/peers/hf_to_gguf.py once first (it extracts gguf-py)")
    sys.path.insert(0, found[-1])
    import gguf  # noqa: E402

    return gguf


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--in", dest="src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--embd-type", default="q4_0", choices=["q4_0", "q8_0", "bf16", "f16"])
    args = ap.parse_args()
    gguf = gguf_module()
    T = gguf.GGMLQuantizationType
    reader = gguf.GGUFReader(args.src)
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    writer = gguf.GGUFWriter(args.out, arch)
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue
        val_type = field.types[0]
        sub_type = field.types[-1] if val_type == gguf.GGUFValueType.ARRAY else None
        value = field.contents()
        if field.name == gguf.Keys.General.FILE_TYPE:
            value = int(gguf.LlamaFileType.MOSTLY_Q4_0)
        writer.add_key_value(field.name, value, val_type, sub_type=sub_type)
    plan = []
    for t in reader.tensors:
        qtype = None
        if len(t.data.shape) == 2 and t.tensor_type == T.F32 and t.data.shape[-1] % 32 == 0:
            qtype = T.Q4_0
            if t.name == "token_embd.weight":
                qtype = {"q4_0": T.Q4_0, "q8_0": T.Q8_0, "bf16": T.BF16, "f16": T.F16}[args.embd_type]
        plan.append((t, qtype))
        if qtype is None:
            writer.add_tensor_info(t.name, t.data.shape, t.data.dtype, t.data.nbytes, t.tensor_type)
        else:
            shape = gguf.quant_shape_to_byte_shape(t.data.shape, qtype)
            writer.add_tensor_info(t.name, shape, np.dtype(np.uint8), int(np.prod(shape)), qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for t, qtype in plan:
        if qtype is None:
            writer.write_tensor_data(t.data)
            continue
        rows = []
        for r0 in range(0, t.data.shape[0], 4096):  # bounded temporaries
            rows.append(gguf.quants.quantize(np.asarray(t.data[r0:r0 + 4096], dtype=np.float32), qtype))
        writer.write_tensor_data(np.concatenate(rows))
        print(f"{t.name}: {qtype.name}", file=sys.stderr)
    writer.close()


if __name__ == "__main__":
    main()
