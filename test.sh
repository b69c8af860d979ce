#!/usr/bin/env bash
# The tests, from a fresh Debian 12 machine: installs what is missing
# (install-deps.sh, sudo when not root), then configures, builds and runs
# every test with the default preset (what CI runs: .ci/run calls this script).
# Safe to run again: configure and build redo only what changed.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/cuda/bin"   # nvcc, when the machine has it: the GPU build too

bash install-deps.sh
# Ninja builds on every core; ctest runs as many tests at once as there are cores.
export CTEST_PARALLEL_LEVEL="${CTEST_PARALLEL_LEVEL:-$(nproc)}"
cmake --workflow --preset default
