// The metric names real tables write map to the canonical ones; a name without the unit its value
// depends on, or another metric, maps to none (the row is skipped naming it, never misread).
#include "validate/metric_name.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace gpuplan {
namespace {

TEST(MetricName, TablesSpellingsMapToTheCanonicalNames) {
  for (const auto& [cell, want] : std::vector<std::pair<const char*, const char*>>{
           {"step_time_s", "step_time_s"},
           {"STEP_TIME_S", "step_time_s"},
           {"Step time (s)", "step_time_s"},
           {"step time (sec)", "step_time_s"},
           {"tokens/s/GPU", "tokens_per_sec_per_gpu"},
           {"tok/s/gpu", "tokens_per_sec_per_gpu"},
           {"Tokens per second per GPU", "tokens_per_sec_per_gpu"},
           {"TFLOP/s per GPU", "tflops_per_gpu"},
           {"model TFLOPS/GPU", "tflops_per_gpu"},
           {"MFU (%)", "mfu"},
           {"tokens_per_sec_total", "tokens_per_sec_total"},
           {"Total tokens/s", "tokens_per_sec_total"},
           {"tokens/s/user", "tokens_per_sec_per_user"},
           {"TTFT (ms)", "ttft_ms"},
           {"ttft_ms", "ttft_ms"},
           {"TPOT_MS", "tpot_ms"},
           {"time per output token (ms)", "tpot_ms"}}) {
    EXPECT_EQ(canonical_metric_name(cell), want) << cell;
  }
  for (const char* cell : {"", "TTFT", "ttft (s)", "ITL (ms)", "tokens", "tokens/s/node", "latency"})
    EXPECT_EQ(canonical_metric_name(cell), "") << cell;
}

}  // namespace
}  // namespace gpuplan
