// gpuplan: the command-line front end. Sub-commands come from one table; each is a thin layer over the
// library core (src/*), parsing options, calling pure evaluators and presenting their results.
#include <fmt/format.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common.h"
#include "core/suggest.h"

namespace {

struct SubCommand {
  const char* name;
  const char* help;
  int (*run)(int argc, char** argv);
};

constexpr SubCommand kCommands[] = {
    {"compare", "Two systems side by side under each yardstick (per GPU, system, $ and watt); --claim replays vendor claims",
     gpuplan::cli::cmd_compare},
    {"recommend", "Rank the catalog for a workload: fit, GPUs, time, cost, energy and the reasons",
     gpuplan::cli::cmd_recommend},
    {"cost", "TCO per GPU-hour by part; $ per million tokens, joules per token, cost of a whole run",
     gpuplan::cli::cmd_cost},
    {"catalog", "List accelerators, systems and networks, or show one with the source of each figure",
     gpuplan::cli::cmd_catalog},
    {"model", "List built-in models or show one (parameters, FLOPs, KV cache)", gpuplan::cli::cmd_model},
    {"memory", "Per-GPU memory for training under a plan, or for inference at a concurrency",
     gpuplan::cli::cmd_memory},
    {"train", "Predict one training step: time, tokens/s, MFU and where the time goes",
     gpuplan::cli::cmd_train},
    {"infer", "Predict serving: tokens/s per GPU and per user, TTFT, TPOT; --sweep for the Pareto frontier",
     gpuplan::cli::cmd_infer},
    {"search", "Search TP/PP/VP/CP/EP/DP, micro-batch, recompute and ZeRO for the fastest plan",
     gpuplan::cli::cmd_search},
    {"scale", "Sweep the GPU count: weak and strong scaling of MFU and tokens/s",
     gpuplan::cli::cmd_scale},
    {"validate", "Score the models against published measurements (training.csv schema)",
     gpuplan::cli::cmd_validate},
    {"calibrate", "Fit the efficiency parameters per accelerator generation on a dataset",
     gpuplan::cli::cmd_calibrate},
    {"schedule", "Replay a job trace on a cluster: FIFO, best-fit and NVLink-domain-aware placement side by side",
     gpuplan::cli::cmd_schedule},
    {"export", "Write Slurm, Kueue or Volcano configuration that keeps jobs inside NVLink domains",
     gpuplan::cli::cmd_export},
    {"fabric", "Scale-out fabric: switches by tier, NICs, optics and cables, network power and capex, per-GPU bandwidth",
     gpuplan::cli::cmd_fabric},
    {"site", "Site fit: rack and facility power, cooling and positions; what a power budget buys",
     gpuplan::cli::cmd_site},
    {"goodput", "Goodput under failures: blast radius, checkpoints, Young/Daly, time and cost with spares",
     gpuplan::cli::cmd_goodput},
    {"doctor", "Check this machine: GPUs, driver, CUDA, PyTorch, NVLink against the catalog's rules",
     gpuplan::cli::cmd_doctor},
    {"probe", "Measure this GPU (GEMM, HBM, power) against its datasheet; write a calibration file",
     gpuplan::cli::cmd_probe},
    {"report", "One self-contained HTML report (charts, tables, sources) of train, infer or schedule",
     gpuplan::cli::cmd_report},
    {"serve", "The local web app and its JSON API (/api/v1/<command>); 127.0.0.1 unless --host", gpuplan::cli::cmd_serve},
};

void print_usage() {
  std::cout << "gpuplan " << GPUPLAN_VERSION
            << ": plan, size and compare AI accelerator clusters.\n\n"
               "Usage: gpuplan <command> [options]   (gpuplan <command> --help for its options)\n\n"
               "Commands:\n";
  for (const auto& c : kCommands) std::cout << fmt::format("  {:<10} {}\n", c.name, c.help);
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
  for (const auto& c : kCommands) {
    if (name == c.name) {
      std::string label = std::string("gpuplan ") + c.name;
      std::vector<char*> args(argv + 1, argv + argc);
      args[0] = label.data();
      return c.run(static_cast<int>(args.size()), args.data());
    }
  }
  std::vector<std::string> names;
  for (const auto& c : kCommands) names.emplace_back(c.name);
  gpuplan::cli::print_error("unknown command '" + name + "'" + gpuplan::did_you_mean(name, names) +
                                "\nRun 'gpuplan --help' for the list of commands.",
                            "command", gpuplan::cli::kExitBadInput);
  return gpuplan::cli::kExitBadInput;
}
