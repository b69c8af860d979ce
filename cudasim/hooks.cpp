// The hook interface's state: the installed tools, the launch they watch (hooks.hpp).
#include "cudasim/hooks.hpp"

#include <cstdio>

namespace cudasim::hooks {

namespace {
Observer* g_installed = nullptr;
}

Observer* g_watching = nullptr;

void install(Observer* observer) { g_installed = observer; }

Observer* installed() { return g_installed; }

std::string pc_token(std::uintptr_t pc) {
  char text[40];
  std::snprintf(text, sizeof text, "{pc:0x%llx}", static_cast<unsigned long long>(pc));
  return text;
}

}  // namespace cudasim::hooks
