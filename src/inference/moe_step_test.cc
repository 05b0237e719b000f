// MoE serving steps (inference/step.cc): the grouped expert GEMM as its rows per expert and the
// experts per token grow. Properties, not figures.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/test_catalog.h"
#include "inference/inference.h"
#include "inference/step.h"
#include "model/model_registry.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

InferenceWorkload fp8_workload() {
  InferenceWorkload w;
  w.weight_precision = Precision::fp8;
  w.kv_bytes_per_element = 1.0;
  w.isl = 1024;
  w.osl = 1024;
  return w;
}

double step_s(const ModelArch& m, const char* system, const InferenceParallel& par, double decode, double prefill) {
  const Hardware hw = serving_hardware(resolve_hardware(test_catalog(), system));
  const InferenceWorkload w = fp8_workload();
  const step::Shape s = step::shape_of(m, par, w.kv_bytes_per_element);
  return step::stage_step(m, hw, par, w, s, 1, decode, 2048, prefill, 1024).total_s;
}

TEST(MoeStep, ExpectedActiveExpertsIsTheClosedForm) {
  // Beyond the tokens that activate every expert the pow is skipped: the same value, bit for bit.
  for (int experts : {8, 16, 64, 128, 160, 256, 384, 512}) {
    for (int top_k : {1, 2, 4, 6, 8, 10}) {
      if (top_k > experts) continue;
      const double E = experts, share = double(top_k) / E;
      for (double tokens = 0.25; tokens < 100000; tokens = tokens * 1.01 + 0.5) {
        const double direct = E * (1.0 - std::pow(1.0 - share, tokens));
        EXPECT_EQ(expected_active_experts(experts, top_k, tokens), direct) << experts << " " << top_k << " " << tokens;
        // Asked again (the answer kept, or made again where another took its place): the same.
        EXPECT_EQ(expected_active_experts(experts, top_k, tokens), direct) << experts << " " << top_k << " " << tokens;
      }
    }
  }
}

TEST(MoeStep, DraftStageFromTheDeploymentsIsAFreshOne) {
  // The MTP draft head's stage made from its deployment's stage (its GEMMs kept) steps as one made
  // from scratch, bit for bit: dense and MoE models, TP, attention-DP with two-batch overlap, PP.
  const Hardware hw = serving_hardware(resolve_hardware(test_catalog(), "hgx-h200"));
  const InferenceWorkload w = fp8_workload();
  for (const char* model : {"deepseek-r1", "llama3.1-70b", "qwen3-30b-a3b"}) {
    const ModelArch m = resolve_model(model);
    for (InferenceParallel par : {InferenceParallel{1, 1, 1, false, false}, InferenceParallel{8, 1, 1, false, false},
                                  InferenceParallel{8, 8, 1, true, true}, InferenceParallel{4, 1, 2, false, false}}) {
      if (!m.is_moe()) par.ep = 1, par.attention_dp = false, par.two_batch_overlap = false;
      const step::Shape s = step::shape_of(m, par, w.kv_bytes_per_element);
      const step::Shape one = step::draft_shape(m, s);
      const step::Stage full(m, hw, par, w, s);
      const step::Stage derived(full, one), fresh(m, hw, par, w, one);
      for (double decode : {1.0, 7.0, 64.0, 300.0}) {
        for (double prefill : {0.0, 512.0}) {
          const StepTime a = derived.step(1, decode, 2048, prefill, 1024, 4.0);
          const StepTime b = fresh.step(1, decode, 2048, prefill, 1024, 4.0);
          EXPECT_EQ(a.total_s, b.total_s) << model << " tp" << par.tp << " " << decode << " " << prefill;
          EXPECT_EQ(a.gemm_s, b.gemm_s) << model << " tp" << par.tp << " " << decode << " " << prefill;
          EXPECT_EQ(a.tp_comm_s, b.tp_comm_s) << model << " tp" << par.tp << " " << decode << " " << prefill;
          EXPECT_EQ(a.ep_comm_s, b.ep_comm_s) << model << " tp" << par.tp << " " << decode << " " << prefill;
          EXPECT_EQ(a.pp_comm_s, b.pp_comm_s) << model << " tp" << par.tp << " " << decode << " " << prefill;
          EXPECT_EQ(a.weight_bytes_read, b.weight_bytes_read) << model << " tp" << par.tp << " " << decode;
        }
      }
    }
  }
}

TEST(MoeStep, MoreTokensNeverFaster) {
  // The grouped GEMM's rows per expert (M) grow with the step's tokens: tile padding may waste less
  // per row, but the step never gets shorter.
  const ModelArch m = resolve_model("qwen3-30b-a3b");
  InferenceParallel par;
  for (const char* sys : {"hgx-h100", "hgx-b200"}) {
    double last = 0;
    for (double tokens : {1.0, 8.0, 32.0, 64.0, 100.0, 128.0, 256.0, 1000.0, 2048.0, 8192.0}) {
      const double t = step_s(m, sys, par, 0, tokens);
      EXPECT_GE(t, last) << sys << " " << tokens;
      last = t;
    }
  }
}

TEST(MoeStep, MoreExpertsActivePerTokenNeverFaster) {
  // The same model routing each token to more experts (top-k up, expert size alike) moves and
  // multiplies more rows: never a shorter step, at decode and at prefill.
  ModelArch m = resolve_model("qwen3-30b-a3b");
  InferenceParallel par;
  for (double decode : {1.0, 64.0, 512.0}) {
    double last = 0;
    for (int k : {1, 2, 4, 8, 16}) {
      m.moe.top_k = k;
      const double t = step_s(m, "hgx-h100", par, decode, 0);
      EXPECT_GE(t, last) << decode << " decodes, top-" << k;
      last = t;
    }
  }
}

}  // namespace
}  // namespace gpuplan
