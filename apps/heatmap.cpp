#include "apps/heatmap.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

#include "reference/errors.hpp"

namespace andrea::cli {

namespace {

// +1 red (215, 48, 39), 0 white, -1 blue (69, 117, 180): a diverging scale.
std::string colour(float c) {
  const float t = std::clamp(c, -1.0f, 1.0f);
  const int r = t >= 0 ? 255 - static_cast<int>(t * (255 - 215)) : 255 - static_cast<int>(-t * (255 - 69));
  const int g = t >= 0 ? 255 - static_cast<int>(t * (255 - 48)) : 255 - static_cast<int>(-t * (255 - 117));
  const int b = t >= 0 ? 255 - static_cast<int>(t * (255 - 39)) : 255 - static_cast<int>(-t * (255 - 180));
  return fmt::format("rgb({},{},{})", r, g, b);
}

}  // namespace

void write_heatmap_svg(const std::string& path, ConstFloatView cos, const std::vector<std::string>& words,
                       const std::string& title) {
  constexpr int cell = 64, left = 100, top = 60;
  const auto k = static_cast<int>(words.size());
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"13\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"20\" font-size=\"15\">cosine similarity, {}</text>\n",
      left + k * cell + 20, top + k * cell + 20, 10, title);
  for (int i = 0; i < k; ++i) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", left - 8,
                       top + i * cell + cell / 2 + 5, words[static_cast<std::size_t>(i)]);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", left + i * cell + cell / 2,
                       top - 8, words[static_cast<std::size_t>(i)]);
    for (int j = 0; j < k; ++j) {
      const float c = cos(i, j);
      svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"white\"/>"
                         "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{:+.2f}</text>\n",
                         left + j * cell, top + i * cell, cell, cell, colour(c), left + j * cell + cell / 2,
                         top + i * cell + cell / 2 + 5, c);
    }
  }
  svg += "</svg>\n";
  const std::string partial = path + ".partial";
  std::ofstream(partial, std::ios::trunc) << svg;
  std::error_code ec;
  if (std::filesystem::file_size(partial, ec) != svg.size()) {
    std::remove(partial.c_str());
    throw InputError(fmt::format("cannot write '{}'", path));
  }
  std::filesystem::rename(partial, path, ec);
  if (ec) {
    std::remove(partial.c_str());
    throw InputError(fmt::format("cannot write '{}': {}", path, ec.message()));
  }
}

}  // namespace andrea::cli
