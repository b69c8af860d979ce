#!/usr/bin/env python3
"""Refuses to link a runner whose exercise code calls what an exercise may not.

    allowed_symbols.py --nm NM [--objdump=OBJDUMP] LIBRARY=SOURCE...

Each LIBRARY is a static library compiled from one exercise file, SOURCE. Every name its objects
use and do not define (`nm -u`) must be one an exercise needs: the CUDA runtime API, the kernel
machinery the CPU execution layer's headers expand to, the course's headers (namespace andrea),
the C++ standard library, and the C library's memory, string, printing and math functions. The
rest — the layer's own bookkeeping (cudasim::set_tools, cudasim::take_launch_tally, ...), dlsym,
syscall, fork, open, ptrace — is refused, and so is a definition that would stand in for the
library's, the layer's or the runner's own: any name with C linkage (malloc, seccomp_load, a
tool's __tsan_ hook), a strong cudasim::, std:: or andrea:: function outside andrea::reference and
andrea::cuda (andrea::remote::confine). What no name shows is
read in the machine code (objdump): an instruction that enters the kernel itself (syscall,
sysenter, int $0x80: inline assembly past the C library), a function chosen at load time by code
of its own (an IFUNC, nm's "i"), code run before every constructor (a .preinit_array or .init
section) or before the runner's set-up (a constructor of priority 98 or less: .init_array.000N).
Each is reported as a compiler reports an error: "SOURCE:LINE: error: ...", the line the name
(or the instruction) comes from, so that the grader shows it as the step's compile error
(grading.first_error). Exit status 1 when anything is refused.

The names are read mangled (Itanium C++ ABI), where the namespace of a name is its first
component, whatever its return type or template arguments.
"""
import pathlib
import re
import subprocess
import sys

# The kernel machinery that cudasim's headers (device.hpp, api.hpp, cooperative_groups) expand
# a kernel, a launch and its intrinsics to: (namespace path under cudasim).
CUDASIM_KERNEL_API = {
    ("last_error_detail",), ("detail", "launch"), ("detail", "block_barrier"),
    ("detail", "warp_op"), ("detail", "warp_reduce"), ("detail", "shuffle"),
    ("detail", "poison_shared"), ("detail", "tile_barrier_opened"), ("detail", "assert_failed"),
    ("detail", "fail"), ("detail", "symbol_range"), ("detail", "atomic"), ("detail", "atomic_add"),
    ("detail", "SharedRegistration"), ("detail", "SymbolRegistration"),
}
NAMESPACES = {"std", "__gnu_cxx", "__cxxabiv1", "fmt", "andrea", "cooperative_groups", "nvcuda"}
COURSE_INTERNALS = {"remote"}  # andrea::remote (the runner)
# Where an exercise defines its functions (under andrea), and the names without C++ mangling that
# the compiler defines in it: the personality routine's reference, the CUDA built-in variables
# the layer's headers define inline.
EXERCISE_NAMESPACES = {"reference", "cuda"}
COMPILER_MADE = re.compile(r"DW\.ref\.\w+|threadIdx|blockIdx|blockDim|gridDim")

