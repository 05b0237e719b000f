#pragma once
// From an HTTP request to the options of one API call: the query string's parameters (GET) or a JSON
// object body (POST) become the options object api::run takes, named as the CLI's long options. Pure.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuplan::server {

// The query's parameters in order (a key may repeat: a repeatable option). A key given as "true"/"false"
// is a flag; a value-less key ("sweep", "sweep=") is the empty string, which the API takes as a flag
// given where the option is a flag and refuses as an empty value where the option takes one ("model=");
// a key given more than once, or "positional", is an array of strings; anything else a string, as on
// the command line. Throws InputError naming the key when a flag value is repeated or a key is empty.
nlohmann::json options_from_query(const std::vector<std::pair<std::string, std::string>>& params);

// A POST body: a JSON object whose values are strings, numbers, booleans or arrays of those. Throws
// InputError naming "body" (not JSON, not an object) or the key (a nested object, null).
nlohmann::json options_from_body(std::string_view body);

// Refuses options the server does not take from a request (InputError naming the option as the
// API does, "--out"): those
// that write files (out, write, write-trace, write-bands, output-dir) and the session's own
// (catalog, calibration: give them to `gpuplan serve`). Drops "json" (the answer is JSON anyway).
nlohmann::json checked_options(nlohmann::json options);

// The command line the options reproduce: "gpuplan infer --model llama3.1-70b --sweep --json".
std::string command_line(std::string_view command, const nlohmann::json& options);

}  // namespace gpuplan::server
