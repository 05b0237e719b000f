// gpuplan: the command-line front end. Its commands are the API's (api::commands(), one table in
// src/api/api.cc, run by run_api_command) plus the CLI-only ones below; each is a thin layer over the
// API (src/api) and the library core, parsing options and presenting the results.
#include <fmt/format.h>

#include <cstring>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "api/api.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/suggest.h"

namespace {

// The API's commands (api::commands()) all run through run_api_command(); these are the CLI's own
// (local files and this machine), each with its handler and its line in the help, listed after the
// API command it follows.
struct CliOnly {
  const char* name;
  const char* after;  // the API command it follows; empty: at the end
  const char* help;
  int (*run)(int argc, char** argv);
};

constexpr CliOnly kCliOnly[] = {
    {"calibrate", "validate", "Fit the efficiency parameters per accelerator generation on a dataset",
     gpuplan::cli::cmd_calibrate},
    {"export", "schedule", "Write Slurm, Kueue or Volcano configuration that keeps jobs inside NVLink domains",
     gpuplan::cli::cmd_export},
    {"doctor", "", "Check this machine: GPUs, driver, CUDA, PyTorch, NVLink against the catalog's rules",
     gpuplan::cli::cmd_doctor},
    {"probe", "", "Measure this GPU (GEMM, HBM, power) against its datasheet; write a calibration file",
     gpuplan::cli::cmd_probe},
    {"report", "", "One self-contained HTML report (charts, tables, sources) of train, infer or schedule",
     gpuplan::cli::cmd_report},
    {"serve", "", "The local web app and its JSON API (/api/v1/<command>); 127.0.0.1 unless --host",
     gpuplan::cli::cmd_serve},
};

// The help table: the API's commands in their order, the CLI-only ones after theirs.
std::vector<std::pair<std::string, std::string>> command_table() {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& c : gpuplan::api::commands()) {
    rows.emplace_back(c.name, c.help);
    for (const auto& o : kCliOnly)
      if (c.name == o.after) rows.emplace_back(o.name, o.help);
  }
  for (const auto& o : kCliOnly)
    if (!*o.after) rows.emplace_back(o.name, o.help);
  return rows;
}

void print_usage() {
  std::cout << "gpuplan " << GPUPLAN_VERSION
            << ": plan, size and compare AI accelerator clusters.\n\n"
               "Usage: gpuplan <command> [options]   (gpuplan <command> --help for its options)\n\n"
               "Commands:\n";
  for (const auto& [name, help] : command_table()) std::cout << fmt::format("  {:<10} {}\n", name, help);
  std::cout << "\nCommon options: --json (versioned JSON output), --catalog DIR (extend or override "
               "the built-in catalog).\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    print_usage();
    return 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "gpuplan " << GPUPLAN_VERSION << "\n";
    return 0;
  }
  const std::string name = argv[1];
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--json")) gpuplan::cli::set_json_errors(true);
  std::string label = "gpuplan " + name;
  std::vector<char*> args(argv + 1, argv + argc);
  args[0] = label.data();
  const int args_count = static_cast<int>(args.size());
  for (const auto& c : kCliOnly)
    if (name == c.name) return c.run(args_count, args.data());
  for (const auto& c : gpuplan::api::commands())
    if (name == c.name) return gpuplan::cli::run_api_command(name, args_count, args.data());
  std::vector<std::string> names;
  for (const auto& [command, help] : command_table()) names.push_back(command);
  gpuplan::cli::print_error("unknown command '" + name + "'" + gpuplan::did_you_mean(name, names) +
                                "\nRun 'gpuplan --help' for the list of commands.",
                            "command", gpuplan::cli::kExitBadInput);
  return gpuplan::cli::kExitBadInput;
}
