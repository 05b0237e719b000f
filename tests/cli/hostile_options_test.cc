// Every numeric option of every command, given 0, -1, nan, inf, 1e308 and junk: gpuplan either runs
// (exit 0) or refuses with exit 2 and a message naming the option; never a crash, a hang or exit 1.
// The options are read from each command's --help, so an option added later is covered too.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {
// The file's helpers by name: the CLI tests build in unity batches, which join files.
namespace hostile_options {

struct Command {
  const char* name;  // as typed after gpuplan, with a sub-command where there is one
  const char* base;  // arguments that make it run with defaults
};

const std::string kCluster = kSrc + "/examples/clusters/hgx-h100-256.yaml";

std::vector<Command> commands() {
  static const std::string cluster = "--cluster " + kCluster;
  static const std::string dataset = "--dataset " + kSrc + "/tests/cli/data/training-5-rows.csv";
  static const std::string export_args = "slurm " + cluster + " --output-dir /tmp/gpuplan_hostile_export";
  static const std::string schedule_args = cluster;
  return {
      {"compare", ""},
      {"recommend", "--model llama3.1-8b"},
      {"cost", ""},
      {"catalog list", ""},
      {"model show", "llama3.1-8b"},
      {"memory", "--model llama3.1-8b"},
      {"train", ""},
      {"infer", ""},
      {"search", "--model llama3.1-8b --system hgx-h100 --gpus 8 --global-batch 64"},
      {"scale", "--model llama3.1-8b --system hgx-h100 --gpus 8,16 --mode weak --batch-per-gpu 1"},
      {"validate", dataset.c_str()},
      {"calibrate", dataset.c_str()},
      {"schedule", schedule_args.c_str()},
      {"export", export_args.c_str()},
      {"site", "--power-mw 1"},
      {"goodput", ""},
      {"size", "--model deepseek-r1 --requests-per-s 5 --systems gb200-nvl72 --draws 50"},
      {"doctor", ""},
      {"probe", ""},
      {"report train", "--out /tmp/gpuplan_hostile_report.html"},
      {"report infer", "--out /tmp/gpuplan_hostile_report.html"},
  };
}

// Long names of the options whose type is a number, from `gpuplan <command> --help`.
std::vector<std::string> numeric_options(const std::string& command) {
  const CliResult help = run_gpuplan(command + " --help", 60);
  EXPECT_EQ(help.exit_code, 0) << command << " --help: " << help.err;
  static const std::regex option(R"(^\s+(?:-\w,)?(--[\w-]+)\s+\[?(INT|UINT|FLOAT|NUMBER)\b)");
  std::vector<std::string> out;
  std::istringstream lines(help.out);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line))
    if (std::regex_search(line, m, option)) out.push_back(m[1].str());
  return out;
}

class HostileOptions : public ::testing::TestWithParam<Command> {};

TEST_P(HostileOptions, ExitZeroOrTwoNamingTheOption) {
  const Command& c = GetParam();
  const auto options = numeric_options(c.name);
  if (std::string(c.name) != "catalog list" && std::string(c.name) != "validate" && std::string(c.name) != "export") {
    EXPECT_FALSE(options.empty()) << c.name << ": no numeric option found in --help";
  }
  const auto base = run_gpuplan(std::string(c.name) + " " + c.base, 60);
  const bool probe = std::string(c.name) == "probe";
  if (!probe) {
    ASSERT_EQ(base.exit_code, 0) << c.name << " " << c.base << ": " << base.err;
  }
  for (const auto& opt : options) {
    for (const char* value : {"0", "-1", "nan", "inf", "-inf", "1e308", "junk"}) {
      const std::string args = std::string(c.name) + " " + c.base + " " + opt + " " + value;
      const auto r = run_gpuplan(args, 60);
      // probe without a GPU fails at run time (exit 1) once its options are accepted.
      if (probe && r.exit_code == 1 && r.err.find("probe failed") != std::string::npos) continue;
      EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << args << " -> exit " << r.exit_code << "\n" << r.err;
      if (r.exit_code == 2) {
        EXPECT_NE(r.err.find(opt), std::string::npos) << args << ": the message does not name " << opt << "\n" << r.err;
      }
      // A negative value is never a default in disguise (no -1 "unset" sentinels).
      if (std::string(value) == "-1" && r.exit_code == 0) {
        EXPECT_NE(r.out, base.out) << args << " was accepted and changed nothing: is -1 an 'unset' sentinel?";
      }
      if (std::string(value) == "nan" || std::string(value) == "inf" || std::string(value) == "-inf" ||
          std::string(value) == "junk") {
        EXPECT_EQ(r.exit_code, 2) << args << " was accepted";
      }
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<Command>& info) {
  std::string n = info.param.name;
  for (char& ch : n)
    if (ch == ' ') ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(EveryCommand, HostileOptions, ::testing::ValuesIn(commands()), test_name);

}  // namespace hostile_options
}  // namespace
