#!/usr/bin/env python3
"""Golden values for the embedding layer (token lookup + learned positions).

An independent re-implementation, in numpy and PyTorch, of what the C++ code
computes: Philox4x32-10 and the init of core/init.hpp (vectorised uint32 /
uint64 numpy arithmetic), then every piece of the layer with torch modules.

  /usr/bin/python3 golden/generate.py            # writes golden/*.json
  /usr/bin/python3 golden/generate.py --out DIR  # writes DIR/*.json
  /usr/bin/python3 golden/generate.py --check    # 0 same, 1 differs, 77 no torch
"""
import argparse
import difflib
import json
import math
import os
import sys
import tempfile

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError:  # --check reports SKIP (77); a plain run fails below
    np = torch = F = None

SEED = 1337                    # andrea::default_seed
TOKEN, POSITION, EXAMPLE_IDS = 0, 1, 2   # andrea::Table, word 2 of the counter
TINY = {"vocab_size": 5, "d_model": 4, "context_length": 3}
ODD = {"vocab_size": 7, "d_model": 5, "context_length": 4}
ANDREA = {"vocab_size": 8449, "d_model": 768, "context_length": 1024}
GPT2 = {"vocab_size": 50257, "d_model": 768, "context_length": 1024}
# Pass when |actual - expected| <= abs + rel * |expected|.
EXACT = {"abs": 0.0, "rel": 0.0}
NORM_TOL = {"abs": 0.0, "rel": 2e-6}
DOT_TOL = {"abs": 1e-6, "rel": 2e-6}
SUM_TOL = {"abs": 1e-6, "rel": 1e-9}   # float64 sums of up to 6.5M float32 values
ACCUMULATE_TOL = {"abs": 1e-6, "rel": 1e-6}   # ((g0 + c1) + c2) here, g0 + (c1 + c2) in PyTorch
SGD_TOL = {"abs": 0.0, "rel": 1.2e-7}       # w - lr * g: one rounding more or less (fused multiply-add)
ROPE_TOL = {"abs": 1e-8, "rel": 1e-6}  # float64 rotation rounded once to float32
KNOWN_ANSWERS = [  # Random123 kat_vectors for philox4x32_10
    {"key": ["00000000"] * 2, "counter": ["00000000"] * 4,
     "output": ["6627e8d5", "e169c58d", "bc57ac4c", "9b00dbd8"]},
    {"key": ["ffffffff"] * 2, "counter": ["ffffffff"] * 4,
     "output": ["408f276d", "41c83b0e", "a20bc7c6", "6d5451fd"]},
]

