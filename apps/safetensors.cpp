#include "apps/safetensors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "apps/finite.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"

namespace andrea::cli {

namespace {

using nlohmann::json;

// The safetensors library refuses headers over 100 MB; so do we.
constexpr std::uint64_t max_header_bytes = 100'000'000;

// One header entry, checked on its own.
struct Entry {
  std::string name, dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;
};

// Bytes per element of the dtypes the format defines (0: unknown); this reader converts
// only F32, BF16 and F16, and checks the others' sizes without reading them.
std::uint64_t element_size(const std::string& dtype) {
  static const std::map<std::string, std::uint64_t, std::less<>> sizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1},
      {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
      {"U32", 4},  {"F32", 4}, {"I64", 8}, {"U64", 8},     {"F64", 8}};
  const auto it = sizes.find(dtype);
  return it == sizes.end() ? 0 : it->second;
}

bool convertible(const std::string& dtype) {
  return dtype == "F32" || dtype == "BF16" || dtype == "F16";
}

std::uint64_t read_le(std::string_view bytes, std::size_t at, int count) {
  std::uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i) {
    value = value << 8 | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  }
  return value;
}

// A non-negative integer of the header, or an error naming where it is.
std::uint64_t unsigned_field(const json& value, std::string_view source, const std::string& name,
                             std::string_view field) {
  if (!value.is_number_unsigned()) {
    const std::string shown = value.dump();
    throw InputError(
        fmt::format("{}: tensor '{}': {} holds {}{} where a non-negative integer belongs", source,
                    name, field, shown.substr(0, 40), shown.size() > 40 ? "..." : ""));
  }
  return value.get<std::uint64_t>();
}

Entry parse_entry(const std::string& name, const json& info, std::uint64_t data_bytes,
                  std::string_view source, bool wanted) {
  const auto fail = [&](std::string_view what) {
    return InputError(fmt::format("{}: tensor '{}': {}", source, name, what));
  };
  if (!info.is_object())
    throw fail(fmt::format("entry is a JSON {}, not an object", info.type_name()));
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!info.contains(key)) throw fail(fmt::format("entry has no \"{}\"", key));
  }
  Entry e{name, "", {}, 0, 0};
  if (!info["dtype"].is_string()) throw fail("dtype is not a string");
  e.dtype = info["dtype"].get<std::string>();
  if (wanted && !convertible(e.dtype)) {  // a tensor not needed may be of any dtype
    throw fail(
        fmt::format("unsupported dtype '{}' (this reader takes F32, BF16 and F16)", e.dtype));
  }
  const json& shape = info["shape"];
  if (!shape.is_array()) throw fail("shape is not an array");
  for (const json& dim : shape) {
    const std::uint64_t n = unsigned_field(dim, source, name, "shape");
    if (n > static_cast<std::uint64_t>(INT64_MAX))
      throw fail(fmt::format("shape dimension {} is too large", n));
    e.shape.push_back(static_cast<std::int64_t>(n));
  }
  // Elements, with overflow guarded: never more than the data's bytes could hold.
  std::uint64_t count = std::count(e.shape.begin(), e.shape.end(), 0) > 0 ? 0 : 1;
  bool too_big = false;
  for (const std::int64_t n : e.shape) {
    if (count == 0 || too_big) break;
    if (count > data_bytes / static_cast<std::uint64_t>(n))
      too_big = true;
    else
      count *= static_cast<std::uint64_t>(n);
  }
  const json& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2)
    throw fail("data_offsets is not an array [begin, end]");
  e.begin = unsigned_field(offsets[0], source, name, "data_offsets");
  e.end = unsigned_field(offsets[1], source, name, "data_offsets");
  if (e.begin > e.end) {
    throw fail(
        fmt::format("data_offsets [{}, {}] run backwards (begin after end)", e.begin, e.end));
  }
  if (e.end > data_bytes) {
    throw fail(fmt::format("data_offsets [{}, {}] run past the {} bytes of data", e.begin, e.end,
                           data_bytes));
  }
  const std::uint64_t size = element_size(e.dtype);
  if (size == 0) return e;  // a dtype newer than this reader, in a tensor it does not read
  if (too_big || count * size != e.end - e.begin) {
    throw fail(
        fmt::format("shape [{}] of {} needs {} bytes but data_offsets [{}, {}] hold {}",
                    fmt::join(e.shape, ", "), e.dtype,
                    too_big ? std::string("more than the file's") : std::to_string(count * size),
                    e.begin, e.end, e.end - e.begin));
  }
  return e;
}

