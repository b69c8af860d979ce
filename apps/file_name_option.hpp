// An option that names a file. Given, its value is a name: `--merges-file ""` is refused
// ("--merges-file needs a file name"), never read as "the default file" or "no file".
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace andrea::cli {

/// Adds the option `name` ("--out") that stores its value into `target`, or throws
/// CLI::ValidationError "--out needs a file name" while parsing when the value is empty.
/// The help shows target's value, when it has one, as the default.
inline CLI::Option* add_file_option(CLI::App& app, const std::string& name, std::string& target,
                                    const std::string& help) {
  CLI::Option* option = app.add_option(
      name,
      [&target, name](const CLI::results_t& results) {
        if (results.at(0).empty()) throw CLI::ValidationError(name + " needs a file name");
        target = results.at(0);
        return true;
      },
      help);
  option->type_name("FILE")->expected(1);
  return target.empty() ? option : option->default_str(target);
}

}  // namespace andrea::cli