# --- Philox4x32-10 and the init ------------------------------------------------
U32, U64 = (np.uint32, np.uint64) if np else (None, None)
MUL0, MUL1, WEYL0, WEYL1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def philox(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 of counters (c0..c3) under key (k0, k1), over whole arrays."""
    c = [a.astype(U32) for a in np.broadcast_arrays(*(np.asarray(x, U64) for x in (c0, c1, c2, c3)))]
    for _ in range(10):
        p0 = U64(MUL0) * c[0].astype(U64)
        p1 = U64(MUL1) * c[2].astype(U64)
        c = [(p1 >> U64(32)).astype(U32) ^ c[1] ^ U32(k0), p1.astype(U32),
             (p0 >> U64(32)).astype(U32) ^ c[3] ^ U32(k1), p0.astype(U32)]
        k0, k1 = (k0 + WEYL0) & 0xFFFFFFFF, (k1 + WEYL1) & 0xFFFFFFFF  # key schedule
    return c


def philox_scalar(c, k0, k1):
    """The same with Python integers, one counter: a second implementation to compare."""
    c = list(c)
    for _ in range(10):
        p0, p1 = MUL0 * c[0], MUL1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xFFFFFFFF]
        k0, k1 = (k0 + WEYL0) & 0xFFFFFFFF, (k1 + WEYL1) & 0xFFFFFFFF
    return c


def box_muller_libm(u1, u2, d_model):
    """One element through Python's math, i.e. the C library's log/cos, as in C++."""
    z = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
    return np.float32(z / math.sqrt(d_model))


def init_values(seed, table, index, d_model):
    """andrea::init_value for every flat element index in `index` (float32 array)."""
    i = np.asarray(index, U64)
    w = [x.astype(U64) for x in philox(i & U64(0xFFFFFFFF), i >> U64(32), table, 0,
                                        seed & 0xFFFFFFFF, seed >> 32)]
    a = ((w[0] << U64(32)) | w[1]) >> U64(11)           # top 53 bits of words 0, 1
    b = ((w[2] << U64(32)) | w[3]) >> U64(11)           # top 53 bits of words 2, 3
    u1 = (a.astype(np.float64) + 1.0) / 2.0**53         # (0, 1]
    u2 = b.astype(np.float64) / 2.0**53                 # [0, 1)
    r = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * math.pi * u2) / math.sqrt(d_model)
    out = r.astype(np.float32)
    # numpy's SIMD log/cos may differ from the C library's in the last bit of
    # the double. That changes the float32 only when r sits next to a float32
    # rounding boundary: redo those few elements with the C library's functions.
    near = (r * (1 - 2.0**-40)).astype(np.float32) != (r * (1 + 2.0**-40)).astype(np.float32)
    for j in np.flatnonzero(near):
        out[j] = box_muller_libm(u1[j], u2[j], d_model)
    return out


def init_table(config, table, rows=None):
    """Rows (default: all) of table TOKEN (V, d) or POSITION (T, d), float32 numpy."""
    d = config["d_model"]
    if rows is None:
        rows = range(config["vocab_size"] if table == TOKEN else config["context_length"])
    rows = np.asarray(rows, np.int64)
    return init_values(SEED, table, (rows[:, None] * d + np.arange(d)).ravel(), d).reshape(-1, d)


def example_ids(n, vocab_size, seed=SEED):
    """andrea::example_ids: 256, 1842, 7301, then word 0 of Philox((t,0,2,0), seed) mod V."""
    t = np.arange(3, n, dtype=np.uint64)
    w0 = philox(t, 0, EXAMPLE_IDS, 0, seed & 0xFFFFFFFF, seed >> 32)[0]
    return [256, 1842, 7301][:n] + [int(x) % vocab_size for x in w0]


def self_check():
    """Known answers first, then the vectorised Philox against the scalar one."""
    for kat in KNOWN_ANSWERS:
        key, ctr = [int(x, 16) for x in kat["key"]], [int(x, 16) for x in kat["counter"]]
        got = ["%08x" % int(x) for x in philox(*ctr, *key)]
        assert got == kat["output"] == ["%08x" % x for x in philox_scalar(ctr, *key)], got
    ctr = [(5, 7, 1, 0), (2**32 - 1, 3, 0, 0), (42, 0, 2, 0)]
    vec = philox(*np.array(ctr, np.uint64).T, SEED, 0)
    for j, c in enumerate(ctr):
        assert [int(v[j]) for v in vec] == philox_scalar(c, SEED, 0), c
    assert 2.0 * math.pi == float("6.283185307179586476925286766559")  # kTwoPi


# --- Helpers --------------------------------------------------------------------
def embedding(table32):
    """A frozen nn.Embedding whose weight is the float32 table (a tensor)."""
    return torch.nn.Embedding.from_pretrained(table32, freeze=True)


def f32(t64):
    """Round a float64 tensor once to float32; Python floats (exact, repr round-trips)."""
    return t64.to(torch.float32).tolist()


def row_norms(out32):
    return f32(torch.linalg.vector_norm(out32.double(), dim=-1))


def fsum(t, square=False):
    """Correctly rounded float64 sum (math.fsum) of a float32 tensor's values."""
    x = t.double().flatten()
    return math.fsum((x * x if square else x).tolist())   # x*x is exact in float64


def rows_of(out32, rows):
    return {str(r): out32[r].tolist() for r in rows}


def big_summary(out32, rows):
    """What a large output is stored as: row norms, a few whole rows, its sum."""
    return {"row_norms": row_norms(out32), "rows": rows_of(out32, rows), "sum": fsum(out32),
            "norm_tolerance": NORM_TOL, "sum_tolerance": SUM_TOL}


def combine(wte32, wpe32, ids):
    """wte(idx) + wpe(pos) in float32 for ids (B, n); position t, never batch b."""
    idx = torch.tensor(ids, dtype=torch.long)
    pos = torch.arange(idx.shape[-1])
    return (embedding(wte32)(idx) + embedding(wpe32)(pos)).reshape(-1, wte32.shape[1])


# --- Pieces: each returns the file's list of cases --------------------------------
def piece_init(T):
    return [
        {"name": "tiny", "config": TINY, "tolerance": EXACT,
         "wte": T["tiny_wte"].tolist(), "wpe": T["tiny_wpe"].tolist()},
        {"name": "andrea-120m", "config": ANDREA, "tolerance": EXACT, "sum_tolerance": SUM_TOL,
         "wte_rows": rows_of(T["wte"], [0, 1, 4224, 8448]),
         "wpe_rows": rows_of(T["wpe"], [0, 1, 1023]),
         "wte_sum": fsum(T["wte"]), "wpe_sum": fsum(T["wpe"]),
         "wte_sum_squares": fsum(T["wte"], True), "wpe_sum_squares": fsum(T["wpe"], True)},
    ]


def piece_lookup(T):
    cases = []
    for name, cfg, wte, ids in [("tiny", TINY, T["tiny_wte"], [3, 0, 3, 4]),
                                ("odd-width", ODD, T["odd_wte"], [6, 1, 1])]:
        out = embedding(wte)(torch.tensor(ids))
        cases.append({"name": name, "config": cfg, "tolerance": EXACT, "wte": wte.tolist(),
                      "ids": ids, "out": out.tolist()})
    ids = T["ids"]
    out = embedding(T["wte"])(torch.tensor(ids))
    cases.append({"name": "andrea-120m-example", "config": ANDREA, "tolerance": EXACT, "n": len(ids),
                  "ids_head": ids[:8], "ids_sum": sum(ids), **big_summary(out, [0, 1, 2, 511, 1023])})
    return cases


def piece_norm(T):
    vectors = [("3-4-5", [3, 4]), ("1-2-2", [1, 2, 2]), ("large", [1e20, 1, 1]),
               ("tiny-values", [1e-30, 1e-30]), ("single-negative", [-2]),
               ("andrea-wte-row-42", T["wte"][42].tolist())]
    cases = []
    for name, v in vectors:
        x = torch.tensor(v, dtype=torch.float32)   # the input is float32, as in C++
        cases.append({"name": name, "tolerance": NORM_TOL, "x": x.tolist(),
                      "norm": f32(torch.linalg.vector_norm(x.double()))})
    cases[-1]["source"] = {"config": "andrea-120m", "table": "wte", "row": 42}
    cases.append({"name": "tiny-wte-row-norms", "config": TINY, "tolerance": NORM_TOL,
                  "wte": T["tiny_wte"].tolist(), "row_norms": row_norms(T["tiny_wte"])})
    return cases


def piece_dot(T):
    pairs = [("small-integers", [1, 2, 3], [4, 5, 6]), ("orthogonal", [1, 0], [0, 1]),
             ("opposite", [1, 2, 3], [-1, -2, -3]), ("parallel", [1, 2, 3], [2, 4, 6]),
             ("zero-vector", [0, 0, 0], [1, 2, 3]), ("overflow", [1e20, 1], [1e20, 1]),
             ("andrea-wte-256-1842", T["wte"][256].tolist(), T["wte"][1842].tolist())]
    cases = []
    for name, a, b in pairs:
        a, b = (torch.tensor(v, dtype=torch.float32).double() for v in (a, b))
        dot = torch.dot(a, b)
        over = bool(abs(dot) > torch.finfo(torch.float32).max)
        cases.append({"name": name, "tolerance": DOT_TOL, "a": a.tolist(), "b": b.tolist(),
                      # float64 when the float32 result would be inf (JSON has no inf)
                      "dot": dot.item() if over else f32(dot), "overflows_float32": over,
                      "cosine": f32(F.cosine_similarity(a, b, dim=0))})
    cases[-1]["source"] = {"config": "andrea-120m", "table": "wte", "rows": [256, 1842]}
    for name, cfg, rows, table in [("andrea-wte-cosine-matrix", ANDREA, [256, 1842, 7301, 42], T["wte"]),
                                   ("tiny-wte-cosine-matrix", TINY, list(range(5)), T["tiny_wte"])]:
        x = table[rows].double()   # cosine of every pair of rows, broadcast (k, 1, d) x (1, k, d)
        cases.append({"name": name, "config": cfg, "tolerance": DOT_TOL, "rows": rows,
                      "vectors": table[rows].tolist(),
                      "matrix": f32(F.cosine_similarity(x[:, None, :], x[None, :, :], dim=-1))})
    return cases


def piece_position(T):
    out = embedding(T["tiny_wpe"])(torch.arange(2))      # positions 0..n-1, n = 2
    out_a = embedding(T["wpe"])(torch.arange(1024))
    return [{"name": "tiny", "config": TINY, "tolerance": EXACT, "n": 2, "out": out.tolist()},
            {"name": "andrea-120m-example", "config": ANDREA, "tolerance": EXACT, "n": 1024,
             **big_summary(out_a, [0, 1, 1023])}]


def piece_combine(T):
    tw, tp = T["tiny_wte"], T["tiny_wpe"]
    cases = []
    for name, cfg, wte, wpe, ids in [
            ("tiny", TINY, tw, tp, [[3, 0, 3]]), ("tiny-batch", TINY, tw, tp, [[3, 0, 3], [1, 1, 4]]),
            ("odd-width", ODD, T["odd_wte"], T["odd_wpe"], [[6, 1, 1]])]:
        cases.append({"name": name, "config": cfg, "tolerance": EXACT, "B": len(ids), "n": len(ids[0]),
                      "ids": ids if len(ids) > 1 else ids[0], "out": combine(wte, wpe, ids).tolist()})
    wte, wpe, ids = T["wte"], T["wpe"], T["ids"]
    cases.append({"name": "andrea-120m-example", "config": ANDREA, "tolerance": EXACT, "n": 1024,
                  "ids_head": ids[:8], "ids_sum": sum(ids),
                  **big_summary(combine(wte, wpe, [ids]), [0, 1, 2, 511, 1023])})
    batch = [[ids[(t + b) % 1024] for t in range(1024)] for b in range(2)]  # rotate left by b
    out = combine(wte, wpe, batch)
    cases.append({"name": "andrea-120m-batch", "config": ANDREA, "tolerance": EXACT, "B": 2, "n": 1024,
                  "ids_rule": "ids_b[t] = example_ids[(t + b) % 1024]", "row_norms": row_norms(out),
                  "sum": fsum(out), "norm_tolerance": NORM_TOL, "sum_tolerance": SUM_TOL})
    return cases


def piece_params(T):
    def unique(*modules):   # each parameter once, however many modules share it
        return list({id(p): p for m in modules for p in m.parameters()}.values())

    cases = []
    for name, cfg, tied in [("andrea-120m", ANDREA, False), ("gpt2-124m", GPT2, True)]:
        V, d, ctx = cfg["vocab_size"], cfg["d_model"], cfg["context_length"]
        nbytes = {}
        for dtype in (torch.bfloat16, torch.float32):   # on "meta": shapes only, no memory
            wte = torch.nn.Embedding(V, d, device="meta", dtype=dtype)
            wpe = torch.nn.Embedding(ctx, d, device="meta", dtype=dtype)
            head = torch.nn.Linear(d, V, bias=False, device="meta", dtype=dtype)
            if tied:
                head.weight = wte.weight                 # GPT-2: the head is wte
            nbytes[dtype] = sum(p.numel() * p.element_size() for p in unique(wte, wpe))
        emb = sum(p.numel() for p in unique(wte, wpe))
        cases.append({"name": name, "config": cfg, "tied_head": tied, "tolerance": EXACT,
                      "token_table": wte.weight.numel(), "position_table": wpe.weight.numel(),
                      "embedding_total": emb,
                      "head_params_added": sum(p.numel() for p in unique(wte, wpe, head)) - emb,
                      "bytes_fp32": nbytes[torch.float32], "bytes_bf16": nbytes[torch.bfloat16]})
    return cases


DOUT_SEED = 8          # dout of the backward cases: the token-table init with this seed


def dout_values(rows, d):
    """dout (rows, d) float32: andrea::init_value(DOUT_SEED, Table::token, i, d) (test side: init_table)."""
    return torch.from_numpy(init_values(DOUT_SEED, TOKEN, np.arange(rows * d, dtype=np.int64), d).reshape(rows, d))


def backward(wte32, wpe32, ids, dout, wte_grad=None, wpe_grad=None):
    """Autograd of x = wte(idx) + wpe(pos); x.backward(dout) -> (wte.grad, wpe.grad), float32.
    wte_grad/wpe_grad: .grad before the call (the backward adds into it)."""
    wte = torch.nn.Parameter(wte32.clone())
    wpe = torch.nn.Parameter(wpe32.clone())
    wte.grad = None if wte_grad is None else wte_grad.clone()
    wpe.grad = None if wpe_grad is None else wpe_grad.clone()
    idx = torch.tensor(ids, dtype=torch.long)
    x = F.embedding(idx, wte) + F.embedding(torch.arange(idx.shape[-1]), wpe)
    x.backward(dout.reshape(x.shape))
    return wte.grad, wpe.grad


def piece_backward(T):
    tw, tp = T["tiny_wte"], T["tiny_wpe"]
    cases = []
    for name, cfg, wte, wpe, ids, prefill in [
            ("tiny", TINY, tw, tp, [[3, 0, 3]], False), ("tiny-batch", TINY, tw, tp, [[3, 0, 3], [1, 1, 3]], False),
            ("tiny-accumulate", TINY, tw, tp, [[3, 0, 3], [1, 1, 3]], True),
            ("odd-width", ODD, T["odd_wte"], T["odd_wpe"], [[6, 1, 1, 6], [2, 6, 6, 6]], False)]:
        B, n, d = len(ids), len(ids[0]), cfg["d_model"]
        dout = dout_values(B * n, d)
        # pre-filled .grad: the init tables themselves (any non-zero values will do)
        g0 = (wte.clone(), wpe.clone()) if prefill else (None, None)
        dwte, dwpe = backward(wte, wpe, ids, dout, *g0)
        case = {"name": name, "config": cfg, "tolerance": EXACT, "B": B, "n": n, "ids": ids,
                "dout": dout.tolist(), "dwte": dwte.tolist(), "dwpe": dwpe.tolist()}
        if prefill:  # PyTorch adds the batch's whole gradient to .grad once (AccumulateGrad);
            # the reference adds each position into the buffer: the same terms, grouped differently
            case["prefill"] = "dwte = wte, dwpe = wpe before the call (the init tables)"
            case["tolerance"] = ACCUMULATE_TOL
        cases.append(case)
    # The SGD step on the tiny batch: only rows 1 and 3 (and 0) occur; row 2 and 4 must not move.
    wte = torch.nn.Parameter(tw.clone())
    ids = [[3, 0, 3], [1, 1, 3]]
    dwte, _ = backward(tw, tp, ids, dout_values(6, TINY["d_model"]))
    wte.grad = dwte
    torch.optim.SGD([wte], lr=0.1).step()
    cases.append({"name": "tiny-sgd", "config": TINY, "ids": ids, "lr": 0.1, "tolerance": SGD_TOL,
                  "rule": "wte, dwte of tiny-batch; torch.optim.SGD([wte], lr=0.1).step()",
                  "wte_after": wte.detach().tolist()})
    # ANDREA-120M, B = 2, n = 1024 (EXACT: one-thread PyTorch also sums in ascending position).
    # Sequence 0 is the example sequence, sequence 1 repeats
    # 256, 1842, 7301 at t % 4 = 0, 1, 2 (256 times each) and keeps the example id at t % 4 = 3.
    ex = T["ids"]
    batch = [ex, [[256, 1842, 7301, ex[t]][t % 4] for t in range(1024)]]
    dout = dout_values(2 * 1024, ANDREA["d_model"])
    dwte, dwpe = backward(T["wte"], T["wpe"], batch, dout)
    nonzero = sorted(set(ex) | set(batch[1]))
    assert all(bool(dwte[v].abs().sum() > 0) for v in nonzero)
    assert float(dwte.abs().sum()) == float(dwte[nonzero].abs().sum())
    cases.append({"name": "andrea-120m-batch", "config": ANDREA, "tolerance": EXACT, "B": 2, "n": 1024,
                  "ids_rule": "ids[0] = example_ids; ids[1][t] = (256, 1842, 7301, example_ids[t])[t % 4]",
                  "dout_rule": f"dout[i] = init_value(seed {DOUT_SEED}, token, i, 768), shape (2048, 768)",
                  "nonzero_rows": nonzero, "dwte_row_norms": row_norms(dwte[nonzero]),
                  "dwte_rows": rows_of(dwte, [256, 1842, 7301, ex[3]]), "dwte_sum": fsum(dwte),
                  "dwpe_row_norms": row_norms(dwpe), "dwpe_rows": rows_of(dwpe, [0, 1, 1023]),
                  "dwpe_sum": fsum(dwpe), "norm_tolerance": NORM_TOL, "sum_tolerance": SUM_TOL})
    return cases


def sinusoidal_table(n, d):
    """PyTorch tutorial's PositionalEncoding, in float64: pe[:, 0::2] = sin, pe[:, 1::2] = cos."""
    position = torch.arange(n, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def sinusoidal_table_float32(n, d):
    """The same code as the tutorial runs it, in float32: the angle pos * w is a float32 product."""
    position = torch.arange(n).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def rope_complex(x32, positions, base=10000.0):
    """RoPE as Meta's LLaMA writes it (precompute_freqs_cis + apply_rotary_emb), in float64:
    pairs (2i, 2i + 1) are complex numbers multiplied by e^(i pos theta_i), theta_i = base^(-2i/d)."""
    n, d = x32.shape
    theta = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = torch.tensor(positions, dtype=torch.float64)[:, None] * theta[None, :]
    freqs_cis = torch.polar(torch.ones_like(angles), angles)
    xc = torch.view_as_complex(x32.double().reshape(n, d // 2, 2).contiguous())
    return torch.view_as_real(xc * freqs_cis).reshape(n, d)


def rope_rotate_half(x32, positions, base=10000.0):
    """Hugging Face's layout, in float64: pairs (i, i + d/2), q * cos + rotate_half(q) * sin."""
    n, d = x32.shape
    theta = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = torch.tensor(positions, dtype=torch.float64)[:, None] * theta[None, :]
    emb = torch.cat((angles, angles), dim=-1)
    x = x32.double()
    rotated = torch.cat((-x[:, d // 2:], x[:, :d // 2]), dim=-1)   # rotate_half
    return x * emb.cos() + rotated * emb.sin()


def piece_position_schemes(T):
    d, n = ANDREA["d_model"], ANDREA["context_length"]
    pe = sinusoidal_table(n, d)
    err = (sinusoidal_table_float32(n, d).double() - pe).abs()
    worst = int(err.argmax())
    tol = {"abs": 1e-6, "rel": 0.0}
    cases = [
        {"name": "sinusoidal-tiny", "n": 3, "d_model": 4, "context_length": 3, "tolerance": tol,
         "out": sinusoidal_table(3, 4).tolist()},
        {"name": "sinusoidal-andrea-120m", "config": ANDREA, "n": n, "tolerance": tol,
         "rows": {str(r): pe[r].tolist() for r in [0, 1, 2, 511, 1000, 1023]},
         "column_sums": pe.sum(dim=0).tolist(), "column_sums_tolerance": {"abs": 1e-4, "rel": 0.0},
         "float32_angle_max_error": err.max().item(),
         "float32_angle_worst_element": [worst // d, worst % d]},
    ]
    # RoPE of ANDREA token rows (the init of lesson 6) at a few positions, and a tiny case.
    wte = T["wte"]
    tiny = torch.from_numpy(init_table({"vocab_size": 3, "d_model": 8, "context_length": 3}, TOKEN))
    for name, x, positions, base in [("rope-tiny", tiny, [0, 5, 1023], 10000.0),
                                     ("rope-andrea-wte-rows", wte[[256, 1842, 7301, 42]], [0, 1, 511, 1023], 10000.0),
                                     ("rope-base-500000", wte[[256, 1842]], [3, 70000], 500000.0)]:
        cases.append({"name": name, "base": base, "positions": positions, "tolerance": ROPE_TOL,
                      "x": x.tolist(), "out": f32(rope_complex(x, positions, base))})
    # The rotate-half layout: HF scores q_m . k_n for q = wte[256, 1842] at positions 5, 12
    # and k = wte[256, 7301] at positions 3, 10 (q_5 . k_3 is a row with itself, offset 2).
    q, k = wte[[256, 1842]], wte[[256, 7301]]
    qh, kh = rope_rotate_half(q, [5, 12]), rope_rotate_half(k, [3, 10])
    cases.append({"name": "rope-rotate-half", "base": 10000.0, "q": q.tolist(), "k": k.tolist(),
                  "q_positions": [5, 12], "k_positions": [3, 10], "tolerance": ROPE_TOL,
                  "score_tolerance": {"abs": 1e-6, "rel": 0.0}, "q_rotated": f32(qh), "scores": (qh @ kh.T).tolist()})
    return cases


def piece_training(T):
    """Lesson 9: one SGD step of skip-gram with negative sampling, by autograd.

    Two sentences over V = 6 words (0 <unk>, 1 the, 2 cat, 3 dog, 4 sat, 5 mat):
    "the cat sat" and "the dog sat", window 1, k = 2 fixed negatives per pair.
    loss = sum_p [-log sigmoid(s[p][0]) - sum_j>=1 log sigmoid(-s[p][j])],
    s[p][j] = wte[centres[p]] . wout[targets[p][j]]; then w -= lr * dloss/dw.
    """
    cfg = {"vocab_size": 6, "d_model": 2, "context_length": 1}
    wte = T["training_wte"]
    wout = torch.tensor([[0.0, 0.0], [0.5, -0.25], [0.25, 0.5], [-0.5, 0.75],
                         [1.0, 0.5], [-0.25, -1.0]], dtype=torch.float32)
    # (centre, context) within 1 word: [the cat sat] = [1 2 4], [the dog sat] = [1 3 4].
    centres = [1, 2, 2, 4, 1, 3, 3, 4]
    targets = [[2, 5, 3], [1, 4, 5], [4, 5, 1], [2, 3, 3],   # column 0 the context,
               [3, 2, 5], [1, 4, 5], [4, 2, 5], [3, 5, 1]]   # then 2 fixed negatives
    # wte rows 0 and 5 are never a centre, wout row 0 never a target: they must not move.
    lr = 0.5
    w_in = wte.clone().requires_grad_(True)
    w_out = wout.clone().requires_grad_(True)
    u = w_in[torch.tensor(centres)]                      # (P, d): the centre rows
    u.retain_grad()
    v = w_out[torch.tensor(targets)]                     # (P, 1 + k, d): the target rows
    v.retain_grad()
    scores = (u[:, None, :] * v).sum(-1)                 # (P, 1 + k)
    scores.retain_grad()
    sign = torch.tensor([1.0, -1.0, -1.0])               # context +, negatives -
    loss = -F.logsigmoid(sign * scores).sum()
    loss.backward()
    with torch.no_grad():
        wte_after = w_in - lr * w_in.grad                # dense SGD: untouched rows get 0 grad
        wout_after = w_out - lr * w_out.grad
    return [{"name": "two-sentences", "config": cfg, "tolerance": {"abs": 1e-6, "rel": 1e-5},
             "words": ["<unk>", "the", "cat", "dog", "sat", "mat"],
             "wte": wte.tolist(), "wout": wout.tolist(), "centres": centres, "targets": targets,
             "lr": lr, "scores": scores.tolist(), "grads": scores.grad.tolist(),
             "loss": loss.item(), "dcentre": u.grad.tolist(),
             "dtarget": v.grad.reshape(-1, 2).tolist(),
             "wte_after": wte_after.tolist(), "wout_after": wout_after.tolist()}]


PIECES = {"init": piece_init, "lookup": piece_lookup, "norm": piece_norm, "dot": piece_dot,
          "position": piece_position, "combine": piece_combine, "params": piece_params,
          "position_schemes": piece_position_schemes, "backward": piece_backward,
          "training": piece_training}


# --- Driver -------------------------------------------------------------------------
def generate(out_dir):
    self_check()
    torch.set_num_threads(1)   # fixed reduction order: byte-identical reruns
    t = lambda a: torch.from_numpy(a)
    T = {"tiny_wte": t(init_table(TINY, TOKEN)), "tiny_wpe": t(init_table(TINY, POSITION)),
         "odd_wte": t(init_table(ODD, TOKEN)), "odd_wpe": t(init_table(ODD, POSITION)),
         "wte": t(init_table(ANDREA, TOKEN)), "wpe": t(init_table(ANDREA, POSITION)),
         "ids": example_ids(1024, ANDREA["vocab_size"]),
         "training_wte": t(init_table({"vocab_size": 6, "d_model": 2, "context_length": 1}, TOKEN))}
    os.makedirs(out_dir, exist_ok=True)
    for piece, make in PIECES.items():
        doc = {"generator": "golden/generate.py", "torch_version": torch.__version__,
               "numpy_version": np.__version__, "seed": SEED, "piece": piece, "cases": make(T)}
        if piece == "init":
            doc["philox_known_answers"] = KNOWN_ANSWERS
        with open(os.path.join(out_dir, piece + ".json"), "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n")


def check(golden_dir):
    """Regenerate into a temporary folder and compare byte for byte."""
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        bad = 0
        for piece in PIECES:
            new_path, old_path = os.path.join(tmp, piece + ".json"), os.path.join(golden_dir, piece + ".json")
            new = open(new_path, "rb").read()
            old = open(old_path, "rb").read() if os.path.exists(old_path) else None
            if new == old:
                continue
            bad += 1
            if old is None:
                print(f"{piece}.json: missing from {golden_dir}")
                continue
            diff = difflib.unified_diff(old.decode().splitlines(), new.decode().splitlines(),
                                        f"committed/{piece}.json", f"regenerated/{piece}.json", n=1, lineterm="")
            print("\n".join(list(diff)[:24]))
    print("golden check: " + (f"{bad} file(s) differ" if bad else f"all {len(PIECES)} files identical"))
    return 1 if bad else 0


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=here, help="folder to write the JSON files to (default: golden/)")
    ap.add_argument("--check", action="store_true", help="regenerate to a temp dir and compare with golden/")
    args = ap.parse_args(argv)
    if torch is None:
        if args.check:
            print("PyTorch not found: skipping golden regeneration check")
            return 77
        print("PyTorch/numpy not found: cannot generate the golden files", file=sys.stderr)
        return 1
    if args.check:
        return check(here)
    generate(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
