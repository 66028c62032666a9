"""A safetensors file written one tensor at a time, each tensor's bytes
made only when written, so that synthesized benchmark checkpoints of
billions of parameters (bench/q4/synth_nf4.py, bench/gptq/synth_gptq.py)
never hold more than one tensor in memory."""

import json

import numpy as np

SIZE = {"U8": 1, "I32": 4, "F32": 4, "F16": 2, "BF16": 2}


def write_safetensors(path, tensors):
    """Writes tensors, (name, dtype, shape, fill) with fill() → bytes,
    sorted by name; returns the bytes of tensor data written."""
    tensors = sorted(tensors, key=lambda t: t[0])
    header, off = {"__metadata__": {"format": "pt"}}, 0
    for name, dt, shape, _ in tensors:
        n = SIZE[dt] * int(np.prod(shape))
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + n]}
        off += n
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(len(h).to_bytes(8, "little") + h)
        for name, _, _, fill in tensors:
            data = fill()
            lo, hi = header[name]["data_offsets"]
            assert len(data) == hi - lo, f"{name}: {len(data)} bytes, {hi - lo} expected"
            f.write(data)
    return off
