#include <gtest/gtest.h>

#include <cstdio>

#include "run_cli.h"

TEST(Cli, HelpListsCommands) {
  auto r = run_gpuplan("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("catalog"), std::string::npos);
  EXPECT_NE(r.out.find("memory"), std::string::npos);
}

TEST(Cli, UnknownCommandSuggests) {
  auto r = run_gpuplan("catalgo list");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'catalog'"), std::string::npos) << r.err;
}

TEST(Cli, UnknownOptionIsBadInput) {
  auto r = run_gpuplan("catalog --no-such-option");
  EXPECT_EQ(r.exit_code, 2);
}

TEST(Cli, CalibrationFileReplacesAGenerationsEfficiencies) {
  const std::string path = "/tmp/gpuplan_cli_calibration_test.yaml";
  {
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("efficiencies:\n  - generation: hopper\n    gemm_max: 0.2\n", f);
    std::fclose(f);
  }
  const std::string args = "train --model llama3.1-8b --system hgx-h100 --gpus 8 --global-batch 16 --seq 4096 --json";
  auto base = run_gpuplan(args);
  auto slow = run_gpuplan(args + " --calibration " + path);
  ASSERT_EQ(base.exit_code, 0) << base.err;
  ASSERT_EQ(slow.exit_code, 0) << slow.err;
  EXPECT_GT(slow.json()["step_time_s"].get<double>(), 1.5 * base.json()["step_time_s"].get<double>());
  auto missing = run_gpuplan(args + " --calibration /no/such/file.yaml");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--calibration"), std::string::npos);
  std::remove(path.c_str());
}
