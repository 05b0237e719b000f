// Published LoRA and QLoRA fine-tuning step times (tests/data/finetune_throughput.csv, sources in its rows)
// replayed as the `gpuplan train --method lora|qlora [--qlora-kernel ...] [--loss-precision ...]` command a
// user runs: each within the training error band's width of the measurement, and where the row states the
// peak memory (memory_gib), the predicted total within 15% of it. The bitsandbytes NF4 rows (qlora_kernel
// nf4-bnb, the default QLoRA kernel) are counted apart so that some stay. A model given as a config file
// (tests/data/models) is read from the source tree.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

TEST(FinetuneThroughput, PublishedLoraAndQloraStepTimes) {
  std::ifstream in(std::string(GPUPLAN_SOURCE_DIR) + "/tests/data/finetune_throughput.csv");
  ASSERT_TRUE(in) << "tests/data/finetune_throughput.csv";
  std::string line;
  std::getline(in, line);
  const auto header = csv_cells(line);
  auto col = [&](const char* name) { return csv_column(header, name); };
  int rows = 0, qlora = 0, nf4 = 0, memory_rows = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto c = csv_cells(line);
    std::string model = c[col("model")];
    if (model.size() > 5 && model.substr(model.size() - 5) == ".json") model = std::string(GPUPLAN_SOURCE_DIR) + "/" + model;
    qlora += c[col("method")] == "qlora";
    nf4 += c[col("method")] == "qlora" && c[col("qlora_kernel")] == "nf4-bnb";
    std::string cmd = "train --model " + model + " --system " + c[col("system")] + " --gpus " + c[col("num_gpus")] +
                      " --method " + c[col("method")] + " --lora-rank " + c[col("lora_rank")] + " --lora-targets " +
                      c[col("lora_targets")] + " --precision " + c[col("precision")] + " --seq " + c[col("seq_len")] +
                      " --global-batch " + c[col("gbs")] + " --plan " + c[col("plan")] + " --json";
    if (!c[col("qlora_kernel")].empty()) cmd += " --qlora-kernel " + c[col("qlora_kernel")];
    if (!c[col("loss_precision")].empty()) cmd += " --loss-precision " + c[col("loss_precision")];
    auto r = run_gpuplan(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    const double predicted = r.json()["step_time_s"].get<double>();
    const double measured = std::stod(c[col("value")]);
    EXPECT_LT(std::abs(predicted / measured - 1.0), 0.25) << cmd << ": predicted " << predicted << " s, measured "
                                                          << measured << " s";
    if (!c[col("memory_gib")].empty()) {
      const double memory = r.json()["memory"]["total_bytes"].get<double>() / (1024.0 * 1024 * 1024);
      const double memory_measured = std::stod(c[col("memory_gib")]);
      EXPECT_LT(std::abs(memory / memory_measured - 1.0), 0.15)
          << cmd << ": predicted " << memory << " GiB, measured " << memory_measured << " GiB";
      ++memory_rows;
    }
    ++rows;
  }
  EXPECT_GE(rows, 38);
  EXPECT_GE(qlora, 22);
  EXPECT_GE(nf4, 4);
  EXPECT_GE(memory_rows, 33);
}

}  // namespace
