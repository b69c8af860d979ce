// Lesson 9's whole step on tables that live in the runner for a whole run, as
// cuda::DeviceTables keeps them in device memory: the trusted side holds a handle. The runner
// serves "tables.new", "tables.sgns_step", "tables.copy_to" and "tables.delete" with the
// student's step (runner.cpp): reference::sgns_step on host tables, or cuda::DeviceTables.
#pragma once

#include <cstdint>

#include "core/tensor.hpp"
#include "grader/remote/client.hpp"

namespace andrea::remote {

template <Kernels kernels>
class RemoteTables {
 public:
  /// DeviceTables' contract (cuda/device_tables.hpp): wte, wout (V, d_model).
  RemoteTables(ConstFloatView wte, ConstFloatView wout, std::int64_t max_pairs,
               std::int64_t targets_per_pair)
      : handle_(call<std::uint64_t, ConstFloatView, ConstFloatView, std::int64_t, std::int64_t>(
            "tables.new", Kernels::not_required, wte, wout, max_pairs, targets_per_pair)) {}
  ~RemoteTables() {
    try {
      call<void, std::uint64_t>("tables.delete", Kernels::not_required, handle_);
    } catch (const std::exception&) {  // a runner that died took its tables with it
    }
  }
  RemoteTables(const RemoteTables&) = delete;
  RemoteTables& operator=(const RemoteTables&) = delete;

  double sgns_step(TokenIds centres, TokenIdBatch targets, float lr) {
    return call<double, std::uint64_t, TokenIds, TokenIdBatch, float>(
        "tables.sgns_step", kernels, handle_, centres, targets, lr);
  }
  void copy_to(FloatView wte, FloatView wout) const {
    call<void, std::uint64_t, FloatView, FloatView>("tables.copy_to", Kernels::not_required,
                                                    handle_, wte, wout);
  }

 private:
  std::uint64_t handle_;
};

}  // namespace andrea::remote
