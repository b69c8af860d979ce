#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the assignment's image, in the folder the
# autograder zip was unpacked into (/autograder/source). Choose the base image Ubuntu 24.04: the
# course needs CMake 3.25 or newer (24.04: CMake 3.28, g++ 13; 22.04 has CMake 3.22 and does not
# build it; the course's own machines are Debian 12: CMake 3.25, g++ 12).
set -euo pipefail
cd "$(dirname "$0")"
# PyTorch only makes the goldens, which the zip holds: it is not installed.
ANDREA_SKIP_TORCH=1 bash install-deps.sh
python3 grader/class/gradescope.py setup
