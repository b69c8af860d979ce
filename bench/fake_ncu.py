#!/usr/bin/env python3
"""A stand-in for Nsight Compute's ncu, for ctest bench/ncu-compare on a machine without a GPU.

It refuses, as ncu does, any option or value outside ncu's documented command line (the subset
below, from the Nsight Compute CLI manual: "Command Line Options"), names what it refused and
what is allowed, and exits 1; otherwise it checks that the application exists and prints what
ncu prints for it: the application's output, ==PROF== lines on stderr, and a canned report of
two kernels in the layout of the page asked for (--page details: one row per kernel and metric;
--page raw: one row per kernel, one column per metric, then units) so that the caller's parsing
is checked as well.
"""
import os
import re
import sys

PAGES = ("details", "raw", "source", "session")            # --page
PRINT_UNITS = ("auto", "base")                              # --print-units
TARGET_PROCESSES = ("application-only", "all")              # --target-processes
WITH_VALUE = {"--metrics", "--page", "--print-units", "--kernel-name", "-k", "--launch-count",
              "-c", "--launch-skip", "-s", "--section", "--set", "--target-processes",
              "--export", "-o", "--log-file", "--import", "--kernel-name-base", "--nvtx-include"}
FLAGS = {"--csv", "--force-overwrite", "-f", "--quiet", "--print-summary-per-kernel", "--nvtx"}
METRIC = re.compile(r"^[a-z0-9_]+__[a-z0-9_.]+$")
KERNELS = ("lookup_kernel(const float *, const int *, float *, int, int)",
           "combine_kernel(const float *, const float *, const int *, float *, int, int, int)")


def refuse(message):
    print(f"==ERROR== {message}", file=sys.stderr)
    sys.exit(1)


def parse(argv):
    options, i = {}, 0
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("-"):
            return options, argv[i:]
        name, eq, value = arg.partition("=")
        if name in FLAGS and not eq:
            options[name] = True
        elif name in WITH_VALUE:
            if not eq:
                i += 1
                if i == len(argv):
                    refuse(f"the option '{name}' requires a value")
                value = argv[i]
            options[name] = value
        else:
            refuse(f"unrecognised option '{arg}'")
        i += 1
    refuse("no application to profile was given")


def check(options):
    page = options.get("--page", "details")
    if page not in PAGES:
        refuse(f"invalid value '{page}' for --page: the values are {', '.join(PAGES)}")
    units = options.get("--print-units", "auto")
    if units not in PRINT_UNITS:
        refuse(f"invalid value '{units}' for --print-units: the values are {', '.join(PRINT_UNITS)}")
    processes = options.get("--target-processes", "all")
    if processes not in TARGET_PROCESSES:
        refuse(f"invalid value '{processes}' for --target-processes: the values are "
               f"{', '.join(TARGET_PROCESSES)}")
    metrics = options.get("--metrics", "gpu__time_duration.sum").split(",")
    for metric in metrics:
        if not METRIC.match(metric):
            refuse(f"invalid metric name '{metric}' in --metrics (expected unit__counter.rollup)")
    return page, units, metrics


def unit_of(metric, base):
    if "bytes" in metric:
        return "byte" if base else "Kbyte"
    if "time" in metric:
        return "nsecond" if base else "usecond"
    return "sector" if "sectors" in metric else "request" if "requests" in metric else ""


def main():
    options, application = parse(sys.argv[1:])
    page, units, metrics = check(options)
    if not (os.path.isfile(application[0]) and os.access(application[0], os.X_OK)):
        refuse(f"the application '{application[0]}' is not an executable file")
    print("==PROF== Connected to process 4242", file=sys.stderr)
    print("profile_lessons_gpu: the lessons' launches")  # the application's own output
    values = {m: 1024 * (n + 1) for n, m in enumerate(metrics)}
    csv = "--csv" in options
    if page == "details" and csv:
        head = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                "Stream", "Block Size", "Grid Size", "Device", "CC", "Section Name",
                "Metric Name", "Metric Unit", "Metric Value"]
        print(",".join(f'"{h}"' for h in head))
        for k, kernel in enumerate(KERNELS):
            for metric in metrics:
                row = [str(k), "4242", "profile_lessons_gpu", "127.0.0.1", kernel, "1", "7",
                       "(256, 1, 1)", "(64, 1, 1)", "0", "9.0", "Command line profiler metrics",
                       metric, unit_of(metric, units == "base"), f"{values[metric] * (k + 1):,}"]
                print(",".join(f'"{c}"' for c in row))
    elif page == "raw" and csv:
        print(",".join(f'"{h}"' for h in ["ID", "Kernel Name"] + metrics))
        print(",".join(f'"{h}"' for h in ["", ""] + [unit_of(m, units == "base") for m in metrics]))
        for k, kernel in enumerate(KERNELS):
            print(",".join(f'"{c}"' for c in [str(k), kernel] + [str(values[m]) for m in metrics]))
    else:
        for kernel in KERNELS:
            print(f"  {kernel}, Context 1, Stream 7\n    Section: Command line profiler metrics")
            for metric in metrics:
                print(f"    {metric:60} {unit_of(metric, units == 'base'):10} {values[metric]:>12,}")
    print("==PROF== Disconnected from process 4242", file=sys.stderr)


if __name__ == "__main__":
    main()
