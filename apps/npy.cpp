#include "apps/npy.hpp"

#include <fmt/format.h>
#include <bit>

#include "apps/finite.hpp"

namespace andrea::cli {

std::string npy_bytes(ConstFloatView m, std::string_view what) {
  check_finite_rows(m, what);
  static_assert(std::endian::native == std::endian::little, "'<f4' needs a little-endian host");
  std::string header = fmt::format(
      "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", m.rows(), m.cols());
  // Magic (6) + version (2) + header length (2) + header + '\n' is a multiple of 64.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');

  const char preamble[] = {'\x93',
                           'N',
                           'U',
                           'M',
                           'P',
                           'Y',
                           1,
                           0,
                           static_cast<char>(header.size() & 0xff),
                           static_cast<char>(header.size() >> 8)};
  std::string bytes(preamble, sizeof preamble);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(m.data()),
               static_cast<std::size_t>(m.size()) * sizeof(float));
  return bytes;
}

}  // namespace andrea::cli
