#include "apps/printable.hpp"

#include <fmt/format.h>

namespace andrea::cli {

namespace {

// The length of the valid UTF-8 character at text[i] (1-4), or 0 when the bytes
// there are not one (a stray continuation byte, an overlong form, a surrogate,
// a code point past U+10FFFF, a cut sequence). *code gets the code point.
std::size_t utf8_char(std::string_view text, std::size_t i, char32_t* code) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  std::size_t n = 0;
  char32_t c = 0, min = 0;
  if (b < 0x80) return *code = b, 1;
  if ((b & 0xe0) == 0xc0)
    n = 2, c = b & 0x1f, min = 0x80;
  else if ((b & 0xf0) == 0xe0)
    n = 3, c = b & 0x0f, min = 0x800;
  else if ((b & 0xf8) == 0xf0)
    n = 4, c = b & 0x07, min = 0x10000;
  else
    return 0;
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    c = c << 6 | (byte(i + k) & 0x3f);
  }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
  *code = c;
  return n;
}

bool is_control(char32_t c) {
  return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0xfffe || c == 0xffff;
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char32_t code = 0;
    const std::size_t n = utf8_char(text, i, &code);
    if (n > 0 && !is_control(code)) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    for (std::size_t k = 0; k < (n > 0 ? n : 1); ++k) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i + k]));
    }
    i += n > 0 ? n : 1;
  }
  return out;
}

}  // namespace andrea::cli
