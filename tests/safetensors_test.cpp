// safetensors read and write (apps/safetensors, apps/weights): files written byte
// by byte by golden/safetensors_files.py (numpy) are read exactly, a round trip is
// bit-exact, and every malformed file is an InputError naming what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <bit>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "apps/output_files.hpp"
#include "apps/safetensors.hpp"
#include "apps/weights.hpp"
#include "core/errors.hpp"

namespace {

using namespace andrea;
using namespace andrea::cli;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const std::string golden = std::string(ANDREA_GOLDEN_DIR) + "/safetensors/";

// A file made of a header text and data bytes, the length prefix computed.
std::string file(const std::string& header, const std::string& data = std::string(16, '\0')) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<char>(header.size() >> (8 * i));
  return out + header + data;
}

// A temporary file holding `bytes`, removed at the end of the test.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& bytes, const std::string& name = "t.safetensors")
      : path((std::filesystem::temp_directory_path() /
              ("andrea_st_" + std::to_string(::getpid()) + "_" + name))
                 .string()) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

#define EXPECT_INPUT_ERROR(statement, text) \
  EXPECT_THAT([&] { (void)(statement); }, ThrowsMessage<InputError>(HasSubstr(text)))

TEST(Safetensors, ReadsTheNumpyWrittenFileExactly) {
  const Safetensors f = read_safetensors(golden + "tiny_f32.safetensors");
  ASSERT_EQ(f.tensors.size(), 2u);
  const Tensor* wte = f.find("wte");
  const Tensor* wpe = f.find("wpe");
  ASSERT_TRUE(wte && wpe);
  EXPECT_EQ(wte->dtype, "F32");
  EXPECT_EQ(wte->shape, (std::vector<std::int64_t>{5, 4}));
  EXPECT_EQ(wpe->shape, (std::vector<std::int64_t>{3, 4}));
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(wte->values[static_cast<std::size_t>(4 * r + c)], (4 * r + c) / 4.0f - 1.5f);
  }
  EXPECT_EQ(wte->values[19], 3.25f);
  EXPECT_EQ(wpe->values[11], -1.375f);
  EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"config", "tiny"}, {"seed", "1337"}}));
}

TEST(Safetensors, ReadsGpt2NamesWithTheTransformerPrefix) {
  const EmbeddingTables t = load_embedding_tables(golden + "gpt2_names.safetensors");
  EXPECT_EQ(t.wte_name, "transformer.wte.weight");
  EXPECT_EQ(t.wpe_name, "transformer.wpe.weight");
  ASSERT_EQ(t.wte.rows(), 6);
  ASSERT_EQ(t.wte.cols(), 3);
  ASSERT_EQ(t.wpe.rows(), 2);
  EXPECT_EQ(t.wte(0, 0), -4.0f);
  EXPECT_EQ(t.wte(5, 2), 4.5f);
  const float wpe[] = {1e-3f, -1e-3f, 3.5f, 1e30f, -1e-30f, 0.0f};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(t.wpe.view().flat()[static_cast<std::size_t>(i)], wpe[i]) << i;
  const Config c = config_of(t);
  EXPECT_EQ(c.vocab_size, 6);
  EXPECT_EQ(c.d_model, 3);
  EXPECT_EQ(c.context_length, 2);
  // The unrelated tensor is validated but not converted.
  const Safetensors f =
      read_safetensors(golden + "gpt2_names.safetensors", {"transformer.wte.weight"});
  EXPECT_EQ(f.names.size(), 3u);
  EXPECT_EQ(f.tensors.size(), 1u);
}

TEST(Safetensors, WidensBf16AndF16Exactly) {
  const Safetensors f = read_safetensors(golden + "half_precision.safetensors");
  const Tensor* wte = f.find("wte.weight");
  const Tensor* wpe = f.find("wpe.weight");
  ASSERT_TRUE(wte && wpe);
  EXPECT_EQ(wte->dtype, "BF16");
  EXPECT_EQ(wpe->dtype, "F16");
  const float expected_wte[] = {1.0f,          -2.5f, 0.15625f,
                                3.3895314e38f, -0.0f, std::ldexp(1.0f, -133)};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(std::bit_cast<std::uint32_t>(wte->values[static_cast<std::size_t>(i)]),
              std::bit_cast<std::uint32_t>(expected_wte[i]))
        << i;
  }
  EXPECT_EQ(wpe->values[0], 0.333251953125f);
  EXPECT_EQ(wpe->values[1], -65504.0f);
  EXPECT_EQ(wpe->values[2], std::ldexp(1.0f, -24));  // smallest F16 subnormal
  EXPECT_EQ(wpe->values[3], std::numeric_limits<float>::infinity());
  // As the embedding tables, the infinity is refused where it is read: file, tensor, row.
  EXPECT_INPUT_ERROR(load_embedding_tables(golden + "half_precision.safetensors"),
                     "half_precision.safetensors: tensor 'wpe.weight' row 1 holds inf (column 1)");
  EXPECT_TRUE(std::isnan(f16_to_float(0x7e00)));
  EXPECT_EQ(f16_to_float(0x3c00), 1.0f);
  EXPECT_EQ(bf16_to_float(0xbf80), -1.0f);
}

