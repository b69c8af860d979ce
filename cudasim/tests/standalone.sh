#!/bin/sh
# The layer builds from a copy of its folder alone: copies cudasim/ to a temporary folder of
# another name, configures it without its tests, builds the library and one program through
# nvcc-cpu, and runs the program (which checks its own result). Exits non-zero, with the step
# that failed, otherwise. Unoptimised (-O0), so that it takes seconds: it checks the build.
#   cudasim/tests/standalone.sh [folder]
# folder: where to work (emptied first; default: a new temporary one, removed at the end). With
# ccache, a fixed folder lets the next run reuse the compiled objects (ctest passes one).
# CUDASIM_CXX: the compiler of the program, as for nvcc-cpu (default c++).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -ge 1 ]; then
  work=$1
  rm -rf "$work"
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/cudasim-standalone.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)
compiler=${CUDASIM_CXX:-c++}
export CCACHE_BASEDIR="$work"  # paths inside the copy hash alike from run to run

cp -r "$here" "$work/lifted"
rm -rf "$work/lifted/build"
echo "standalone: configure $work/lifted"
cmake -S "$work/lifted" -B "$work/build" -DCUDASIM_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE= \
      -DCMAKE_CXX_COMPILER_LAUNCHER="$(command -v ccache || true)" >"$work/configure.log" 2>&1 \
  || { cat "$work/configure.log"; echo "standalone: configure failed"; exit 1; }
echo "standalone: build the cudasim library"
cmake --build "$work/build" --target cudasim -j2 >"$work/build.log" 2>&1 \
  || { cat "$work/build.log"; echo "standalone: build failed"; exit 1; }
echo "standalone: nvcc-cpu vector_add.cu"
CUDASIM_CXX="$compiler" CUDASIM_QUIET=1 python3 "$work/lifted/nvcc-cpu" -O0 \
  -I "$work/lifted/tests/programs/common" "$work/lifted/tests/programs/vector_add.cu" \
  -o "$work/vector_add" --cudasim-lib "$work/build/libcudasim.a"
echo "standalone: run it"
"$work/vector_add"
echo "standalone: passed"
