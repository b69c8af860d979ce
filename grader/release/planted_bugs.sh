# Boundary slips and wrong-row bugs for the grader's self-test (grader/release/test_grader.sh sources
# this file). Each is a slip a student makes that once scored full marks:
#   lesson 10, C++:  the ownership test one off, id <= first + real_rows (reads one row past
#                    the shard: the Edges test keeps the shard inside a poisoned frame)
#   lesson 10, CUDA: the same in the kernel, local <= real_rows (the memcheck report)
#   lesson 9, C++:   the output rows' gradient built from wte[target] instead of wte[centre]
#                    (also fails the end-to-end step: training diverges)
#   lesson 9, CUDA:  the same in row_gradients_kernel
#
#   plant_edge_bugs DIR      plants them into DIR, a lessons tree holding the solutions
#   expect_edge_bugs REPORT  checks the grade report of that tree (uses test_grader.sh's
#                            expect and fail); every bug must lose points with a message
#                            naming the element
# Plant them in a tree of their own, or drop the lesson 9 C++ and lesson 10 bugs that
# test_grader.sh already plants on the same lines (its "v, not u" training bug, and its
# "the C++ masked lookup still passes" expectation).
#
#   plant_waste DIR          correct kernels that waste memory, in a lessons tree holding the
#                            solutions of lessons 1, 2, 5 and 8 (the efficiency tests' cases):
#                            a thread per row (lookup), every (2 * stride)-th thread active in the
#                            reduction (norm), three neighbouring columns per thread (combine),
#                            the threads down a column (atomic backward)
#   expect_waste REPORT CSV  each loses a fifth of its CUDA step, no more, and the report quotes
#                            the line its lesson's README quotes (the README checked by a run)
#
#   make_submission KIND SOLUTIONS DEST   one made-up student of the self-test's class of four
#                                         (also bench/grade_class_bench.sh's), from the
#                                         solutions (make_exercises.py --solutions SOLUTIONS):
#     full           every solution, as lessons/NN_topic/file
#     partial        lessons 1 and 2 and lesson 3's C++ step, as NN_topic/file
#     compile-error  lesson 1's C++ step and lesson 4, flat, position.cu not compiling
#     hang           lesson 1's C++ step and lesson 6's, flat, materialize() sleeping forever
#                    at ANDREA-120M's size (one test runs into its time limit)

make_submission() {
  local kind=$1 solutions=$2 dest=$3 file
  local -a files
  case $kind in
    full) mapfile -t files < <(cd "$solutions" && ls [0-9][0-9]_*/*.cpp [0-9][0-9]_*/*.cu) ;;
    partial) files=(01_lookup/lookup.cpp 01_lookup/lookup.cu 02_norm/norm.cpp 02_norm/norm.cu 03_dot_product/dot.cpp) ;;
    compile-error) files=(01_lookup/lookup.cpp 04_position_table/position.cpp 04_position_table/position.cu) ;;
    hang) files=(01_lookup/lookup.cpp 06_parameter_count/params.cpp) ;;
    *) fail "make_submission: no kind $kind"; return ;;
  esac
  for file in "${files[@]}"; do
    case $kind in
      full) mkdir -p "$dest/lessons/$(dirname "$file")"; cp "$solutions/$file" "$dest/lessons/$file" ;;
      partial) mkdir -p "$dest/$(dirname "$file")"; cp "$solutions/$file" "$dest/$file" ;;
      *) mkdir -p "$dest"; cp "$solutions/$file" "$dest/" ;;
    esac
  done
  if [ "$kind" = compile-error ]; then
    sed -i '0,/^__global__/s//int planted_error = ;  \/\/ BUG: does not compile\n__global__/' "$dest/position.cu"
    grep -q "BUG: does not compile" "$dest/position.cu" || fail "could not plant the compile error"
  elif [ "$kind" = hang ]; then
    sed -i '0,/FloatView wpe) {/s//&\n  while (config.vocab_size > 1000) std::this_thread::sleep_for(std::chrono::seconds(1));  \/\/ BUG: hangs at the real size/' "$dest/params.cpp"
    grep -q "BUG: hangs" "$dest/params.cpp" || fail "could not plant the hang"
    sed -i '1i #include <chrono>\n#include <thread>' "$dest/params.cpp"
  fi
}

plant_edge_bugs() {
  local dir=$1
  sed -i '0,/    if (shard.owns(id)) {/s//    if (id >= shard.first \&\& id <= shard.first + shard.real_rows) {  \/\/ BUG: one off/' \
    "$dir/10_vocab_parallel/vocab_parallel.cpp"
  grep -q "BUG: one off" "$dir/10_vocab_parallel/vocab_parallel.cpp" || fail "could not plant the C++ ownership off-by-one"
  sed -i 's|const bool mine = local >= 0 \&\& local < real_rows;|const bool mine = local >= 0 \&\& local <= real_rows;  // BUG: one off|' \
    "$dir/10_vocab_parallel/vocab_parallel.cu"
  grep -q "BUG: one off" "$dir/10_vocab_parallel/vocab_parallel.cu" || fail "could not plant the CUDA ownership off-by-one"
  sed -i 's|        dv\[c\] = g \* u\[c\];   // d(u . v)/dv = u|        dv[c] = g * wte.row(targets(p, j))[c];  // BUG: wte[target], not wte[centre]|' \
    "$dir/09_training/training.cpp"
  grep -q "BUG: wte\[target\]" "$dir/09_training/training.cpp" || fail "could not plant the C++ output-row gradient bug"
  sed -i 's|      dtarget\[(p \* k1 + j) \* d + c\] = g \* u\[c\];|      dtarget[(p * k1 + j) * d + c] = g * wte[std::int64_t{targets[p * k1 + j]} * d + c];  // BUG: wte[target]|' \
    "$dir/09_training/training.cu"
  grep -q "BUG: wte\[target\]" "$dir/09_training/training.cu" || fail "could not plant the CUDA output-row gradient bug"
}

