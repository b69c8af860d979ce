// Guarded device allocations and the SIGSEGV handler that reports a kernel's bad access.
#include "cudasim/memory.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <map>
#include <mutex>
#include <string_view>

#include "cudasim/block.hpp"
#include "cudasim/hooks.hpp"

namespace cudasim::detail {
namespace {

constexpr std::size_t kAlignment = 256;    // cudaMalloc's, like CUDA
constexpr std::size_t kGuard = 64 * 1024;  // inaccessible bytes on each side
constexpr unsigned char kPoison = 0xff;    // "uninitialised": every float and double is a NaN

std::size_t page_size() {
  static const auto size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}

struct Allocation {
  std::size_t size;     // what cudaMalloc was asked for
  std::size_t rounded;  // size rounded up to kAlignment: the end touches the upper guard
  char* base;           // the mapping: lower guard, data pages, upper guard
  std::size_t length;
  std::shared_ptr<std::vector<std::uint64_t>> written;  // initcheck: one bit per byte
  char* data() const { return base + kGuard; }          // first byte of the data pages
};

// Every live allocation, by start address. Never destroyed, so that a static object may still
// call cudaFree while the program exits.
struct Allocations {
  std::mutex mutex;
  std::map<std::uintptr_t, Allocation> by_start;
};
Allocations& allocations() {
  static auto* all = new Allocations;
  return *all;
}

// 3072 -> "3,072"
std::string with_commas(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
    s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string hex(std::uintptr_t a) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(a));
  return text;
}

std::string bytes(std::uint64_t n) { return with_commas(n) + (n == 1 ? " byte" : " bytes"); }

std::string relative_to(std::uintptr_t address, std::uintptr_t start, const Allocation& a) {
  const std::uintptr_t end = start + a.size;
  std::string where;
  if (address >= end) {
    where = bytes(address - end) + " past the end";
  } else if (address < start) {
    where = bytes(start - address) + " before the start";
  } else {
    where = "at offset " + with_commas(address - start) + " inside";
  }
  return where + " of a " + with_commas(a.size) + "-byte allocation at " + hex(start);
}

}  // namespace

void* allocate(std::size_t size) {
  const std::size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
  const std::size_t data = (rounded + page_size() - 1) / page_size() * page_size();
  if (rounded < size || data < rounded || data > (std::size_t{1} << 46)) return nullptr;
  const std::size_t length = kGuard + data + kGuard;
  void* map = mmap(nullptr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return nullptr;
  Allocation a{size, rounded, static_cast<char*>(map), length, nullptr};
  if (mprotect(a.data(), data, PROT_READ | PROT_WRITE) != 0) {
    munmap(map, length);
    return nullptr;
  }
  std::memset(a.data(), kPoison, data);
  char* start = a.data() + data - rounded;  // the rounded end touches the upper guard
  if (hooks::Observer* tools = hooks::installed();
      tools != nullptr && tools->allocated(start, size)) {
    a.written = std::make_shared<std::vector<std::uint64_t>>((size + 63) / 64, 0);  // initcheck
  }
  std::lock_guard lock(allocations().mutex);
  allocations().by_start[reinterpret_cast<std::uintptr_t>(start)] = a;
  return start;
}

bool release(void* p) {
  Allocation a{};
  {
    std::lock_guard lock(allocations().mutex);
    auto& all = allocations().by_start;
    const auto it = all.find(reinterpret_cast<std::uintptr_t>(p));
    if (it == all.end()) return false;
    a = it->second;
    all.erase(it);
  }
  munmap(a.base, a.length);
  return true;
}

bool inside_allocation(const void* p, std::size_t count) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard lock(allocations().mutex);
  const auto& all = allocations().by_start;
  auto it = all.upper_bound(address);
  if (it == all.begin()) return false;
  --it;
  const std::uintptr_t offset = address - it->first;
  return offset <= it->second.size && count <= it->second.size - offset;
}

std::vector<AllocationView> allocation_views() {
  std::lock_guard lock(allocations().mutex);
  std::vector<AllocationView> views;
  views.reserve(allocations().by_start.size());
  for (const auto& [start, a] : allocations().by_start) {
    const auto base = reinterpret_cast<std::uintptr_t>(a.base);
    std::uint64_t* const written = a.written ? a.written->data() : nullptr;
    views.push_back({start, a.size, base, base + a.length, written});
  }
  return views;
}

namespace {
// Filled by static initialisers before main() (one thread), read by launches afterwards.
std::vector<SymbolView>& symbols() {
  static auto* all = new std::vector<SymbolView>;
  return *all;
}
std::vector<SharedSymbol>& shared_list() {
  static auto* all = new std::vector<SharedSymbol>;
  return *all;
}
}  // namespace

