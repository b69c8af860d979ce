// Code addresses to .cu lines: the program's DWARF line table read by binutils' addr2line
// (through `#line`, the kernel translation units name the .cu files). The innermost frame that
// is the student's code is chosen: an access inside an inlined helper of the layer (atomicAdd,
// __ldg) or of the C++ library is reported at the line of the kernel that called it.
//
// addr2line runs once per report, or, after start_symbolizer(), is kept running for the
// program's own addresses: a process that may not start another later (the course's piece
// runner under seccomp) started it before it gave that up.
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cudasim/tools/internal.hpp"

namespace cudasim::tools {
namespace {

struct Frame {
  std::string function, file;
  unsigned line = 0;
};

struct Object {  // the loaded file that holds an address
  std::string path;
  std::uintptr_t bias = 0;
  bool program = false;  // the program itself, not a shared library
};

Object object_of(std::uintptr_t pc) {
  struct Search {
    std::uintptr_t pc;
    Object found;
    bool ok = false;
  } search{pc, {}, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && s->pc >= begin && s->pc < begin + ph.p_memsz) {
            // The program itself has no name here; addr2line runs as another process.
            s->found.path = info->dlpi_name[0] != '\0'
                                ? std::string(info->dlpi_name)
                                : "/proc/" + std::to_string(getpid()) + "/exe";
            s->found.bias = info->dlpi_addr;
            s->found.program = info->dlpi_name[0] == '\0';
            s->ok = true;
            return 1;
          }
        }
        return 0;
      },
      &search);
  return search.ok ? search.found : Object{};
}

}  // namespace

std::string short_path(const std::string& file) {
#ifdef CUDASIM_SOURCE_ROOT
  const std::string root = CUDASIM_SOURCE_ROOT "/";
  if (file.compare(0, root.size(), root) == 0) return file.substr(root.size());
#endif
  return file;
}

namespace {

bool layer_or_library(const std::string& file) {
  return file.find("/cudasim/") != std::string::npos || file.compare(0, 5, "/usr/") == 0;
}

// The frame to name: the innermost one in a .cu/.cuh file, else in code outside the layer and
// the system headers, else the innermost.
Frame choose(const std::vector<Frame>& frames) {
  for (const Frame& f : frames) {
    if (f.file.size() > 3 && (f.file.ends_with(".cu") || f.file.ends_with(".cuh"))) return f;
  }
  for (const Frame& f : frames) {
    if (!layer_or_library(f.file) && f.line != 0) return f;
  }
  return frames.empty() ? Frame{} : frames.front();
}

std::mutex g_mutex;
std::map<std::uintptr_t, Frame>& cache() {
  static auto* c = new std::map<std::uintptr_t, Frame>;
  return *c;
}

// addr2line -f -i -C -a: each address on a line of its own ("0x000000000000123f"), then a
// function line and a file:line line per frame (more than one where calls were inlined). The
// caller ends its list with the address 0, whose line marks the end of the answer: a symbolizer
// kept running never reaches the end of its output.
constexpr const char* kEndAddress = "0x0000000000000000";

std::vector<std::vector<Frame>> read_answer(std::FILE* in) {
  std::vector<std::vector<Frame>> results;
  char buffer[4096];
  std::string function;
  bool want_function = true;
  int end_lines = -1;  // lines of the end address's own answer still to read
  while (end_lines != 0 && std::fgets(buffer, sizeof buffer, in) != nullptr) {
    std::string line(buffer);
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    if (end_lines > 0) {
      --end_lines;
      continue;
    }
    if (line.compare(0, 2, "0x") == 0 && want_function) {
      if (line == kEndAddress) {
        end_lines = 2;  // "??" and "??:0"
      } else {
        results.emplace_back();
      }
      continue;
    }
    if (results.empty()) continue;
    if (want_function) {
      function = line;
      want_function = false;
      continue;
    }
    want_function = true;
    Frame f;
    f.function = function;
    const std::size_t space = line.find(" (");
    if (space != std::string::npos) line.resize(space);
    const std::size_t colon = line.rfind(':');
    f.file = line.substr(0, colon);
    if (colon != std::string::npos)
      f.line = static_cast<unsigned>(std::atoi(line.c_str() + colon + 1));
    if (f.file != "??") results.back().push_back(f);
  }
  return results;
}

const char* const kArguments[] = {"addr2line", "-f", "-i", "-C", "-a", "-e"};

// An addr2line kept running on the program's own file (start_symbolizer): addresses go out and
// answers come back on one socket, which cannot raise SIGPIPE if it has died.
struct Symbolizer {
  int socket = -1;
  std::FILE* answers = nullptr;
};
Symbolizer g_symbolizer;

void stop_symbolizer() {
  if (g_symbolizer.answers != nullptr) std::fclose(g_symbolizer.answers);  // closes the socket
  g_symbolizer = {};
}

// The addresses, in hexadecimal ("0x1f3"), each followed by `separator`; the end address last.
std::string address_list(const std::vector<std::uintptr_t>& offsets, char separator) {
  std::string text;
  for (const std::uintptr_t offset : offsets) {
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(offset));
    text += hex;
    text += separator;
  }
  return text + "0x0" + separator;
}