C_LIBRARY = set("""
memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strchr strrchr strstr strcpy
strncpy strcat strncat strspn strcspn printf fprintf sprintf snprintf vprintf vfprintf vsprintf
vsnprintf sscanf puts fputs putchar fputc putc fwrite fflush perror stdout stderr abort exit _Exit
quick_exit raise malloc
calloc realloc free aligned_alloc posix_memalign qsort bsearch abs labs llabs div ldiv strtol
strtoul strtoll strtoull strtof strtod strtold atoi atol atoll atof rand srand isalpha isdigit
isspace isupper islower isalnum ispunct isprint toupper tolower __ctype_b_loc __ctype_tolower_loc
__ctype_toupper_loc __assert_fail __errno_location __stack_chk_fail __dso_handle __tls_get_addr
_GLOBAL_OFFSET_TABLE_ _Unwind_Resume __gxx_personality_v0
nanosleep sched_yield clock_gettime pthread_self pthread_equal pthread_once pthread_key_create
__pthread_key_create pthread_getspecific pthread_setspecific pthread_mutex_init pthread_mutex_destroy
pthread_mutex_lock pthread_mutex_trylock pthread_mutex_unlock pthread_cond_wait pthread_cond_signal
pthread_cond_broadcast pthread_cond_destroy __libc_single_threaded
""".split())  # (the last three lines: what <thread>, <mutex> and <chrono> call inline)
MATH = re.compile(r"(?:a?(?:sin|cos|tan)h?|atan2|sincos|exp|exp2|expm1|log|log2|log10|log1p|pow|"
                  r"sqrt|cbrt|hypot|fabs|floor|ceil|round|lround|llround|trunc|fmod|remainder|fma|"
                  r"fmin|fmax|fdim|frexp|ldexp|modf|nearbyint|rint|lrint|llrint|erf|erfc|tgamma|"
                  r"lgamma|copysign|nextafter|scalbn|ilogb|logb)[fl]?")
# What the compiler itself calls: the C++ ABI's runtime, atomics, the instrumentation's hooks.
RUNTIME = re.compile(r"__cxa_\w+|__atomic_\w+|__tsan_\w+|__asan_\w+|__ubsan_\w+|__sanitizer_\w+")
C_WRAPPER = re.compile(r"__(\w+)_chk|__isoc\d\d_(\w+)")  # _FORTIFY_SOURCE's, C99/C23 scanf's

# An instruction that enters the kernel (x86-64; `int $0x80` the 32-bit way), in objdump's text.
SYSTEM_CALL = re.compile(r"\t(syscall|sysenter|int\s+\$0x80)\b")

ALLOWED_TEXT = ("an exercise may use the CUDA runtime API, the course's headers, the C++ standard "
                "library and the C library's memory, string, printing and math functions "
                "(grader/remote/allowed_symbols.py)")


def source_names(text: str) -> list:
    """The <source-name>s a nested name begins with ("7cudasim6detail6launch..."), ABI tags
    (B5cxx11) skipped."""
    names, at = [], 0
    while at < len(text):
        tag = text[at] == "B" and bool(names)
        at += tag
        digits = re.match(r"\d+", text[at:])
        if not digits:
            break
        at += len(digits.group())
        if not tag:
            names.append(text[at:at + int(digits.group())])
        at += int(digits.group())
    return names


def namespace_path(symbol: str) -> tuple:
    """The components a mangled C++ name begins with: ("std",), ("cudasim", "detail", "launch"),
    ("cudaMalloc",) for a global function, ("operator new",); () when it cannot tell."""
    text = symbol[2:]
    text = re.sub(r"^(?:T[VISTHW]|GV|GR|Thn?\d+_|Tvn?\d+_n?\d+_)", "", text)
    text = text.lstrip("Z")  # a local name's enclosing function
    if text[:2] in ("nw", "na", "dl", "da"):
        return ("operator new" if text[1] in "wa" else "operator delete",)
    nested = text.startswith("N")
    if nested:
        text = text[1:].lstrip("rVKRO")
    if text[:2] in ("St", "Sa", "Sb", "Ss", "Si", "So", "Sd"):
        return ("std",)
    names = source_names(text)
    return tuple(names if nested else names[:1])  # (after a global name: its parameters' types)


def allowed(symbol: str) -> bool:
    """May an exercise's object use this undefined (mangled) name?"""
    if not symbol.startswith("_Z"):
        wrapped = C_WRAPPER.fullmatch(symbol)
        name = next((g for g in wrapped.groups() if g), symbol) if wrapped else symbol
        return (name in C_LIBRARY or bool(MATH.fullmatch(name)) or bool(RUNTIME.fullmatch(symbol)))
    path = namespace_path(symbol)
    if not path:
        return False
    if path[0].startswith("operator ") or re.fullmatch(r"cuda[A-Z]\w*", path[0]):
        return len(path) == 1
    if path[0] == "cudasim":
        return any(path[1:1 + len(api)] == api for api in CUDASIM_KERNEL_API)
    if path[0] == "andrea":
        return len(path) < 2 or path[1] not in COURSE_INTERNALS
    return path[0] in NAMESPACES


