#!/usr/bin/python3
"""Times PyTorch CPU eager `wte(idx) + wpe(pos)` at ANDREA-120M scale.

The same shapes and byte convention as bench/reference_bench.cpp:
  V = 8449, d_model = 768, T = 1024, n = 1024 tokens, B = 1 and B = 8;
  bytes = B * (n*d*4 out + n*d*4 wte rows + n*d*4 wpe rows + n*4 ids),
i.e. the bytes the operation has to move, not the extra traffic of PyTorch's
intermediates (wte(idx) and wpe(pos) are materialised, then added).

Run with Debian's interpreter (python3-torch): /usr/bin/python3 bench/pytorch_embed.py
  --threads N   intra-op threads (default 1: the C++ reference is single-threaded)
  --autograd    keep autograd on (a training forward); default is inference_mode
  --warm-malloc keep freed memory in the process (glibc mallopt: no trimming, no
                mmap for big blocks), so every call reuses pages already faulted
                in; without it glibc hands the 3 MB / 25 MB temporaries back to
                the kernel after each call and the next call page-faults them in
  --json        print one JSON object instead of the table (for bench/compare.sh)
"""

import argparse
import ctypes
import json
import statistics
import sys
import time

import torch

V, D, T = 8449, 768, 1024  # ANDREA-120M
SEED = 1337
MUL0, MUL1, WEYL0, WEYL1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85


def philox_word0(counter, k0, k1):
    """Word 0 of Philox4x32-10 (core/philox.hpp), Python integers."""
    c = list(counter)
    for _ in range(10):
        p0, p1 = MUL0 * c[0], MUL1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xFFFFFFFF]
        k0, k1 = (k0 + WEYL0) & 0xFFFFFFFF, (k1 + WEYL1) & 0xFFFFFFFF
    return c[0]


def example_ids(n, vocab_size, seed=SEED):
    """andrea::example_ids: 256, 1842, 7301, then word 0 of Philox((t,0,2,0), seed) mod V."""
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    return [256, 1842, 7301][:n] + [philox_word0((t, 0, 2, 0), k0, k1) % vocab_size
                                    for t in range(3, n)]


def batch_ids(ids, batch):
    """(B, n): sequence b is ids rotated left by b*n/B, as in reference_bench.cpp."""
    n = len(ids)
    return [ids[b * n // batch:] + ids[:b * n // batch] for b in range(batch)]


def true_bytes(batch, n, d=D):
    return batch * (n * d * 4 * 3 + n * 4)


def time_call(fn, warmup, repeats, min_time):
    """Median and best seconds per call over `repeats` timed blocks of k calls each."""
    for _ in range(warmup):
        fn()
    # Calibrate k so a block lasts about min_time / repeats.
    k, target = 1, min_time / repeats
    while True:
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target or k >= 1 << 20:
            break
        k = max(k * 2, int(k * target / max(dt, 1e-9)))
    per_call = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(k):
            fn()
        per_call.append((time.perf_counter() - t0) / k)
    return statistics.median(per_call), min(per_call), k


def warm_malloc():
    """glibc: never trim the heap top, never serve big blocks by mmap (so never munmap)."""
    libc = ctypes.CDLL("libc.so.6")
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    big = 1 << 30
    if not (libc.mallopt(m_trim_threshold, big) and libc.mallopt(m_mmap_threshold, big)):
        sys.exit("mallopt failed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--n", type=int, default=1024, help="tokens per sequence (default 1024)")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 8], help="batch sizes (1 8)")
    ap.add_argument("--warmup", type=int, default=20, help="untimed calls first (default 20)")
    ap.add_argument("--repeats", type=int, default=15, help="timed blocks (default 15)")
    ap.add_argument("--min-time", type=float, default=1.5,
                    help="seconds of timed calls per case, all blocks together (default 1.5)")
    ap.add_argument("--autograd", action="store_true", help="keep autograd on")
    ap.add_argument("--warm-malloc", action="store_true",
                    help="glibc keeps freed memory: no page faults per call")
    ap.add_argument("--json", action="store_true", help="print JSON for compare.sh")
    args = ap.parse_args()
    if not 1 <= args.n <= T:
        ap.error(f"--n must be in [1, {T}]")

    if args.warm_malloc:
        warm_malloc()
    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    wte = torch.nn.Embedding(V, D)  # float32; values do not matter for timing
    wpe = torch.nn.Embedding(T, D)
    ids = example_ids(args.n, V)
    pos = torch.arange(args.n, dtype=torch.long)  # nanoGPT: pos = torch.arange(0, t)

    results = []
    for batch in args.batch:
        idx = torch.tensor(batch_ids(ids, batch) if batch > 1 else ids, dtype=torch.long)

        def forward():
            return wte(idx) + wpe(pos)  # (B, n, d) or (n, d): nanoGPT's tok_emb + pos_emb

        mode = torch.enable_grad() if args.autograd else torch.inference_mode()
        with mode:
            median, best, k = time_call(forward, args.warmup, args.repeats, args.min_time)
        nbytes = true_bytes(batch, args.n)
        results.append({"B": batch, "n": args.n, "bytes": nbytes, "us": median * 1e6,
                        "best_us": best * 1e6, "GBps": nbytes / median / 1e9,
                        "calls_per_block": k})

    info = {"torch": torch.__version__, "threads": torch.get_num_threads(),
            "mode": "autograd" if args.autograd else "inference_mode",
            "malloc": "warm" if args.warm_malloc else "default", "results": results}
    if args.json:
        print(json.dumps(info))
        return
    print(f"PyTorch {info['torch']} CPU eager wte(idx) + wpe(pos), float32, "
          f"threads={info['threads']}, {info['mode']}, {info['malloc']} malloc; "
          f"median of {args.repeats} blocks")
    print(f"{'case':<14}{'us/call':>10}{'best us':>10}{'GB/s':>8}{'bytes':>12}")
    for r in results:
        print(f"{'B=%d n=%d' % (r['B'], r['n']):<14}{r['us']:>10.1f}{r['best_us']:>10.1f}"
              f"{r['GBps']:>8.2f}{r['bytes']:>12}")


if __name__ == "__main__":
    main()
