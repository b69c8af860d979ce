#include "apps/svg.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

#include "apps/printable.hpp"
#include "core/errors.hpp"

namespace andrea::svg {

namespace {

// Text for XML: printable (valid UTF-8, no control character), then & < > " escaped.
std::string escape(std::string_view raw) {
  const std::string text = cli::printable(raw);
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Diverging colour of v in [-1, 1]: blue (33, 102, 172) - white - red (178, 24, 43),
// the two ends of ColorBrewer's RdBu.
std::string colour(double v) {
  const double t = std::clamp(std::isnan(v) ? 0.0 : v, -1.0, 1.0);
  const int end[2][3] = {{33, 102, 172}, {178, 24, 43}};
  const int* e = end[t > 0];
  const double a = std::abs(t);
  const auto mix = [&](int i) { return static_cast<int>(std::lround(247 + a * (e[i] - 247))); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0), mix(1), mix(2));
}

std::string open(double width, double height, std::string_view title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text class=\"title\" x=\"10\" y=\"22\" font-size=\"15\">{2}</text>\n",
      width, height, escape(title));
}

std::string text(std::string_view cls, double x, double y, std::string_view anchor,
                 std::string_view body, std::string_view extra = "") {
  return fmt::format(
      "<text class=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\"{}>{}</text>\n", cls, x, y,
      anchor, extra, escape(body));
}

// A vertical colour scale at (x, y), height h, from +top (above) to -top (below).
std::string colour_scale(double x, double y, double h, double top) {
  std::string out = fmt::format(
      "<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
      "<stop offset=\"0\" stop-color=\"{}\"/><stop offset=\"0.5\" stop-color=\"{}\"/>"
      "<stop offset=\"1\" stop-color=\"{}\"/></linearGradient></defs>\n"
      "<rect class=\"scale\" x=\"{}\" y=\"{}\" width=\"14\" height=\"{}\" fill=\"url(#scale)\" "
      "stroke=\"#888\"/>\n",
      colour(1), colour(0), colour(-1), x, y, h);
  out += text("scale-label", x + 18, y + 4, "start", fmt::format("{:+.3g}", top));
  out += text("scale-label", x + 18, y + h / 2 + 4, "start", "0");
  out += text("scale-label", x + 18, y + h + 4, "start", fmt::format("{:+.3g}", -top));
  return out;
}

void check_finite(std::span<const float> values, std::string_view what) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw InputError(
          fmt::format("cannot draw {}: value {} at index {} is not finite", what, values[i], i));
    }
  }
}

}  // namespace

std::string heatmap(std::string_view title, const std::vector<std::string>& labels,
                    ConstFloatView m) {
  const std::int64_t k = m.rows();
  if (m.cols() != k || static_cast<std::int64_t>(labels.size()) != k) {
    throw InputError(fmt::format(
        "heatmap needs a square matrix and one label per row: got ({}, {}) and {} labels", m.rows(),
        m.cols(), labels.size()));
  }
  const double cell = k <= 16 ? 40.0 : std::max(6.0, 640.0 / static_cast<double>(k));
  const double left = 120, top = 130, side = cell * static_cast<double>(k);
  std::string out = open(left + side + 80, top + side + 20, title);
  for (std::int64_t i = 0; i < k; ++i) {
    const double y = top + cell * static_cast<double>(i), x = left + cell * static_cast<double>(i);
    out +=
        text("row-label", left - 6, y + cell / 2 + 4, "end", labels[static_cast<std::size_t>(i)]);
    out +=
        text("col-label", x + cell / 2 + 4, top - 6, "start", labels[static_cast<std::size_t>(i)],
             fmt::format(" transform=\"rotate(-90 {:.1f} {:.1f})\"", x + cell / 2 + 4, top - 6));
  }
  for (std::int64_t i = 0; i < k; ++i) {
    for (std::int64_t j = 0; j < k; ++j) {
      const double x = left + cell * static_cast<double>(j),
                   y = top + cell * static_cast<double>(i);
      out += fmt::format(
          "<rect class=\"cell\" data-row=\"{}\" data-col=\"{}\" data-value=\"{:.4f}\" x=\"{:.1f}\" "
          "y=\"{:.1f}\" "
          "width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n",
          i, j, m(i, j), x, y, cell, cell, colour(m(i, j)));
      if (k <= 16) {
        out += text(
            "value", x + cell / 2, y + cell / 2 + 4, "middle", fmt::format("{:.2f}", m(i, j)),
            std::abs(m(i, j)) > 0.6f ? " font-size=\"10\" fill=\"white\"" : " font-size=\"10\"");
      }
    }
  }
  return out + colour_scale(left + side + 16, top, side, 1.0) + "</svg>\n";
}

