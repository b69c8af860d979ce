#!/usr/bin/env python3
"""Small safetensors files for the C++ reader's tests, written byte by byte with
numpy and the struct/json modules (not with the safetensors library, nor with the
C++ writer), following the format of https://github.com/huggingface/safetensors:

  8 bytes  header length N, little-endian uint64
  N bytes  JSON {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {...}}
  rest     the tensors' little-endian bytes, each at [begin, end) of the data

  /usr/bin/python3 golden/safetensors_files.py           # writes golden/safetensors/*.safetensors
  /usr/bin/python3 golden/safetensors_files.py --check   # 0 same bytes, 1 differ, 77 no numpy

The values are those tests/safetensors_test.cpp expects (see each function).
"""
import argparse
import json
import os
import struct
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    np = None


def safetensors(tensors, metadata=None, pad=True):
    """tensors: list of (name, dtype string, array already in that dtype), written
    in this order; the JSON keys appear in the same order (unsorted)."""
    header, chunks, offset = {}, [], 0
    for name, dtype, array in tensors:
        raw = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(", ", ": ")).encode("utf-8")
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def bf16(values):
    """float32 values exactly representable in bfloat16 -> their upper 16 bits (uint16)."""
    bits = np.asarray(values, dtype="<f4").view("<u4")
    assert (bits & 0xFFFF == 0).all(), "value not exact in bfloat16"
    return (bits >> 16).astype("<u2")


def tiny_f32():
    """The project's names; wte[r, c] = (4 r + c) / 4 - 1.5 (5, 4); wpe[t, c] = -(4 t + c) / 8 (3, 4)."""
    r, c = np.meshgrid(np.arange(5), np.arange(4), indexing="ij")
    wte = ((4 * r + c) / 4 - 1.5).astype("<f4")
    t, c = np.meshgrid(np.arange(3), np.arange(4), indexing="ij")
    wpe = (-(4 * t + c) / 8).astype("<f4")
    return safetensors([("wte", "F32", wte), ("wpe", "F32", wpe)],
                       {"config": "tiny", "seed": "1337"})


def gpt2_names():
    """GPT-2's Hugging Face names, positions stored first, an unrelated tensor between;
    transformer.wte.weight (6, 3) = 0.5 * arange(18) - 4; transformer.wpe.weight (2, 3) =
    [[1e-3, -1e-3, 3.5], [1e30, -1e-30, 0]]; header not padded."""
    wte = (0.5 * np.arange(18) - 4).reshape(6, 3).astype("<f4")
    wpe = np.array([[1e-3, -1e-3, 3.5], [1e30, -1e-30, 0.0]], dtype="<f4")
    ln = np.array([1.0, 2.0, 3.0], dtype="<f4")
    return safetensors([("transformer.wpe.weight", "F32", wpe), ("transformer.h.0.ln_1.weight", "F32", ln),
                        ("transformer.wte.weight", "F32", wte)], pad=False)


def half_precision():
    """wte.weight BF16 (3, 2) = [[1, -2.5], [0.15625, 3.3895314e38], [-0.0, 2^-133]];
    wpe.weight F16 (2, 2) = [[0.333251953125, -65504], [2^-24, inf]]."""
    wte = bf16([[1.0, -2.5], [0.15625, 3.3895313892515355e38], [-0.0, 2.0 ** -133]]).reshape(3, 2)
    wpe = np.array([[1 / 3, -65504.0], [2.0 ** -24, np.inf]], dtype="<f2")
    return safetensors([("wte.weight", "BF16", wte), ("wpe.weight", "F16", wpe)], {"dtype": "mixed"})


FILES = {"tiny_f32.safetensors": tiny_f32, "gpt2_names.safetensors": gpt2_names,
         "half_precision.safetensors": half_precision}


def write(folder):
    for name, make in FILES.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(make())


def main(argv=None):
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "safetensors")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="regenerate to a temp dir and compare with the committed files")
    args = ap.parse_args(argv)
    if np is None:
        print("numpy not found: skipping" if args.check else "numpy not found", file=sys.stderr)
        return 77 if args.check else 1
    if not args.check:
        os.makedirs(here, exist_ok=True)
        write(here)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        write(tmp)
        differ = []
        for name in FILES:
            with open(os.path.join(tmp, name), "rb") as a:
                fresh = a.read()
            path = os.path.join(here, name)
            committed = open(path, "rb").read() if os.path.exists(path) else None
            if fresh != committed:
                differ.append(name)
        for name in differ:
            print(f"golden/safetensors/{name} differs from what safetensors_files.py writes")
        print("safetensors files: all match" if not differ else f"{len(differ)} file(s) differ")
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
