// Writing a float32 matrix as a .npy file that numpy.load reads.
#pragma once

#include <string>
#include <string_view>

#include "core/tensor.hpp"

namespace andrea::cli {

/// Throws andrea::InputError unless `path` can be written: its folder exists and
/// the path is absent or a regular file (never a directory, device or symlink).
void check_writable(const std::string& path);

/// Writes m (rows, cols) float32 as NPY format 1.0 ('<f4', C order, shape
/// (rows, cols)). The bytes go to a temporary file renamed into place at the
/// end, so a failure leaves no partial file. Throws andrea::InputError when the
/// file cannot be written or check_writable() refuses the path. Format: numpy/lib/format.py (NEP 1).
void write_npy(const std::string& path, ConstFloatView m);

/// Writes `bytes` to `path` through a temporary file renamed into place, so a
/// failure leaves no partial file. Throws andrea::InputError when check_writable()
/// refuses the path or the file cannot be written.
void write_file(const std::string& path, std::string_view bytes);

}  // namespace andrea::cli
