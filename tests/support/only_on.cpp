#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/only_on.hpp"

namespace andrea::testing {

namespace {

// (pattern, backends) pairs, registered at static initialisation by ANDREA_ONLY_ON.
std::vector<std::pair<std::string, std::string>>& registered() {
  static std::vector<std::pair<std::string, std::string>> patterns;
  return patterns;
}

const char* name_of(Backend backend) {
  switch (backend) {
    case Backend::cpu: return "cpu";
    case Backend::cudasim: return "cudasim";
    case Backend::gpu: return "gpu";
  }
  return "?";
}

}  // namespace

bool only_on(const char* pattern, const char* backends) {
  // A typo would leave the tests out of every backend, silently: refused at start-up.
  std::istringstream names(backends);
  int count = 0;
  for (std::string name; names >> name; ++count) {
    if (name != "cpu" && name != "cudasim" && name != "gpu") {
      std::fprintf(stderr, "ANDREA_ONLY_ON(\"%s\", \"%s\"): \"%s\" is no backend; expected cpu, "
                   "cudasim or gpu, separated by spaces\n", pattern, backends, name.c_str());
      std::abort();
    }
  }
  if (count == 0 || std::string(pattern).find('-') != std::string::npos) {
    std::fprintf(stderr, "ANDREA_ONLY_ON(\"%s\", \"%s\"): expected a pattern of gtest names "
                 "without '-' and at least one backend\n", pattern, backends);
    std::abort();
  }
  registered().emplace_back(pattern, backends);
  return true;
}

std::string left_out_on(Backend backend) {
  std::string left_out;
  for (const auto& [pattern, backends] : registered()) {
    std::istringstream names(backends);
    bool runs_here = false;
    for (std::string name; names >> name;) runs_here = runs_here || name == name_of(backend);
    if (!runs_here) left_out += (left_out.empty() ? "" : ":") + pattern;
  }
  return left_out;
}

}  // namespace andrea::testing
