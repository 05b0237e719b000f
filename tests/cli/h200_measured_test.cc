// Figures measured on a real H200 by scripts/h200/measure.py (tests/data/h200_measured.csv: the
// configuration, the machine, the date) replayed as the `gpuplan train|infer|memory` command a user runs: each
// prediction within the row's band of the measurement. Decode steps are timed as CUDA graphs, pure GPU
// time, so the engine's per-step host term (minus_field) is left out of the prediction.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.h"

namespace {

double dotted(const nlohmann::json& doc, const std::string& path) {
  const nlohmann::json* j = &doc;
  std::stringstream ss(path);
  std::string key;
  while (std::getline(ss, key, '.')) j = &j->at(key);
  return j->get<double>();
}

TEST(H200Measured, PredictionsWithinTheirBands) {
  std::ifstream in(kSrc + "/tests/data/h200_measured.csv");
  ASSERT_TRUE(in) << "tests/data/h200_measured.csv";
  std::string line;
  std::getline(in, line);
  const auto header = csv_cells(line);
  auto col = [&](const char* name) { return csv_column(header, name); };
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto c = csv_cells(line);
    std::string cmd = c[col("command")];
    for (size_t at = cmd.find("scripts/"); at != std::string::npos; at = cmd.find("scripts/", at + kSrc.size() + 9))
      cmd.replace(at, 8, kSrc + "/scripts/");
    const auto r = run_gpuplan(cmd);
    ASSERT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    const auto doc = r.json();
    double predicted = dotted(doc, c[col("field")]);
    if (!c[col("minus_field")].empty()) predicted -= dotted(doc, c[col("minus_field")]);
    const double measured = std::stod(c[col("measured")]);
    const double band = std::stod(c[col("band")]);
    EXPECT_LT(std::abs(predicted / measured - 1.0), band)
        << c[col("case")] << ": predicted " << predicted << ", measured " << measured << " (" << cmd << ")";
    ++rows;
  }
  EXPECT_GE(rows, 4);
}

}  // namespace
