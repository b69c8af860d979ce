#include "apps/npy.hpp"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

#include "core/errors.hpp"

namespace andrea::cli {

void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    throw InputError(fmt::format("cannot write '{}': it exists and is not a regular file", path));
  }
  const fs::path folder = fs::path(path).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, ec)) {
    throw InputError(fmt::format("cannot write '{}': folder '{}' does not exist", path,
                                 folder.string()));
  }
  const fs::path dir = folder.empty() ? fs::path(".") : folder;  // a file is created there, then renamed
  if (::access(dir.c_str(), W_OK) != 0) {
    throw InputError(fmt::format("cannot write '{}': folder '{}' is not writable ({})", path,
                                 dir.string(), std::strerror(errno)));
  }
}

void write_npy(const std::string& path, ConstFloatView m) {
  check_writable(path);
  static_assert(std::endian::native == std::endian::little, "'<f4' needs a little-endian host");
  std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}",
                                   m.rows(), m.cols());
  // Magic (6) + version (2) + header length (2) + header + '\n' is a multiple of 64.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');

  const char preamble[] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           static_cast<char>(header.size() & 0xff),
                           static_cast<char>(header.size() >> 8)};
  std::string bytes(preamble, sizeof preamble);
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(m.data()), static_cast<std::size_t>(m.size()) * sizeof(float));
  write_file(path, bytes);
}

void write_file(const std::string& path, std::string_view bytes) {
  check_writable(path);
  const std::string partial = fmt::format("{}.partial-{}", path, ::getpid());
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("cannot write '{}'", path));
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      std::remove(partial.c_str());
      throw InputError(fmt::format("cannot write '{}'", path));
    }
  }
  std::error_code ec;
  std::filesystem::rename(partial, path, ec);
  if (ec) {
    std::remove(partial.c_str());
    throw InputError(fmt::format("cannot write '{}': {}", path, ec.message()));
  }
}

}  // namespace andrea::cli
