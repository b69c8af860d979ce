// Lesson 7 — position schemes: the sinusoidal table and RoPE beside the learned
// table. Checked against the issue's values, hand-worked cases, golden/
// position_schemes.json (PyTorch in float64) and the properties that make each
// scheme work: RoPE keeps norms and makes scores depend on m - n only, the
// sinusoidal PE(pos + k) is PE(pos) turned by a fixed rotation, and without
// positions a sentence and its reversal are the same bag of rows.
#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/support/awkward.hpp"
#include "tests/support/backend.hpp"
#include "tests/support/framed.hpp"
#include "reference/rope.hpp"
#include "reference/sinusoidal.hpp"
#include "cuda/rope.hpp"
#include "cuda/sinusoidal.hpp"

namespace {

using namespace andrea;
using namespace andrea::testing;

constexpr std::int64_t kT = andrea_120m.context_length;  // 1024
constexpr std::int64_t kD = andrea_120m.d_model;         // 768
constexpr double kBase =
    10000.0;  // RoPE base of RoFormer and LLaMA 1-2 (reference::rope_default_base)

// The whole ANDREA-sized sinusoidal table (1024, 768) from the backend under test.
Matrix sinusoidal(std::int64_t n = kT, std::int64_t d = kD) {
  Matrix pe(n, d);
  backend::sinusoidal_table(n, d, kT, pe);
  return pe;
}

// RoPE of rows x at the given positions, base 10000.
Matrix rotated(ConstFloatView x, std::vector<std::int32_t> positions) {
  Matrix out(x.rows(), x.cols());
  backend::rope(x, positions, kBase, out);
  return out;
}

double dot(std::span<const float> a, std::span<const float> b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += double{a[i]} * b[i];
  return s;
}

// --- Sinusoidal table -----------------------------------------------------------

TEST(Sinusoidal, IssueValues) {
  const Matrix pe = sinusoidal();
  const Tolerance tol{1e-7, 0.0};  // the values are given to 8 decimals
  EXPECT_TRUE(close("PE[1, 0] = sin 1", pe(1, 0), 0.84147098, tol));
  EXPECT_TRUE(close("PE[1023, 0]", pe(1023, 0), -0.91648537, tol));
  EXPECT_TRUE(close("PE[1023, 1]", pe(1023, 1), 0.40006820, tol));
  EXPECT_TRUE(close("PE[1023, 766]", pe(1023, 766), 0.10459171, tol));
  EXPECT_TRUE(close("PE[1023, 767]", pe(1023, 767), 0.99451525, tol));
}

TEST(Sinusoidal, HandWorkedWidth4) {
  // d_model = 4: w_0 = 1, w_1 = 10000^(-1/2) = 0.01. Row pos = [sin pos, cos pos, sin 0.01 pos, cos
  // 0.01 pos].
  Matrix pe(3, 4);
  backend::sinusoidal_table(3, 4, 3, pe);                                    // n == T is allowed
  const float expected[] = {0.0f,        1.0f,         0.0f,          1.0f,  //
                            0.84147098f, 0.54030231f,  0.0099998333f, 0.99995000f,
                            0.90929743f, -0.41614684f, 0.019998667f,  0.99980001f};
  EXPECT_TRUE(all_close("PE", pe.view().flat(), expected, {1e-7, 0.0}, 4));
}

// The issue's accuracy: every element of the (1024, 768) table within 1e-6 of a
// long-double computation. The same table with the angle pos * w formed in float32
// (as the PyTorch tutorial does) misses it by a factor of ~50: that is the pitfall.
TEST(Sinusoidal, WithinOneMillionthOfLongDoubleEverywhere) {
  const Matrix pe = sinusoidal();
  Matrix exact(kT, kD);
  double worst_float32_angle = 0.0;
  for (std::int64_t i = 0; i < kD / 2; ++i) {
    const long double w = std::pow(10000.0L, -2.0L * i / kD);
    const float w32 = std::exp(static_cast<float>(2 * i) * (-std::log(10000.0f) / kD));
    for (std::int64_t pos = 0; pos < kT; ++pos) {
      const long double angle = pos * w;
      const float angle32 = static_cast<float>(pos) * w32;  // the pitfall: a float32 product
      exact(pos, 2 * i) = static_cast<float>(std::sin(angle));
      exact(pos, 2 * i + 1) = static_cast<float>(std::cos(angle));
      worst_float32_angle =
          std::max({worst_float32_angle,
                    static_cast<double>(std::fabs(std::sin(double{angle32}) - std::sin(angle))),
                    static_cast<double>(std::fabs(std::cos(double{angle32}) - std::cos(angle)))});
    }
  }
  EXPECT_TRUE(all_close("PE vs long double", pe, exact, {1e-6, 0.0}));
  EXPECT_GT(worst_float32_angle, 5e-5) << "the float32-angle table should show the pitfall";
}

// sin((p + k) w) = sin(p w) cos(k w) + cos(p w) sin(k w), cos((p + k) w) = cos(p w) cos(k w) -
// sin(p w) sin(k w): every pair of PE(p + k) is the pair of PE(p) turned by the angle k w_i,
// whatever p is. The rotation for offset k is read off row k itself: PE[k] = (sin k w, cos k w) per
// pair.
TEST(Sinusoidal, ShiftByKIsAFixedRotation) {
  const Matrix pe = sinusoidal();
  for (const std::int64_t k : {1, 7, 100, 1000}) {
    Matrix shifted(kT - k, kD), expected(kT - k, kD);
    for (std::int64_t p = 0; p + k < kT; ++p) {
      for (std::int64_t i = 0; i < kD / 2; ++i) {
        const double sk = pe(k, 2 * i), ck = pe(k, 2 * i + 1);  // the map for this k
        const double sp = pe(p, 2 * i), cp = pe(p, 2 * i + 1);
        shifted(p, 2 * i) = static_cast<float>(sp * ck + cp * sk);
        shifted(p, 2 * i + 1) = static_cast<float>(cp * ck - sp * sk);
        expected(p, 2 * i) = pe(p + k, 2 * i);
        expected(p, 2 * i + 1) = pe(p + k, 2 * i + 1);
      }
    }
    EXPECT_TRUE(all_close(fmt::format("R_{} PE(pos) vs PE(pos + {})", k, k), shifted, expected,
                          {2e-7, 0.0}));
  }
}

TEST(Sinusoidal, GoldenTiny) {
  const json& c = golden_case("position_schemes", "sinusoidal-tiny");
  Matrix pe(c.at("n"), c.at("d_model"));
  backend::sinusoidal_table(c.at("n"), c.at("d_model"), c.at("context_length"), pe);
  EXPECT_TRUE(all_close("PE", pe, to_matrix(c.at("out")), tolerance_of(c)));
}

TEST(Sinusoidal, GoldenAndrea120m) {
  const json& c = golden_case("position_schemes", "sinusoidal-andrea-120m");
  const Matrix pe = sinusoidal();
  for (const auto& [row, values] : c.at("rows").items()) {
    EXPECT_TRUE(
        all_close("PE row " + row, pe.row(std::stoll(row)), to_floats(values), tolerance_of(c)));
  }
  std::vector<float> sums(kD);
  for (std::int64_t col = 0; col < kD; ++col) {
    double s = 0.0;
    for (std::int64_t pos = 0; pos < kT; ++pos) s += pe(pos, col);
    sums[static_cast<std::size_t>(col)] = static_cast<float>(s);
  }
  EXPECT_TRUE(all_close("column sums of PE", sums, to_floats(c.at("column_sums")),
                        tolerance_of(c, "column_sums_tolerance")));
}

TEST(SinusoidalBadInput, OddWidthLongerThanContextShapes) {
  Matrix out(4, 5);
  std::fill_n(out.view().data(), out.view().size(), -7.0f);
  EXPECT_INPUT_ERROR(backend::sinusoidal_table(4, 5, 8, out),
                     "d_model 5 is odd: sin and cos need pairs of columns");
  EXPECT_INPUT_ERROR(backend::sinusoidal_table(4, 0, 8, out), "d_model is 0: it must be > 0");
  Matrix big(1025, 768);
  EXPECT_INPUT_ERROR(backend::sinusoidal_table(1025, 768, 1024, big),
                     "sequence length 1025 exceeds context length 1024");
  EXPECT_INPUT_ERROR(backend::sinusoidal_table(0, 4, 8, out), "empty sequence");
  EXPECT_INPUT_ERROR(backend::sinusoidal_table(3, 4, 8, out),
                     "out has shape (4, 5), expected (3, 4)");
  for (const float x : out.view().flat()) ASSERT_EQ(x, -7.0f) << "out was written";
  for (const float x : big.view().flat()) ASSERT_EQ(x, 0.0f) << "out was written";
}

// --- RoPE -------------------------------------------------------------------------

TEST(Rope, IssueWorkedExample) {
  // d = 4, position 1: pair 0 turns by 1 rad, pair 1 by 10000^(-1/2) = 0.01 rad.
  const float x[] = {1, 0, 1, 0};
  Matrix out(1, 4);
  backend::rope(ConstFloatView(x, 1, 4), std::vector<std::int32_t>{1}, 10000.0, out);
  const float expected[] = {0.540302f, 0.841471f, 0.999950f, 0.0099998f};
  EXPECT_TRUE(all_close("rope([1, 0, 1, 0], pos 1)", out.view().flat(), expected, {1e-6, 0.0}, 4));
}

TEST(Rope, PositionZeroChangesNothingAndPairsTurnSeparately) {
  // Row 0 at position 0 is unchanged; row 1 = [0, 1, 0, 2] at position 2 turns pair 0 by
  // 2 rad and pair 1 by 0.02 rad: (0, 1) -> (-sin 2, cos 2), (0, 2) -> (-2 sin 0.02, 2 cos 0.02).
  const float x[] = {0.5f, -3.0f, 7.0f, 0.25f,  //
                     0.0f, 1.0f,  0.0f, 2.0f};
  Matrix out(2, 4);
  backend::rope(ConstFloatView(x, 2, 4), std::vector<std::int32_t>{0, 2}, 10000.0, out);
  const float expected[] = {0.5f,         -3.0f,        7.0f,          0.25f,  //
                            -0.90929743f, -0.41614684f, -0.039997333f, 1.9996000f};
  EXPECT_TRUE(all_close("rope", out.view().flat(), expected, {1e-7, 1e-7}, 4));
}

TEST(Rope, InPlace) {
  Matrix x(3, 8);
  for (std::int64_t c = 0; c < 24; ++c) x.view().data()[c] = 0.1f * static_cast<float>(c) - 1.0f;
  const Matrix copy = rotated(x, {3, 0, 900});
  backend::rope(x, std::vector<std::int32_t>{3, 0, 900}, 10000.0, x);  // out is x
  EXPECT_TRUE(all_close("rope in place", x, copy, {}));
}

// A rotation keeps lengths: ||rope(x)|| = ||x|| for every row and position.
TEST(Rope, KeepsEveryRowNorm) {
  const Matrix& x = init_table(Table::token, 8, kD);
  const Matrix out = rotated(x, {0, 1, 5, 100, 511, 1023, 4096, 70000});
  for (std::int64_t r = 0; r < x.rows(); ++r) {
    const double before = std::sqrt(dot(x.row(r), x.row(r)));
    const double after = std::sqrt(dot(out.row(r), out.row(r)));
    EXPECT_TRUE(close(fmt::format("norm of row {} after RoPE", r), after, before, {0.0, 1e-6}));
  }
}

// q_m . k_n after RoPE = Re(sum_i q_i conj(k_i) e^(i (m - n) theta_i)): only m - n matters.
TEST(Rope, ScoreDependsOnlyOnOffset) {
  const Matrix& table = init_table(Table::token, 2, kD);  // row 0 = q, row 1 = k
  const ConstFloatView q(table.view().data(), 1, kD), k(table.view().data() + kD, 1, kD);
  const auto score = [&](std::int32_t m, std::int32_t n) {
    return dot(rotated(q, {m}).row(0), rotated(k, {n}).row(0));
  };
  EXPECT_TRUE(close("score(12, 10) vs score(5, 3)", score(12, 10), score(5, 3), {1e-5, 0.0}));
  EXPECT_TRUE(
      close("score(1002, 1000) vs score(2, 0)", score(1002, 1000), score(2, 0), {1e-5, 0.0}));
  // ... and it does depend on the offset: m - n = 2 and m - n = 40 give different scores.
  EXPECT_GT(std::fabs(score(5, 3) - score(43, 3)), 1e-3) << "RoPE seems to rotate nothing";
}

void expect_rope_golden(const char* name) {
  const json& c = golden_case("position_schemes", name);
  const Matrix x = to_matrix(c.at("x"));
  Matrix out(x.rows(), x.cols());
  backend::rope(x, to_ids(c.at("positions")), c.at("base").get<double>(), out);
  EXPECT_TRUE(
      all_close(fmt::format("rope ({})", name), out, to_matrix(c.at("out")), tolerance_of(c)));
}

TEST(Rope, GoldenTiny) { expect_rope_golden("rope-tiny"); }
TEST(Rope, GoldenAndreaTokenRows) { expect_rope_golden("rope-andrea-wte-rows"); }
TEST(Rope, GoldenBase500000) { expect_rope_golden("rope-base-500000"); }

// Hugging Face's "rotate half" pairs dimension i with i + d/2. Put x[i] at 2i and
// x[i + d/2] at 2i + 1 (a permutation of the dimensions) and the interleaved RoPE
// gives the same rotated vectors, permuted alike, and the same scores q . k.
TEST(Rope, RotateHalfLayoutIsAPermutation) {
  const json& c = golden_case("position_schemes", "rope-rotate-half");
  const Matrix q = to_matrix(c.at("q")), k = to_matrix(c.at("k"));
  const std::int64_t d = q.cols(), half = d / 2;
  const auto interleave = [&](const Matrix& m) {
    Matrix p(m.rows(), d);
    for (std::int64_t r = 0; r < m.rows(); ++r) {
      for (std::int64_t i = 0; i < half; ++i)
        p(r, 2 * i) = m(r, i), p(r, 2 * i + 1) = m(r, i + half);
    }
    return p;
  };
  const Matrix qr = rotated(interleave(q), to_ids(c.at("q_positions")));
  const Matrix kr = rotated(interleave(k), to_ids(c.at("k_positions")));
  EXPECT_TRUE(all_close("rope(P q) vs P rotate_half_rope(q)", qr,
                        interleave(to_matrix(c.at("q_rotated"))), tolerance_of(c)));
  const Matrix scores_hf = to_matrix(c.at("scores"));
  std::vector<float> scores, unpermuted;
  const Matrix qu = rotated(q, to_ids(c.at("q_positions"))),
               ku = rotated(k, to_ids(c.at("k_positions")));
  for (std::int64_t a = 0; a < 2; ++a) {
    for (std::int64_t b = 0; b < 2; ++b) {
      scores.push_back(static_cast<float>(dot(qr.row(a), kr.row(b))));
      unpermuted.push_back(static_cast<float>(dot(qu.row(a), ku.row(b))));
    }
  }
  EXPECT_TRUE(all_close("scores q . k", scores, scores_hf.view().flat(),
                        tolerance_of(c, "score_tolerance"), 2));
  // Without the permutation the two layouts disagree: a checkpoint must be read in its own layout.
  EXPECT_FALSE(all_close("scores without the permutation", unpermuted, scores_hf.view().flat(),
                         {1e-3, 0.0}, 2));
}

TEST(RopeBadInput, EveryBound) {
  const float x[] = {1, 2, 3, 4, 5, 6};
  const float bad[] = {1, 2, NAN, 4};
  Matrix out(2, 3), out22(2, 2);
  std::fill_n(out22.view().data(), 4, -7.0f);
  const std::vector<std::int32_t> two = {0, 1}, negative = {0, -1};
  EXPECT_INPUT_ERROR(backend::rope(ConstFloatView(x, 2, 3), two, 10000.0, out),
                     "d 3 is odd: RoPE rotates pairs of columns");
  const ConstFloatView x22(x, 2, 2);
  EXPECT_INPUT_ERROR(backend::rope(x22, negative, 10000.0, out22),
                     "position -1 at row 1 is negative: positions start at 0");
  EXPECT_INPUT_ERROR(backend::rope(x22, std::vector<std::int32_t>{0}, 10000.0, out22),
                     "positions has 1 entries, expected one per row of x (2)");
  EXPECT_INPUT_ERROR(backend::rope(x22, two, 0.0, out22), "RoPE base 0 is not a finite number > 0");
  EXPECT_INPUT_ERROR(backend::rope(x22, two, -2.0, out22),
                     "RoPE base -2 is not a finite number > 0");
  EXPECT_INPUT_ERROR(backend::rope(x22, two, INFINITY, out22),
                     "RoPE base inf is not a finite number > 0");
  EXPECT_INPUT_ERROR(backend::rope(x22, two, NAN, out22),
                     "RoPE base nan is not a finite number > 0");
  EXPECT_INPUT_ERROR(backend::rope(ConstFloatView(bad, 2, 2), two, 10000.0, out22),
                     "x[2] is nan: a finite value is required");
  EXPECT_INPUT_ERROR(backend::rope(x22, two, 10000.0, out),
                     "out has shape (2, 3), expected (2, 2)");
  EXPECT_INPUT_ERROR(backend::rope(ConstFloatView(nullptr, 0, 2), {}, 10000.0, out22),
                     "x is empty");
  for (const float v : out22.view().flat()) ASSERT_EQ(v, -7.0f) << "out was written";
}

// --- Why positions at all: "the cat sat on a mat" and its reversal -------------------

// Rows x[t] = wte[ids[t]] (+ pos[t] when given), toy vocabulary the = 0, cat = 1, sat = 2,
// on = 3, a = 4, mat = 5, with ANDREA's init for wte.
Matrix embed(const std::vector<std::int32_t>& ids, const Matrix* pos) {
  const Matrix& wte = init_table(Table::token, 6, kD);
  Matrix x(static_cast<std::int64_t>(ids.size()), kD);
  for (std::int64_t t = 0; t < x.rows(); ++t) {
    for (std::int64_t c = 0; c < kD; ++c) {
      x(t, c) = wte(ids[static_cast<std::size_t>(t)], c) + (pos ? (*pos)(t, c) : 0.0f);
    }
  }
  return x;
}

// The rows as a sorted list: equal for two inputs exactly when they are the same multiset.
std::vector<std::vector<float>> bag(const Matrix& x) {
  std::vector<std::vector<float>> rows;
  for (std::int64_t t = 0; t < x.rows(); ++t) rows.emplace_back(x.row(t).begin(), x.row(t).end());
  std::sort(rows.begin(), rows.end());
  return rows;
}

// An order-free summary that is not linear: sum over rows of ||x[t]||^2, added in sorted order.
double sum_of_squared_norms(const Matrix& x) {
  std::vector<double> squares;
  for (std::int64_t t = 0; t < x.rows(); ++t) squares.push_back(dot(x.row(t), x.row(t)));
  std::sort(squares.begin(), squares.end());
  return std::accumulate(squares.begin(), squares.end(), 0.0);
}

TEST(PositionsMatter, SentenceAndItsReversal) {
  const std::vector<std::int32_t> sentence = {0, 1, 2, 3, 4, 5};  // the cat sat on a mat
  const std::vector<std::int32_t> reversed = {5, 4, 3, 2, 1, 0};  // mat a on sat cat the
  // Without positions: the same bag of rows, so every order-free function agrees.
  const Matrix a = embed(sentence, nullptr), b = embed(reversed, nullptr);
  EXPECT_TRUE(bag(a) == bag(b)) << "without positions the two sentences should give the same rows";
  EXPECT_EQ(sum_of_squared_norms(a), sum_of_squared_norms(b));

  const Matrix& learned = init_table(Table::position, 6, kD);  // rows 0..5 of ANDREA's wpe
  const Matrix fixed = sinusoidal(6);
  for (const auto& [name, pos] :
       {std::pair{"learned", &learned}, std::pair{"sinusoidal", &fixed}}) {
    const Matrix pa = embed(sentence, pos), pb = embed(reversed, pos);
    EXPECT_FALSE(bag(pa) == bag(pb)) << "with " << name << " positions the rows should differ";
    EXPECT_GT(std::fabs(sum_of_squared_norms(pa) - sum_of_squared_norms(pb)), 1e-3)
        << "with " << name << " positions, sum of ||x[t]||^2";
  }
}

// The edges: the sinusoidal table at n = T and RoPE at position T - 1, into framed outputs
// (and from a framed x): the same values as without frames, nothing past them.
TEST(Sinusoidal, EdgesLastRowInsideAPoisonedFrame) {
  const std::int64_t T = 37, d = 10;
  Matrix plain(T, d);
  backend::sinusoidal_table(T, d, T, plain);
  Framed out(T, d);
  out.fill(kPoison);
  backend::sinusoidal_table(T, d, T, out);
  EXPECT_TRUE(all_close("sinusoidal table, framed", out.view(), plain, {}));
  EXPECT_TRUE(out.untouched("sinusoidal table"));
}

TEST(Rope, EdgesLastPositionInsideAPoisonedFrame) {
  const std::int64_t n = 5, d = 10;
  const Matrix& x = init_table(Table::token, n, d, 5);
  const std::vector<std::int32_t> positions = {0, 1023, 7, 1023, 1};
  Matrix plain(n, d);
  backend::rope(x, positions, 10000.0, plain);
  Framed out(n, d);
  out.fill(kPoison);
  backend::rope(Framed(x), positions, 10000.0, out);
  EXPECT_TRUE(all_close("rope, framed", out.view(), plain, {}));
  EXPECT_TRUE(out.untouched("rope"));
}

}  // namespace
