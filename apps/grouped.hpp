// Numbers as the lessons print them: 7275264 -> "7,275,264".
#pragma once

#include <cstdint>
#include <string>

namespace andrea::cli {

inline std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return n < 0 ? "-" + out : out;
}

}  // namespace andrea::cli
