// gpuplan: the command-line front end. Sub-commands come from one table of handlers, their help from
// the API's commands() (plus the CLI-only ones); each is a thin layer over the API (src/api) and the
// library core, parsing options and presenting the results.
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

// Every sub-command's handler. The API's commands take their one-line help from api::commands(), so
// `gpuplan --help`, the Python module's gpuplan.commands() and the server's /api/v1 list the same
// commands with the same words; the CLI-only ones (local files and this machine) carry theirs here.
struct Handler {
  const char* name;
  int (*run)(int argc, char** argv);
};

constexpr Handler kHandlers[] = {
    {"compare", gpuplan::cli::cmd_compare},   {"recommend", gpuplan::cli::cmd_recommend},
    {"cost", gpuplan::cli::cmd_cost},         {"catalog", gpuplan::cli::cmd_catalog},
    {"model", gpuplan::cli::cmd_model},       {"memory", gpuplan::cli::cmd_memory},
    {"train", gpuplan::cli::cmd_train},       {"infer", gpuplan::cli::cmd_infer},
    {"search", gpuplan::cli::cmd_search},     {"scale", gpuplan::cli::cmd_scale},
    {"validate", gpuplan::cli::cmd_validate}, {"calibrate", gpuplan::cli::cmd_calibrate},
    {"schedule", gpuplan::cli::cmd_schedule}, {"export", gpuplan::cli::cmd_export},
    {"fabric", gpuplan::cli::cmd_fabric},     {"site", gpuplan::cli::cmd_site},
    {"goodput", gpuplan::cli::cmd_goodput},   {"doctor", gpuplan::cli::cmd_doctor},
    {"probe", gpuplan::cli::cmd_probe},       {"report", gpuplan::cli::cmd_report},
    {"serve", gpuplan::cli::cmd_serve},
};

// The commands only the CLI has, each listed after the API command it follows in the help.
struct CliOnly {
  const char* name;
  const char* after;  // the API command it follows; empty: at the end
  const char* help;
};

constexpr CliOnly kCliOnly[] = {
    {"calibrate", "validate", "Fit the efficiency parameters per accelerator generation on a dataset"},
    {"export", "schedule", "Write Slurm, Kueue or Volcano configuration that keeps jobs inside NVLink domains"},
    {"doctor", "", "Check this machine: GPUs, driver, CUDA, PyTorch, NVLink against the catalog's rules"},
    {"probe", "", "Measure this GPU (GEMM, HBM, power) against its datasheet; write a calibration file"},
    {"report", "", "One self-contained HTML report (charts, tables, sources) of train, infer or schedule"},
    {"serve", "", "The local web app and its JSON API (/api/v1/<command>); 127.0.0.1 unless --host"},
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
  for (const auto& c : kHandlers) {
    if (name == c.name) {
      std::string label = std::string("gpuplan ") + c.name;
      std::vector<char*> args(argv + 1, argv + argc);
      args[0] = label.data();
      return c.run(static_cast<int>(args.size()), args.data());
    }
  }
  std::vector<std::string> names;
  for (const auto& c : kHandlers) names.emplace_back(c.name);
  gpuplan::cli::print_error("unknown command '" + name + "'" + gpuplan::did_you_mean(name, names) +
                                "\nRun 'gpuplan --help' for the list of commands.",
                            "command", gpuplan::cli::kExitBadInput);
  return gpuplan::cli::kExitBadInput;
}
