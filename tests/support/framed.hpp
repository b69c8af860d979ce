// What catches a boundary slip: a matrix stored inside a larger buffer whose rows before and
// after it hold a poison, so that a read one row past either end returns the poison (a NaN:
// every comparison with it fails) instead of whatever memory happens to hold, often 0, and a
// write one row past either end shows. Used by the *Edges* test of every lesson. A buffer that
// is added into (a gradient, a table an SGD step moves) takes Framed::added_into: NaN plus
// anything is that NaN again, so a += past its end would leave a NaN frame's bits as they were.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/tensor.hpp"

namespace andrea::testing {

/// The frame's poison: a quiet NaN with its own payload, so that a write of any value -
/// even another NaN - is seen, by its bits.
inline constexpr std::uint32_t kFramePoisonBits = 0x7fc0dead;
/// The poison of a buffer that is added into: finite (about 6.7e-32) with bits of its own, so
/// that adding any value that is not 0 to it changes them.
inline constexpr std::uint32_t kAddedIntoPoisonBits = 0x0badcafe;
inline float poison_of(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline float frame_poison() { return poison_of(kFramePoisonBits); }

/// A (rows, cols) float32 matrix with `margin` poisoned rows before and after it in one
/// allocation. view() is the matrix; the margins are never part of it.
class Framed {
 public:
  Framed(std::int64_t rows, std::int64_t cols, std::int64_t margin = 2,
         std::uint32_t poison_bits = kFramePoisonBits)
      : rows_(rows),
        cols_(cols),
        margin_(margin),
        poison_bits_(poison_bits),
        data_(static_cast<std::size_t>((rows + 2 * margin) * cols), poison_of(poison_bits)) {}
  /// A buffer the call adds into, its frame of the finite poison (kAddedIntoPoisonBits).
  static Framed added_into(std::int64_t rows, std::int64_t cols) {
    return Framed(rows, cols, 2, kAddedIntoPoisonBits);
  }
  /// A copy of `inside`, framed.
  explicit Framed(ConstFloatView inside, std::int64_t margin = 2)
      : Framed(inside.rows(), inside.cols(), margin) {
    std::memcpy(view().data(), inside.data(),
                sizeof(float) * static_cast<std::size_t>(inside.size()));
  }
  /// `inside` filled with value v (the poison too, for an output every element of which must be
  /// written).
  Framed& fill(float v) {
    for (float& x : view().flat()) x = v;
    return *this;
  }

  FloatView view() { return {data_.data() + margin_ * cols_, rows_, cols_}; }
  ConstFloatView view() const { return {data_.data() + margin_ * cols_, rows_, cols_}; }
  operator FloatView() { return view(); }
  operator ConstFloatView() const { return view(); }
  std::span<float> flat() { return view().flat(); }

  /// Success when every element of the margins still holds its poison's bits; otherwise
  /// the first one written, named by its row relative to the matrix (-1: the row before
  /// row 0; rows: the row after the last).
  ::testing::AssertionResult untouched(const std::string& what) const {
    const std::int64_t total = rows_ + 2 * margin_;
    for (std::int64_t r = 0; r < total; ++r) {
      if (r == margin_) r += rows_;  // skip the matrix itself
      if (r >= total) break;
      for (std::int64_t c = 0; c < cols_; ++c) {
        std::uint32_t bits;
        std::memcpy(&bits, &data_[static_cast<std::size_t>(r * cols_ + c)], sizeof bits);
        if (bits != poison_bits_) {
          float value;
          std::memcpy(&value, &bits, sizeof value);
          return ::testing::AssertionFailure()
                 << what << " (" << rows_ << ", " << cols_ << "): element [" << r - margin_ << ", "
                 << c << "], outside the matrix ("
                 << (r < margin_ ? "before row 0" : "after the last row")
                 << "), was written: it holds " << value << " (a write past the end of the output)";
        }
      }
    }
    return ::testing::AssertionSuccess();
  }

 private:
  std::int64_t rows_, cols_, margin_;
  std::uint32_t poison_bits_;
  std::vector<float> data_;
};

/// A vector of n floats with `margin` poisoned floats before and after it.
class FramedVector {
 public:
  explicit FramedVector(std::int64_t n, std::int64_t margin = 8)
      : n_(n), margin_(margin), data_(static_cast<std::size_t>(n + 2 * margin), frame_poison()) {}
  std::span<float> span() { return {data_.data() + margin_, static_cast<std::size_t>(n_)}; }
  ::testing::AssertionResult untouched(const std::string& what) const {
    for (std::int64_t i = 0; i < n_ + 2 * margin_; ++i) {
      if (i == margin_) i += n_;
      if (i >= n_ + 2 * margin_) break;
      std::uint32_t bits;
      std::memcpy(&bits, &data_[static_cast<std::size_t>(i)], sizeof bits);
      if (bits != kFramePoisonBits) {
        return ::testing::AssertionFailure() << what << " (" << n_ << "): element [" << i - margin_
                                             << "], outside the vector, was written: it holds "
                                             << data_[static_cast<std::size_t>(i)];
      }
    }
    return ::testing::AssertionSuccess();
  }

 private:
  std::int64_t n_, margin_;
  std::vector<float> data_;
};

}  // namespace andrea::testing