def replaces(kind: str, symbol: str) -> bool:
    """Would an exercise's definition of this name (nm's kind) stand in for the runner's, the
    layer's or a library's own? Any name with C linkage, weak or strong, but the compiler's own:
    the program's definition wins over a shared library's (seccomp_load, mallopt) and over an
    archive linked after the exercise. A strong C++ definition under andrea outside
    EXERCISE_NAMESPACES (andrea::remote::confine, andrea::check), in a library's namespace
    (cudasim, std), an operator new. A weak C++ definition is the compiler's copy of an inline
    function or a template of a header the exercise includes, which the linker may keep in place
    of the library's: refused where exercise code may not use the name either (cudasim's
    internals, andrea::remote)."""
    if not symbol.startswith("_Z"):
        return not COMPILER_MADE.fullmatch(symbol)
    path = namespace_path(symbol)
    if not path:
        return False
    if kind not in "TDBR":  # weak: the linker keeps the first copy, maybe the exercise's own
        return path[0] in ("cudasim", "andrea") and not allowed(symbol)
    if path[0] == "andrea":
        return len(path) < 3 or path[1] not in EXERCISE_NAMESPACES
    return (path[0] in NAMESPACES | {"cudasim", "testing"} or path[0].startswith("operator ")
            or bool(re.fullmatch(r"cuda[A-Z]\w*", path[0])))


