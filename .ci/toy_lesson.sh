#!/usr/bin/env bash
# A new lesson is one folder and one entry in lessons/lessons.json (docs/adding-a-lesson.md).
# This proves it on a temporary copy of the tree: it adds a toy lesson after the last one (piece
# toy_scale: out = a * x, its C++ and CUDA files, its test, its manifest entry, nothing else),
# writes the exercise stubs with make_exercises.py, and grades a grade build (CPU backends)
# twice: the stubs score 0 ("not implemented"), the solutions 10/10. The copy is removed at the
# end. About 40 s of CPU on 2 cores (it builds only the core, the CPU execution layer, the test
# support and the toy; 2 min 50 s wall on a loaded machine).
# Usage: .ci/toy_lesson.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/src

# The tree as git sees it (tracked and untracked files, no build folders).
python3 - "$root" "$src" <<'EOF'
import pathlib, shutil, subprocess, sys
root, dst = map(pathlib.Path, sys.argv[1:])
listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                         "--exclude-standard"], capture_output=True, check=True).stdout
for name in filter(None, listed.decode().split("\0")):
    if (root / name).is_file():
        (dst / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, dst / name)
EOF

# --- The toy lesson: one folder, one manifest entry, the piece's files. -------------------
# Its number follows the manifest's last lesson: nothing here names a lesson count.
number=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["lessons"]) + 1)' \
  "$src/lessons/lessons.json")
label=$(printf 'L%02d' "$number")
folder=$(printf '%02d_toy_scale' "$number")
mkdir -p "$src/lessons/$folder"
echo "# Lesson $number — toy scale (made by .ci/toy_lesson.sh)" > "$src/lessons/$folder/README.md"
python3 - "$src/lessons/lessons.json" "$label" "$folder" <<'EOF'
import json, sys
manifest = json.load(open(sys.argv[1]))
manifest["lessons"].append({"label": sys.argv[2], "folder": sys.argv[3], "title": "toy scale",
                            "pieces": ["toy_scale"], "tests": "toy_scale", "needs": [],
                            "functions": {"toy_scale": ["scale"]}})
json.dump(manifest, open(sys.argv[1], "w"), indent=2)
EOF
cat > "$src/reference/toy_scale.hpp" <<'EOF'
#pragma once
#include <span>
namespace andrea::reference {
/// out[i] = a * x[i]; x, out (n) float32. Throws andrea::InputError if the sizes differ.
void scale(std::span<const float> x, float a, std::span<float> out);
}  // namespace andrea::reference
EOF
cat > "$src/reference/toy_scale.cpp" <<'EOF'
#include "reference/toy_scale.hpp"

#include "core/check.hpp"

namespace andrea::reference {

void scale(std::span<const float> x, float a, std::span<float> out) {
  // BEGIN SOLUTION
  check::vector_size("out", out, static_cast<std::int64_t>(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = a * x[i];
  // END SOLUTION
}

}  // namespace andrea::reference
EOF
cat > "$src/cuda/toy_scale.hpp" <<'EOF'
#pragma once
#include <span>
#include "cuda/flavor.hpp"
ANDREA_CUDA_BEGIN
/// reference::scale on the device: one block, threads striding over x.
void scale(std::span<const float> x, float a, std::span<float> out);
ANDREA_CUDA_END
EOF
cat > "$src/cuda/toy_scale.cu" <<'EOF'
#include "cuda/toy_scale.hpp"

#include "core/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/launch_shape.hpp"
#include "cuda/runtime.hpp"

ANDREA_CUDA_BEGIN

namespace {

__global__ void scale_kernel(const float* x, float a, float* out, std::int64_t n) {
  // BEGIN SOLUTION
  for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = a * x[i];
  // END SOLUTION
}

}  // namespace

void scale(std::span<const float> x, float a, std::span<float> out) {
  check::vector_size("out", out, static_cast<std::int64_t>(x.size()));
  const auto n = static_cast<std::int64_t>(x.size());
  const DeviceBuffer<float> d_x(x);
  DeviceBuffer<float> d_out(n);
  // BEGIN SOLUTION (launch)
  scale_kernel<<<1, threads_per_row(n)>>>(d_x.get(), a, d_out.get(), n);
  // END SOLUTION
  ANDREA_CUDA_CHECK_LAUNCH();
  d_out.copy_to(out);
}

ANDREA_CUDA_END
EOF
cat > "$src/tests/toy_scale_test.cpp" <<'EOF'
#include "tests/support/backend.hpp"
#include "reference/toy_scale.hpp"
#include "cuda/toy_scale.hpp"

namespace {

TEST(ToyScale, HandWorked) {
  const float x[] = {1.0f, -2.0f, 3.5f};
  float out[3] = {};
  backend::scale(x, 2.0f, out);
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], -4.0f);
  EXPECT_EQ(out[2], 7.0f);
}

TEST(ToyScale, SizesThatDifferAreRefused) {
  const float x[] = {1.0f, 2.0f};
  float out[3] = {};
  EXPECT_INPUT_ERROR(backend::scale(x, 2.0f, out), "out has 3 elements, expected 2");
}

}  // namespace
EOF

# --- Stubs, then solutions, graded from the manifest alone. ------------------------------
python3 "$src/grader/release/make_exercises.py"
python3 "$src/grader/release/make_exercises.py" --check
python3 "$src/tests/layering_test.py"
build=$src/build-toy
fail=0
grade() {  # grade LESSONS_DIR REPORT
  cmake -S "$src" -B "$build" -DANDREA_GRADE=ON -DANDREA_CUDA=OFF -DANDREA_LESSONS_DIR="$1" >/dev/null
  python3 "$src/lessons/grade.py" --build-dir "$build" -L "$label" 2>/dev/null | tee "$2"
}
grade "$src/lessons" "$work/stubs.txt"
grep -Eq "^$label toy scale +not implemented +not implemented .* 0\.0/10$" "$work/stubs.txt" ||
  { echo "FAIL: the toy lesson's stubs are not graded 'not implemented', 0/10"; fail=1; }
python3 "$src/grader/release/make_exercises.py" --solutions "$work/solutions" --only "$folder" >/dev/null
grade "$work/solutions" "$work/solutions.txt"
grep -Eq "^$label toy scale +2/2 pass +2/2 pass .* 10\.0/10$" "$work/solutions.txt" ||
  { echo "FAIL: the toy lesson's solutions do not get 10/10"; fail=1; }
[ "$fail" -eq 0 ] && echo "toy lesson: built and graded from the manifest alone"
exit "$fail"
