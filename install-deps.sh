#!/usr/bin/env bash
# Installs what the build and the tests need on Debian 12 (run as root, or with sudo).
#   build:   cmake g++ libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev
#            libboost-context-dev libcli11-dev libbenchmark-dev
#            python3 (cudasim/cu2cpp.py turns each .cu into C++ for the CPU execution layer)
#   lesson 10: openmpi-bin libopenmpi-dev (mpirun, MPI_Allreduce)
#   goldens: python3-torch python3-numpy (regenerate / check golden/*.json)
#   lesson 9: wordnet-base (the training corpus, /usr/share/wordnet), fasttext (bench/ comparison)
#   grading a class: bubblewrap (grader/sandbox.sh: no network, read-only files), git (the release)
set -euo pipefail
packages=(cmake g++ make libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev
          libboost-context-dev libcli11-dev libbenchmark-dev python3 python3-numpy
          wordnet-base fasttext
          openmpi-bin libopenmpi-dev bubblewrap git)
[ "${ANDREA_SKIP_TORCH:-0}" = 1 ] || packages+=(python3-torch)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "dependencies: all installed"
