#!/usr/bin/env bash
# What allowed_symbols.py refuses before a runner links, on two hand-made exercise files: one
# that uses only what an exercise may (static initialisers included), one that plants each thing
# refused for what the machine code does rather than for a name. Label core-cpu, about a second.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cxx=${CXX:-c++}
failures=0 passed=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
ok() { passed=$((passed + 1)); }

# check NAME: compiles $work/NAME.cpp into a library and runs the checker on it (output in NAME.txt)
check() {
  "$cxx" -std=c++20 -g -O1 -Wno-prio-ctor-dtor -c "$work/$1.cpp" -o "$work/$1.o" || { fail "$1.cpp does not compile"; return 1; }
  ar rcs "$work/lib$1.a" "$work/$1.o"
  python3 "$root/grader/remote/allowed_symbols.py" --nm nm --objdump=objdump \
    "$work/lib$1.a=$work/$1.cpp" > "$work/$1.txt" 2>&1
}

cat > "$work/fine.cpp" <<'CPP'
#include <fstream>
#include <string>
namespace {
std::string path = "x";  // a static initialiser of default priority: after the runner's set-up
std::size_t size() { return std::ifstream(path).good() ? 1 : 0; }
const std::size_t at_start = size();
__attribute__((constructor(99))) void same_as_the_tools() { path += "y"; }
__attribute__((constructor(101))) void after_set_up() { path += "z"; }
}  // namespace
std::size_t exercise() { return at_start + path.size(); }
CPP
check fine
status=$?
[ "$status" = 0 ] && ok || { cat "$work/fine.txt"; fail "a file with static initialisers is refused"; }

cat > "$work/planted.cpp" <<'CPP'
namespace andrea { int touch(); }
namespace {
int seen = 0;
__attribute__((constructor(50))) void early() { seen = andrea::touch(); }
void before_all() { seen = 1; }
__attribute__((section(".preinit_array"), used)) void (*preinit)() = before_all;
__attribute__((section(".ctors.65500"), used)) void (*old_style)() = before_all;
}  // namespace
asm(".section .init\n nop\n .previous");
extern "C" int pick() { return seen; }
extern "C" int (*resolve())() { return pick; }
extern "C" int chosen() __attribute__((ifunc("resolve")));
long enter(long n) { long r; asm volatile("syscall" : "=a"(r) : "a"(n) : "rcx", "r11", "memory"); return r; }
__attribute__((section(".init_array.+50"), used)) void (*odd)() = before_all;
extern "C" int seccomp_load(void*) { return 0; }
extern "C" __attribute__((weak)) int mallopt(int, int) { return 1; }
namespace andrea::remote { const char* confine() { return ""; } }
namespace andrea::reference { void served() {} }
namespace cudasim::tools { __attribute__((weak)) void report_memcheck() {} }
CPP
check planted
status=$?
[ "$status" = 1 ] && ok || fail "planted.cpp: exit status $status, expected 1"
expect() {  # expect PATTERN WHAT
  if grep -qE "$1" "$work/planted.txt"; then ok; else fail "$2 is not reported: $1"; fi
}
expect "planted\.cpp:4: error: a constructor of priority 50 \(\.init_array\.00050\)" "a constructor before the set-up"
expect "planted\.cpp:7: error: a constructor of priority 35 \(\.ctors\.65500\)" "an old-style .ctors entry"
expect "error: code run before every constructor \(a \.preinit_array section\)" "a .preinit_array entry"
expect "planted\.cpp:9: error: code run before every constructor \(a \.init section\)" "code in .init"
expect "error: an IFUNC \(chosen\)" "an IFUNC"
expect "planted\.cpp:13: error: a system call instruction \(syscall\)" "a syscall instruction"
expect "planted\.cpp:14: error: a section named like a list of constructors \(\.init_array\.\+50\)" "a priority ld reads its own way"
expect "planted\.cpp:15: error: defines seccomp_load, a name with C linkage" "a C function of a shared library"
expect "planted\.cpp:16: error: defines mallopt" "a weak C function"
expect "planted\.cpp:17: error: defines andrea::remote::confine\(\)" "the runner's own function"
expect "planted\.cpp:19: error: defines cudasim::tools::report_memcheck\(\)" "a weak copy of the layer's own"
if grep -q "served" "$work/planted.txt"; then fail "an exercise's own function is refused"; else ok; fi
cat "$work/planted.txt"
echo "allowed-symbols: $passed passed, $failures failed"
[ "$failures" = 0 ]
