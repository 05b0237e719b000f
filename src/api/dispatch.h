#pragma once
// run() at the level of a command line: what the report runs for its pages and how report_html()
// turns run()'s JSON options into the tokens the report reads.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "api/api.h"

namespace gpuplan::api {

// run() on a command line's tokens (argv after the command's name, without --catalog/--calibration:
// those are the session's): the same parse, evaluation and document.
nlohmann::json run_tokens(const Session& session, std::string_view command, const std::vector<std::string>& tokens);

// The tokens run() would parse for `options` ({"tp": 8, "sweep": true} -> --tp=8 --sweep).
std::vector<std::string> command_tokens(std::string_view command, const nlohmann::json& options);

}  // namespace gpuplan::api
