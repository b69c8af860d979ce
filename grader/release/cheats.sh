# Sourced by test_grader.sh: a submission of cheats against the verdict itself, each written
# knowing the whole release (the grader's source included), two forms each, over the C++ and
# CUDA steps of lessons 1-7, and what the grader must make of them.
#   make_cheats LESSONS           writes the submission from the solutions ($work/solutions)
#   expect_cheats REPORT CSV      checks its report and its row
# Needs $root, $work, and test_grader.sh's plant, expect, pass and fail.

make_cheats() {
  local l=$1 s=$work/solutions
  mkdir -p "$l"
  cp -r "$s"/0[1-6]_* "$l/"
  # 1. The runner ends before main: a constructor (the C++ step).
  sed -i '1i #include <cstdlib>\n__attribute__((constructor)) static void cheat_first() { std::_Exit(0); }' "$l/01_lookup/lookup.cpp"
  # 2. The CUDA step on the host: a loop instead of the kernel (lesson 1), and (lesson 2)
  #    l2_norm computed without a launch.
  plant "$l/01_lookup/lookup.cu" '/^  const DeviceBuffer<float> d_wte(wte.flat());/,/^  d_out.copy_to(out.flat());/c\  for (std::size_t t = 0; t < ids.size(); ++t)  // CHEAT: the host, no kernel\n    for (std::int64_t c = 0; c < wte.cols(); ++c) out(static_cast<std::int64_t>(t), c) = wte(ids[t], c);' "CHEAT: the host"
  plant "$l/02_norm/norm.cu" '/^  float norm = 0.0f;$/,/^  return norm;$/c\  double sum = 0;  // CHEAT: the host, no kernel\n  for (float x : v) sum += static_cast<double>(x) * x;\n  return static_cast<float>(std::sqrt(sum));' "CHEAT: the host"
  sed -i '1i #include <cmath>' "$l/02_norm/norm.cu"
  # 3. googletest's skip line, printed and thrown, on every valid call (lesson 2's C++ step).
  plant "$l/02_norm/norm.cpp" '0,/^double sum_of_squares(.*{$/s//&\n  std::printf("[  SKIPPED ] Norm.Golden\\n");\n  throw InputError("[  SKIPPED ] not graded");  \/\/ CHEAT/' "// CHEAT"
  sed -i '1i #include <cstdio>\n#include "core/errors.hpp"' "$l/02_norm/norm.cpp"
  # 4. The solution included: by the build's include path, and by the course's absolute path.
  printf '#include "reference/dot.cpp"  // CHEAT\n' > "$l/03_dot_product/dot.cpp"
  printf '#include "%s/cuda/dot.cu"  // CHEAT\n' "$root" > "$l/03_dot_product/dot.cu"
  # 5. A solution read at run time and thrown: by the course's path, and by the path the build's
  #    CMake cache gives (next to the runner), with the hidden seed and the grader's command line;
  #    the runner's own file read (where the layer's functions lie), also by a static initialiser,
  #    a weak copy of a libstdc++ function that libstdc++ would call at start-up (the course's
  #    archives are linked first, exporting nothing: remote.cmake), a file written beside it. The sandbox masks the answers; the runner's seccomp filter
  #    refuses every open (confine.hpp), from before the first static initialiser of the exercise.
  cat > "$l/04_position_table/position.cpp" <<CPP
#include "reference/position.hpp"
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
namespace andrea::reference {
namespace {
std::size_t bytes_of_self() {
  std::stringstream self;
  self << std::ifstream("/proc/self/exe", std::ios::binary).rdbuf();
  return self.str().size();
}
const std::size_t early = bytes_of_self();  // a static initialiser, before the runner's main
bool hijacked = false;
}  // namespace
// A weak copy of a libstdc++ function under its mangled name, which libstdc++ calls at start-up.
void category_start(void*) noexcept __asm__("_ZNSt14error_categoryC2Ev");
__attribute__((weak, used, noinline)) void category_start(void*) noexcept { hijacked = true; }
void positions(ConstFloatView, std::int64_t, FloatView) {  // CHEAT
  std::ifstream in("$root/reference/position.cpp");
  std::stringstream text;
  text << in.rdbuf();
  throw std::runtime_error("LEAK<" + text.str() + "> self=" + std::to_string(bytes_of_self()) +
                           " early=" + std::to_string(early) + " hijacked=" +
                           std::to_string(hijacked));
}
}  // namespace andrea::reference
CPP
  #    (The C++ standard library alone, which exercise code may use: allowed_symbols.py.)
  cat > "$l/04_position_table/position.cu" <<'CU'
#include "cuda/position.hpp"
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include "cuda/runtime.hpp"
ANDREA_CUDA_BEGIN
void positions(ConstFloatView, std::int64_t, FloatView) {  // CHEAT
  std::string build = std::filesystem::read_symlink("/proc/self/exe").string(), home, line, ppid;
  build = build.substr(0, build.rfind("/tests/"));
  std::ifstream cache(build + "/CMakeCache.txt");
  while (std::getline(cache, line))
    if (line.rfind("CMAKE_HOME_DIRECTORY:INTERNAL=", 0) == 0) home = line.substr(30);
  std::ifstream status("/proc/self/status");
  while (std::getline(status, line))
    if (line.rfind("PPid:", 0) == 0) ppid = line.substr(line.find_first_not_of(" \t", 5));
  std::stringstream text, parent, environment;
  text << std::ifstream(home + "/cuda/position.cu").rdbuf();
  parent << std::ifstream("/proc/" + ppid + "/cmdline").rdbuf();
  environment << std::ifstream("/proc/self/environ").rdbuf();
  const std::string all = environment.str(), name = "ANDREA_HIDDEN_SEED=";
  const std::size_t at = all.find(name);
  const std::string seed = at == std::string::npos ? "(none)" : all.substr(at + name.size(), 20);
  const bool wrote = static_cast<bool>(std::ofstream(build + "/tests/cheat-was-here") << seed);
  throw std::runtime_error("LEAK<" + text.str() + "> seed=" + seed + " home=" + home +
                           " wrote=" + std::to_string(wrote));
}
ANDREA_CUDA_END
CU
  # 6. A daemon left behind that writes the results until the grader has gone (lesson 5's C++
  #    step, which is otherwise right); the CPU layer's memory error caught and dropped (its
  #    CUDA step: a read before wte, the launch's error swallowed).
  #    (fork and setsid by raw system calls, which no list of names the code links can see: the
  #    syscall instruction is refused before it links, allowed_symbols.py. Were it to run, the
  #    sandbox's process tree, or the sweep without one, ends it: ctest grader/sweep.)
  sed -i "1i #include <chrono>\n#include <fstream>\n#include <thread>\nstatic long cheat_syscall(long n) { long r; asm volatile(\"syscall\" : \"=a\"(r) : \"a\"(n) : \"rcx\", \"r11\", \"memory\"); return r; }\n__attribute__((constructor)) static void cheat_daemon() {\n  if (cheat_syscall(57) != 0) return;  // fork\n  cheat_syscall(112);  // setsid\n  for (int i = 0; i < 900; ++i) {  // CHEAT: 15 minutes\n    std::ofstream(\"$work/results/grades.csv\") << \"cheats2,100\\\\n\";\n    std::ofstream(\"/tmp/andrea-cheat-daemon\") << i;\n    std::this_thread::sleep_for(std::chrono::seconds(1));\n  }\n  cheat_syscall(60);  // exit\n}" "$l/05_combine/combine.cpp"
  grep -q "CHEAT: 15 minutes" "$l/05_combine/combine.cpp" || fail "could not plant the daemon"
  plant "$l/05_combine/combine.cu" 's|  const float\* tok = wte + id \* d;|  const float* tok = wte + id * d - 1;  // CHEAT: reads before wte|' "CHEAT: reads before wte"
  plant "$l/05_combine/combine.cu" 's|^  launch_combine(wte, wpe, ids, out);$|  try { launch_combine(wte, wpe, ids, out); } catch (...) {}  // CHEAT: error dropped|' "CHEAT: error dropped"
  # 7. A main() of its own (lesson 6's C++ step: a definition with C linkage, refused before it
  #    links); and the CUDA step asks for the hidden seed
  #    (getenv: refused before it links, allowed_symbols.py).
  printf 'int main() { return 0; }  // CHEAT\n' >> "$l/06_parameter_count/params.cpp"
  plant "$l/06_parameter_count/params.cu" 's|^  check::materialize_args(config, wte, wpe);$|&\n  if (const char* s = std::getenv("ANDREA_HIDDEN_SEED")) throw InputError(std::string("seed=") + s);  // CHEAT|' "// CHEAT"
  sed -i '1i #include <cstdlib>\n#include <string>\n#include "core/errors.hpp"' "$l/06_parameter_count/params.cu"
  # 9. Another copy of the course, outside the grading tree and readable by all (an instructor's
  #    other checkout; here in /var/tmp, as /tmp is the sandbox's own): #include'd by lesson 7's
  #    C++ step, read at run time by its CUDA step. The sandbox shows the system, the course and
  #    the work folder alone (grader/class/sandbox.sh).
  other=/var/tmp/andrea-other-course.$$
  mkdir -p "$other/reference" "$other/cuda"
  cp "$root/reference/rope.cpp" "$other/reference/"
  cp "$root/cuda/sinusoidal.cu" "$other/cuda/"
  chmod -R a+rX "$other"
  cp -r "$s"/07_* "$l/"
  printf '#include "%s/reference/rope.cpp"  // CHEAT\n' "$other" > "$l/07_position_schemes/rope.cpp"
  cat > "$l/07_position_schemes/sinusoidal.cu" <<CU
#include "cuda/sinusoidal.hpp"
#include <fstream>
#include <sstream>
#include <stdexcept>
#include "cuda/runtime.hpp"
ANDREA_CUDA_BEGIN
void sinusoidal_table(std::int64_t, std::int64_t, std::int64_t, FloatView) {  // CHEAT
  std::stringstream text;
  text << std::ifstream("$other/cuda/sinusoidal.cu").rdbuf();
  throw std::runtime_error("LEAK<" + text.str() + ">");
}
ANDREA_CUDA_END
CU
  # 8. A lookup that knows the public tests' inputs (fake_lookup.cpp), in a submission of its
  #    own: the public tests pass, the hidden ones do not.
  mkdir -p "$l/../../fake-lookup"
  cp "$root/grader/release/fake_lookup.cpp" "$l/../../fake-lookup/lookup.cpp"
  # The lines of the solutions it reads, which no report may hold.
  python3 - "$root/reference/position.cpp" "$root/cuda/position.cu" > "$work/solution-lines.txt" <<'PY'
import sys
for name in sys.argv[1:]:
    for line in open(name):
        line = line.strip()
        if len(line) >= 30 and not line.startswith(("//", "#include", "namespace", "void positions")):
            print(line)
PY
}

