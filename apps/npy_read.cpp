#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <regex>

#include "apps/npy.hpp"
#include "reference/errors.hpp"

namespace andrea::cli {

Matrix read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read the weights file '{}'", path));
  char preamble[8] = {};
  in.read(preamble, sizeof preamble);
  if (!in || std::memcmp(preamble, "\x93NUMPY", 6) != 0 || (preamble[6] != 1 && preamble[6] != 2)) {
    throw InputError(fmt::format("'{}' is not a .npy file (format 1.0 or 2.0)", path));
  }
  unsigned char size_bytes[4] = {};
  in.read(reinterpret_cast<char*>(size_bytes), preamble[6] == 1 ? 2 : 4);
  const std::size_t header_size = size_bytes[0] | size_bytes[1] << 8 | size_bytes[2] << 16 |
                                  static_cast<std::size_t>(size_bytes[3]) << 24;
  std::string header(header_size, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_size));
  std::smatch m;
  static const std::regex descr(R"('descr':\s*'<f4')"), order(R"('fortran_order':\s*False)"),
      shape(R"('shape':\s*\((\d+),\s*(\d+)\))");
  if (!in || !std::regex_search(header, descr) || !std::regex_search(header, order) ||
      !std::regex_search(header, m, shape)) {
    throw InputError(fmt::format("'{}' is not a 2-D little-endian float32 C-order .npy file: {}", path,
                                 header.substr(0, header.find('}') + 1)));
  }
  Matrix out(std::stoll(m[1]), std::stoll(m[2]));
  in.read(reinterpret_cast<char*>(out.view().data()), static_cast<std::streamsize>(out.view().size() * sizeof(float)));
  if (!in || in.peek() != std::char_traits<char>::eof()) {
    throw InputError(fmt::format("'{}' does not hold exactly {} x {} float32 values", path, out.rows(), out.cols()));
  }
  return out;
}

}  // namespace andrea::cli
