// How each parameter type of a piece crosses between the trusted test program and the runner.
// Arg<P> for a parameter declared as P:
//   the trusted side:  Arg<P>::send(w, value)     before the call
//                      Arg<P>::receive(r, value)  after it: an output argument takes back what
//                                                 the call left in it (inputs read nothing)
//   the runner:        Arg<P>::Held h; h.read(r)  owns a copy of the value, h.get() is a P
//                                                 that points into it (framed: FramedBuffer);
//                                                 after the call h.write_back(w) sends the
//                                                 outputs back, h.damage() says what the call
//                                                 wrote outside them
// The pieces' parameters are numbers, spans and matrix views of float or int32, and the two
// structs Config and VocabShard (core/). A new type gets an Arg of its own here.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "grader/remote/wire.hpp"

namespace andrea::remote {

/// The runner's copy of a span's or a matrix's elements, inside a frame of poison as
/// tests/support/framed.hpp makes one: a read past either end gets the poison (a NaN with bits
/// of its own, or the most negative id) instead of whatever memory holds, and a write past
/// either end is found after the call (damage()).
template <class T>
class FramedBuffer {
 public:
  /// Reads n elements, framed by `margin` poisoned ones on each side.
  void read(Reader& r, std::size_t n, std::size_t margin) {
    if (n > r.left() / sizeof(T)) throw WireError("a buffer longer than the message");
    margin_ = margin, size_ = n;
    all_.assign(n + 2 * margin, poison());
    r.bytes(data(), n * sizeof(T));
  }
  T* data() { return all_.data() + margin_; }
  const T* data() const { return all_.data() + margin_; }
  std::size_t size() const { return size_; }
  /// "" if the frame is as it was, else what was written there.
  std::string damage() const {
    const T p = poison();
    std::size_t before = 0, after = 0;
    for (std::size_t i = 0; i < margin_; ++i) {
      before += std::memcmp(&all_[i], &p, sizeof(T)) != 0;
      after += std::memcmp(&all_[margin_ + size_ + i], &p, sizeof(T)) != 0;
    }
    if (before + after == 0) return "";
    return std::to_string(before) + " elements before its start and " + std::to_string(after) +
           " after its end (" + std::to_string(size_) + " elements)";
  }

 private:
  static T poison() {
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(std::bit_cast<float>(std::uint32_t{0x7fc0dead}));
    } else {
      return std::numeric_limits<T>::min();
    }
  }
  std::vector<T> all_;
  std::size_t margin_ = 0, size_ = 0;
};

inline constexpr std::size_t kSpanMargin = 64;  // elements each side of a span
/// Each side of a matrix: two rows (as Framed), at least kSpanMargin elements.
inline std::size_t matrix_margin(std::int64_t cols) {
  return std::max<std::size_t>(kSpanMargin, 2 * static_cast<std::size_t>(cols));
}

template <class P>
struct Arg;

/// An output of a piece: a span or a matrix view of mutable elements, which the call may
/// change (every other parameter is an input the call cannot change).
template <class P>
inline constexpr bool is_output = false;
template <class T>
requires(!std::is_const_v<T>) inline constexpr bool is_output<std::span<T>> = true;
template <class T>
requires(!std::is_const_v<T>) inline constexpr bool is_output<MatrixView<T>> = true;

/// The bytes of elements a parameter sends (spans and matrices; 0 for the others).
template <class T>
std::size_t element_bytes(std::span<T> s) {
  return s.size_bytes();
}
template <class T>
std::size_t element_bytes(MatrixView<T> m) {
  return static_cast<std::size_t>(m.size()) * sizeof(T);
}
template <class P>
std::size_t element_bytes(const P&) {
  return 0;
}

/// A number, given by value.
template <class T>
requires std::is_arithmetic_v<T>
struct Arg<T> {
  static void send(Writer& w, T value) { put(w, value); }
  static void receive(Reader&, T) {}
  struct Held {
    T value{};
    void read(Reader& r) { take(r, value); }
    T get() { return value; }
    void write_back(Writer&) const {}
    std::string damage() const { return ""; }
  };
};

