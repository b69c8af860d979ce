#include "reference/params.hpp"

#include "core/check.hpp"
#include "core/init.hpp"

namespace andrea::reference {

ParameterReport materialize(const Config& config, std::uint64_t seed, FloatView wte,
                            FloatView wpe) {
  // BEGIN SOLUTION
  check::materialize_args(config, wte, wpe);

  ParameterReport report;
  for (std::int64_t i = 0; i < wte.size(); ++i, ++report.token_params) {
    wte.data()[i] = init_value(seed, Table::token, i, config.d_model);
  }
  for (std::int64_t i = 0; i < wpe.size(); ++i, ++report.position_params) {
    wpe.data()[i] = init_value(seed, Table::position, i, config.d_model);
  }
  report.total = report.token_params + report.position_params;
  report.bytes = report.total * static_cast<std::int64_t>(sizeof(float));
  return report;
  // END SOLUTION
}

}  // namespace andrea::reference