TEST(Safetensors, RoundTripIsBitExact) {
  Matrix wte(3, 2), wpe(2, 2);
  const float a[] = {0.1f, -0.0f, 1e-40f, std::numeric_limits<float>::max(), -3.3e38f, 7.0f};
  std::copy(std::begin(a), std::end(a), wte.view().data());
  wpe(1, 1) = std::numeric_limits<float>::denorm_min();
  const Config c{"tiny", 3, 2, 2, false, 0};
  const TempFile out("", "roundtrip.safetensors");
  write_file(out.path, weights_bytes(wte, wpe, c, 42));
  const EmbeddingTables back = load_embedding_tables(out.path);
  const auto same_bits = [](ConstFloatView x, ConstFloatView y) {
    if (x.rows() != y.rows() || x.cols() != y.cols()) return false;
    for (std::int64_t i = 0; i < x.size(); ++i) {
      if (std::bit_cast<std::uint32_t>(x.data()[i]) != std::bit_cast<std::uint32_t>(y.data()[i]))
        return false;
    }
    return true;
  };
  EXPECT_TRUE(same_bits(back.wte, wte));
  EXPECT_TRUE(same_bits(back.wpe, wpe));
  const Safetensors f = read_safetensors(out.path);
  EXPECT_EQ(f.metadata.at("seed"), "42");
  EXPECT_EQ(f.metadata.at("config"), "tiny");
  EXPECT_EQ(f.metadata.at("vocab_size"), "3");
  // The header is padded to a multiple of 8 bytes, data right after it.
  const std::string bytes = safetensors_bytes({{"wte", wte}, {"wpe", wpe}}, {});
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]) % 8, 0);
  EXPECT_EQ(bytes.size(), 8 + static_cast<unsigned char>(bytes[0]) + (3 * 2 + 2 * 2) * 4u);
  EXPECT_INPUT_ERROR(safetensors_bytes({{"wte", wte}, {"wte", wpe}}, {}),
                     "'wte': empty, repeated or reserved");
}

TEST(Safetensors, NeverWritesATableThatIsNotFinite) {
  Matrix wte(3, 2), wpe(2, 2);
  wte(2, 1) = std::numeric_limits<float>::infinity();
  EXPECT_INPUT_ERROR(
      weights_bytes(wte, wpe, Config{"tiny", 3, 2, 2, false, 0}, 1),
      "cannot write tensor 'wte': row 2 holds inf (column 1): every value must be finite");
  wte(2, 1) = 0.0f;
  wpe(0, 0) = std::nanf("");
  EXPECT_INPUT_ERROR(safetensors_bytes({{"wte", wte}, {"wpe", wpe}}, {}),
                     "cannot write tensor 'wpe': row 0 holds nan");
}

TEST(Safetensors, ATensorNotNeededMayHaveAnyDtype) {
  // GPT-2's checkpoints hold other layers; one in F64 or in a dtype newer than this reader
  // must not make the file refused when only wte is wanted. Sizes are still checked.
  const std::string h = R"({"wte": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
                           "h.0.attn": {"dtype": "F64", "shape": [1], "data_offsets": [16, 24]},
                           "h.0.mlp": {"dtype": "F8_E8M0", "shape": [3], "data_offsets": [24, 27]}})";
  const Safetensors f = parse_safetensors(file(h, std::string(27, '\0')), "f", {"wte"});
  EXPECT_EQ(f.names, (std::vector<std::string>{"wte", "h.0.attn", "h.0.mlp"}));
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(f.tensors[0].values.size(), 4u);
  EXPECT_INPUT_ERROR(parse_safetensors(file(h, std::string(27, '\0')), "f", {"h.0.attn"}),
                     "tensor 'h.0.attn': unsupported dtype 'F64'");
  const std::string wrong = R"({"wte": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
                               "h.0.attn": {"dtype": "F64", "shape": [2], "data_offsets": [16, 24]}})";
  EXPECT_INPUT_ERROR(
      parse_safetensors(file(wrong, std::string(24, '\0')), "f", {"wte"}),
      "tensor 'h.0.attn': shape [2] of F64 needs 16 bytes but data_offsets [16, 24] hold 8");
}

