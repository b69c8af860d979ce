// Fuzz target over the readers of untrusted files: the safetensors reader
// (apps/safetensors, apps/weights), the ids-file reader and its window reader
// (apps/ids_input), and the vocabulary reader (training/vocabulary).
// Whatever the bytes, each call returns or throws andrea::InputError: any other
// exception, a crash, an out-of-bounds access (ASan) or undefined behaviour
// (UBSan) is a bug. Two readers are also checked against a plain model: the window
// reader, fed in chunks of 1 to 7 bytes, gives what slicing parse_ids of the whole
// text gives; a vocabulary read, written and read again is the same. In CI
// tests/fuzz/mutate_main.cpp drives it with a bounded mutation loop (ctest fuzz/readers). The entry
// point is libFuzzer's, so with Debian's clang and libclang-rt-14-dev the same file builds as a
// libFuzzer target:
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. tests/fuzz/readers_fuzz.cpp
//     apps/safetensors.cpp apps/weights.cpp apps/ids_input.cpp training/vocabulary.cpp
//     core/config.cpp core/check.cpp core/init.cpp -lfmt -o fuzz_lf
//   (one command line); mkdir corpus && cp golden/safetensors/*.safetensors corpus/ && ./fuzz_lf
//   -max_total_time=30 corpus
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "apps/ids_input.hpp"
#include "apps/safetensors.hpp"
#include "apps/weights.hpp"
#include "core/errors.hpp"
#include "training/vocabulary.hpp"

namespace {

using namespace andrea;
using namespace andrea::cli;

// Runs one reader; InputError is the only way out besides returning.
template <class F>
void expect_only_input_error(F&& read) {
  try {
    read();
  } catch (const InputError&) {}
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

// A reader that disagrees with its model: mutate_main.cpp saves the input.
[[noreturn]] void bug(const char* what) { throw std::logic_error(what); }

// The window [offset, offset + length) of parse_ids(bytes) as read_text_window defines
// it, or nothing where it throws.
std::optional<std::vector<std::int32_t>> model_window(std::string_view bytes, std::int64_t offset,
                                                      std::int64_t length,
                                                      std::int64_t max_length) {
  std::vector<std::int32_t> all;
  try {
    all = parse_ids(bytes, "fuzz");
  } catch (const InputError&) {
    return std::nullopt;
  }
  const auto count = static_cast<std::int64_t>(all.size());
  if (count == 0 || offset >= count || (length >= 0 && length > count - offset))
    return std::nullopt;
  if (length < 0 && count - offset > max_length) return std::nullopt;
  const std::int64_t n = length >= 0 ? length : count - offset;
  return std::vector<std::int32_t>(all.begin() + offset, all.begin() + offset + n);
}

// read_text_window in chunks of `chunk` bytes, or nothing where it throws.
std::optional<std::vector<std::int32_t>> windowed(std::string_view bytes, std::int64_t offset,
                                                  std::int64_t length, std::int64_t max_length,
                                                  std::size_t chunk) {
  std::istringstream in{std::string(bytes)};
  try {
    return read_text_window(in, "fuzz", offset, length, max_length, chunk);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

void check_window_reader(std::string_view bytes, std::int64_t offset, std::int64_t length,
                         std::int64_t max_length) {
  const auto expected = model_window(bytes, offset, length, max_length);
  for (std::size_t chunk = 1; chunk <= 7; ++chunk) {
    const auto got = windowed(bytes, offset, length, max_length, chunk);
    // The reader stops at the window's end: a bad entry after it is not its concern.
    if (expected && got != expected)
      bug("read_text_window differs from parse_ids of the whole text");
    if (!expected && got && got != windowed(bytes, offset, length, max_length, 1 << 16)) {
      bug("read_text_window gives different ids for different chunk sizes");
    }
  }
}

void check_vocabulary(std::string_view bytes) {
  training::Vocabulary v;
  try {
    v = training::parse_vocabulary(bytes, "fuzz");
  } catch (const InputError&) {
    return;
  }
  if (v.size() < 2 || v.words.size() != v.counts.size() || v.ids.size() != v.words.size()) {
    bug("parse_vocabulary returned an inconsistent vocabulary");
  }
  const training::Vocabulary again =
      training::parse_vocabulary(training::vocabulary_text(v), "fuzz");
  if (again.words != v.words || again.counts != v.counts)
    bug("a vocabulary written and read back differs");
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
  const std::int64_t length =
      size > 1 ? static_cast<std::int64_t>(data[1] % 16) - 1 : -1;  // -1: to the end
  const std::int64_t max_length = size > 2 ? 1 + data[2] % 8 : 4;
  expect_only_input_error(
      [&] { (void)read_ids_file(path, IdsFormat::text, offset, length, max_length); });
  expect_only_input_error(
      [&] { (void)read_ids_file(path, IdsFormat::uint16, offset, length, max_length); });
  expect_only_input_error([&] { (void)training::read_vocabulary(path); });
  check_window_reader(bytes, offset, length, max_length);
  check_vocabulary(bytes);
  expect_only_input_error([&] { (void)load_embedding_tables(path); });
  std::filesystem::remove(path);
  return 0;
}
