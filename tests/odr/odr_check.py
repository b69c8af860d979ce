#!/usr/bin/env python3
"""One name, one body: no symbol is defined differently by the two CUDA builds (ctest
core/one-definition, label core-cpu).

  odr_check.py INPUTS_FILE

The kernels of cuda/ are compiled twice, by g++ through the CPU execution layer (flavor
`cudasim`) and by nvcc for a GPU (flavor `gpu`), and andrea-embed links both. Whatever the
two builds define under one name must then be one definition: for an inline function, a
template or an inline variable (emitted in every object that uses it, as a weak symbol), the
linker keeps one copy for the whole program, so a name whose body differs between the builds
(the cudasim one calling the layer, the gpu one the CUDA runtime) silently runs the other
build's body in half of the program. Code that must differ goes in the build's own namespace,
andrea::cuda::cudasim or andrea::cuda::gpu (cuda/flavor.hpp, ANDREA_CUDA_BEGIN), where the
two never share a name.

The rule checked: list, with `nm -C -S --defined-only`, the weak and unique symbols (nm types
W, V, u) that the objects of each build define; for every name that both builds define, outside
the per-build namespaces, the two builds must have a size in common (one build may hold copies
of several sizes: its translation units inline differently). Equal sizes do not prove one body,
but two bodies of one name almost always differ in size (a fair proxy; the check cannot see two
different bodies of the same size).

The objects compared are compiled with the same options on both sides: the `cudasim` side is the
plain variant of the kernels (andrea_cuda_cudasim_plain_*), the same sources as the tools variant
that andrea-embed links but without the tools' -fsanitize=thread instrumentation, which changes
the size of every inline function it compiles (library code included) and would only compare
compiler options. Symbols of the C++ and CUDA libraries' own namespaces (std::, __gnu_cxx::,
__cxxabiv1::) are left out: one header compiled by g++ and by nvcc's host pass may be inlined
differently without being two definitions.

INPUTS_FILE: one line per object or archive, "cudasim PATH" or "gpu PATH" (written by
apps/CMakeLists.txt). Exits 1 listing each name defined differently, with both sizes and the
objects that define it.
"""
import collections
import concurrent.futures
import re
import subprocess
import sys

PER_BUILD = ("andrea::cuda::cudasim::", "andrea::cuda::gpu::")
LIBRARY = re.compile(r"^(?:(?:typeinfo|typeinfo name|vtable|VTT|guard variable|construction "
                     r"vtable) for )?(?:std::|__gnu_cxx::|__cxxabiv1::)")
WEAK_TYPES = {"W", "V", "u"}
LINE = re.compile(r"^([0-9a-fA-F]+) ([0-9a-fA-F]+) (\S) (.+)$")  # address size type name


def weak_symbols(path):
    """{name: {size: [object, ...]}} of the sized weak/unique symbols `path` defines."""
    result = subprocess.run(["nm", "-C", "-S", "--defined-only", path], capture_output=True,
                            text=True)
    if result.returncode != 0:
        sys.exit(f"odr_check.py: nm {path} failed: {result.stderr.strip()}")
    symbols = collections.defaultdict(lambda: collections.defaultdict(list))
    member = path
    for line in result.stdout.splitlines():
        if line.endswith(":") and not LINE.match(line):
            member = f"{path}({line[:-1]})"  # an archive's member
            continue
        match = LINE.match(line)
        if match and match.group(3) in WEAK_TYPES:
            symbols[match.group(4)][int(match.group(2), 16)].append(member)
    return symbols


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    inputs = collections.defaultdict(list)
    with open(sys.argv[1]) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            flavor, _, path = line.strip().partition(" ")
            if flavor not in ("cudasim", "gpu") or not path:
                sys.exit(f"{sys.argv[1]}:{number}: '{line.strip()}': expected 'cudasim PATH' or "
                         "'gpu PATH'")
            inputs[flavor].append(path)
    for flavor in ("cudasim", "gpu"):
        if not inputs[flavor]:
            sys.exit(f"odr_check.py: no object of the {flavor} build in {sys.argv[1]}")

    defined = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:  # one nm per file
        listed = {path: pool.submit(weak_symbols, path) for f in inputs for path in inputs[f]}
    for flavor in ("cudasim", "gpu"):
        merged = collections.defaultdict(lambda: collections.defaultdict(list))
        for path in inputs[flavor]:
            for name, sizes in listed[path].result().items():
                for size, objects in sizes.items():
                    merged[name][size].extend(objects)
        defined[flavor] = merged

    shared = sorted(set(defined["cudasim"]) & set(defined["gpu"]))
    compared = [n for n in shared if not n.startswith(PER_BUILD) and not LIBRARY.match(n)]
    breaks = []
    for name in compared:
        sim, gpu = defined["cudasim"][name], defined["gpu"][name]
        if not set(sim) & set(gpu):
            breaks.append(name)
            print(f"defined differently by the two builds: {name}")
            for flavor, sizes in (("cudasim", sim), ("gpu", gpu)):
                for size, objects in sorted(sizes.items()):
                    print(f"  {flavor:7} {size:6} bytes in {objects[0]}"
                          + (f" and {len(objects) - 1} more" if len(objects) > 1 else ""))
    print(f"one definition: {len(compared)} weak symbols defined by both builds compared "
          f"({len(shared) - len(compared)} of the libraries' namespaces left out), "
          f"{len(breaks)} defined differently")
    if breaks:
        print("Put what must differ between the builds in the build's own namespace "
              "(ANDREA_CUDA_BEGIN, cuda/flavor.hpp).")
    return 1 if breaks else 0


if __name__ == "__main__":
    sys.exit(main())
