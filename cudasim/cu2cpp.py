#!/usr/bin/env python3
"""Turns a CUDA source file into C++ that g++ compiles against the CPU execution layer.

  cu2cpp.py IN.cu OUT.cpp

Only what plain C++ cannot express is rewritten; everything else is copied as it is,
and every line keeps its number (a `#line` marker names IN.cu), so compiler messages
and __syncthreads() sites point at the student's file and line.

  kernel<<<grid, block[, shared_bytes[, stream]]>>>(args...)
      -> ::cudasim::detail::launch_chevron(LaunchConfig(grid, block, ...), "kernel",
             <lambda calling kernel(args...)>, <lambda reporting a mismatch>, args...)
         The lambda lets C++ pick the overload or deduce the template arguments exactly as
         nvcc does; a call that does not fit stops at one static_assert naming the kernel.
  extern __shared__ T name[];   -> the block's dynamic shared memory (size from the launch);
  extern T __shared__ name[];      the type may come first, as in CUDA's samples
  static __shared__ / __shared__ in a function
                                -> a per-block variable, filled with 0xff bytes at block start
  __shared__ at file scope, __device__ and __constant__ variables
                                -> the same, followed (on the same line) by a static object that
                                   tells the layer's tools the variable's address, size, name
                                   and line, so that they see its memory as shared, global or
                                   constant memory
  assert(...)                   -> CUDASIM_ASSERT(...): in a kernel, a failure reports the
                                   kernel, block and thread and fails the launch
  asm(...)                      -> a compile-time error: inline PTX is not supported

A header that IN.cu includes with quotes from its own folder (and those it includes so) is
rewritten too when it holds any of the above (the samples' SharedMemory<T> with its
`extern __shared__`, a kernel and its launch): its copy goes to OUT.cpp's folder, under
headers/, and the include points at it. OUT.cpp.d lists the headers read (a Makefile depfile),
so that the build rewrites again when one changes.
"""
import hashlib
import pathlib
import re
import sys

IDENT = re.compile(r"[A-Za-z_]\w*")
OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")", "]", "}"}


def blank(text: str) -> str:
    """The text with comments and the contents of string and character literals replaced by
    spaces (newlines kept), so that the parser below only ever sees code."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            paren = text.find("(", i + 2)
            delim = ")" + text[i + 2:paren] + '"'
            j = text.find(delim, paren)
            j = n if j < 0 else j + len(delim)
            for k in range(i + 1, j - 1):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # 1'000 digit separator
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def match_forward(code: str, i: int) -> int:
    """Index just past the bracket that closes the one at code[i]."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] in OPEN:
            depth += 1
        elif code[j] in CLOSE:
            depth -= 1
            if depth == 0:
                return j + 1
    raise SyntaxError("unbalanced brackets")


def split_top(code: str, start: int, end: int):
    """(start, end) of each comma-separated part of code[start:end] at bracket depth 0."""
    parts, depth, s = [], 0, start
    for j in range(start, end):
        if code[j] in OPEN:
            depth += 1
        elif code[j] in CLOSE:
            depth -= 1
        elif code[j] == "," and depth == 0:
            parts.append((s, j))
            s = j + 1
    parts.append((s, end))
    return parts


