// Code addresses to .cu lines: the program's DWARF line table read by binutils' addr2line
// (through `#line`, the kernel translation units name the .cu files). The innermost frame that
// is the student's code is chosen: an access inside an inlined helper of the layer (atomicAdd,
// __ldg) or of the C++ library is reported at the line of the kernel that called it.
#include <link.h>
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

// Fills the cache for these return addresses, one addr2line run per object file.
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
      std::string command = "addr2line -f -i -C -a -e '" + path + "'";
      const std::size_t last = std::min(list.size(), first + 200);
      for (std::size_t i = first; i < last; ++i) {
        char text[32];
        std::snprintf(text, sizeof text, " 0x%llx",
                      static_cast<unsigned long long>(list[i].first - 1 - list[i].second.bias));
        command += text;
      }
      command += " 2>/dev/null";
      std::FILE* pipe = popen(command.c_str(), "r");
      if (pipe == nullptr) continue;
      std::vector<std::vector<Frame>> results;
      char buffer[4096];
      std::string function;
      bool want_function = true;
      while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
        std::string line(buffer);
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
        if (line.compare(0, 2, "0x") == 0 && want_function) {
          results.emplace_back();
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
      pclose(pipe);
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