std::map<std::string, std::string> parse_metadata(const json& meta, std::string_view source) {
  if (!meta.is_object()) {
    throw InputError(fmt::format("{}: __metadata__ is a JSON {}, not an object of strings", source,
                                 meta.type_name()));
  }
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : meta.items()) {
    if (!value.is_string()) {
      throw InputError(fmt::format("{}: __metadata__ entry '{}' is a JSON {}, not a string", source,
                                   key, value.type_name()));
    }
    out[key] = value.get<std::string>();
  }
  return out;
}

// Every byte of the data buffer belongs to exactly one tensor (the format's rule).
void check_layout(std::vector<Entry>& entries, std::uint64_t data_bytes, std::string_view source) {
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  std::uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : entries) {
    if (e.begin < covered) {
      throw InputError(
          fmt::format("{}: tensor '{}': data_offsets [{}, {}] overlap tensor '{}' [{}, {}]", source,
                      e.name, e.begin, e.end, previous->name, previous->begin, previous->end));
    }
    if (e.begin > covered) {
      throw InputError(
          fmt::format("{}: tensor '{}': data_offsets [{}, {}] leave bytes [{}, {}) of the "
                      "data to no tensor",
                      source, e.name, e.begin, e.end, covered, e.begin));
    }
    covered = e.end;
    previous = &e;
  }
  if (covered != data_bytes) {
    throw InputError(fmt::format("{}: bytes [{}, {}) at the end of the data belong to no tensor",
                                 source, covered, data_bytes));
  }
}

// The tensor's own bytes (end - begin of them) as float32.
std::vector<float> to_float(const Entry& e, std::string_view bytes) {
  const std::uint64_t size = element_size(e.dtype);
  std::vector<float> values(static_cast<std::size_t>(bytes.size() / size));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (e.dtype == "F32") {
      values[i] = std::bit_cast<float>(static_cast<std::uint32_t>(read_le(bytes, 4 * i, 4)));
    } else if (e.dtype == "BF16") {
      values[i] = bf16_to_float(static_cast<std::uint16_t>(read_le(bytes, 2 * i, 2)));
    } else {
      values[i] = f16_to_float(static_cast<std::uint16_t>(read_le(bytes, 2 * i, 2)));
    }
  }
  return values;
}

// The JSON of a header, as the format allows it: it begins with '{' (0x7B: no byte-order
// mark, no space) and only spaces (0x20) may pad it after its last '}'.
std::string_view header_json(std::string_view header, std::string_view source) {
  const auto byte = [&](std::size_t at) {
    return fmt::format("byte 0x{:02X} at offset {} of the header",
                       static_cast<unsigned char>(header[at]), at);
  };
  if (header.empty()) throw InputError(fmt::format("{}: the header is empty", source));
  // What a JSON parser would skip before the '{': whitespace, a byte-order mark (other
  // bytes are not JSON, or JSON of another type: the parser says which).
  if (std::string_view(" \t\n\r\xEF").find(header[0]) != std::string_view::npos) {
    throw InputError(
        fmt::format("{}: the header must begin with '{{' (0x7B), not with {}", source, byte(0)));
  }
  const std::size_t last = header.find_last_not_of(' '), brace = header.find_last_of('}');
  if (brace != std::string_view::npos && brace < last) {  // no '}' at all: not JSON, said below
    throw InputError(fmt::format("{}: only spaces (0x20) may follow the header's JSON, not {}",
                                 source, byte(header.find_first_not_of(' ', brace + 1))));
  }
  return header.substr(0, last + 1);
}

using ReadBytes = std::function<std::string(std::uint64_t, std::uint64_t)>;

