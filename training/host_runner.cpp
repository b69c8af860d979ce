// The default runner of training::train: the tables in host memory, each step lesson 9's
// C++ step (reference::sgns_step). In its own file so that the training loop links
// without the C++ step (a CUDA test trains with its own runner).
#include <algorithm>

#include "core/check.hpp"
#include "reference/training.hpp"
#include "training/trainer.hpp"

namespace andrea::training {

namespace {

class HostRunner final : public StepRunner {
 public:
  HostRunner(ConstFloatView wte, ConstFloatView wout, std::int64_t max_pairs, std::int64_t k1)
      : wte_(copy_of(wte)), wout_(copy_of(wout)), scratch_(wte.rows(), wte.cols(), max_pairs, k1) {}
  double sgns_step(TokenIds centres, TokenIdBatch targets, float lr) override {
    return reference::sgns_step(wte_, wout_, centres, targets, lr, scratch_);
  }
  void copy_to(FloatView wte, FloatView wout) override {
    check::shape("wte", wte, wte_.rows(), wte_.cols());
    check::shape("wout", wout, wout_.rows(), wout_.cols());
    std::copy_n(wte_.view().data(), wte.size(), wte.data());
    std::copy_n(wout_.view().data(), wout.size(), wout.data());
  }

 private:
  static Matrix copy_of(ConstFloatView m) {
    Matrix out(m.rows(), m.cols());
    std::copy_n(m.data(), m.size(), out.view().data());
    return out;
  }
  Matrix wte_, wout_;
  reference::TrainingScratch scratch_;
};

}  // namespace

std::unique_ptr<StepRunner> host_runner(ConstFloatView wte, ConstFloatView wout,
                                        std::int64_t max_pairs, std::int64_t targets_per_pair) {
  return std::make_unique<HostRunner>(wte, wout, max_pairs, targets_per_pair);
}

}  // namespace andrea::training
