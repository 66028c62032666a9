"""Quantizes an f32 GGUF (bench/peers/hf_to_gguf.py) with llama.cpp's own
quantizer, llama_model_quantize from the libllama that node-llama-cpp
ships prebuilt: what `llama-quantize IN OUT Q4_0` writes. Its Q4_0 preset
keeps llama.cpp's per-tensor choices (a tied embedding, which is the LM
head, becomes Q6_K); --pure makes every weight Q4_0, as
bench/q4/q4_0_gguf.py does with numpy.

Usage: llama_quantize.py --in F32.gguf --out Q4_0.gguf [--pure] [--threads 2]

Needs `npm ci` in bench/peers (linux x64) and a Python with ctypes.
"""

import argparse
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = os.path.join(HERE, "..", "peers", "node_modules", "@node-llama-cpp", "linux-x64", "bins", "linux-x64")

LLAMA_FTYPE_MOSTLY_Q4_0 = 2
GGML_TYPE_COUNT = 43  # the "not set" value of the two tensor-type fields in this revision


class QuantizeParams(ctypes.Structure):
    """llama_model_quantize_params of the llama.cpp revision node-llama-cpp
    ships (include/llama.h in node_modules/node-llama-cpp/llama/gitRelease.bundle)."""

    _fields_ = [
        ("nthread", ctypes.c_int32),
        ("ftype", ctypes.c_int32),
        ("output_tensor_type", ctypes.c_int32),
        ("token_embedding_type", ctypes.c_int32),
        ("allow_requantize", ctypes.c_bool),
        ("quantize_output_tensor", ctypes.c_bool),
        ("only_copy", ctypes.c_bool),
        ("pure", ctypes.c_bool),
        ("keep_split", ctypes.c_bool),
        ("dry_run", ctypes.c_bool),
        ("imatrix", ctypes.c_void_p),
        ("kv_overrides", ctypes.c_void_p),
        ("tt_overrides", ctypes.c_void_p),
        ("prune_layers", ctypes.c_void_p),
        ("max_buf_size", ctypes.c_size_t),
    ]


def load_llama():
    """Loads libllama (and the ggml libraries it links) from node-llama-cpp's binaries."""
    if not os.path.isdir(LIBS):
        raise SystemExit(f"llama_quantize: no {LIBS}: run `npm ci` in bench/peers (linux x64 only)")
    names = sorted(os.listdir(LIBS))

    def one(prefix):
        found = [n for n in names if n.startswith(prefix) and ".so" in n]
        if not found:
            raise SystemExit(f"llama_quantize: no {prefix}*.so in {LIBS}")
        return os.path.join(LIBS, found[0])

    for prefix in ("libggml-base", "libggml."):
        ctypes.CDLL(one(prefix), mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(one("libllama."), mode=ctypes.RTLD_GLOBAL)
    lib.llama_model_quantize_default_params.restype = QuantizeParams
    lib.llama_model_quantize.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(QuantizeParams)]
    lib.llama_model_quantize.restype = ctypes.c_uint32
    return lib


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--in", dest="src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--pure", action="store_true", help="every weight Q4_0, the head and embedding too")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    lib = load_llama()
    lib.llama_backend_init()
    params = lib.llama_model_quantize_default_params()
    if params.output_tensor_type != GGML_TYPE_COUNT or params.nthread != 0:
        # A revision whose struct differs would be written wrongly: refuse.
        raise SystemExit("llama_quantize: libllama's default parameters are not this script's layout")
    params.nthread = args.threads
    params.ftype = LLAMA_FTYPE_MOSTLY_Q4_0
    params.pure = args.pure
    if lib.llama_model_quantize(args.src.encode(), args.out.encode(), ctypes.byref(params)) != 0:
        sys.exit(f"llama_quantize: llama_model_quantize failed for {args.src}")


if __name__ == "__main__":
    main()