// The length of the header, from the file's first 8 bytes: checked against the file's size
// and the limit.
std::uint64_t header_length(std::uint64_t file_size, const ReadBytes& read,
                            std::string_view source) {
  if (file_size < 8) {
    throw InputError(fmt::format("{}: truncated: {} bytes, fewer than the 8 of the header length",
                                 source, file_size));
  }
  const std::uint64_t n = read_le(read(0, 8), 0, 8);
  if (n > file_size - 8) {
    throw InputError(
        fmt::format("{}: header length {} runs past the end of the file ({} bytes after "
                    "the length)",
                    source, n, file_size - 8));
  }
  if (n > max_header_bytes) {
    throw InputError(fmt::format("{}: header length {} exceeds the limit of {} bytes", source, n,
                                 max_header_bytes));
  }
  return n;
}

// Whether the tensor `name` is read: all are when `wanted` is empty.
bool is_wanted(const std::vector<std::string>& wanted, const std::string& name) {
  return wanted.empty() || std::find(wanted.begin(), wanted.end(), name) != wanted.end();
}

// The entries of a header and its __metadata__, read event by event (nlohmann's parser
// callback): each entry is checked and dropped as soon as it closes, so memory stays a small
// multiple of the header, a value nested deeper than the format's own ({name: {field:
// [number]}}) stops the parse at once, and a name or a field given twice is refused (a JSON
// object would keep the last one).
class HeaderReader {
 public:
  HeaderReader(std::uint64_t data_bytes, std::string_view source,
               const std::vector<std::string>& wanted)
      : data_bytes_(data_bytes), source_(source), wanted_(wanted) {}

  std::vector<Entry> entries;
  std::map<std::string, std::string> metadata;

  // The parser callback: false drops the JSON value just parsed (kept as an Entry).
  bool on_event(int depth, json::parse_event_t event, json& parsed) {
    using Event = json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        open(depth, event);
        return true;
      case Event::key:
        key(depth, parsed.get<std::string>());
        return true;
      case Event::value:
        value(depth, parsed);
        [[fallthrough]];  // an entry that is a number, a string...: parse_entry says what is wrong
      case Event::object_end:
        if (depth != 1) return true;
        take_entry(parsed);
        return false;  // checked and kept as an Entry: the JSON value is dropped
      default:
        return true;
    }
  }

 private:
  InputError fail(const std::string& what) const {
    return InputError(fmt::format("{}: {}", source_, what));
  }

  // An object or an array opens: not deeper than the format's, and an array not at the top.
  void open(int depth, json::parse_event_t event) {
    if (depth == 0 && event == json::parse_event_t::array_start)
      throw fail("the header is a JSON array, not an object");
    if (depth >= 3 || (depth == 2 && event == json::parse_event_t::object_start)) {
      throw fail(
          fmt::format("tensor '{}': the entry nests deeper than a safetensors header does", name_));
    }
    if (depth == 1) fields_.clear();
    elements_ = 0;
  }

  // A key: the name of an entry (depth 1) or one of its fields, neither given twice.
  void key(int depth, const std::string& key) {
    if (depth == 1) {
      name_ = key;
      if (!names_.insert(key).second)
        throw fail(fmt::format("tensor '{}' is named twice in the header", key));
    } else if (!fields_.insert(key).second) {
      throw fail(name_ == "__metadata__"
                     ? fmt::format("__metadata__ key '{}' is given twice", key)
                     : fmt::format("tensor '{}': field \"{}\" is given twice", name_, key));
    }
  }

  // A value that is not an object or an array: not the whole header, not a 65th element.
  void value(int depth, const json& parsed) {
    if (depth == 0)
      throw fail(fmt::format("the header is a JSON {}, not an object", parsed.type_name()));
    if (depth == 3 && ++elements_ > 64) {
      throw fail(
          fmt::format("tensor '{}': an array of more than 64 entries (a shape has a few)", name_));
    }
  }

  // An entry closes (parsed): the __metadata__, or a tensor's Entry, checked.
  void take_entry(const json& parsed) {
    if (name_ == "__metadata__") {
      metadata = parse_metadata(parsed, source_);
    } else {
      entries.push_back(
          parse_entry(name_, parsed, data_bytes_, source_, is_wanted(wanted_, name_)));
    }
  }

  std::uint64_t data_bytes_;
  std::string_view source_;
  const std::vector<std::string>& wanted_;
  std::set<std::string> names_, fields_;
  std::string name_;           // the entry being read
  std::int64_t elements_ = 0;  // in the array being read
};