def callee_start(code: str, end: int) -> int:
    """Where the kernel expression that ends at `end` (just before <<<) starts:
    name, ns::name, name<targs>, or a parenthesised expression."""
    j = end
    while j > 0 and code[j - 1].isspace():
        j -= 1
    if j > 0 and code[j - 1] == ")":
        depth = 0
        for k in range(j - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(code[k], 0)
            if depth == 0:
                return k
    while True:
        if j > 0 and code[j - 1] == ">":  # template arguments
            depth = 0
            for k in range(j - 1, -1, -1):
                depth += {">": 1, "<": -1, ")": 1, "(": -1}.get(code[k], 0)
                if depth == 0:
                    j = k
                    break
            while j > 0 and code[j - 1].isspace():
                j -= 1
        k = j
        while k > 0 and (code[k - 1].isalnum() or code[k - 1] == "_"):
            k -= 1
        if k == j:
            raise SyntaxError("cannot find the kernel before <<<")
        j = k
        m = j
        while m > 0 and code[m - 1].isspace():
            m -= 1
        if m >= 2 and code[m - 2:m] == "::":
            j = m - 2
            while j > 0 and code[j - 1].isspace():
                j -= 1
            if j == 0 or not (code[j - 1].isalnum() or code[j - 1] in "_>"):
                return m - 2  # ::name
            continue
        return j


def launch_edit(text: str, code: str, pos: int, line: int, params=None):
    """The edit (start, end, replacement) for the launch whose <<< is at pos. params: kernel
    name -> its parameters' names, for the kernels defined in this file (kernel_params)."""
    start = callee_start(code, pos)
    callee_text = text[start:pos]
    callee = " ".join(callee_text.split())
    depth, j = 0, pos + 3
    while j < len(code):
        if code[j] in OPEN:
            depth += 1
        elif code[j] in CLOSE:
            depth -= 1
        elif depth == 0 and code.startswith(">>>", j):
            break
        j += 1
    else:
        raise SyntaxError("<<< without >>>")
    config = text[pos + 3:j]
    if not 2 <= len(split_top(code, pos + 3, j)) <= 4:
        raise SyntaxError(f"kernel '{callee}': the launch takes <<<grid, block[, shared_bytes[, stream]]>>>")
    k = j + 3
    while k < len(code) and code[k].isspace():
        k += 1
    if k >= len(code) or code[k] != "(":
        raise SyntaxError(f"kernel '{callee}': expected (arguments) after >>>")
    close = match_forward(code, k)
    args = text[k + 1:close - 1]
    # The parameters' names, for the tools' reports ("argument 2 'out'"), when the kernel is
    # defined in this file, once, and takes at least as many parameters as the launch passes.
    names = (params or {}).get(re.split(r"\s*<", callee.strip("() "))[0].split("::")[-1].strip())
    given = len(split_top(code, k + 1, close - 1)) if args.strip() else 0
    names = f'"{",".join(names)}"' if names is not None and given <= len(names) else "nullptr"
    message = (f"kernel '{callee}' cannot be called with these arguments: "
               f"check their number and types against the kernel's parameters")
    replacement = (
        f"::cudasim::detail::launch_chevron(::cudasim::detail::LaunchConfig({config}), \"{callee}\", "
        f"{names}, "
        f"[&](auto&&... cudasim_a) -> decltype({callee}(cudasim_a...)) {{ {callee}(cudasim_a...); }}, "
        f"[](auto cudasim_ok) {{ static_assert(decltype(cudasim_ok)::value, \"{message}\"); }}"
        + (f", {args})" if args.strip() else ")")
        + "\n" * callee_text.count("\n"))
    return start, close, replacement


def scope_kinds(code: str):
    """For each '{' position: 'namespace' or 'code' (function body, class, initialiser)."""
    kinds, last = {}, 0
    for m in re.finditer(r"[{};]", code):
        if m.group() == "{":
            head = code[last:m.start()]
            kinds[m.start()] = "namespace" if re.search(r"\b(namespace|extern)\b", head) else "code"
        last = m.end()
    return kinds


ATTRIBUTE = re.compile(r"(__align__|alignas|__launch_bounds__|__attribute__|__declspec)\s*\(")


def skip_attributes(code: str, j: int) -> int:
    """Past `__align__(n)`, `alignas(n)`, `__launch_bounds__(...)`, `__attribute__((...))` and
    `[[...]]` that start at code[j] (after blanks); j itself if there are none."""
    while True:
        k = j
        while k < len(code) and code[k].isspace():
            k += 1
        if code.startswith("[[", k):
            j = code.index("]]", k) + 2
            continue
        m = ATTRIBUTE.match(code, k)
        if m is None:
            return j
        j = match_forward(code, m.end() - 1)


def declares_variable(code: str, after: int) -> bool:
    """Whether the declaration that goes on at code[after] (just past __device__) declares a
    variable (`int x;`, `float t[4] = {...};`), not a function (`float f(float x) ...`)."""
    j = after
    while j < len(code):
        j = skip_attributes(code, j)
        c = code[j] if j < len(code) else ";"
        if c == "(":
            return False
        if c in "=;[{,":
            return True
        j += 1
    return False


def statement_end(code: str, pos: int) -> int:
    """The ';' that ends the declaration going on at pos (at bracket depth 0)."""
    depth = 0
    for j in range(pos, len(code)):
        if code[j] in OPEN:
            depth += 1
        elif code[j] in CLOSE:
            depth -= 1
        elif code[j] == ";" and depth == 0:
            return j
    raise SyntaxError("declaration without ';'")


def statement_head(code: str, pos: int) -> str:
    """The code from the start of the declaration that goes on at pos up to pos, without
    preprocessor lines."""
    start = max(code.rfind(c, 0, pos) for c in ";{}") + 1
    return "\n".join(l for l in code[start:pos].split("\n") if not l.lstrip().startswith("#"))


def in_directive(code: str, pos: int) -> bool:
    """Whether pos lies on a preprocessor line (`#define DEVICE __device__`)."""
    return code[code.rfind("\n", 0, pos) + 1:pos].lstrip().startswith("#")


def kernel_params(code: str):
    """Kernel name -> its parameters' names ('' for an unnamed one), for each __global__
    function defined or declared in the file; None for a name declared with different lists."""
    params = {}
    for m in re.finditer(r"\b__global__\b", code):
        j = m.end()
        while True:  # the first '(' that is not an attribute's: the parameter list
            j = skip_attributes(code, j)
            if j >= len(code) or code[j] in ";{":
                break
            if code[j] == "(":
                name = IDENT.findall(code[m.end():j])
                if not name:
                    break
                close = match_forward(code, j)
                names = []
                if "<" in code[j + 1:close - 1]:  # template types: commas that split nothing
                    names = None
                elif code[j + 1:close - 1].strip() not in ("", "void"):
                    for s, e in split_top(code, j + 1, close - 1):
                        part = re.split(r"[=\[]", code[s:e], maxsplit=1)[0]
                        idents = [i for i in IDENT.findall(part) if i not in CV_WORDS]
                        named = len(idents) > 1 and idents[-1] not in TYPE_WORDS
                        names.append(idents[-1] if named else "")
                key = name[-1]
                params[key] = merged(params[key], names) if key in params else names
                break
            j += 1
    return {k: v for k, v in params.items() if v is not None}


CV_WORDS = {"const", "volatile", "__restrict__", "__restrict", "restrict"}
TYPE_WORDS = {"unsigned", "signed", "int", "long", "short", "char", "float", "double", "bool"}


def merged(a, b):
    """The names of two declarations of one kernel (a prototype may leave them out); None
    if they differ."""
    if a is None or b is None or len(a) != len(b) or any(x and y and x != y for x, y in zip(a, b)):
        return None
    return [x or y for x, y in zip(a, b)]


def tag(source: str) -> str:
    """A short tag for names that the rewrite adds, unique to the source file."""
    return hashlib.md5(source.encode()).hexdigest()[:8]


def shared_names(code: str, start: int, end: int):
    """Names declared by the declaration code[start:end] (what follows __shared__, no ';')."""
    names = []
    for n, (s, e) in enumerate(split_top(code, start, end)):
        part = code[s:e]
        part = re.split(r"[\[=]", part, maxsplit=1)[0]
        idents = IDENT.findall(part)
        if idents:
            names.append(idents[-1] if n == 0 else idents[0])
    return names


# CUDA features the layer refuses, found by name: the first one used stops compilation with one
# message naming it, at its line, before the compiler reports the unknown names around it.
REFUSED = [
    (r"cudaTextureObject_t|cudaSurfaceObject_t|cudaResourceDesc|cudaTextureDesc|cudaArray_t"
     r"|cudaChannelFormatDesc|cudaCreateChannelDesc|cudaMallocArray|cudaMalloc3DArray"
     r"|cudaCreateSurfaceObject|cudaBindTexture\w*|surf[123]D\w*|tex[123]D\w*"
     r"|texture(?=\s*<[^;<>(){}]*>\s*[A-Za-z_])",  # texture<float, 1> tex;
     "texture and surface memory"),
    (r"cudaGraphics\w*", "graphics interoperability (OpenGL, Direct3D, ...)"),
    (r"cudaGraph\w*|cudaStreamBeginCapture|cudaStreamEndCapture", "CUDA graphs"),
    (r"cudaMemcpy3D\w*|cudaMalloc3D|make_cudaExtent|make_cudaPitchedPtr|make_cudaPos",
     "3D allocations and copies"),
    (r"cudaMemcpyPeer\w*|cudaDeviceEnablePeerAccess|cudaDeviceCanAccessPeer", "several devices"),
    (r"__cluster_dims__|this_cluster|cudaLaunchKernelEx", "thread block clusters"),
]
REFUSED_NAMES = re.compile(r"\b(?:" + "|".join(f"(?P<r{i}>{p})" for i, (p, _) in enumerate(REFUSED)) + r")")


def refusal(code: str, source: str) -> str:
    """'' or the lines that stop compilation at the first refused feature, naming it."""
    m = REFUSED_NAMES.search(code)
    if m is None:
        return ""
    what = next(REFUSED[int(k[1:])][1] for k, v in m.groupdict().items() if v is not None)
    line = code.count("\n", 0, m.start()) + 1
    return (f'#line {line} "{source}"\n'
            f'#error "{m.group()} ({what}) is not supported by the CPU execution layer (cudasim); '
            f'see cudasim/README.md"\n'
            f'#include "(compilation stopped: see the error above)"  // a missing file ends it\n')


def rewrite(text: str, source: str) -> str:
    """`text`, the CUDA source file `source`, as C++ for the layer (the module's docstring)."""
    if stop := refusal(blank(text), source):
        return stop + text
    return Rewrite(text, source).run()


class Rewrite:
    """The rewrite of one source: each token that CUDA adds to C++ asks for edits (start, end,
    replacement) of the text, applied at the end; every other character is kept."""

    TOKEN = re.compile(r"<<<|[{}]|\bextern\s+(?:[\w:<>,*\s]|__align__\s*\([^)]*\))*?\b__shared__\b"
                       r"|\bstatic\s+__shared__\b|\b__shared__\b|\b__device__\b|\b__constant__\b"
                       r"|\bassert\s*\(|\basm\b")

    def __init__(self, text: str, source: str):
        self.text, self.source = text, source
        self.code = blank(text)  # comments and literals blanked: what the tokens are found in
        self.kinds = scope_kinds(self.code)
        self.params = kernel_params(self.code)
        self.edits = []
        self.stack = []  # the kind of each open brace ("code": a function's body)
        self.registered = set()  # the declarations (their ';') followed by a registration already

    def run(self) -> str:
        for m in self.TOKEN.finditer(self.code):
            t, pos = m.group(), m.start()
            line = self.code.count("\n", 0, pos) + 1
            try:
                self.token(t, pos, m.end(), line)
            except (SyntaxError, ValueError) as e:
                sys.exit(f"{self.source}:{line}: error: {e}")
        out = self.text
        for start, end, replacement in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            out = out[:start] + replacement + out[end:]
        return out

    def token(self, t: str, pos: int, end: int, line: int):
        """The edits of the token t, found at code[pos:end]."""
        code = self.code
        if t == "{":
            self.stack.append(self.kinds[pos])
        elif t == "}":
            if self.stack:
                self.stack.pop()
        elif t == "<<<":
            if code[pos - 1] != "<":
                self.edits.append(launch_edit(self.text, code, pos, line, self.params))
        elif t.startswith("extern"):
            self.extern_shared(pos, end)
        elif "__shared__" in t:
            self.shared(pos, pos + t.index("__shared__") + len("__shared__"))
        elif t in ("__device__", "__constant__"):
            if t == "__constant__" or declares_variable(code, end):
                self.register(pos, end, "symbol")
        elif t.startswith("assert"):
            if pos == 0 or code[pos - 1] not in ".>:":
                self.edits.append((pos, pos + len("assert"), "CUDASIM_ASSERT"))
        elif t == "asm":
            self.edits.append((pos, pos, 'static_assert(false, "inline PTX (asm) is not supported '
                                         'by the CPU execution layer (cudasim)"); '))

    def extern_shared(self, pos: int, end: int):
        """`extern __shared__ T name[];` (code[pos:end] up to __shared__): the block's dynamic
        shared memory."""
        code, text = self.code, self.text
        semi = code.index(";", pos)
        decl = re.fullmatch(
            r"\s*((?:__align__\s*\([^)]*\)|alignas\s*\([^)]*\))?)\s*(.*?)\s*\b(\w+)\s*\[\s*\]\s*",
            code[end:semi], re.S)
        if decl is None:
            raise SyntaxError("extern __shared__ must declare an array of unknown size: "
                              "extern __shared__ float s[];")
        # `extern T __shared__ s[]` (the type first) is the same declaration.
        before = re.sub(r"__align__\s*\([^)]*\)|alignas\s*\([^)]*\)", " ",
                        text[pos + len("extern"):end - len("__shared__")])
        type_ = " ".join((before + " " + text[end:semi][decl.start(2):decl.end(2)]).split())
        self.edits.append((pos, semi, f"static thread_local {type_}* const {decl.group(3)} = "
                                      f"::cudasim::detail::dynamic_shared<{type_}>()"
                                      + "\n" * code.count("\n", pos, semi)))

    def shared(self, pos: int, after: int):
        """A static __shared__ variable (code[pos:after] up to __shared__): in a function, a
        per-block variable poisoned at block start; at namespace scope, registered."""
        self.edits.append((pos, after, "__shared__"))  # the macro adds `static`
        if "code" not in self.stack:  # at namespace scope: not poisoned (cudasim/README.md)
            self.register(pos, after, "shared")
            return
        semi = self.code.index(";", pos)
        poison = "".join(
            f" ::cudasim::detail::poison_shared(const_cast<void*>("
            f"static_cast<const volatile void*>(&{n})), sizeof {n}, \"{n}\");"
            for n in shared_names(self.code, after, semi))
        self.edits.append((semi + 1, semi + 1, poison))

    def register(self, pos: int, after: int, what: str):
        """After the declaration at pos: the registration of each variable it declares."""
        code, source = self.code, self.source
        head = statement_head(code, pos)
        if "code" in self.stack or in_directive(code, pos) or re.search(r"\b(extern|template|typedef|using)\b", head):
            return
        semi = statement_end(code, after)
        if semi in self.registered:
            return
        self.registered.add(semi)
        decl = code[after:semi]
        names = (shared_names(code, after, semi) if "<" not in decl.split("=")[0]
                 else IDENT.findall(re.split(r"[\[=({]", decl, maxsplit=1)[0])[-1:])
        out = ""
        for n in names:
            address = f"const_cast<void*>(static_cast<const volatile void*>(&{n}))"
            unique = f"{tag(source)}_{len(self.registered)}_{n}"
            if what == "shared":
                out += (f" static const ::cudasim::detail::SharedRegistration cudasim_shared_{unique}("
                        f"[]() -> void* {{ return {address}; }}, sizeof {n}, \"{n}\");")
            else:
                kind = "constant" if re.search(r"\b__constant__\b", code[pos:semi] + head) else "device"
                out += (f" static const ::cudasim::detail::SymbolRegistration cudasim_symbol_{unique}("
                        f"{address}, sizeof {n}, \"{n}\", ::cudasim::detail::SymbolKind::{kind}, "
                        f"__FILE__, __LINE__);")
        self.edits.append((semi + 1, semi + 1, out))


LOCAL_INCLUDE = re.compile(r'^(\s*#\s*include\s*)"([^"]+)"', re.M)


def with_local_headers(body: str, source: pathlib.Path, folder: pathlib.Path, seen: dict) -> str:
    """`body`, rewritten from `source`, with each quoted include found in source's folder
    pointing at that header's rewrite (rewritten_header). `seen`: header -> what to include."""
    def redirect(m):
        header = source.parent / m.group(2)
        if not header.is_file():
            return m.group(0)  # found on the include path: compiled as it is
        return f'{m.group(1)}"{rewritten_header(header.resolve(), folder, seen)}"'
    return LOCAL_INCLUDE.sub(redirect, body)


def rewritten_header(header: pathlib.Path, folder: pathlib.Path, seen: dict) -> pathlib.Path:
    """The file to include for `header`: itself when nothing in it (or in the headers it
    includes) needs rewriting, else its rewrite, written once to folder/<hash>/<name>."""
    if header in seen:
        return seen[header]
    seen[header] = header  # an include cycle ends here
    text = header.read_text()
    body = with_local_headers(rewrite(text, str(header)), header, folder, seen)
    if body == text:
        return header
    copy = folder / hashlib.sha1(str(header).encode()).hexdigest()[:10] / header.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(f'#line 1 "{header}"\n{body}')
    seen[header] = copy
    return copy


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: cu2cpp.py IN.cu OUT.cpp")
    source = pathlib.Path(sys.argv[1]).resolve()
    text = source.read_text()
    out = pathlib.Path(sys.argv[2]).resolve()
    seen = {}
    body = with_local_headers(rewrite(text, str(source)), source, out.parent / "headers", seen)
    result = (f"// Generated from {source} by cudasim/cu2cpp.py: do not edit.\n"
              f"#include \"cudasim/cudasim.hpp\"\n#line 1 \"{source}\"\n{body}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(result)
    depends = " ".join(str(h).replace(" ", "\\ ") for h in [source, *seen])
    pathlib.Path(f"{out}.d").write_text(f"{out}: {depends}\n")


if __name__ == "__main__":
    main()
