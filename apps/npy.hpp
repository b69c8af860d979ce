// A float32 matrix as the bytes of a .npy file that numpy.load reads.
#pragma once

#include <string>
#include <string_view>

#include "core/tensor.hpp"

namespace andrea::cli {

/// The bytes of m (rows, cols) float32 as NPY format 1.0 ('<f4', C order, shape
/// (rows, cols)); write them with write_all (apps/output_files.hpp). Throws
/// andrea::InputError naming `what` ("x for --out x.npy"), the row and the column when m
/// holds a non-finite value.
/// Format: numpy/lib/format.py (NEP 1).
std::string npy_bytes(ConstFloatView m, std::string_view what);

}  // namespace andrea::cli