// Reads a file of `file_size` bytes through read(offset, count), which returns
// exactly those bytes: the header first, then only the wanted tensors' bytes.
Safetensors parse(std::uint64_t file_size, const ReadBytes& read, std::string_view source,
                  const std::vector<std::string>& wanted) {
  const std::uint64_t n = header_length(file_size, read, source);
  const std::uint64_t data_bytes = file_size - 8 - n;
  HeaderReader header(data_bytes, source, wanted);
  try {
    const json rest =
        json::parse(header_json(read(8, n), source),
                    [&header](int depth, json::parse_event_t event, json& parsed) {
                      return header.on_event(depth, event, parsed);
                    });  // entries taken out
    (void)rest;
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: the header is not valid JSON: {}", source, e.what()));
  }
  check_layout(header.entries, data_bytes, source);
  Safetensors out;
  out.metadata = std::move(header.metadata);
  for (const Entry& e : header.entries) {
    out.names.push_back(e.name);
    if (is_wanted(wanted, e.name)) {
      out.tensors.push_back(
          {e.name, e.dtype, e.shape, to_float(e, read(8 + n + e.begin, e.end - e.begin))});
    }
  }
  return out;
}

}  // namespace

float bf16_to_float(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

float f16_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1f;
  std::uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0x1f)
    return std::bit_cast<float>(sign | 0x7f800000u | mantissa << 13);  // inf, NaN
  if (exponent != 0) return std::bit_cast<float>(sign | (exponent + 112) << 23 | mantissa << 13);
  if (mantissa == 0) return std::bit_cast<float>(sign);  // +-0
  // Subnormal: mantissa * 2^-24, exact in float32.
  const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
  return sign ? -magnitude : magnitude;
}

const Tensor* Safetensors::find(std::string_view name) const {
  for (const Tensor& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Safetensors parse_safetensors(std::string_view bytes, std::string_view source,
                              const std::vector<std::string>& wanted) {
  const auto read = [&](std::uint64_t offset, std::uint64_t count) {
    return std::string(
        bytes.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(count)));
  };
  return parse(bytes.size(), read, source, wanted);
}

Safetensors read_safetensors(const std::string& path, const std::vector<std::string>& wanted) {
  check_input_file(path, "weights file");  // a regular file: never a FIFO or a device
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!in || ec) throw InputError(fmt::format("cannot read weights file '{}'", path));
  // Only the header and the wanted tensors are read: GPT-2's file holds 500 MB of other layers.
  const auto read = [&](std::uint64_t offset, std::uint64_t count) {
    std::string bytes(static_cast<std::size_t>(count), '\0');
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(bytes.data(), static_cast<std::streamsize>(count));
    if (!in) throw InputError(fmt::format("cannot read weights file '{}'", path));
    return bytes;
  };
  return parse(size, read, path, wanted);
}

std::string safetensors_bytes(const std::vector<NamedTable>& tables,
                              const std::map<std::string, std::string>& metadata) {
  static_assert(std::endian::native == std::endian::little,
                "F32 data is written as the host holds it");
  json header = json::object();
  std::set<std::string> seen;
  std::uint64_t offset = 0;
  for (const NamedTable& t : tables) {
    if (t.name.empty() || t.name == "__metadata__" || !seen.insert(t.name).second) {
      throw InputError(
          fmt::format("cannot write a tensor named '{}': empty, repeated or reserved", t.name));
    }
    check_finite_rows(t.table, fmt::format("cannot write tensor '{}':", t.name));
    const std::uint64_t bytes = static_cast<std::uint64_t>(t.table.size()) * 4;
    header[t.name] = {{"dtype", "F32"},
                      {"shape", {t.table.rows(), t.table.cols()}},
                      {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');

  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = static_cast<char>(text.size() >> (8 * i));
  out += text;
  for (const NamedTable& t : tables) {
    out.append(reinterpret_cast<const char*>(t.table.data()),
               static_cast<std::size_t>(t.table.size()) * 4);
  }
  return out;
}

}  // namespace andrea::cli
