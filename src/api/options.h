#pragma once
// The option machinery every command shares: one CLI11 definition of each command's options serves
// the CLI (argv), run() (a JSON object of options) and therefore the Python keywords and the HTTP
// queries, with the same ranges and the same error messages.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::api {

// What every request struct carries: the options given explicitly (their long names with dashes),
// for the commands whose defaults depend on whether an option was typed.
struct RequestBase {
  std::vector<std::string> given_options;
  bool given(std::string_view option) const;
  // --global-batch, where given, is 1 to 1e9 sequences (InputError naming the option otherwise); not given,
  // the command takes the model's default (choose_global_batch).
  void check_global_batch(long long sequences) const;
};

// Every option value given to `app` (and its sub-commands) must be non-empty, and a numeric one a finite
// number: NaN passes every `x < lo || x > hi` range check, and inf overflows what is computed from it.
void check_option_values(CLI::App& app);

// After a parse: records every option given on the command line into req.given_options.
void record_given(const CLI::App& app, RequestBase& req);

// run()'s options -> the tokens of a command line: {"plan.tp": 8, "sweep": true, "gpus": [8, 16],
// "positional": ["show", "h100"]} -> show h100 --plan.tp 8 --sweep --gpus 8 --gpus 16. Keys may be
// written with or without the leading dashes, and with '_' for '-' (Python keywords). A flag takes true,
// false or "" (given, as a value-less HTTP query parameter gives it); an empty value of any other option
// is refused by its check. Unknown keys and values of the wrong kind throw InputError naming the key.
std::vector<std::string> option_tokens(const CLI::App& app, const nlohmann::json& options);

// Parses run()'s options with the command's own definitions; CLI11's errors become InputError
// naming the option ("--isl"). Fills req.given_options.
void parse_options(CLI::App& app, const nlohmann::json& options, RequestBase& req);

// Parses a command line's tokens (argv after the command's name) with the command's definitions;
// CLI11's errors become InputError naming the option. Fills req.given_options.
void parse_tokens(CLI::App& app, std::vector<std::string> tokens, RequestBase& req);

}  // namespace gpuplan::api