expect_edge_bugs() {
  local report=$1
  expect "$report" "L10-cpu VocabParallelLookup\.IdsAtEveryRanksEdgesReadOnlyTheirShard: rank 0 of 2, row [0-9]+ of its part \(id 4352, another rank's: zero\).*first wrong element \[0, 0\] expected 0 got nan" \
    "ownership off-by-one: the rank, the row and the id"
  expect "$report" "L10-cudasim .*kernel 'vocab_parallel_lookup_kernel'.*invalid read of 4 bytes.*past the end of a [0-9,]+-byte allocation" \
    "CUDA ownership off-by-one: the memcheck report"
  expect "$report" "L09-cpu Training\.RowGradientsMatchPyTorch: .*dtarget.*first wrong element \[0, 0\] expected 0\.175116196 got -0\.619194388" \
    "output-row gradient from wte[target]: the element"
  expect "$report" "L09-cpu TrainingEndToEnd\.YourStepTrainsASliceOfWordNet: .*your step diverged on a slice of WordNet" \
    "output-row gradient from wte[target]: the end-to-end step fails"
  expect "$report" "L09-cudasim Training\.RowGradientsMatchPyTorch: .*dtarget.*first wrong element \[0, 0\] expected 0\.175116196 got -0\.619194388" \
    "CUDA output-row gradient from wte[target]: the element"
  expect "$report" "^L09 training +[0-9]+/[0-9]+ pass +[0-9]+/[0-9]+ pass" "lesson 9 loses points on both steps"
  if grep -Eq "^L10 vocab parallel .* 10\.0/10$" "$report"; then fail "the ownership off-by-one kept full marks"; fi
  if grep -Eq "^L09 training .* 10\.0/10$" "$report"; then fail "the output-row gradient bug kept full marks"; fi
}

plant_waste() {
  local dir=$1
  sed -i 's|^  const std::int64_t t = blockIdx.x;$|  const std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;  // WASTE: a thread per row\n  if (t >= gridDim.x) return;|; s|for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) dst\[c\] = src\[c\];|for (std::int64_t c = 0; c < d; ++c) dst[c] = src[c];|' \
    "$dir/01_lookup/lookup.cu"
  sed -i 's|for (unsigned active = kThreads / 2; active >= 32; active /= 2) {|for (unsigned stride = 1; stride < kThreads; stride *= 2) {  // WASTE: interleaved|; s|if (tid < active) partial\[tid\] += partial\[tid + active\];|if (tid % (2 * stride) == 0) partial[tid] += partial[tid + stride];|; s|double sum = partial\[tid\];|double sum = tid == 0 ? partial[0] : 0.0;|' \
    "$dir/02_norm/norm.cu"
  sed -i 's|  for (std::int64_t c = threadIdx.x; c < d; c += blockDim.x) x\[c\] = tok\[c\] + pos\[c\];|  const std::int64_t per = (d + blockDim.x - 1) / blockDim.x;  // WASTE: a run of columns per thread\n  for (std::int64_t c = threadIdx.x * per; c < d \&\& c < (threadIdx.x + 1) * per; ++c) x[c] = tok[c] + pos[c];|' \
    "$dir/05_combine/combine.cu"
  sed -i 's|const std::int64_t p = i / d, c = i % d;|const std::int64_t p = i % rows, c = i / rows;  // WASTE: down a column|; /^  atomicAdd(/s|\], dout\[i\]);|], dout[p * d + c]);|' \
    "$dir/08_backward/backward.cu"
  local f
  for f in 01_lookup/lookup.cu 02_norm/norm.cu 05_combine/combine.cu 08_backward/backward.cu; do
    grep -q "WASTE" "$dir/$f" || fail "could not plant the waste in $f"
  done
  [ "$(grep -c "^  atomicAdd(.*dout\[p \* d + c\]);" "$dir/08_backward/backward.cu")" = 2 ] ||
    fail "could not plant the column walk"
}

expect_waste() {
  local report=$1 csv=$2 lesson readme line
  # C++ steps are the stubs (0); each CUDA step keeps four fifths of its points.
  expect "$csv" "^wasteful,0\.00,4\.00,0\.00,4\.00,0\.00,0\.00,0\.00,0\.00,0\.00,4\.00,0\.00,0\.00,0\.00,0\.00,0\.00,2\.00,2\.50,0\.00,0\.00,0\.00,0\.00,0\.00,0\.00,0\.00,16\.50," \
    "correct kernels that waste memory lose a fifth of each CUDA step"
  for lesson in 01_lookup 02_norm 05_combine 08_backward; do
    for readme in "$root/lessons/$lesson/README.md" "$root/lessons/$lesson/README.fr.md"; do
      line=$(grep -E "^L0[0-9]-cudasim[-a-z]* Efficiency\." "$readme" || true)
      [ -n "$line" ] || { fail "$readme quotes no efficiency verdict"; continue; }
      if grep -qF -- "  $line" "$report"; then pass; else fail "the verdict $readme quotes is not the report's: $line"; fi
    done
  done
}
