// Reading and writing tables in Hugging Face's safetensors format:
//   8 bytes   N, the header length, a little-endian uint64
//   N bytes   JSON: {"name": {"dtype": "F32", "shape": [V, d], "data_offsets": [begin, end]}, ...,
//                    "__metadata__": {"key": "value", ...}}   (optional, strings only)
//   the rest  the data buffer: each tensor's little-endian bytes at [begin, end) of it,
//             C order, every byte of the buffer owned by exactly one tensor.
// Format: https://github.com/huggingface/safetensors (README, "Format").
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"

namespace andrea::cli {

/// One tensor of a safetensors file, read as float32.
///   dtype: as stored, "F32", "BF16" or "F16"; values: product(shape) floats, C order
///   (BF16 and F16 widened exactly to float32).
struct Tensor {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

/// The tensors read from a file, in the order of their data, and its __metadata__.
struct Safetensors {
  std::vector<Tensor> tensors;
  std::map<std::string, std::string> metadata;
  std::vector<std::string> names;  ///< every tensor in the file, read or not

  /// The tensor called `name`, or nullptr when it was not read.
  const Tensor* find(std::string_view name) const;
};

/// Parses a whole safetensors file held in memory. `wanted`: the tensors to
/// convert to float32 (empty: all); every entry of the header is validated either way.
/// `source` names the file in messages.
/// Throws andrea::InputError naming the tensor and what is wrong when the bytes
/// are truncated, the header length runs past the end, the header is not a JSON
/// object, an entry lacks dtype/shape/data_offsets or has them of the wrong type,
/// a tensor is named twice or an entry gives a field twice, the header nests deeper
/// than the format's {name: {field: [number, ...]}} or an array has more than 64
/// entries, a wanted tensor's dtype is not F32/BF16/F16 (a tensor not wanted may have
/// any dtype), shape × element size differs from the byte range (for the dtypes the
/// format defines), the byte ranges overlap, leave a hole, run backwards or past the
/// data, or __metadata__ is not an object of strings. Nothing is returned half-read;
/// memory and time stay proportional to the header and the wanted tensors.
Safetensors parse_safetensors(std::string_view bytes, std::string_view source,
                              const std::vector<std::string>& wanted = {});

/// Reads the file at `path` (parse_safetensors on its bytes). Throws
/// andrea::InputError when it cannot be read, and for every case above.
Safetensors read_safetensors(const std::string& path, const std::vector<std::string>& wanted = {});

/// A float32 table to write under `name`, shape (rows, cols).
struct NamedTable {
  std::string name;
  ConstFloatView table;
};

/// The bytes of a safetensors file holding `tables` as F32 (shape [rows, cols],
/// in the order given) and `metadata` as __metadata__. The header is padded with
/// spaces to a multiple of 8 bytes, as the safetensors library does.
/// Write them with write_all (apps/output_files.hpp). Throws andrea::InputError when a
/// name is empty, repeated or "__metadata__", or a table holds a non-finite value (the
/// message names the tensor and the row).
std::string safetensors_bytes(const std::vector<NamedTable>& tables,
                              const std::map<std::string, std::string>& metadata);

/// float32 from the upper 16 bits (bfloat16) and from IEEE 754 binary16 (F16):
/// exact conversions, subnormals, infinities and NaNs included.
float bf16_to_float(std::uint16_t bits);
float f16_to_float(std::uint16_t bits);

}  // namespace andrea::cli