/// A span's elements, held framed: an input span (TokenIds, std::span<const float>) goes one
/// way; an output span (std::span<float>) goes, and comes back as the call left it.
template <class T>
struct HeldSpan {
  FramedBuffer<std::remove_const_t<T>> buffer;
  void read(Reader& r) { buffer.read(r, r.count(sizeof(T)), kSpanMargin); }
  std::span<T> get() { return {buffer.data(), buffer.size()}; }
  void write_back(Writer& w) const {
    if constexpr (!std::is_const_v<T>) put(w, std::span<const T>(buffer.data(), buffer.size()));
  }
  std::string damage() const { return buffer.damage(); }
};

template <class T>
struct Arg<std::span<const T>> {
  static void send(Writer& w, std::span<const T> s) { put(w, s); }
  static void receive(Reader&, std::span<const T>) {}
  using Held = HeldSpan<const T>;
};

template <class T>
requires(!std::is_const_v<T>) struct Arg<std::span<T>> {
  static void send(Writer& w, std::span<T> s) { put(w, s); }
  static void receive(Reader& r, std::span<T> s) {
    std::vector<T> back;
    take_elements(r, back);
    if (back.size() != s.size()) throw WireError("an output span came back with another length");
    std::copy(back.begin(), back.end(), s.begin());
  }
  using Held = HeldSpan<T>;
};

/// A matrix view's elements, held framed: an input (ConstFloatView, TokenIdBatch) goes one
/// way; an output (FloatView) goes, and comes back as the call left it.
template <class T>
struct HeldMatrix {
  FramedBuffer<std::remove_const_t<T>> buffer;
  std::int64_t rows = 0, cols = 0;
  void read(Reader& r) {
    rows = r.number<std::int64_t>(), cols = r.number<std::int64_t>();
    if (rows < 0 || cols < 0 ||
        (cols > 0 &&
         static_cast<std::uint64_t>(rows) > kMaxMessage / static_cast<std::uint64_t>(cols))) {
      throw WireError("a matrix of " + std::to_string(rows) + " x " + std::to_string(cols));
    }
    buffer.read(r, static_cast<std::size_t>(rows * cols), matrix_margin(cols));
  }
  MatrixView<T> get() { return {buffer.data(), rows, cols}; }
  void write_back(Writer& w) const {
    if constexpr (!std::is_const_v<T>) put(w, MatrixView<const T>(buffer.data(), rows, cols));
  }
  std::string damage() const { return buffer.damage(); }
};

template <class T>
struct Arg<MatrixView<const T>> {
  static void send(Writer& w, MatrixView<const T> m) { put(w, m); }
  static void receive(Reader&, MatrixView<const T>) {}
  using Held = HeldMatrix<const T>;
};

template <class T>
requires(!std::is_const_v<T>) struct Arg<MatrixView<T>> {
  static void send(Writer& w, MatrixView<T> m) { put(w, m); }
  static void receive(Reader& r, MatrixView<T> m) {
    std::vector<T> back;
    if (take_matrix(r, back) != std::pair{m.rows(), m.cols()}) {
      throw WireError("an output matrix came back with another shape");
    }
    std::copy(back.begin(), back.end(), m.data());
  }
  using Held = HeldMatrix<T>;
};

/// A model's configuration (lesson 6's materialize).
template <>
struct Arg<const Config&> {
  static void send(Writer& w, const Config& c) { put(w, c); }
  static void receive(Reader&, const Config&) {}
  struct Held {
    std::string name;
    Config config{};
    void read(Reader& r) {
      name = r.text();
      config.name = name;
      take(r, config.vocab_size), take(r, config.d_model), take(r, config.context_length);
      config.tied_head = r.number<std::uint8_t>() != 0;
      take(r, config.model_params);
    }
    const Config& get() { return config; }
    void write_back(Writer&) const {}
    std::string damage() const { return ""; }
  };
};

/// A rank's rows of the vocabulary (lesson 10).
template <>
struct Arg<const VocabShard&> {
  static void send(Writer& w, const VocabShard& s) { put(w, s); }
  static void receive(Reader&, const VocabShard&) {}
  struct Held {
    VocabShard shard;
    void read(Reader& r) { take(r, shard); }
    const VocabShard& get() { return shard; }
    void write_back(Writer&) const {}
    std::string damage() const { return ""; }
  };
};

}  // namespace andrea::remote
