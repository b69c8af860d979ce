#!/usr/bin/python3
"""Times PyTorch CPU autograd of the embedding layer's backward at ANDREA-120M scale.

The graph of lesson 8: x = wte(idx) + wpe(pos), idx (B, n); x.backward(dout) fills
wte.grad (V, d) and wpe.grad (T, d). Same shapes and ids as BM_embedding_backward in
bench/reference_bench.cpp (B = 8, n = 1024, sequence b = example ids rotated by b*n/B).
Only the backward is timed: the forward is built once and kept (retain_graph=True).

Times are wall-clock (as pytorch_embed.py) and CPU time of the process (time.process_time,
one thread): on a shared, loaded machine the CPU time is the steadier figure, and Google
Benchmark prints the same two columns (Time, CPU) for the C++.

Two ways PyTorch can own .grad, both timed:
  accumulate  .grad exists: autograd makes a new dense (V, d) gradient (zeros + index_add)
              and adds it into .grad, as the C++ adds into its buffer
  fresh       .grad = None before each call: autograd keeps the new tensor (no add)

  /usr/bin/python3 bench/pytorch_backward.py [--threads N] [--warm-malloc] [--json]
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_embed import D, SEED, T, V, batch_ids, example_ids, warm_malloc  # noqa: E402


def time_calls(fn, warmup, repeats, calls):
    """Per-call wall and CPU seconds of `repeats` blocks of `calls` calls: (median, best) each."""
    for _ in range(warmup):
        fn()
    wall, cpu = [], []
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(calls):
            fn()
        wall.append((time.perf_counter() - w0) / calls)
        cpu.append((time.process_time() - c0) / calls)
    return statistics.median(wall), min(wall), statistics.median(cpu), min(cpu)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--n", type=int, default=1024)
    ap.add_argument("--repeats", type=int, default=9, help="timed blocks (default 9)")
    ap.add_argument("--calls", type=int, default=10, help="calls per block (default 10)")
    ap.add_argument("--warm-malloc", action="store_true", help="glibc keeps freed memory")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.warm_malloc:
        warm_malloc()
    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    wte, wpe = torch.nn.Embedding(V, D), torch.nn.Embedding(T, D)
    idx = torch.tensor(batch_ids(example_ids(args.n, V), args.batch), dtype=torch.long)
    pos = torch.arange(args.n)
    x = wte(idx) + wpe(pos)  # (B, n, d)
    dout = torch.randn_like(x)

    def accumulate():
        x.backward(dout, retain_graph=True)

    def fresh():
        wte.weight.grad = wpe.weight.grad = None
        x.backward(dout, retain_graph=True)

    results = {}
    for name, fn in (("accumulate", accumulate), ("fresh", fresh)):
        wall, wall_best, cpu, cpu_best = time_calls(fn, 3, args.repeats, args.calls)
        results[name] = {"us": wall * 1e6, "best_us": wall_best * 1e6, "cpu_us": cpu * 1e6,
                         "best_cpu_us": cpu_best * 1e6}
    info = {"torch": torch.__version__, "threads": torch.get_num_threads(), "B": args.batch, "n": args.n,
            "malloc": "warm" if args.warm_malloc else "default", "results": results}
    if args.json:
        print(json.dumps(info))
        return
    print(f"PyTorch {info['torch']} CPU autograd backward of wte(idx) + wpe(pos), B={args.batch} "
          f"n={args.n}, threads={info['threads']}, {info['malloc']} malloc; median of {args.repeats} blocks")
    for name, r in results.items():
        print(f"  {name:<11} wall {r['us']:>8.0f} us/call (best {r['best_us']:>6.0f})   "
              f"CPU {r['cpu_us']:>8.0f} us/call (best {r['best_cpu_us']:>6.0f})")


if __name__ == "__main__":
    main()
