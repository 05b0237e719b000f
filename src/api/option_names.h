#pragma once
// run()'s option keys looked up once per parser: a lookup by CLI11 walks every option of the
// command, per key and call, and a parser (api.cc) serves a thread's calls of one command.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/options.h"

namespace gpuplan::api {

// The options option_tokens() found for the keys it was given ("isl", "--isl", "tokens_per_user"),
// with what it writes for each. Bounded: past kMaxKeys spellings the rest are looked up each time.
struct OptionNames {
  struct Found {
    const CLI::Option* option = nullptr;
    std::string flag;  // "--isl" (the option's first long name); empty for a positional argument
    bool positional = false, is_flag = false;
  };
  static constexpr std::size_t kMaxKeys = 256;
  std::unordered_map<std::string, Found> by_key;  // the key without its leading dashes
};

// option_tokens() and parse_options() (options.h) memoizing the key lookups in `names`, which
// belongs to `app` (its options never change once defined); null: looked up each time.
std::vector<std::string> option_tokens(const CLI::App& app, const nlohmann::json& options, OptionNames* names);
void parse_options(CLI::App& app, const nlohmann::json& options, RequestBase& req, OptionNames* names);

}  // namespace gpuplan::api