// --- Malformed files: each names the tensor and what is wrong. -----------------

const std::string ok_entry = R"("wte": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]})";

TEST(SafetensorsMalformed, TruncatedFile) {
  EXPECT_INPUT_ERROR(parse_safetensors(std::string(5, '\0'), "f"), "f: truncated: 5 bytes");
  const TempFile empty("");
  EXPECT_INPUT_ERROR(read_safetensors(empty.path), "truncated: 0 bytes");
}

TEST(SafetensorsMalformed, HeaderLengthPastTheEnd) {
  std::string bytes = file("{" + ok_entry + "}");
  bytes[0] = static_cast<char>(0xff);
  EXPECT_INPUT_ERROR(parse_safetensors(bytes, "f"),
                     "header length 255 runs past the end of the file");
  bytes = file("{" + ok_entry + "}");
  EXPECT_INPUT_ERROR(parse_safetensors(bytes.substr(0, 40), "f"),
                     "runs past the end of the file (32 bytes");
}

TEST(SafetensorsMalformed, HeaderNotJsonOrNotAnObject) {
  EXPECT_INPUT_ERROR(parse_safetensors(file("{\"wte\": "), "f"), "f: the header is not valid JSON");
  EXPECT_INPUT_ERROR(parse_safetensors(file("[1, 2]"), "f"),
                     "f: the header is a JSON array, not an object");
  EXPECT_INPUT_ERROR(parse_safetensors(file("{\"wte\": 3}", ""), "f"),
                     "tensor 'wte': entry is a JSON number, not an object");
  EXPECT_INPUT_ERROR(parse_safetensors(file(R"({"wte": {"dtype": "F32", "shape": [0]}})", ""), "f"),
                     "tensor 'wte': entry has no \"data_offsets\"");
  EXPECT_INPUT_ERROR(parse_safetensors(file(R"({"__metadata__": {"seed": 7}})", ""), "f"),
                     "__metadata__ entry 'seed' is a JSON number, not a string");
}

TEST(SafetensorsMalformed, ANameOrAFieldGivenTwice) {
  // A JSON object keeps the last of two equal keys: F32 bytes would be read as F16.
  const std::string twice = R"({"wte": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
                               "wte": {"dtype": "F16", "shape": [2, 4], "data_offsets": [0, 16]}})";
  EXPECT_INPUT_ERROR(parse_safetensors(file(twice), "f"),
                     "f: tensor 'wte' is named twice in the header");
  const std::string field =
      R"({"wte": {"dtype": "F32", "dtype": "F16", "shape": [2, 4], "data_offsets": [0, 16]}})";
  EXPECT_INPUT_ERROR(parse_safetensors(file(field), "f"),
                     "f: tensor 'wte': field \"dtype\" is given twice");
  EXPECT_INPUT_ERROR(
      parse_safetensors(file(R"({"__metadata__": {"seed": "1", "seed": "2"}})", ""), "f"),
      "f: __metadata__ key 'seed' is given twice");
}

TEST(SafetensorsMalformed, HeaderParseIsBoundedInMemoryAndTime) {
  // 10 MB of nesting, and an array of 5 million numbers: each stops at once (a parse into
  // a JSON tree would take about 40 bytes for every byte of the header).
  const std::string deep =
      R"({"wte": {"shape": )" + std::string(5'000'000, '[') + std::string(5'000'000, ']') + "}}";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_INPUT_ERROR(parse_safetensors(file(deep), "f"),
                     "tensor 'wte': the entry nests deeper than a safetensors header does");
  std::string wide = R"({"wte": {"shape": [0)";
  for (int i = 0; i < 5'000'000; ++i) wide += ",0";
  EXPECT_INPUT_ERROR(parse_safetensors(file(wide + "]}}"), "f"),
                     "tensor 'wte': an array of more than 64 entries");
  EXPECT_INPUT_ERROR(parse_safetensors(file(R"({"wte": {"shape": [], "x": {"y": 1}}})"), "f"),
                     "tensor 'wte': the entry nests deeper");
  // A generous bound: it takes milliseconds; a tree of the deep header took seconds.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

TEST(SafetensorsMalformed, OffsetsOverlap) {
  const std::string h = R"({"wte": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
                           "wpe": {"dtype": "F32", "shape": [1, 2], "data_offsets": [8, 16]}})";
  EXPECT_INPUT_ERROR(parse_safetensors(file(h), "f"),
                     "tensor 'wpe': data_offsets [8, 16] overlap tensor 'wte' [0, 16]");
}