std::string table_image(std::string_view name, ConstFloatView table, std::int64_t max_rows,
                        std::int64_t max_cols) {
  if (table.rows() < 1 || table.cols() < 1) {
    throw InputError(fmt::format("cannot draw table {}: shape ({}, {}) is empty", name,
                                 table.rows(), table.cols()));
  }
  const std::int64_t rows = std::min(table.rows(), max_rows),
                     cols = std::min(table.cols(), max_cols);
  float a = 0.0f;  // the largest |value| shown sets the scale
  for (std::int64_t r = 0; r < rows; ++r) {
    check_finite(table.row(r).first(static_cast<std::size_t>(cols)),
                 fmt::format("table {} row {}", name, r));
    for (std::int64_t c = 0; c < cols; ++c) a = std::max(a, std::abs(table(r, c)));
  }
  const double cell = 6.0, left = 60, top = 60;
  const double width = cell * static_cast<double>(cols), height = cell * static_cast<double>(rows);
  std::string out = open(left + width + 90, top + height + 50,
                         fmt::format("{}: rows 0..{} of {} x dimensions 0..{} of {}", name,
                                     rows - 1, table.rows(), cols - 1, table.cols()));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      out += fmt::format(
          "<rect class=\"cell\" data-row=\"{}\" data-col=\"{}\" data-value=\"{:.6g}\" x=\"{:.0f}\" "
          "y=\"{:.0f}\" "
          "width=\"{:.0f}\" height=\"{:.0f}\" fill=\"{}\"/>\n",
          r, c, table(r, c), left + cell * static_cast<double>(c),
          top + cell * static_cast<double>(r), cell, cell, colour(a > 0 ? table(r, c) / a : 0.0));
    }
  }
  out += text("axis-label", left + width / 2, top + height + 36, "middle", "dimension");
  out += text("axis-label", 20, top + height / 2, "middle", "row",
              fmt::format(" transform=\"rotate(-90 20 {:.1f})\"", top + height / 2));
  out += text("tick", left, top - 6, "start", "0");
  out += text("tick", left + width, top - 6, "end", std::to_string(cols - 1));
  out += text("tick", left - 6, top + cell, "end", "0");
  out += text("tick", left - 6, top + height, "end", std::to_string(rows - 1));
  return out + colour_scale(left + width + 16, top, std::min(height, 300.0), a) + "</svg>\n";
}

std::string histogram(std::string_view title, std::span<const float> values, int bins) {
  if (values.empty() || bins < 1) {
    throw InputError(
        fmt::format("cannot draw a histogram of {} values in {} bins", values.size(), bins));
  }
  check_finite(values, "a histogram");
  const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
  const double lo = *lo_it, hi = *hi_it, step = hi > lo ? (hi - lo) / bins : 1.0;
  std::vector<std::int64_t> count(static_cast<std::size_t>(bins), 0);
  for (const float v : values) {
    const auto b = std::min<std::int64_t>(static_cast<std::int64_t>((v - lo) / step), bins - 1);
    ++count[static_cast<std::size_t>(b)];
  }
  const std::int64_t most = *std::max_element(count.begin(), count.end());
  const double left = 70, top = 50, width = 600, height = 300, bar = width / bins;
  std::string out = open(left + width + 30, top + height + 60, title);
  for (int b = 0; b < bins; ++b) {
    const double h = height * static_cast<double>(count[static_cast<std::size_t>(b)]) /
                     static_cast<double>(most);
    out += fmt::format(
        "<rect class=\"bar\" data-lo=\"{:.6g}\" data-hi=\"{:.6g}\" data-count=\"{}\" x=\"{:.1f}\" "
        "y=\"{:.1f}\" "
        "width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#4a7ab5\" stroke=\"white\"/>\n",
        lo + step * b, lo + step * (b + 1), count[static_cast<std::size_t>(b)], left + bar * b,
        top + height - h, bar, h);
  }
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n", left,
                     top + height, left + width);
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/>\n", left,
                     top, top + height);
  out += text("tick", left, top + height + 16, "middle", fmt::format("{:.4g}", lo));
  out += text("tick", left + width, top + height + 16, "middle",
              fmt::format("{:.4g}", lo + step * bins));
  out += text("tick", left - 6, top + 4, "end", std::to_string(most));
  out += text("tick", left - 6, top + height + 4, "end", "0");
  out += text("axis-label", left + width / 2, top + height + 40, "middle",
              fmt::format("value ({} values, {} bins)", values.size(), bins));
  out += text("axis-label", 20, top + height / 2, "middle", "count",
              fmt::format(" transform=\"rotate(-90 20 {:.1f})\"", top + height / 2));
  return out + "</svg>\n";
}

}  // namespace andrea::svg