SymbolRegistration::SymbolRegistration(const volatile void* p, std::size_t size, const char* name,
                                       SymbolKind kind, const char* file, int line) {
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  auto& all = symbols();
  const auto at =
      std::lower_bound(all.begin(), all.end(), start,
                       [](const SymbolView& s, std::uintptr_t a) { return s.start < a; });
  if (at != all.end() && at->start == start) return;  // a header's variable, seen twice
  all.insert(at, {start, size, name, kind == SymbolKind::constant, file, line});
}

SharedRegistration::SharedRegistration(void* (*address)(), std::size_t size, const char* name) {
  shared_list().push_back({address, size, name});
}

std::vector<SymbolView> symbol_views() { return symbols(); }
const std::vector<SharedSymbol>& shared_symbols() { return shared_list(); }

void note_written(const void* p, std::size_t count) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard lock(allocations().mutex);
  const auto& all = allocations().by_start;
  auto it = all.upper_bound(address);
  if (it == all.begin()) return;
  --it;
  const Allocation& a = it->second;
  if (a.written == nullptr || address - it->first >= a.size) return;
  const std::size_t from = address - it->first, to = std::min(a.size, from + count);
  for (std::size_t i = from; i < to; ++i) (*a.written)[i / 64] |= std::uint64_t{1} << (i % 64);
}

namespace {
std::map<std::uintptr_t, std::vector<char>>& kept() {  // keep_and_poison's copies, by start
  static auto* copies = new std::map<std::uintptr_t, std::vector<char>>;
  return *copies;
}
}  // namespace

void keep_and_poison() {
  std::lock_guard lock(allocations().mutex);
  for (const auto& [start, a] : allocations().by_start) {
    char* const p = reinterpret_cast<char*>(start);
    kept()[start].assign(p, p + a.size);
    std::memset(p, kPoison, a.size);
  }
}

void restore_kept() {
  std::lock_guard lock(allocations().mutex);
  for (const auto& [start, bytes] : kept()) {
    const auto live = allocations().by_start.find(start);
    if (live != allocations().by_start.end() && live->second.size == bytes.size())
      std::memcpy(reinterpret_cast<char*>(start), bytes.data(), bytes.size());
  }
  kept().clear();
}

std::string passed_as(const LaunchInfo& launch, std::uintptr_t start, std::size_t size) {
  const KernelArgs& args = launch.args;
  for (unsigned i = 0; i < args.count; ++i) {
    const auto p = reinterpret_cast<std::uintptr_t>(args.pointers[i]);
    if (p == 0 || p - start > size) continue;
    std::string name;  // the i-th of "in,out,n"
    if (args.names != nullptr) {
      const std::string_view names = args.names;
      std::size_t from = 0;
      for (unsigned k = 0; k < i && from != std::string_view::npos; ++k) {
        from = names.find(',', from);
        if (from != std::string_view::npos) ++from;
      }
      if (from != std::string_view::npos) name = names.substr(from, names.find(',', from) - from);
    }
    return ", passed as argument " + std::to_string(i + 1) +
           (name.empty() ? "" : " '" + name + "'");
  }
  return {};
}

std::string describe_address(std::uintptr_t address, const LaunchInfo* launch) {
  std::lock_guard lock(allocations().mutex);
  const auto& all = allocations().by_start;
  // The nearest allocation: the one whose mapping holds the address, else the closest one.
  const std::pair<const std::uintptr_t, Allocation>* nearest = nullptr;
  std::uintptr_t best = ~std::uintptr_t{0};
  auto consider = [&](auto it) {
    const std::uintptr_t start = it->first, end = start + it->second.size;
    const std::uintptr_t distance = address < start  ? start - address
                                    : address >= end ? address - end
                                                     : 0;
    if (distance < best) best = distance, nearest = &*it;
  };
  auto it = all.upper_bound(address);
  if (it != all.end()) consider(it);
  if (it != all.begin()) consider(std::prev(it));
  if (address < page_size()) {
    return "a null pointer" + std::string(address == 0 ? "" : " (plus " + bytes(address) + ")");
  }
  if (nearest != nullptr) {
    const auto b = reinterpret_cast<std::uintptr_t>(nearest->second.base);
    if (address >= b && address < b + nearest->second.length) {
      return relative_to(address, nearest->first, nearest->second) +
             (launch != nullptr ? passed_as(*launch, nearest->first, nearest->second.size) : "");
    }
  }
  for (const SymbolView& s : symbols()) {
    if (address - s.start < s.size) {
      return "at offset " + with_commas(address - s.start) + " of " +
             (s.constant ? "__constant__" : "__device__") + " variable '" + s.name + "' (" +
             bytes(s.size) + ")";
    }
  }
  return "not inside or near any cudaMalloc allocation" +
         (nearest == nullptr
              ? std::string()
              : " (the nearest is " + relative_to(address, nearest->first, nearest->second) + ")");
}

