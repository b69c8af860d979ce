// The bytes between a trusted test program and the piece runner (grader/remote/README.md): a
// call goes out as its piece's name and its arguments; the answer comes back as what the
// piece returned or threw, what it wrote into its output arguments, and what its kernels did.
//
// Each argument type has one encoding, written by the side that has the value and read by
// the other: numbers as their bytes, a span or a matrix view as its shape then its elements.
// Input arguments travel one way; output arguments (FloatView, std::span<float>) go out with
// their contents and come back with what the call left in them. A Reader refuses what does
// not parse (a WireError), so that an answer made up by the runner fails the call.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/config.hpp"
#include "core/tensor.hpp"
#include "core/vocab_shard.hpp"
#include "cudasim/tools.hpp"  // LaunchProfile: plain data, no code of the layer
#include "reference/params.hpp"     // ParameterReport

namespace andrea::remote {

/// A message that does not parse: too short, a size that cannot be, the wrong marker.
class WireError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::uint32_t kRequestMark = 0x52444e41;  // "ANDR"
inline constexpr std::uint32_t kAnswerMark = 0x57534e41;   // "ANSW"
/// The largest message either side accepts (ANDREA-120M's token table is 26 MB).
inline constexpr std::uint64_t kMaxMessage = std::uint64_t{1} << 31;

class Writer {
 public:
  /// Room for `count` bytes in all, asked for before a large message is written: a message
  /// grown by doubling past 32 MiB would land in fresh pages (tests/support/heap.hpp).
  void reserve(std::size_t count) { out_.reserve(count); }
  void bytes(const void* data, std::size_t count) {
    const auto* p = static_cast<const char*>(data);
    out_.insert(out_.end(), p, p + count);
  }
  template <class T>
  requires std::is_arithmetic_v<T>
  void number(T value) { bytes(&value, sizeof value); }
  void text(std::string_view s) {
    number<std::uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  const std::string& data() const { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  void bytes(void* data, std::size_t count) {
    if (count > in_.size()) throw WireError("the message ends early");
    if (count > 0) std::memcpy(data, in_.data(), count);
    in_.remove_prefix(count);
  }
  template <class T>
  requires std::is_arithmetic_v<T> T number() {
    T value;
    bytes(&value, sizeof value);
    return value;
  }
  /// A count of elements of `size` bytes each that the rest of the message can hold.
  std::size_t count(std::size_t size) {
    const auto n = number<std::uint64_t>();
    if (n > in_.size() / size)
      throw WireError("a length of " + std::to_string(n) + " is past the message's end");
    return static_cast<std::size_t>(n);
  }
  std::string text() {
    std::string s(count(1), '\0');
    bytes(s.data(), s.size());
    return s;
  }
  bool done() const { return in_.empty(); }
  std::size_t left() const { return in_.size(); }

 private:
  std::string_view in_;
};

// ---- Encodings: put() on the side that has the value, take() on the other. ----

template <class T>
requires std::is_arithmetic_v<T>
void put(Writer& w, T value) { w.number(value); }
template <class T>
requires std::is_arithmetic_v<T>
void take(Reader& r, T& value) { value = r.number<T>(); }

/// A span's elements: its length, then its elements.
template <class T>
void put(Writer& w, std::span<T> s) {
  w.number<std::uint64_t>(s.size());
  w.bytes(s.data(), s.size_bytes());
}
template <class T>
void take_elements(Reader& r, std::vector<T>& storage) {
  storage.resize(r.count(sizeof(T)));
  r.bytes(storage.data(), storage.size() * sizeof(T));
}

/// A matrix view: rows, cols, then its rows * cols elements.
template <class T>
void put(Writer& w, MatrixView<T> m) {
  w.number<std::int64_t>(m.rows());
  w.number<std::int64_t>(m.cols());
  w.bytes(m.data(), static_cast<std::size_t>(m.size()) * sizeof(T));
}
template <class T>
std::pair<std::int64_t, std::int64_t> take_matrix(Reader& r, std::vector<T>& storage) {
  const auto rows = r.number<std::int64_t>(), cols = r.number<std::int64_t>();
  if (rows < 0 || cols < 0 ||
      (cols > 0 &&
       static_cast<std::uint64_t>(rows) > kMaxMessage / static_cast<std::uint64_t>(cols))) {
    throw WireError("a matrix of " + std::to_string(rows) + " x " + std::to_string(cols));
  }
  storage.resize(static_cast<std::size_t>(rows * cols));
  r.bytes(storage.data(), storage.size() * sizeof(T));
  return {rows, cols};
}

inline void put(Writer& w, const Config& c) {
  w.text(c.name);
  w.number(c.vocab_size), w.number(c.d_model), w.number(c.context_length);
  w.number<std::uint8_t>(c.tied_head), w.number(c.model_params);
}
inline void put(Writer& w, const VocabShard& s) {
  w.number(s.vocab_size), w.number(s.padded_vocab), w.number(s.rows), w.number(s.first);
  w.number(s.real_rows);
}
inline void take(Reader& r, VocabShard& s) {
  take(r, s.vocab_size), take(r, s.padded_vocab), take(r, s.rows), take(r, s.first);
  take(r, s.real_rows);
}
inline void put(Writer& w, const ParameterReport& p) {
  w.number(p.token_params), w.number(p.position_params), w.number(p.total), w.number(p.bytes);
}
inline void take(Reader& r, ParameterReport& p) {
  take(r, p.token_params), take(r, p.position_params), take(r, p.total), take(r, p.bytes);
}

// ---- The answer's head: how the call ended, and what its kernels did. ----

/// How a call ended, as the runner saw it.
enum class Outcome : std::uint8_t {
  returned = 0,
  input_error = 1,      ///< andrea::InputError: bad input, refused
  not_implemented = 2,  ///< andrea::NotImplemented: an exercise stub
  cuda_error = 3,       ///< andrea::CudaError: a CUDA call or a launch failed
  other_exception = 4,  ///< any other std::exception
  unknown_exception = 5,
  not_served = 6,  ///< the runner has no such piece (its lesson's runner was asked)
};

/// AnswerHead::launches of a runner with no CPU layer to count them (the C++ pieces, a GPU).
inline constexpr std::uint64_t kNotCounted = ~std::uint64_t{0};

struct AnswerHead {
  Outcome outcome = Outcome::returned;
  std::string type;                   ///< the exception's type, for other_exception
  std::string message;                ///< its what()
  std::uint64_t launches = 0;         ///< kernels the call launched (the CPU layer's count)
  std::vector<std::string> failures;  ///< the text of each launch that failed
  bool profiled = false;              ///< the call ran with the profile tool (CallSettings)
  std::vector<cudasim::LaunchProfile> profiles;  ///< then: its launches' counts, text left out
};

/// A launch's counts (cudasim/include/cudasim/tools.hpp), every number in the order of its declaration.
inline void put(Writer& w, const cudasim::LaunchProfile& p) {
  w.text(p.kernel);
  for (const cudasim::AccessCounts* c :
       {&p.global_load, &p.global_store, &p.global_atomic, &p.shared_load, &p.shared_store,
        &p.shared_atomic, &p.constant_load}) {
    w.number(c->requests), w.number(c->sectors), w.number(c->wavefronts);
    w.number(c->bank_conflicts), w.number(c->max_way), w.number(c->bytes), w.number(c->lane_stride);
    w.number(c->needed);
  }
  w.number(p.dram_bytes_read), w.number(p.dram_bytes_written), w.number(p.ideal_bytes);
  w.number(p.atomics), w.number(p.most_contended), w.number(p.blocks), w.number(p.barriers);
  w.number(p.threads_per_block);
}
inline void take(Reader& r, cudasim::LaunchProfile& p) {
  p.kernel = r.text();
  for (cudasim::AccessCounts* c :
       {&p.global_load, &p.global_store, &p.global_atomic, &p.shared_load, &p.shared_store,
        &p.shared_atomic, &p.constant_load}) {
    take(r, c->requests), take(r, c->sectors), take(r, c->wavefronts);
    take(r, c->bank_conflicts), take(r, c->max_way), take(r, c->bytes), take(r, c->lane_stride);
    take(r, c->needed);
  }
  take(r, p.dram_bytes_read), take(r, p.dram_bytes_written), take(r, p.ideal_bytes);
  take(r, p.atomics), take(r, p.most_contended), take(r, p.blocks), take(r, p.barriers);
  take(r, p.threads_per_block);
}

inline void put(Writer& w, const AnswerHead& h) {
  w.number(kAnswerMark);
  w.number(static_cast<std::uint8_t>(h.outcome));
  w.text(h.type), w.text(h.message);
  w.number(h.launches);
  w.number<std::uint64_t>(h.failures.size());
  for (const std::string& f : h.failures) w.text(f);
  w.number<std::uint8_t>(h.profiled);
  w.number<std::uint64_t>(h.profiles.size());
  for (const cudasim::LaunchProfile& p : h.profiles) put(w, p);
}
inline void take(Reader& r, AnswerHead& h) {
  if (r.number<std::uint32_t>() != kAnswerMark)
    throw WireError("the answer does not start with its marker");
  const auto outcome = r.number<std::uint8_t>();
  if (outcome > static_cast<std::uint8_t>(Outcome::not_served)) {
    throw WireError("an outcome of " + std::to_string(outcome));
  }
  h.outcome = static_cast<Outcome>(outcome);
  h.type = r.text(), h.message = r.text();
  h.launches = r.number<std::uint64_t>();
  h.failures.resize(r.count(8));
  for (std::string& f : h.failures) f = r.text();
  h.profiled = r.number<std::uint8_t>() != 0;
  h.profiles.resize(r.count(8 * 64));  // a profile holds 64 numbers or more
  for (cudasim::LaunchProfile& p : h.profiles) take(r, p);
}

/// What the trusted side asks the runner to set before a call: the CPU layer's thread order and
/// worker threads (ignored by a runner without the layer).
struct CallSettings {
  std::uint8_t order = 0;  ///< cudasim::Order
  std::uint64_t seed = 0;
  std::uint32_t workers = 1;
  std::uint8_t profile = 0;  ///< 1: run the call with the profile tool and send its counts back
  std::uint8_t skip_launches = 0;  ///< 1: run it with no kernel run (cudasim::set_launches_skipped)
};

}  // namespace andrea::remote
