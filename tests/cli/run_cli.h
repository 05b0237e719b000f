#pragma once
// Runs the gpuplan binary under test and captures what it prints and its exit code.
#include <nlohmann/json.hpp>

#include <string>

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
  nlohmann::json json() const { return nlohmann::json::parse(out); }
};

// args: the command line after "gpuplan", shell-quoted by the caller where needed.
CliResult run_gpuplan(const std::string& args);
