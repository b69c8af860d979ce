// How each parameter type of a piece crosses between the trusted test program and the runner.
// Arg<P> for a parameter declared as P:
//   the trusted side:  Arg<P>::send(w, value)     before the call
//                      Arg<P>::receive(r, value)  after it: an output argument takes back what
//                                                 the call left in it (inputs read nothing)
//   the runner:        Arg<P>::Held h; h.read(r)  owns a copy of the value, h.get() is a P
//                                                 that points into it; after the call
//                                                 h.write_back(w) sends the outputs back
// The pieces' parameters are numbers, spans and matrix views of float or int32, and the two
// structs Config and VocabShard (core/). A new type gets an Arg of its own here.
#pragma once

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/remote/wire.hpp"

namespace andrea::remote {

template <class P>
struct Arg;

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
  };
};

/// An input span (TokenIds, std::span<const float>): its elements go, nothing comes back.
template <class T>
struct Arg<std::span<const T>> {
  static void send(Writer& w, std::span<const T> s) { put(w, s); }
  static void receive(Reader&, std::span<const T>) {}
  struct Held {
    std::vector<T> storage;
    void read(Reader& r) { take_elements(r, storage); }
    std::span<const T> get() { return storage; }
    void write_back(Writer&) const {}
  };
};

/// An output span (std::span<float>): its contents go, and come back as the call left them.
template <class T>
  requires(!std::is_const_v<T>)
struct Arg<std::span<T>> {
  static void send(Writer& w, std::span<T> s) { put(w, s); }
  static void receive(Reader& r, std::span<T> s) {
    std::vector<T> back;
    take_elements(r, back);
    if (back.size() != s.size()) throw WireError("an output span came back with another length");
    std::copy(back.begin(), back.end(), s.begin());
  }
  struct Held {
    std::vector<T> storage;
    void read(Reader& r) { take_elements(r, storage); }
    std::span<T> get() { return storage; }
    void write_back(Writer& w) const { put(w, std::span<const T>(storage)); }
  };
};

/// An input matrix view (ConstFloatView, TokenIdBatch).
template <class T>
struct Arg<MatrixView<const T>> {
  static void send(Writer& w, MatrixView<const T> m) { put(w, m); }
  static void receive(Reader&, MatrixView<const T>) {}
  struct Held {
    std::vector<T> storage;
    std::int64_t rows = 0, cols = 0;
    void read(Reader& r) { std::tie(rows, cols) = take_matrix(r, storage); }
    MatrixView<const T> get() { return {storage.data(), rows, cols}; }
    void write_back(Writer&) const {}
  };
};

/// An output matrix view (FloatView): its contents go, and come back as the call left them.
template <class T>
  requires(!std::is_const_v<T>)
struct Arg<MatrixView<T>> {
  static void send(Writer& w, MatrixView<T> m) { put(w, m); }
  static void receive(Reader& r, MatrixView<T> m) {
    std::vector<T> back;
    if (take_matrix(r, back) != std::pair{m.rows(), m.cols()}) {
      throw WireError("an output matrix came back with another shape");
    }
    std::copy(back.begin(), back.end(), m.data());
  }
  struct Held {
    std::vector<T> storage;
    std::int64_t rows = 0, cols = 0;
    void read(Reader& r) { std::tie(rows, cols) = take_matrix(r, storage); }
    MatrixView<T> get() { return {storage.data(), rows, cols}; }
    void write_back(Writer& w) const { put(w, MatrixView<const T>(storage.data(), rows, cols)); }
  };
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
  };
};

}  // namespace andrea::remote
