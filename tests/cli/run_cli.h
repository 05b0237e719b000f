#pragma once
// Runs the gpuplan binary under test and captures what it prints and its exit code.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
  nlohmann::json json() const { return nlohmann::json::parse(out); }
};

// args: the command line after "gpuplan", shell-quoted by the caller where needed.
CliResult run_gpuplan(const std::string& args);
// The same under `timeout -s KILL timeout_s`: a run that hangs ends with exit code 137.
CliResult run_gpuplan(const std::string& args, int timeout_s);

// One CSV line's cells (RFC 4180 quotes): the test data files under tests/data.
std::vector<std::string> csv_cells(const std::string& line);
// The index of the column `name` in a header split by csv_cells; a test failure (and 0) when it has none.
std::size_t csv_column(const std::vector<std::string>& header, const std::string& name);

// Whether `text` contains `what` (the CLI tests' check on what a command printed).
inline bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The repository's root (sample files under examples/, data/).
inline const std::string kSrc = GPUPLAN_SOURCE_DIR;