def symbols(nm: str, library: str, demangle: bool) -> list:
    """(kind, name) of what the library's objects use and do not define ("U", "w", "v") and of
    the definitions they export, strong ("T", "D", "B", "R") or weak ("W", "V", "u"), in nm's
    order."""
    done = subprocess.run([nm, "-g", *(["-C"] if demangle else []), library],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{library}: nm failed: {done.stderr.strip()}")
    found = (re.match(r"(?:[0-9a-f]+)?\s+([UwvTDBRWVu]) (.+)$", line)
             for line in done.stdout.splitlines())
    return [match.groups() for match in found if match]


# The priority of the runner's set-up constructor (runner.cpp), which installs its seccomp filter:
# exercise code may not run before it.
RUNNER_SET_UP = 98


def before_set_up(section: str) -> str:
    """Why code in this section would run before the runner's set-up ("" if it would not). ld runs
    .preinit_array, then .init, then .init_array.N and .ctors.N by priority (N, and 65535 - N),
    then plain .init_array and .ctors; a suffix that is not the compiler's five digits gets a
    priority of ld's own choosing."""
    if section in (".init_array", ".ctors"):
        return ""
    if not re.match(r"\.(preinit_array|init|ctors)", section):
        return ""
    if section in (".preinit_array", ".init"):
        return (f"code run before every constructor (a {section} section), which exercise code "
                "has no use for")
    number = re.fullmatch(r"\.(init_array|ctors)\.(\d{5})", section)
    priority = None if not number else (int(number.group(2)) if number.group(1) == "init_array"
                                        else 65535 - int(number.group(2)))
    if priority is not None and priority > RUNNER_SET_UP:  # after the set-up (the tools' own: 99)
        return ""
    return (f"a constructor of priority {priority} ({section})" if priority is not None else
            f"a section named like a list of constructors ({section})") + (
        ": it would run before the runner's set-up, which exercise code has no use for (a static "
        "initialiser without a priority is fine)")


def section_line(source: pathlib.Path, section: str) -> int:
    """The line that puts code in this section: the one naming it, else the first naming a
    constructor, a priority or an assembler block (1 when none does)."""
    lines = source_text(source).splitlines()
    for pattern in (re.escape(section), r"\bconstructor\b", r"\binit_priority\b",
                    rf"\b{re.escape(section.split('.')[1])}\b", r"\basm\b"):
        line = next((n for n, text in enumerate(lines, 1) if re.search(pattern, text)), 0)
        if line:
            return line
    return 1


def machine_code(objdump: str, nm: str, library: str, source: pathlib.Path) -> list:
    """(line, why) for what the library's objects hold that no name shows: an instruction that
    enters the kernel (its line from the debug line table, objdump -l, when it is the source's),
    an IFUNC, a .preinit_array or .init section, a constructor that runs before the runner's
    set-up."""
    found = []
    done = subprocess.run([objdump, "-d", "-l", "--no-show-raw-insn", library],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{library}: objdump failed: {done.stderr.strip()}")
    line = 0
    for text in done.stdout.splitlines():
        at = re.match(r"(/\S+|\S+\.\w+):(\d+)", text)
        if at:
            line = int(at.group(2)) if pathlib.Path(at.group(1)).name == source.name else 0
            continue
        instruction = SYSTEM_CALL.search(text)
        if instruction:
            found.append((line or line_of(source, "asm"),
                          f"a system call instruction ({instruction.group(1)}): exercise code "
                          "reaches the system through the C library's functions only"))
    headers = subprocess.run([objdump, "-h", library], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, check=False).stdout
    sections = re.findall(r"^\s*\d+\s+(\S+)\s", headers, re.M)
    for section in sorted(set(sections)):
        why = before_set_up(section)
        if why:
            found.append((section_line(source, section), why))
    names = subprocess.run([nm, "-C", library], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, check=False).stdout
    for name in re.findall(r"^[0-9a-f]* +i (.+)$", names, re.M):
        found.append((line_of(source, name), f"an IFUNC ({name}): a function chosen at load "
                      "time by code of its own, which exercise code has no use for"))
    return found


def source_text(source: pathlib.Path) -> str:
    try:
        return source.read_text(errors="replace")
    except OSError:
        return ""


def line_of(source: pathlib.Path, shown: str) -> int:
    """The first line of source naming the symbol's own name (1 when none does)."""
    name = re.split(r"[(<\[]", shown, maxsplit=1)[0].split("::")[-1].split()[-1]
    lines = source_text(source).splitlines()
    return next((n for n, line in enumerate(lines, 1) if re.search(rf"\b{re.escape(name)}\b", line)), 1)


def main(argv: list) -> int:
    if len(argv) < 3 or argv[0] != "--nm":
        sys.exit(__doc__.strip().splitlines()[2])
    nm, refused, objdump = argv[1], 0, "objdump"
    pairs = argv[2:]
    if pairs and pairs[0].startswith("--objdump="):  # empty: objdump from PATH
        objdump, pairs = pairs[0].partition("=")[2] or objdump, pairs[1:]
    for pair in pairs:
        library, _, source = pair.partition("=")
        for line, why in machine_code(objdump, nm, library, pathlib.Path(source)):
            refused += 1
            print(f"{source}:{line}: error: {why}", file=sys.stderr)
        seen = set()
        for (kind, mangled), (_, shown) in zip(symbols(nm, library, False), symbols(nm, library, True)):
            used = kind in "Uwv"
            if mangled in seen or (allowed(mangled) if used else not replaces(kind, mangled)):
                continue
            seen.add(mangled)
            refused += 1
            if used:
                what = f"uses {shown}, which is not for exercise code: {ALLOWED_TEXT}"
            elif not mangled.startswith("_Z"):
                what = (f"defines {shown}, a name with C linkage (extern \"C\", or a variable "
                        "outside any namespace), which the program would use in place of a "
                        "library's or the runner's own of that name: give it a namespace "
                        "(andrea::reference, andrea::cuda, or an anonymous one)")
            else:
                what = (f"defines {shown}, which would stand in for the runner's, the CPU "
                        "execution layer's or a library's own: exercise code defines its names "
                        "in namespace andrea::reference or andrea::cuda, or one of its own")
            print(f"{source}:{line_of(pathlib.Path(source), shown)}: error: {what}", file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