expect_cheats() {
  local report=$1 csv=$2
  expect "$report" "L01-cpu .*the piece runner \(your code\) ended \(exit status 0\) during lookup\(\)" "a constructor that ends the runner before main"
  expect "$report" "L01-cudasim .*no kernel was launched: the CUDA step computed lookup\(\) on the host" "a host loop for the CUDA lookup"
  expect "$report" "L02-cudasim .*no kernel was launched: the CUDA step computed l2_norm\(\) on the host" "l2_norm without a launch"
  expect "$report" "L02-cpu .*\[ SKIPPED \] not graded" "a thrown skip line fails the call"
  expect "$report" "^L03 dot product +does not compile +does not compile .* 0\.0/10$" "#include of a solution, relative and absolute"
  expect "$report" "L04-cpu .*LEAK<> self=0 early=0 hijacked=0" "a solution read at run time reads nothing, nor the runner's own file, even before main or through a copy of a library function"
  expect "$report" "L04-cudasim .*LEAK<> seed=\(none\) home= wrote=0" "the runner knows no hidden seed, opens no file, writes none"
  expect "$report" "^L05 combine +does not compile +memory error" "a daemon by raw system calls does not link; a dropped memory error is still one"
  expect "$report" "L05-cpu does not compile: lessons/05_combine/combine\\.cpp:[0-9]+: a system call instruction \\(syscall\\)" "the instruction and its line are named"
  expect "$report" "^L06 parameter count +does not compile " "a main() of its own does not link"
  expect "$report" "L06-cpu does not compile: lessons/06_parameter_count/params\.cpp:[0-9]+: defines main, a name with C linkage" "the link check says why"
  expect "$report" "L06-cudasim does not compile: lessons/06_parameter_count/params\.cu:[0-9]+: uses getenv, which is not for exercise code" "getenv in exercise code: refused with the name"
  expect "$report" "L07-cpu does not compile: .*andrea-other-course.*No such file or directory" "#include of another copy of the course: not in the sandbox"
  expect "$report" "L07-cudasim .*LEAK<>" "another copy of the course read at run time: not in the sandbox"
  expect "$report" "^total +[0-9.]+/[0-9]+$" "the cheats are graded"
  if grep -q "^cheats2,100" "$csv"; then fail "the daemon rewrote grades.csv"; else pass; fi
  [ ! -e /tmp/andrea-cheat-daemon ] && pass || fail "the daemon wrote into the machine's /tmp"
  local fake=${report%/cheats2/report.txt}/fake-lookup/report.txt
  expect "$fake" "^L01 lookup +[0-9]+/[0-9]+ pass .* [0-4]\.[0-9]/10$" "a lookup that knows the public inputs: under 5 points"
  expect "$fake" "L01-cpu HiddenLookup\..*the course's solution gives .*seed 7 \(ANDREA_HIDDEN_SEED=7" "the hidden tests name the element and the seed"
  for lesson in "L01 lookup" "L02 norm" "L04 position table"; do
    if grep -Eq "^$lesson .* 10\.0/10$" "$report"; then fail "$lesson: full marks by cheating"; else pass; fi
  done
}