std::vector<std::vector<Frame>> ask_symbolizer(const std::vector<std::uintptr_t>& offsets) {
  const std::string lines = address_list(offsets, '\n');
  for (std::size_t sent = 0; sent < lines.size();) {
    const ssize_t n =
        send(g_symbolizer.socket, lines.data() + sent, lines.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      stop_symbolizer();
      return {};
    }
    sent += static_cast<std::size_t>(n);
  }
  return read_answer(g_symbolizer.answers);
}

std::vector<std::vector<Frame>> run_addr2line(const std::string& path,
                                              const std::vector<std::uintptr_t>& offsets) {
  std::string command;
  for (const char* word : kArguments) command += std::string(word) + " ";
  command += "'" + path + "' " + address_list(offsets, ' ') + "2>/dev/null";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  auto results = read_answer(pipe);
  pclose(pipe);
  return results;
}

// Fills the cache for these return addresses, one addr2line question per object file.
void resolve(const std::vector<std::uintptr_t>& pcs) {
  std::map<std::string, std::vector<std::pair<std::uintptr_t, Object>>> by_object;
  for (const std::uintptr_t pc : pcs) {
    if (cache().count(pc) != 0) continue;
    cache()[pc] = Frame{};
    const Object o = object_of(pc - 1);
    if (!o.path.empty()) by_object[o.path].push_back({pc, o});
  }
  for (const auto& [path, list] : by_object) {
    for (std::size_t first = 0; first < list.size(); first += 200) {  // bounded command lines
      const std::size_t last = std::min(list.size(), first + 200);
      std::vector<std::uintptr_t> offsets;  // in the file: the call's own byte, pc - 1
      for (std::size_t i = first; i < last; ++i)
        offsets.push_back(list[i].first - 1 - list[i].second.bias);
      const bool kept = list.front().second.program && g_symbolizer.answers != nullptr;
      const auto results = kept ? ask_symbolizer(offsets) : run_addr2line(path, offsets);
      for (std::size_t i = first; i < last && i - first < results.size(); ++i) {
        Frame f = choose(results[i - first]);
        f.file = short_path(f.file);
        cache()[list[i].first] = f;
      }
    }
  }
}

}  // namespace

std::string where(std::uintptr_t pc) {
  std::lock_guard lock(g_mutex);
  resolve({pc});
  const Frame& f = cache()[pc];
  if (f.file.empty() || f.line == 0) {
    char text[40];
    std::snprintf(text, sizeof text, "code address 0x%llx",
                  static_cast<unsigned long long>(pc - 1));
    return text;
  }
  return f.file + ":" + std::to_string(f.line);
}

void prefetch_lines(const std::vector<std::uintptr_t>& pcs) {
  std::lock_guard lock(g_mutex);
  resolve(pcs);
}

std::string symbolize_text(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  for (;;) {
    const std::size_t open = text.find("{pc:0x", at);
    if (open == std::string::npos) break;
    const std::size_t close = text.find('}', open);
    if (close == std::string::npos) break;
    out += text.substr(at, open - at);
    const auto pc =
        static_cast<std::uintptr_t>(std::strtoull(text.c_str() + open + 4, nullptr, 16));
    out += "at " + where(pc);
    at = close + 1;
  }
  return out + text.substr(at);
}

}  // namespace cudasim::tools

namespace cudasim {

void start_symbolizer() {
  std::lock_guard lock(tools::g_mutex);
  if (tools::g_symbolizer.answers != nullptr) return;
  int ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, ends[1], 0);  // dup2 clears close-on-exec
  posix_spawn_file_actions_adddup2(&actions, ends[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // none of the program's own files
  std::string program = "/proc/" + std::to_string(getpid()) + "/exe";
  std::vector<char*> argv;
  for (const char* word : tools::kArguments) argv.push_back(const_cast<char*>(word));
  argv.push_back(program.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int failed = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(ends[1]);
  if (failed != 0) {
    ::close(ends[0]);
    return;
  }
  tools::g_symbolizer.socket = ends[0];
  tools::g_symbolizer.answers = fdopen(ends[0], "r");
}

}  // namespace cudasim
