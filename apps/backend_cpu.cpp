#include "apps/backend.hpp"
#include "reference/combine.hpp"
#include "reference/dot.hpp"
#include "reference/norm.hpp"

namespace andrea::cli {

Backend cpu_backend() {
  return {"cpu",
          "plain C++ reference (reference/)",
          &reference::materialize,
          &reference::combine,
          &reference::row_norms,
          &reference::cosine_matrix,
          &reference::dot,
          &training::host_runner,
          [] { return std::string(); }};
}

}  // namespace andrea::cli
