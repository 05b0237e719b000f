#pragma once
// Test support shared by the inference tests (inference_test.cc, disaggregated_test.cc): whether an
// evaluation that kept state between calls (InferenceEvaluator, DisaggregatedPools) gave the figures
// of a fresh one. Header-only; no library code includes it.
#include <gtest/gtest.h>

#include <string>

#include "inference/inference.h"

namespace gpuplan::result_testing {

// Every figure a serving answer reports, equal (not near: the kept state must not change a bit).
inline void expect_same_result(const InferenceResult& kept, const InferenceResult& fresh, const std::string& where) {
  EXPECT_EQ(kept.violations.size(), fresh.violations.size()) << where;
  EXPECT_EQ(kept.concurrency, fresh.concurrency) << where;
  EXPECT_EQ(kept.max_concurrency, fresh.max_concurrency) << where;
  EXPECT_EQ(kept.tokens_per_s_total, fresh.tokens_per_s_total) << where;
  EXPECT_EQ(kept.tokens_per_s_per_gpu, fresh.tokens_per_s_per_gpu) << where;
  EXPECT_EQ(kept.requests_per_s, fresh.requests_per_s) << where;
  EXPECT_EQ(kept.ttft_s, fresh.ttft_s) << where;
  EXPECT_EQ(kept.ttft_p99_s, fresh.ttft_p99_s) << where;
  EXPECT_EQ(kept.tpot_s, fresh.tpot_s) << where;
  EXPECT_EQ(kept.e2e_latency_s, fresh.e2e_latency_s) << where;
  EXPECT_EQ(kept.prefill_s, fresh.prefill_s) << where;
  EXPECT_EQ(kept.kv_transfer_s, fresh.kv_transfer_s) << where;
  EXPECT_EQ(kept.queue_wait_s, fresh.queue_wait_s) << where;
  EXPECT_EQ(kept.prefill_utilization, fresh.prefill_utilization) << where;
  EXPECT_EQ(kept.prefill_chunk.total_s, fresh.prefill_chunk.total_s) << where;
  EXPECT_EQ(kept.decode_step.total_s, fresh.decode_step.total_s) << where;
  EXPECT_EQ(kept.memory.total_bytes, fresh.memory.total_bytes) << where;
  EXPECT_EQ(kept.memory.max_concurrency, fresh.memory.max_concurrency) << where;
  EXPECT_EQ(kept.memory.fits, fresh.memory.fits) << where;
}

}  // namespace gpuplan::result_testing