TEST(SafetensorsMalformed, OffsetsOutOfOrderOrLeavingAHole) {
  EXPECT_INPUT_ERROR(
      parse_safetensors(file(R"({"wte": {"dtype": "F32", "shape": [0], "data_offsets": [16, 0]}})"),
                        "f"),
      "tensor 'wte': data_offsets [16, 0] run backwards");
  const std::string hole = R"({"wte": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                              "wpe": {"dtype": "F32", "shape": [1], "data_offsets": [12, 16]}})";
  EXPECT_INPUT_ERROR(
      parse_safetensors(file(hole), "f"),
      "tensor 'wpe': data_offsets [12, 16] leave bytes [8, 12) of the data to no tensor");
  EXPECT_INPUT_ERROR(parse_safetensors(file("{" + ok_entry + "}", std::string(20, '\0')), "f"),
                     "bytes [16, 20) at the end of the data belong to no tensor");
}

TEST(SafetensorsMalformed, OffsetsPastTheData) {
  EXPECT_INPUT_ERROR(parse_safetensors(file("{" + ok_entry + "}", std::string(12, '\0')), "f"),
                     "tensor 'wte': data_offsets [0, 16] run past the 12 bytes of data");
  EXPECT_INPUT_ERROR(
      parse_safetensors(
          file(R"({"wte": {"dtype": "F32", "shape": [4], "data_offsets": [-4, 16]}})"), "f"),
      "tensor 'wte': data_offsets holds -4 where a non-negative integer belongs");
}

TEST(SafetensorsMalformed, UnsupportedDtype) {
  EXPECT_INPUT_ERROR(
      parse_safetensors(file(R"({"wte": {"dtype": "F64", "shape": [2], "data_offsets": [0, 16]}})"),
                        "f"),
      "tensor 'wte': unsupported dtype 'F64' (this reader takes F32, BF16 and F16)");
}

TEST(SafetensorsMalformed, ShapeTimesElementSizeDiffersFromTheRange) {
  EXPECT_INPUT_ERROR(
      parse_safetensors(
          file(R"({"wte": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 16]}})"), "f"),
      "tensor 'wte': shape [2, 2] of BF16 needs 8 bytes but data_offsets [0, 16] hold 16");
  EXPECT_INPUT_ERROR(
      parse_safetensors(file(R"({"wte": {"dtype": "F32", "shape": [4294967296, 4294967296, 16],
                                 "data_offsets": [0, 16]}})"),
                        "f"),
      "needs more than the file's bytes");
  EXPECT_INPUT_ERROR(
      parse_safetensors(
          file(R"({"wte": {"dtype": "F32", "shape": [2.5], "data_offsets": [0, 16]}})"), "f"),
      "tensor 'wte': shape holds 2.5 where a non-negative integer belongs");
}

TEST(SafetensorsMalformed, MissingTableOrDisagreeingDModel) {
  const TempFile only_wte(file("{" + ok_entry + "}"), "only_wte.safetensors");
  EXPECT_INPUT_ERROR(
      load_embedding_tables(only_wte.path),
      "no wpe table: looked for wpe, wpe.weight, transformer.wpe, transformer.wpe.weight; "
      "the file holds wte");
  const TempFile disagree(
      file(R"({"wte": {"dtype": "F32", "shape": [1, 4], "data_offsets": [0, 16]},
               "wpe": {"dtype": "F32", "shape": [2, 2], "data_offsets": [16, 32]}})",
           std::string(32, '\0')),
      "disagree.safetensors");
  EXPECT_INPUT_ERROR(load_embedding_tables(disagree.path),
                     "tables disagree on d_model: 'wte' has shape [1, 4], 'wpe' has shape [2, 2]");
  const TempFile flat(file(R"({"wte": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
               "wpe": {"dtype": "F32", "shape": [2, 2], "data_offsets": [16, 32]}})",
                           std::string(32, '\0')),
                      "flat.safetensors");
  EXPECT_INPUT_ERROR(load_embedding_tables(flat.path),
                     "tensor 'wte' has shape [4]; the table wte must be 2-D");
  EXPECT_INPUT_ERROR(load_embedding_tables("/nonexistent.safetensors"), "cannot open weights file");
}

}  // namespace
