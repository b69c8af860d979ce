// A bounded mutation loop that drives LLVMFuzzerTestOneInput without libFuzzer:
// it starts from seed files (valid safetensors and ids files), mutates them with
// a fixed-seed generator (bit flips, interesting bytes and numbers, inserts,
// deletes, truncations, splices, a rewritten header length) and runs every
// mutant for at most the given number of seconds.
//   usage: fuzz_readers SECONDS SEED_FILE...
// Prints the number of inputs run. A crash or a non-InputError exception ends
// the run with the input's bytes written to fuzz-crash.bin.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::string current;  // the input being run, written out when it fails

void save_current() {
  std::ofstream("fuzz-crash.bin", std::ios::binary) << current;
  std::fprintf(stderr, "fuzz_readers: failing input (%zu bytes) written to fuzz-crash.bin\n",
               current.size());
}

// A position or index in [0, n): 0 when n is 0.
std::size_t pick(std::mt19937_64& rng, std::size_t n) {
  return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n);
}

const char kInterestingBytes[] = {'\0', '\xff', '\x7f', '\x80', '{', '}', '[', ']', '"',
                                  ',',  ':',    '-',    '0',    '9', 'e', ' ', '\n'};
const char* const kInterestingNumbers[] = {
    "0",   "-1",       "1",        "4294967296", "9223372036854775807", "18446744073709551615",
    "18446744073709551616",        "1e400",      "2.5",                 "null",
    "\"F32\"", "\"BF16\"", "\"F64\"", "[]",         "{}"};

// Replaces a run of digits with an interesting number or token.
void replace_number(std::string& s, std::mt19937_64& rng) {
  const std::size_t at = s.find_first_of("0123456789", pick(rng, s.size() + 1));
  if (at == std::string::npos) return;
  const std::size_t end = s.find_first_not_of("0123456789", at);
  s.replace(at, (end == std::string::npos ? s.size() : end) - at,
            kInterestingNumbers[pick(rng, std::size(kInterestingNumbers))]);
}

// Rewrites the 8-byte header length: a random one, or one near the file's own size.
void rewrite_header_length(std::string& s, std::mt19937_64& rng) {
  if (s.size() < 8) return;
  const std::uint64_t n = rng() % 2 ? rng() : s.size() - 8 - pick(rng, 16);
  for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * i));
}

// One mutation of s, of nine kinds.
void mutate_once(std::string& s, const std::vector<std::string>& seeds, std::mt19937_64& rng) {
  switch (rng() % 9) {
    case 0:  // flip a bit
      if (!s.empty()) s[pick(rng, s.size())] ^= static_cast<char>(1 << (rng() % 8));
      break;
    case 1:  // an interesting byte
      if (!s.empty()) s[pick(rng, s.size())] = kInterestingBytes[pick(rng, sizeof kInterestingBytes)];
      break;
    case 2:  // insert random bytes
      s.insert(pick(rng, s.size() + 1), std::string(1 + pick(rng, 8), static_cast<char>(rng())));
      break;
    case 3:  // delete a range
      if (!s.empty()) {
        const std::size_t at = pick(rng, s.size());
        s.erase(at, 1 + pick(rng, 16));
      }
      break;
    case 4:  // truncate
      s.resize(pick(rng, s.size() + 1));
      break;
    case 5:
      replace_number(s, rng);
      break;
    case 6:
      rewrite_header_length(s, rng);
      break;
    case 7: {  // splice in a piece of another seed
      const std::string& other = seeds[pick(rng, seeds.size())];
      const std::size_t from = pick(rng, other.size() + 1);
      s.insert(pick(rng, s.size() + 1), other.substr(from, pick(rng, other.size() - from + 1)));
      break;
    }
    default:  // duplicate a range
      if (!s.empty()) {
        const std::size_t at = pick(rng, s.size());
        s.insert(pick(rng, s.size() + 1), s.substr(at, 1 + pick(rng, 32)));
      }
  }
}

// s after one to four mutations.
std::string mutate(std::string s, const std::vector<std::string>& seeds, std::mt19937_64& rng) {
  const int steps = 1 + static_cast<int>(rng() % 4);
  for (int step = 0; step < steps; ++step) mutate_once(s, seeds, rng);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SECONDS SEED_FILE...\n", argv[0]);
    return 2;
  }
  const double seconds = std::stod(argv[1]);
  std::vector<std::string> seeds;
  for (int i = 2; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "fuzz_readers: cannot read seed file %s\n", argv[i]);
      return 2;
    }
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::set_terminate([] {
    save_current();
    std::abort();
  });
  std::mt19937_64 rng(20261130);
  const auto start = std::chrono::steady_clock::now();
  long runs = 0;
  const auto run = [&](const std::string& input) {
    current = input;
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(current.data()), current.size());
    ++runs;
  };
  for (const std::string& seed : seeds) run(seed);
  std::vector<std::string> pool = seeds;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
         seconds) {
    std::string input = mutate(pool[static_cast<std::size_t>(rng() % pool.size())], seeds, rng);
    run(input);
    if (pool.size() < 256 && input.size() < 4096 && rng() % 16 == 0)
      pool.push_back(std::move(input));
  }
  std::printf("fuzz_readers: %ld inputs in %.0f s, no crash, only InputError\n", runs, seconds);
  return 0;
}
