// A row-major matrix view that carries its shape, and an owning matrix.
// Every public function takes views; raw pointers appear only inside kernels.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

namespace andrea {

/// A non-owning view of a row-major (rows, cols) matrix of T.
/// Offsets are 64-bit: row * cols overflows int32 for large tables.
template <class T>
class MatrixView {
 public:
  constexpr MatrixView() = default;
  constexpr MatrixView(T* data, std::int64_t rows, std::int64_t cols)
      : data_(data), rows_(rows), cols_(cols) {}

  constexpr T* data() const { return data_; }
  constexpr std::int64_t rows() const { return rows_; }
  constexpr std::int64_t cols() const { return cols_; }
  constexpr std::int64_t size() const { return rows_ * cols_; }
  constexpr std::span<T> flat() const { return {data_, static_cast<std::size_t>(size())}; }
  constexpr std::span<T> row(std::int64_t r) const {
    return {data_ + r * cols_, static_cast<std::size_t>(cols_)};
  }
  constexpr T& operator()(std::int64_t r, std::int64_t c) const { return data_[r * cols_ + c]; }
  /// Rows [first, first + count) as a (count, cols) view of the same data, e.g. the
  /// rows of sequence b in a batch: out.rows(b * n, n). The caller keeps the range inside.
  constexpr MatrixView rows(std::int64_t first, std::int64_t count) const {
    return {data_ + first * cols_, count, cols_};
  }

  /// A view of const data can be made from a view of mutable data.
  template <class U>
  requires std::is_same_v<const U, T> &&
      (!std::is_same_v<U, T>)constexpr MatrixView(MatrixView<U> other)
      : MatrixView(other.data(), other.rows(), other.cols()) {}

 private:
  T* data_ = nullptr;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
};

using FloatView = MatrixView<float>;                  ///< writable float32 matrix
using ConstFloatView = MatrixView<const float>;       ///< read-only float32 matrix
using TokenIds = std::span<const std::int32_t>;       ///< token ids, shape (n)
using TokenIdBatch = MatrixView<const std::int32_t>;  ///< token ids, shape (B, n)

/// An owning row-major float32 matrix, zero-initialised.
class Matrix {
 public:
  Matrix() = default;
  Matrix(std::int64_t rows, std::int64_t cols)
      : data_(static_cast<std::size_t>(rows * cols)), rows_(rows), cols_(cols) {}

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  FloatView view() { return {data_.data(), rows_, cols_}; }
  ConstFloatView view() const { return {data_.data(), rows_, cols_}; }
  operator FloatView() { return view(); }
  operator ConstFloatView() const { return view(); }
  std::span<const float> row(std::int64_t r) const { return view().row(r); }
  float operator()(std::int64_t r, std::int64_t c) const { return view()(r, c); }
  float& operator()(std::int64_t r, std::int64_t c) { return view()(r, c); }

 private:
  std::vector<float> data_;
  std::int64_t rows_ = 0;
  std::int64_t cols_ = 0;
};

}  // namespace andrea