std::string check_slack(const LaunchInfo* launch) {
  std::lock_guard lock(allocations().mutex);
  std::string first;
  for (const auto& [start, a] : allocations().by_start) {
    char* const begin = reinterpret_cast<char*>(start);
    // The slack below the start (rest of the first page) and past the end (to 256 bytes).
    const std::pair<char*, char*> ranges[] = {{a.data(), begin},
                                              {begin + a.size, begin + a.rounded}};
    for (const auto& [from, to] : ranges) {
      for (char* p = from; p < to; ++p) {
        if (static_cast<unsigned char>(*p) == kPoison) continue;
        if (first.empty()) {
          first = "invalid write at " + hex(reinterpret_cast<std::uintptr_t>(p)) + ", " +
                  relative_to(reinterpret_cast<std::uintptr_t>(p), start, a) +
                  (launch != nullptr ? passed_as(*launch, start, a.size) : "") +
                  " (found in the alignment slack after the kernel ended, so the block and "
                  "thread are not known; the first out-of-bounds index is usually the culprit)";
        }
        std::memset(from, kPoison, static_cast<std::size_t>(to - from));
        break;
      }
    }
  }
  return first;
}

#if defined(__x86_64__) && defined(__linux__)
namespace {

struct Fault {
  std::uintptr_t address = 0;
  bool write = false;
  int size = 0;           // 0: not known
  std::uintptr_t pc = 0;  // the faulting instruction
};
thread_local Fault t_fault;  // set by the signal handler, read by on_fault on the same thread
struct sigaction g_previous {};

// The prefixes of an x86-64 instruction that change its operand's size, and its opcode.
struct Prefixes {
  bool operand16 = false;              // 0x66: a 16-bit operand (or, for SSE, the pd forms)
  bool rex_w = false;                  // REX.W: a 64-bit operand
  unsigned char rep = 0;               // 0xf3 or 0xf2: for SSE, the ss or sd forms
  const unsigned char* opcode = nullptr;
};

Prefixes read_prefixes(const unsigned char* code) {
  Prefixes p;
  for (;; ++code) {
    const unsigned char c = *code;
    if (c == 0x66) {
      p.operand16 = true;
    } else if (c == 0xf2 || c == 0xf3) {
      p.rep = c;
    } else if (c != 0xf0 && c != 0x2e && c != 0x3e && c != 0x26 && c != 0x36 && c != 0x64 &&
               c != 0x65 && c != 0x67) {
      break;  // not lock, a segment override or an address-size prefix: the REX byte or opcode
    }
  }
  if ((*code & 0xf0) == 0x40) p.rex_w = (*code++ & 0x08) != 0;
  p.opcode = code;
  return p;
}

bool one_of(unsigned char op, std::initializer_list<unsigned char> ops) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

// The size of the memory operand of the instruction at `code`, for the usual loads and stores
// that g++ emits (mov, movzx/movsx, SSE scalar and packed moves and arithmetic); 0 if unknown.
int access_size(const unsigned char* code) {
  const Prefixes p = read_prefixes(code);
  const int word = p.rex_w ? 8 : p.operand16 ? 2 : 4;
  const int sse = p.rep == 0xf3 ? 4 : p.rep == 0xf2 ? 8 : 16;  // ss, sd, ps/pd
  const unsigned char op = p.opcode[0];
  if (one_of(op, {0x88, 0x8a, 0xc6, 0x80})) return 1;
  if (one_of(op, {0x89, 0x8b, 0xc7, 0x81, 0x83, 0x85})) return word;
  if (op <= 0x3b && (op & 7) <= 3) return (op & 1) ? word : 1;  // add/or/and/sub/xor/cmp
  if (op == 0x63) return 4;                                     // movsxd
  if (op != 0x0f) return 0;
  const unsigned char op2 = p.opcode[1];  // the two-byte opcodes, 0x0f op2
  if (one_of(op2, {0xb6, 0xbe, 0xb0, 0xc0})) return 1;  // movzx/movsx of a byte; cmpxchg, xadd
  if (one_of(op2, {0xb7, 0xbf})) return 2;               // movzx/movsx of a word
  if (one_of(op2, {0xb1, 0xc1})) return word;            // cmpxchg, xadd: atomics
  if (one_of(op2, {0x10, 0x11, 0x51, 0x58, 0x59, 0x5c, 0x5d, 0x5e, 0x5f})) return sse;  // mov, math
  if (one_of(op2, {0x28, 0x29, 0x54, 0x57, 0x6f, 0x7f})) return 16;  // aligned moves, and, xor
  if (one_of(op2, {0x2e, 0x2f})) return p.operand16 ? 8 : 4;        // ucomiss/ucomisd
  if (one_of(op2, {0x12, 0x13, 0x16, 0x17, 0xd6})) return 8;         // movlps/movhps, movq
  if (op2 == 0x7e) return p.rep == 0xf3 || p.rex_w ? 8 : 4;          // movq / movd
  if (op2 == 0x6e) return p.rex_w ? 8 : 4;
  if (op2 == 0x5a) return p.rep == 0xf3 ? 4 : p.rep == 0xf2 ? 8 : p.operand16 ? 16 : 8;  // cvt*
  return 0;
}

// Runs on the faulting CUDA thread's own stack, as if the faulting instruction had called it.
// Its frame is never left nor unwound: nothing that owns memory may live in it.
[[noreturn]] __attribute__((noinline)) void on_fault() {
  thread_local std::string what;
  const Fault f = t_fault;
  try {
    what = std::string("invalid ") + (f.write ? "write" : "read") + " of " +
           (f.size > 0 ? bytes(static_cast<std::uint64_t>(f.size)) : "unknown size") + " at " +
           hex(f.address) + ", " + describe_address(f.address, Block::running_launch()) + " " +
           hooks::pc_token(f.pc) + " (memcheck)";
  } catch (...) {
    what = "invalid memory access (memcheck)";
  }
  Block::crash_running_thread(what);
}

void chain(int signal, siginfo_t* info, void* context) {
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(signal, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN) {
    g_previous.sa_handler(signal);
  } else {  // the faulting instruction runs again and the program dies of SIGSEGV, as before
    struct sigaction plain {};
    plain.sa_handler = SIG_DFL;
    sigaction(SIGSEGV, &plain, nullptr);
  }
}

// A CUDA thread ran into the guard page below its stack: the program dies of SIGSEGV, but says
// why first (write(2): the only output a signal handler may use).
void say_stack_overflow() {
  constexpr std::size_t kKiB = kStackSize / 1024;
  static_assert(kKiB >= 100 && kKiB < 1000, "the message below writes three digits");
  char text[] =
      "cudasim: a CUDA thread overflowed its stack of ... KiB (the layer's limit per thread): "
      "a large local array or deep recursion in a kernel\n";
  char* digits = std::strstr(text, "...");
  digits[0] = static_cast<char>('0' + kKiB / 100);
  digits[1] = static_cast<char>('0' + kKiB / 10 % 10);
  digits[2] = static_cast<char>('0' + kKiB % 10);
  const ssize_t ignored = write(STDERR_FILENO, text, sizeof text - 1);
  (void)ignored;
}

void on_segv(int signal, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  greg_t* regs = uc->uc_mcontext.gregs;
  const auto sp = static_cast<std::uintptr_t>(regs[REG_RSP]);
  const auto bottom = reinterpret_cast<std::uintptr_t>(Block::running_stack_bottom());
  // Only a fault of a CUDA thread with room left on its stack (not a stack overflow).
  if (bottom == 0 || sp < bottom + 16 * 1024 || sp > bottom + kStackSize) {
    if (bottom != 0 && sp < bottom + 16 * 1024) say_stack_overflow();
    chain(signal, info, context);
    return;
  }
  const auto rip = static_cast<std::uintptr_t>(regs[REG_RIP]);
  t_fault.address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  t_fault.write = (regs[REG_ERR] & 2) != 0;  // x86 page-fault error code: bit 1 = write
  t_fault.size = access_size(reinterpret_cast<const unsigned char*>(rip));
  t_fault.pc = rip + 1;  // as a return address: the symbolizer looks one byte back
  // Make the thread "call" on_fault from the faulting instruction: skip the red zone, align
  // the stack as at a call, push the return address.
  std::uintptr_t new_sp = ((sp - 128) & ~std::uintptr_t{15}) - 8;
  *reinterpret_cast<std::uintptr_t*>(new_sp) = rip;
  regs[REG_RSP] = static_cast<greg_t>(new_sp);
  regs[REG_RIP] = static_cast<greg_t>(reinterpret_cast<std::uintptr_t>(&on_fault));
}

// One alternate signal stack per OS thread that runs blocks.
struct AltStack {
  void* memory = nullptr;
  static constexpr std::size_t kSize = 64 * 1024;
  AltStack() {
    stack_t current{};
    if (sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) == 0) return;
    memory = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
      memory = nullptr;
      return;
    }
    stack_t s{};
    s.ss_sp = memory;
    s.ss_size = kSize;
    sigaltstack(&s, nullptr);
  }
  ~AltStack() {
    if (memory == nullptr) return;
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    munmap(memory, kSize);
  }
};

}  // namespace

void prepare_fault_handling() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction action {};
    action.sa_sigaction = on_segv;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &g_previous);
  });
  thread_local AltStack alt_stack;
}
#else
void prepare_fault_handling() {}  // no fault reports: a bad access crashes the program
#endif

}  // namespace cudasim::detail
