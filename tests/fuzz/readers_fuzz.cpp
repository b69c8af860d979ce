// Fuzz target over the two readers of untrusted files: the safetensors reader
// (apps/safetensors, apps/weights) and the ids-file reader (apps/ids_input).
// Whatever the bytes, each call returns or throws andrea::InputError: any other
// exception, a crash, an out-of-bounds access (ASan) or undefined behaviour
// (UBSan) is a bug. In CI tests/fuzz/mutate_main.cpp drives it with a bounded
// mutation loop (ctest fuzz/readers). The entry point is libFuzzer's, so with
// Debian's clang and libclang-rt-14-dev the same file builds as a libFuzzer target:
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. tests/fuzz/readers_fuzz.cpp
//     apps/safetensors.cpp apps/weights.cpp apps/ids_input.cpp apps/npy.cpp
//     core/config.cpp core/check.cpp core/init.cpp -lfmt -o fuzz_lf
//   (one command line); mkdir corpus && cp golden/safetensors/*.safetensors corpus/ && ./fuzz_lf -max_total_time=30 corpus
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

#include "apps/ids_input.hpp"
#include "apps/safetensors.hpp"
#include "apps/weights.hpp"
#include "core/errors.hpp"

namespace {

using namespace andrea;
using namespace andrea::cli;

// Runs one reader; InputError is the only way out besides returning.
template <class F>
void expect_only_input_error(F&& read) {
  try {
    read();
  } catch (const InputError&) {
  }
}

// A decoded file must agree with its own header: values = product(shape).
void check_consistent(const Safetensors& f) {
  for (const Tensor& t : f.tensors) {
    std::uint64_t count = 1;
    for (const std::int64_t n : t.shape) count *= static_cast<std::uint64_t>(n);
    if (count != t.values.size()) {
      std::fprintf(stderr, "tensor '%s': %zu values for a shape of %llu elements\n", t.name.c_str(),
                   t.values.size(), static_cast<unsigned long long>(count));
      std::abort();
    }
  }
}

// A scratch file in memory (/dev/shm) when there is one: rewriting a file on disk
// thousands of times a second would wait on the disk.
const std::string& scratch_path() {
  namespace fs = std::filesystem;
  static const std::string path =
      ((fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path()) /
       ("andrea_fuzz_" + std::to_string(::getpid())))
          .string();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  expect_only_input_error([&] { check_consistent(parse_safetensors(bytes, "fuzz")); });
  expect_only_input_error([&] { (void)parse_ids(bytes, "fuzz"); });

  // The file readers: the same bytes on disk, a window chosen by the first bytes.
  const std::string& path = scratch_path();
  std::filesystem::remove(path);
  std::ofstream(path, std::ios::binary) << bytes;
  const std::int64_t offset = size > 0 ? data[0] % 8 : 0;
  const std::int64_t length = size > 1 ? static_cast<std::int64_t>(data[1] % 16) - 1 : -1;  // -1: to the end
  expect_only_input_error([&] { (void)read_ids_file(path, IdsFormat::text, offset, length); });
  expect_only_input_error([&] { (void)read_ids_file(path, IdsFormat::uint16, offset, length); });
  expect_only_input_error([&] { (void)load_embedding_tables(path); });
  std::filesystem::remove(path);
  return 0;
}
