#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: installs what is missing
# (install-deps.sh, sudo when not root), configures and builds the program
# with the default preset when it is not built, then runs ANDREA-120M on the
# lesson's example sequence. Arguments go to the program: ./run.sh --ids 256,1842
# Safe to run again: each step does nothing when nothing changed.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:/usr/local/cuda/bin"   # nvcc, when the machine has it

bash install-deps.sh >&2
[ -f build/CMakeCache.txt ] || cmake --preset default >&2
cmake --build --preset default --target andrea-embed >&2
exec ./build/apps/andrea-embed "$@"
