#pragma once
// Shared pieces of the sub-commands: the options every command takes, catalog loading, JSON output.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan::cli {

// Exit codes: 0 success, 1 a runtime failure, 2 bad input (the user's to fix), 3 the plan asked for
// (or every plan the command could choose) does not fit in memory: the result is still printed,
// with the shortfall first.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitDoesNotFit = 3;

struct CommonOptions {
  std::vector<std::string> catalog_dirs;  // --catalog DIR (repeatable), then $GPUPLAN_CATALOG
  std::vector<std::string> calibration_files;  // --calibration FILE: catalog YAML merged last (probe output)
  bool json = false;                      // --json
};

// Adds --catalog, --calibration and --json to a command.
void add_common_options(CLI::App& app, CommonOptions& opts);
// The built-in catalog overlaid by --catalog dirs and $GPUPLAN_CATALOG (colon-separated).
Catalog load_catalog(const CommonOptions& opts);

// With --json anywhere on the command line (main() sets this), errors are printed as a JSON document
// on stdout too: {"schema": "gpuplan.error/v1", "message", "field", "exit_code"}; the exit code and the
// stderr line stay as they are.
void set_json_errors(bool on);
// Reports an error: "error: MESSAGE" on stderr, and the JSON document when set_json_errors(true).
void print_error(const std::string& message, const std::string& field, int exit_code);

// Parses argv with CLI11; returns -1 to continue, or the exit code (help printed: 0; error: 2).
int parse_args(CLI::App& app, int argc, char** argv);

// Wraps a command body: InputError and CLI11 errors -> message on stderr and exit 2; anything else
// -> message and exit 1.
template <typename F>
int run_guarded(F&& body);
int report_exception();

// Prints a versioned JSON document: {"schema": "gpuplan.<kind>/v1", ...payload}.
void print_json(const std::string& kind, nlohmann::json payload);

// Today's date in UTC as YYYY-MM-DD (stamps fitted or measured calibrations).
std::string today_utc();

// Human formatting helpers.
std::string human_bytes(double bytes);        // "141.1 GB"
std::string human_rate(double per_s, const char* unit);  // "989.4 T" + unit

template <typename F>
int run_guarded(F&& body) {
  try {
    return body();
  } catch (...) {
    return report_exception();
  }
}

}  // namespace gpuplan::cli
