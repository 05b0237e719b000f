// Frontier MoE serving: properties of MTP, disaggregated pools and wide expert parallelism.
#include <gtest/gtest.h>

#include "catalog/test_catalog.h"
#include "core/error.h"
#include "inference/disaggregated.h"
#include "inference/engine.h"
#include "inference/inference.h"
#include "inference/speculative.h"
#include "model/model_registry.h"
#include "physics/collective.h"
#include "physics/hardware.h"

namespace gpuplan {
namespace {

InferenceWorkload serving(Precision p, long long isl, long long osl, long long conc, int gpus) {
  InferenceWorkload w;
  w.weight_precision = p;
  w.kv_bytes_per_element = 1.0;
  w.isl = isl;
  w.osl = osl;
  w.concurrency = conc;
  w.num_gpus = gpus;
  return w;
}

TEST(Speculative, AcceptedLengthIsTheGeometricSum) {
  EXPECT_DOUBLE_EQ(mtp_accepted_length(0, 0.9), 1.0);
  EXPECT_DOUBLE_EQ(mtp_accepted_length(1, 0.8), 1.8);
  EXPECT_NEAR(mtp_accepted_length(3, 0.5), 1.875, 1e-12);
  EXPECT_DOUBLE_EQ(mtp_accepted_length(4, 1.0), 5.0);
}

// At batch 1 decode streams the weights; verifying k + 1 tokens costs little more than one, and the
// draft head is one layer: tokens/s per user never drops with MTP on, for any k at the default
// acceptance or better. (Below it an MoE can lose: its k + 1 verify tokens route to up to k + 1
// times the experts, whose weights the step then streams; k = 4 at 0.3 does on DeepSeek-R1.)
TEST(Speculative, MtpNeverLowersTokensPerUserAtBatchOne) {
  struct Case {
    const char* model;
    const char* system;
    Precision p;
    int tp;
  };
  for (const Case& c : {Case{"deepseek-r1", "hgx-h200", Precision::fp8, 8},
                        Case{"deepseek-r1", "gb200-nvl72", Precision::nvfp4, 4},
                        Case{"llama3.1-70b", "hgx-h100", Precision::fp8, 4}}) {
    const auto m = resolve_model(c.model);
    const auto hw = resolve_hardware(test_catalog(), c.system);
    InferenceParallel par{c.tp, m.is_moe() ? c.tp : 1, 1, false};
    auto w = serving(c.p, 1024, 1024, 1, c.tp);
    const double off = evaluate_inference(m, hw, par, w).tokens_per_s_per_user;
    for (int k = 1; k <= 4; ++k)
      for (double a : {mtp_accept_default(), 0.7, 0.85}) {
        w.mtp_draft_tokens = k;
        w.mtp_accept = a;
        const InferenceResult r = evaluate_inference(m, hw, par, w);
        EXPECT_GE(r.tokens_per_s_per_user, off) << c.model << " k=" << k << " a=" << a;
        EXPECT_NEAR(r.decode_step.parts_sum(), r.decode_step.total_s, 1e-12);
        EXPECT_GT(r.decode_step.draft_s, 0.0);
      }
  }
}

// SGLang's speculative worker with its host work in series with the GPU (spec v1; FlashInfer's eager
// draft extend): each MTP step waits for it, step + per sequence x the rank's batch (+ the eager draft
// extend where flagged). The added time is exactly that, grows with the batch, and nothing changes where
// the worker overlaps it (mtp_host_in_series false) or MTP is off.
TEST(Speculative, SerialHostWorkAddsToEveryStepAndGrowsWithTheBatch) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-h200");
  const InferenceParallel par{8, 1, 1, false};
  double last = 0;
  for (long long b : {1LL, 4LL, 16LL, 64LL, 128LL}) {
    for (bool disagg : {false, true}) {
      auto w = serving(Precision::fp8, 8192, 1024, b, 8);
      w.decode_only = disagg;
      w.mtp_draft_tokens = 2;
      const InferenceResult plain = evaluate_inference(m, hw, par, w);
      w.mtp_host_step_s = 1.5e-3;
      w.mtp_host_per_seq_step_s = 100e-6;
      w.mtp_eager_draft_extend_s = 5e-3;
      EXPECT_DOUBLE_EQ(evaluate_inference(m, hw, par, w).decode_step.total_s, plain.decode_step.total_s)
          << "overlapped: not modelled";
      w.mtp_host_in_series = true;
      const InferenceResult serial = evaluate_inference(m, hw, par, w);
      w.mtp_draft_extend_eager = true;
      const InferenceResult eager = evaluate_inference(m, hw, par, w);
      const double added = serial.decode_step.total_s - plain.decode_step.total_s;
      EXPECT_NEAR(added, 1.5e-3 + 100e-6 * double(serial.batch_per_instance), 1e-9) << b;
      EXPECT_NEAR(eager.decode_step.total_s - serial.decode_step.total_s, 5e-3, 1e-9) << b;
      EXPECT_NEAR(serial.decode_step.parts_sum(), serial.decode_step.total_s, 1e-12);
      EXPECT_GT(serial.tpot_s, plain.tpot_s);
      if (!disagg) {
        EXPECT_GT(added, last) << "grows with the batch";
        last = added;
      }
      // MTP off: the speculative worker's host work does not exist.
      w.mtp_draft_tokens = 0;
      auto off = w;
      off.mtp_host_in_series = false;
      EXPECT_DOUBLE_EQ(evaluate_inference(m, hw, par, w).decode_step.total_s,
                       evaluate_inference(m, hw, par, off).decode_step.total_s);
    }
  }
}

// With the SGLang worker's fitted host work in series (data/catalog/serving_engines.yaml), MTP at
// batch 1 still never lowers tokens/s per user on the deployments InferenceX ran it on (DeepSeek-R1
// FP8 TP8 on H200, B200, B300; H100 TP16 over two nodes), at short and long contexts: the host work is
// short beside a step's weight streaming. The exception is FlashInfer's eager draft extend on one H200
// node, whose steps are the shortest of these: there MTP at batch 1 is about even (within 15%), as
// measured (InferenceX H200 SGLang FP8 at 4 clients: 9.85 ms TPOT with MTP, 10.27 ms without).
TEST(Speculative, SerialHostWorkKeepsMtpAheadAtBatchOne) {
  const auto m = resolve_model("deepseek-r1");
  const EngineParams sg = engine_params(test_catalog(), "sglang");
  ASSERT_GT(sg.mtp_host_step_s + sg.mtp_host_per_seq_step_s + sg.mtp_eager_draft_extend_s, 0.0);
  for (const char* sys : {"hgx-h200", "hgx-b200", "hgx-b300", "hgx-h100"}) {
    const auto hw = resolve_hardware(test_catalog(), sys);
    const bool hopper = std::string(sys) == "hgx-h200" || std::string(sys) == "hgx-h100";
    const int tp = std::string(sys) == "hgx-h100" ? 16 : 8;
    const InferenceParallel par{tp, 1, 1, false};
    for (bool eager : {false, true}) {
      if (eager && !hopper) continue;  // FlashInfer is the Hopper backend of these runs
      for (long long isl : {1024LL, 8192LL}) {
        auto w = serving(Precision::fp8, isl, 1024, 1, tp);
        const double off = evaluate_inference(m, hw, par, w).tokens_per_s_per_user;
        w.mtp_draft_tokens = 2;
        w.mtp_host_step_s = sg.mtp_host_step_s;
        w.mtp_host_per_seq_step_s = sg.mtp_host_per_seq_step_s;
        w.mtp_eager_draft_extend_s = sg.mtp_eager_draft_extend_s;
        w.mtp_host_in_series = true;
        w.mtp_draft_extend_eager = eager;
        const double on = evaluate_inference(m, hw, par, w).tokens_per_s_per_user;
        if (eager && tp == 8)
          EXPECT_NEAR(on / off, 1.0, 0.15) << sys << " isl " << isl;
        else
          EXPECT_GE(on, off) << sys << " isl " << isl << (eager ? " eager draft extend" : "");
      }
    }
  }
}

TEST(Speculative, SerialHostWorkOutOfRangeIsAnInputError) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-h200");
  const InferenceParallel par{8, 1, 1, false};
  for (int field = 0; field < 3; ++field) {
    auto w = serving(Precision::fp8, 1024, 1024, 4, 8);
    w.mtp_draft_tokens = 2;
    const char* name = field == 0 ? "mtp_host_step_s" : field == 1 ? "mtp_host_per_seq_step_s" : "mtp_eager_draft_extend_s";
    (field == 0 ? w.mtp_host_step_s : field == 1 ? w.mtp_host_per_seq_step_s : w.mtp_eager_draft_extend_s) = -1e-3;
    try {
      evaluate_inference(m, hw, par, w);
      FAIL() << name << " accepted a negative value";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

// A disaggregated decode worker's steps carry no prompts: at the same decode batch its step is the
// aggregated engine's step without the prefill chunks, and shorter by them.
TEST(Disaggregated, DecodeStepsCarryNoPrefill) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-h200");
  const InferenceParallel par{8, 8, 1, true};
  auto w = serving(Precision::fp8, 8192, 1024, 64, 8);
  const InferenceResult agg = evaluate_inference(m, hw, par, w);
  w.decode_only = true;
  const InferenceResult dec = evaluate_inference(m, hw, par, w);
  EXPECT_LT(dec.tpot_s, 0.8 * agg.tpot_s);  // 8K prompts make the mixed steps much longer
  // The disaggregated deployment's TPOT is its decode pool's at its batch: no prefill in it.
  DisaggregatedDeployment d{par, 8, par, 8};
  auto wd = serving(Precision::fp8, 8192, 1024, 64, 16);
  const InferenceResult r = evaluate_disaggregated(m, hw, d, wd);
  ASSERT_TRUE(r.valid());
  EXPECT_TRUE(r.disaggregated);
  EXPECT_LE(r.tpot_s, dec.tpot_s * 1.0001);
  EXPECT_GT(r.kv_transfer_s, 0.0);
  EXPECT_GT(r.ttft_s, r.prefill_s);  // TTFT includes the prefill and the KV hand-off
  EXPECT_NEAR(r.tokens_per_s_per_gpu * 16, r.tokens_per_s_total, 1e-6 * r.tokens_per_s_total);
}

// The KV cache crosses NVLink inside one NVL72 rack and RDMA between HGX nodes: the same pools move
// it faster on the rack.
TEST(Disaggregated, KvTransferUsesTheLinkTierItSpans) {
  const auto m = resolve_model("deepseek-r1");
  const auto nvl = resolve_hardware(test_catalog(), "gb200-nvl72");
  const auto hgx = resolve_hardware(test_catalog(), "hgx-b200");
  const InferenceParallel par{8, 8, 1, true};
  DisaggregatedDeployment d{par, 8, par, 8};
  const auto w = serving(Precision::nvfp4, 8192, 1024, 64, 16);
  EXPECT_LT(kv_transfer_s(m, nvl, d, w, 0.0), kv_transfer_s(m, hgx, d, w, 0.0));
  // Sent layer by layer: a transfer shorter than the prefill exposes only its last layer's share.
  EXPECT_LT(kv_transfer_s(m, hgx, d, w, 10.0), kv_transfer_s(m, hgx, d, w, 0.0));
}

TEST(Disaggregated, BadPoolsNameTheOption) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-h200");
  const InferenceParallel par{8, 8, 1, false};
  const auto w = serving(Precision::fp8, 1024, 1024, 8, 16);
  try {
    evaluate_disaggregated(m, hw, {par, 12, par, 8}, w);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--prefill-gpus"), std::string::npos) << e.what();
  }
  try {
    evaluate_disaggregated(m, hw, {par, 8, par, 0}, w);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--decode-gpus"), std::string::npos) << e.what();
  }
}

// Wider EP spreads the routed experts over more GPUs: fewer weight bytes on each, up to a whole
// NVL72 rack, and more sequences fit.
TEST(WideEp, WiderEpLowersWeightBytesPerGpu) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "gb200-nvl72");
  double last_weights = 1e300;
  long long last_kv = 0;
  for (int ep : {4, 8, 16, 32, 64}) {
    const InferenceParallel par{ep, ep, 1, true};
    const InferenceResult r = evaluate_inference(m, hw, par, serving(Precision::nvfp4, 1024, 1024, 0, ep));
    ASSERT_TRUE(r.valid()) << ep;
    EXPECT_LT(r.memory.weights_bytes, last_weights) << ep;
    EXPECT_GT(r.max_concurrency, last_kv) << ep;
    last_weights = r.memory.weights_bytes;
    last_kv = r.max_concurrency;
  }
}

// Attention-DP with the dense layers replicated (TensorRT-LLM, vLLM): each rank holds the dense MLPs',
// the shared experts' and the output head's whole weights, so its KV pool holds fewer sequences and a
// decode step streams more bytes than with them split over the ranks (SGLang's default); the dense
// layers gather nothing. A model without dense layers or shared experts loses only the head's share.
TEST(WideEp, ReplicatedDenseLayersTakeTheirWeightsOnEveryRank) {
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  const InferenceParallel adp{8, 8, 1, true};
  const auto m = resolve_model("llama4-maverick");  // interleaved dense layers and a shared expert
  auto w = serving(Precision::fp8, 1024, 1024, 0, 8);
  const InferenceResult split = evaluate_inference(m, hw, adp, w);
  w.attention_dp_dense_replicated = true;
  const InferenceResult repl = evaluate_inference(m, hw, adp, w);
  ASSERT_TRUE(split.valid() && repl.valid());
  const LayerParams dense = layer_params(m, false), moe = layer_params(m, true);
  const double dense_layers = m.layers - m.moe_layers(), moe_layers = m.moe_layers();
  ASSERT_GT(dense_layers, 0);
  ASSERT_GT(moe.moe_shared, 0);
  // FP8: a byte a parameter, 7/8 of it beyond the split share.
  const double extra = (dense_layers * dense.mlp_dense + moe_layers * moe.moe_shared) * 7.0 / 8.0;
  EXPECT_GT(repl.memory.weights_bytes - split.memory.weights_bytes, extra);
  EXPECT_LT(repl.max_concurrency, split.max_concurrency);
  auto at = w;
  at.concurrency = 64, at.decode_only = true;
  auto at_split = at;
  at_split.attention_dp_dense_replicated = false;
  const InferenceResult a = evaluate_inference(m, hw, adp, at), b = evaluate_inference(m, hw, adp, at_split);
  EXPECT_GT(a.decode_step.weight_bytes_read, b.decode_step.weight_bytes_read + 0.9 * extra);
  EXPECT_EQ(a.decode_step.tp_comm_s, 0.0);
  EXPECT_GT(b.decode_step.tp_comm_s, 0.0);
}

// How the ranks' tokens reach the experts: gathered to every rank (vLLM's allgather_reducescatter,
// TensorRT-LLM without multi-node NVLink) or sent as top-k copies (all-to-all: TensorRT-LLM's MNNVL on
// an NVL72 rack where EP exceeds the top-k, DeepEP). On an HGX node TensorRT-LLM's rule gathers as
// vLLM's does; on NVL72 it exchanges all-to-all at EP 16 > top-8 and gathers at EP 8.
TEST(WideEp, TensorRtLlmExchangesAllToAllOnlyOverMultiNodeNvlink) {
  const auto m = resolve_model("deepseek-r1");
  auto w = serving(Precision::nvfp4, 1024, 1024, 512, 8);
  w.decode_only = true;
  auto comm = [&](const char* system, int ep, MoeExchange x) {
    auto v = w;
    v.num_gpus = ep;
    v.attention_dp_moe_exchange = x;
    return evaluate_inference(m, resolve_hardware(test_catalog(), system), {ep, ep, 1, true}, v).decode_step.ep_comm_s;
  };
  EXPECT_EQ(comm("hgx-b200", 8, MoeExchange::all_gather_unless_mnnvl), comm("hgx-b200", 8, MoeExchange::all_gather));
  EXPECT_NE(comm("hgx-b200", 8, MoeExchange::all_gather), comm("hgx-b200", 8, MoeExchange::all_to_all));
  EXPECT_EQ(comm("gb200-nvl72", 16, MoeExchange::all_gather_unless_mnnvl),
            comm("gb200-nvl72", 16, MoeExchange::all_to_all));
  EXPECT_EQ(comm("gb200-nvl72", 8, MoeExchange::all_gather_unless_mnnvl),
            comm("gb200-nvl72", 8, MoeExchange::all_gather));
  EXPECT_TRUE(resolve_hardware(test_catalog(), "gb200-nvl72").fabric.multi_node_nvlink);
  EXPECT_FALSE(resolve_hardware(test_catalog(), "hgx-b200").fabric.multi_node_nvlink);
}

// An overlay that states an engine's attention-DP layout reaches the workload through the one
// apply_engine_facts (`infer --engine` and every validated row); the built-in entries state none.
TEST(WideEp, AnEngineLayoutReachesTheWorkload) {
  EXPECT_FALSE(engine_params(test_catalog(), "TensorRT-LLM").attention_dp_dense_replicated);
  Catalog c = test_catalog();
  c.merge_yaml("serving_engines:\n  - name: vllm\n    attention_dp_dense: replicated\n"
               "    attention_dp_moe_exchange: all_gather\n", "overlay.yaml");
  const EngineParams p = engine_params(c, "vLLM 0.19");
  InferenceWorkload w;
  apply_engine_facts(p, w);
  EXPECT_TRUE(w.attention_dp_dense_replicated);
  EXPECT_EQ(w.attention_dp_moe_exchange, MoeExchange::all_gather);
  EXPECT_EQ(w.kv_pool, KvPoolRule::whole_share);  // the entry's other facts alike
  EXPECT_EQ(parse_moe_exchange("all_gather"), MoeExchange::all_gather);
  EXPECT_FALSE(parse_moe_exchange("alltoall").has_value());
}

// At decode's few tokens the busiest EP rank holds more of the active experts than the mean rank and
// streams their weights whole, where TP splits every active expert evenly: EP8 decode streams more
// expert bytes per GPU than TP8 at batch 1-4 (measured: TensorRT-LLM DeepSeek-R1 FP8 on B200 at 4
// clients, 14.6 ms TPOT with EP8 against 8.7-10.1 with EP1, InferenceX), and the same once every
// expert is active (large batch: each rank streams all it holds).
TEST(WideEp, BusiestRankStreamsMoreExpertsAtSmallBatchOnly) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  const InferenceParallel tp8{8, 1, 1, false}, ep8{8, 8, 1, false};
  for (long long b : {1LL, 2LL, 4LL}) {
    auto w = serving(Precision::fp8, 1024, 1024, b, 8);
    w.decode_only = true;
    const InferenceResult t = evaluate_inference(m, hw, tp8, w), e = evaluate_inference(m, hw, ep8, w);
    ASSERT_TRUE(t.valid() && e.valid()) << b;
    EXPECT_GT(e.decode_step.weight_bytes_read, 1.2 * t.decode_step.weight_bytes_read) << b;
    EXPECT_GT(e.tpot_s, t.tpot_s) << b;
  }
  auto w = serving(Precision::fp8, 1024, 1024, 1024, 8);
  w.decode_only = true;
  const InferenceResult t = evaluate_inference(m, hw, tp8, w), e = evaluate_inference(m, hw, ep8, w);
  ASSERT_TRUE(t.valid() && e.valid());
  EXPECT_NEAR(e.decode_step.weight_bytes_read / t.decode_step.weight_bytes_read, 1.0, 0.1);
}

// Prompts ride in whole chunks: a request's prompt stalls its batch once per osl output tokens by
// about one chunk's prefill, so the interference on TPOT is near B x prefill / osl. Spread a few
// tokens into every step instead, DeepSeek-R1's prompt tokens would activate more experts in every
// step and the interference would be several times that (8K/1K at 4 sequences: ~1.6x TPOT).
TEST(ContinuousBatching, PromptsInterfereByAboutTheirOwnPrefillPerOutputToken) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  const InferenceParallel par{8, 1, 1, false};
  for (long long b : {2LL, 4LL, 8LL}) {
    auto w = serving(Precision::fp8, 8192, 1024, b, 8);
    const InferenceResult mixed = evaluate_inference(m, hw, par, w);
    w.decode_only = true;
    const InferenceResult dec = evaluate_inference(m, hw, par, w);
    ASSERT_TRUE(mixed.valid() && dec.valid()) << b;
    const double interference_s = mixed.tpot_s - dec.tpot_s;
    const double chunk_per_token_s = double(b) * mixed.prefill_s / 1024.0;
    EXPECT_GT(interference_s, 0.5 * chunk_per_token_s) << b;
    EXPECT_LT(interference_s, 1.2 * chunk_per_token_s) << b;
  }
}

// An MoE layer launches the router, top-k, permute and finalize kernels on top of a dense layer's,
// whatever its experts' size: a small-active MoE's decode step carries at least 12 kernel overheads
// per layer (gpt-oss-20b: every layer MoE).
TEST(ContinuousBatching, MoeLayersLaunchMoreKernels) {
  const auto moe = resolve_model("gpt-oss-20b");
  ASSERT_TRUE(moe.is_moe());
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  auto w = serving(Precision::fp8, 1024, 1024, 1, 1);
  w.decode_only = true;
  const InferenceResult r = evaluate_inference(moe, hw, InferenceParallel{1, 1, 1, false}, w);
  ASSERT_TRUE(r.valid());
  const double kernel_s = serving_hardware(hw).efficiency.infer_kernel_overhead_s;
  EXPECT_GE(r.decode_step.overhead_s, 12.0 * moe.layers * kernel_s);
}

// Uniform routing leaves the busiest EP rank more loaded the fewer rows each rank gets; the skew
// parameter scales it, and bad values are refused.
TEST(WideEp, ExpertSkewSlowsPrefillAndIsChecked) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "gb200-nvl72");
  const InferenceParallel par{32, 32, 1, true};
  auto w = serving(Precision::nvfp4, 8192, 1024, 0, 32);
  const double base = prefill_step(m, hw, par, w, 32 * 8192.0).total_s;
  w.expert_skew = 1.5;
  EXPECT_GT(prefill_step(m, hw, par, w, 32 * 8192.0).total_s, base);
  w.expert_skew = 0.5;
  EXPECT_THROW(evaluate_inference(m, hw, par, w), InputError);
}

// Two micro-batches never make a step slower (the engine keeps them only where they pay).
TEST(WideEp, TwoBatchOverlapNeverSlows) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  for (long long conc : {8LL, 256LL, 2048LL}) {
    InferenceParallel par{8, 8, 1, true};
    const auto w = serving(Precision::nvfp4, 1024, 1024, conc, 8);
    const double off = evaluate_inference(m, hw, par, w).tpot_s;
    par.two_batch_overlap = true;
    EXPECT_LE(evaluate_inference(m, hw, par, w).tpot_s, off * (1 + 1e-12)) << conc;
  }
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// Overload: a step cannot carry more than max_num_tokens, so the batch that continuous batching
// sustains is capped (decodes plus the replacing prompts within the budget); more requests queue
// for admission: TTFT grows with the load, TPOT stays that of the capped batch.
TEST(Overload, MoreRequestsQueueInsteadOfSlowingDecode) {
  const auto m = resolve_model("llama3.1-8b");
  const auto hw = resolve_hardware(test_catalog(), "h100-sxm");
  const InferenceParallel par{1, 1, 1, false};
  auto w = serving(Precision::fp8, 467, 16, 0, 1);
  const InferenceResult cap = evaluate_inference(m, hw, par, w);
  ASSERT_TRUE(cap.valid());
  // 8192 tokens per step over (1 + 467/16) tokens per sequence.
  EXPECT_LE(cap.max_concurrency, 8192 / (1 + 467 / 16));
  w.concurrency = 4 * cap.max_concurrency;
  const InferenceResult over = evaluate_inference(m, hw, par, w);
  EXPECT_NEAR(over.tpot_s, cap.tpot_s, 1e-12);
  EXPECT_GT(over.ttft_s, 2.0 * cap.ttft_s);
  EXPECT_GT(over.queue_wait_s, 0.0);
}

// An engine that prefills in forwards of its own (SGLang) does not put the prompts in the decodes'
// step, so the step's token budget does not cap its running batch: the KV cache and the request limit
// do, and a load beyond the inflight engine's cap decodes (TPOT grows) instead of queueing.
TEST(Overload, SeparatePrefillForwardsLeaveTheBatchToTheKvCache) {
  const auto m = resolve_model("llama3.1-8b");
  const auto hw = resolve_hardware(test_catalog(), "h100-sxm");
  const InferenceParallel par{1, 1, 1, false};
  auto w = serving(Precision::fp8, 467, 16, 0, 1);
  const InferenceResult inflight = evaluate_inference(m, hw, par, w);
  w.prefill_separate = true;
  const InferenceResult sep = evaluate_inference(m, hw, par, w);
  ASSERT_TRUE(inflight.valid());
  ASSERT_TRUE(sep.valid());
  EXPECT_LE(inflight.max_concurrency, 8192 / (1 + 467 / 16));
  EXPECT_GT(sep.max_concurrency, 2 * inflight.max_concurrency);
  w.concurrency = 2 * inflight.max_concurrency;
  const InferenceResult busy = evaluate_inference(m, hw, par, w);
  EXPECT_EQ(busy.concurrency, w.concurrency);
  EXPECT_DOUBLE_EQ(busy.queue_wait_s, 0.0);
  w.max_batch_size = 100;  // the request limit still binds
  EXPECT_EQ(evaluate_inference(m, hw, par, w).max_concurrency, 100);
}

// Two-node TP16 workers (SGLang on HGX H100): every decode all-reduce crosses InfiniBand. A slower
// inter-node hop never makes a step faster, and the cross-node all-reduce costs at least its two IB
// hops plus NCCL's per-call base latency over the one-node TP8 of the same bytes.
TEST(CrossNode, MoreInterNodeLatencyNeverLowersTpot) {
  const auto m = resolve_model("deepseek-r1");
  auto hw = resolve_hardware(test_catalog(), "hgx-h100");
  const InferenceParallel par{16, 1, 1, false};
  const auto w = serving(Precision::fp8, 1024, 1024, 16, 16);
  double last = 0;
  for (double lat_us : {1.0, 5.0, 10.0, 20.0}) {
    hw.fabric.scaleout_latency_s = lat_us * 1e-6;
    const InferenceResult r = evaluate_inference(m, hw, par, w);
    ASSERT_TRUE(r.valid());
    EXPECT_GE(r.tpot_s, last * (1 - 1e-12)) << lat_us;
    last = r.tpot_s;
  }
  const auto h = resolve_hardware(test_catalog(), "hgx-h100");
  const double bytes = 32 * 7168 * 2.0;
  const double inside = collective_time_s(Collective::all_reduce, bytes, Group{8, 1}, h);
  const double across = collective_time_s(Collective::all_reduce, bytes, Group{16, 1}, h);
  EXPECT_GE(across, inside + 2.0 * h.fabric.scaleout_latency_s + 6.8e-6);
  // Training-sized buffers keep their bandwidth: the cross-node protocol adds microseconds only.
  const double big = 256e6;
  const double big_across = collective_time_s(Collective::all_reduce, big, Group{16, 1}, h);
  EXPECT_LT(big_across, 2.0 * 0.5 * big / 8 / (h.fabric.scaleout_bytes_per_s * h.efficiency.scaleout_eff) +
                            2.0 * big / (h.fabric.scaleup_bytes_per_s * h.efficiency.scaleup_eff) + 1e-3);
}

// The same TP group inside one NVLink domain and split across two (an HGX H100 pair against a
// hypothetical 16-GPU domain of the same links): the cross-node worker's decode is never faster, at
// any load, with or without MTP, and its all-reduces are what differ.
TEST(CrossNode, CrossNodeTpNeverFasterThanTheSameTpInsideADomain) {
  const auto m = resolve_model("deepseek-r1");
  const auto two_nodes = resolve_hardware(test_catalog(), "hgx-h100");
  ASSERT_EQ(two_nodes.fabric.domain_gpus, 8);
  auto one_domain = two_nodes;
  one_domain.fabric.domain_gpus = 16;
  const InferenceParallel par{16, 1, 1, false};
  for (long long isl : {1024LL, 8192LL})
    for (long long conc : {1LL, 8LL, 32LL})
      for (int mtp : {0, 2}) {
        auto w = serving(Precision::fp8, isl, 1024, conc, 16);
        w.kv_bytes_per_element = 2.0;
        w.mtp_draft_tokens = mtp;
        const InferenceResult across = evaluate_inference(m, two_nodes, par, w);
        const InferenceResult inside = evaluate_inference(m, one_domain, par, w);
        ASSERT_TRUE(across.valid() && inside.valid()) << isl << " " << conc;
        EXPECT_GE(across.tpot_s, inside.tpot_s) << isl << " " << conc << " mtp " << mtp;
        EXPECT_GT(across.decode_step.tp_comm_s, inside.decode_step.tp_comm_s) << isl << " " << conc;
        EXPECT_NEAR(across.decode_step.gemm_s, inside.decode_step.gemm_s, 1e-12);
        EXPECT_LE(across.tokens_per_s_per_gpu, inside.tokens_per_s_per_gpu) << isl << " " << conc;
      }
}

// A closed loop of C clients over a disaggregated deployment: once the prefill pool is the
// bottleneck, more clients only lengthen its queue, so TTFT grows with concurrency (and never falls).
TEST(Disaggregated, TtftGrowsWithConcurrencyOncePrefillSaturates) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  const InferenceParallel pre{8, 8, 1, false};
  const InferenceParallel dec{8, 8, 1, true};
  DisaggregatedDeployment d{pre, 8, dec, 16};
  double last_ttft = 0, first_ttft = 0, last_util = 0;
  for (long long c : {4, 16, 64, 256, 512}) {
    auto w = serving(Precision::fp8, 8192, 1024, c, 24);
    const InferenceResult r = evaluate_disaggregated(m, hw, d, w);
    ASSERT_TRUE(r.valid()) << c;
    EXPECT_GE(r.ttft_s, last_ttft * (1 - 1e-9)) << c;
    EXPECT_GE(r.prefill_utilization, last_util - 1e-9) << c;
    if (first_ttft == 0) first_ttft = r.ttft_s;
    last_ttft = r.ttft_s;
    last_util = r.prefill_utilization;
  }
  EXPECT_GT(last_util, 0.9);                 // 512 clients saturate one 8-GPU prefill worker
  EXPECT_GT(last_ttft, 3.0 * first_ttft);    // and wait in its queue
}

// Attention data-parallel: a request's KV cache lives on one attention rank, so a prompt alone runs
// its attention there while the other ranks wait at the MoE layers. Its prefill is no faster than
// on the same worker with attention split by TP, and slower than a batch of prompts spread over the
// ranks would suggest per prompt.
TEST(WideEp, AttentionDpPromptAlonePrefillsOnOneRank) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  const auto w = serving(Precision::fp8, 8192, 1024, 1, 8);
  const InferenceResult tp = evaluate_inference(m, hw, InferenceParallel{8, 8, 1, false}, w);
  const InferenceResult dp = evaluate_inference(m, hw, InferenceParallel{8, 8, 1, true}, w);
  ASSERT_TRUE(tp.valid());
  ASSERT_TRUE(dp.valid());
  EXPECT_GE(dp.prefill_s, tp.prefill_s);
  // Eight prompts at once fill the eight ranks: the step for all of them is far less than 8 alone.
  auto w8 = w;
  const StepTime eight = prefill_step(m, hw, InferenceParallel{8, 8, 1, true}, w8, 8.0 * 8192);
  EXPECT_LT(eight.total_s, 4.0 * dp.prefill_s);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// SGLang's --scheduler-recv-interval N: a request arriving while the batch decodes waits N/2 decode
// steps (not half of one) for the scheduler to poll; TPOT and throughput do not move, a lone
// sequence (nothing decoding) does not wait, and the interval is checked.
TEST(ContinuousBatching, ReceiveIntervalDelaysFirstTokenOnly) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  const InferenceParallel par{8, 1, 1, false};
  auto w = serving(Precision::fp8, 1024, 1024, 64, 8);
  const InferenceResult every = evaluate_inference(m, hw, par, w);
  w.scheduler_recv_interval = 30;
  const InferenceResult thirty = evaluate_inference(m, hw, par, w);
  EXPECT_NEAR(thirty.ttft_s - every.ttft_s, 14.5 * every.decode_step.total_s, 1e-9);
  // The result names that wait: all of the difference, none at interval 1.
  EXPECT_NEAR(thirty.receive_wait_s, thirty.ttft_s - every.ttft_s, 1e-12);
  EXPECT_EQ(every.receive_wait_s, 0.0);
  EXPECT_DOUBLE_EQ(thirty.tpot_s, every.tpot_s);
  EXPECT_DOUBLE_EQ(thirty.tokens_per_s_total, every.tokens_per_s_total);
  auto one = w;
  one.concurrency = 1;
  const InferenceResult alone = evaluate_inference(m, hw, par, one);
  one.scheduler_recv_interval = 1;
  EXPECT_DOUBLE_EQ(alone.ttft_s, evaluate_inference(m, hw, par, one).ttft_s);
  EXPECT_EQ(alone.receive_wait_s, 0.0);
  for (int bad : {0, -3, 1001}) {
    w.scheduler_recv_interval = bad;
    try {
      evaluate_inference(m, hw, par, w);
      ADD_FAILURE() << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("scheduler-recv-interval"), std::string::npos);
    }
  }
}


// SGLang and ATOM alternate prefill and decode forwards: the decodes wait for every prompt's own
// forward, which streams the weights again and pays its own step overhead. Riding the prompt in the
// decodes' forward (TensorRT-LLM) is never slower, disaggregated decode workers carry no prompts, and
// prompts gathered over a receive interval share one forward (the weights streamed once for all).
TEST(ContinuousBatching, SeparatePrefillForwardsStallTheDecodes) {
  struct Case {
    const char* model;
    const char* system;
    Precision p;
    int tp, ep;
    long long isl, osl, conc;
    int mtp;
  };
  for (const Case& c : {Case{"deepseek-r1", "hgx-b200", Precision::fp8, 8, 1, 1024, 1024, 64, 0},
                        Case{"deepseek-r1", "hgx-b200", Precision::fp8, 8, 1, 1024, 1024, 64, 2},
                        Case{"deepseek-r1", "mi355x", Precision::fp8, 8, 1, 8192, 1024, 64, 3},
                        Case{"deepseek-r1", "hgx-h200", Precision::fp8, 8, 8, 8192, 1024, 16, 0},
                        Case{"llama3.1-70b", "hgx-h200", Precision::fp8, 4, 1, 2048, 512, 32, 0}}) {
    const auto m = resolve_model(c.model);
    const auto hw = resolve_hardware(test_catalog(), c.system);
    const InferenceParallel par{c.tp, c.ep, 1, false};
    auto w = serving(c.p, c.isl, c.osl, c.conc, c.tp);
    w.mtp_draft_tokens = c.mtp;
    const InferenceResult mixed = evaluate_inference(m, hw, par, w);
    w.prefill_separate = true;
    const InferenceResult sep = evaluate_inference(m, hw, par, w);
    ASSERT_TRUE(sep.valid()) << c.model;
    EXPECT_GE(sep.tpot_s, mixed.tpot_s * (1 - 1e-12)) << c.model << " " << c.system;
    EXPECT_LE(sep.tokens_per_s_total, mixed.tokens_per_s_total * (1 + 1e-12)) << c.model;
    EXPECT_NEAR(sep.decode_step.parts_sum(), sep.decode_step.total_s, 1e-12);
    w.scheduler_recv_interval = 30;
    const InferenceResult batched = evaluate_inference(m, hw, par, w);
    EXPECT_LE(batched.tpot_s, sep.tpot_s * (1 + 1e-12)) << c.model;
    w.scheduler_recv_interval = 1;
    w.decode_only = true;
    const InferenceResult dec_sep = evaluate_inference(m, hw, par, w);
    w.prefill_separate = false;
    EXPECT_DOUBLE_EQ(dec_sep.tpot_s, evaluate_inference(m, hw, par, w).tpot_s) << c.model;
  }
}

// Prompts received together over SGLang's receive interval prefill in forwards of their own, first
// come first: a prompt's first token waits for its share of the batch ((n + 1) / 2 of the n prompts'
// tokens), so TTFT grows with the prompts a window gathers (longer prompts, more clients) and never
// falls below one prompt alone; with one prompt per window, or inflight batching, nothing changes.
TEST(ContinuousBatching, PromptsReceivedTogetherWaitForTheirShareOfTheBatch) {
  const auto m = resolve_model("deepseek-r1");
  const auto hw = resolve_hardware(test_catalog(), "hgx-b200");
  const InferenceParallel par{8, 1, 1, false};
  auto ttft = [&](long long isl, long long conc, int recv, bool separate) {
    auto w = serving(Precision::fp8, isl, 1024, conc, 8);
    w.scheduler_recv_interval = recv;
    w.prefill_separate = separate;
    const InferenceResult r = evaluate_inference(m, hw, par, w);
    EXPECT_TRUE(r.valid());
    return r;
  };
  // 8K prompts at 128 clients: about four prompts a 30-step window.
  const InferenceResult one = ttft(8192, 128, 1, true), thirty = ttft(8192, 128, 30, true);
  const double n = 128.0 * 8192 / 1024 * 30 / 8192;  // prompts per window (no MTP: one token a step)
  ASSERT_GT(n, 2.0);
  const double waited_steps = 14.5 * thirty.decode_step.total_s;  // the receive wait, as before
  EXPECT_GT(thirty.ttft_s - waited_steps, one.ttft_s - 0.5 * one.decode_step.total_s + 0.5 * one.prefill_s)
      << "a prompt waits for part of the others' prefill";
  // More clients gather more prompts a window: TTFT grows.
  EXPECT_GT(ttft(8192, 256, 30, true).ttft_s, thirty.ttft_s);
  // Few prompts a window (1K prompts, 16 clients: under one): one prompt alone, as before.
  const InferenceResult few = ttft(1024, 16, 30, true), few_one = ttft(1024, 16, 1, true);
  EXPECT_NEAR(few.ttft_s - few_one.ttft_s, 14.5 * few.decode_step.total_s, 1e-9);
  // Inflight batching (TensorRT-LLM) is untouched: the receive wait only.
  const InferenceResult in1 = ttft(8192, 128, 1, false), in30 = ttft(8192, 128, 30, false);
  EXPECT_NEAR(in30.ttft_s - in1.ttft_s, 14.5 * in1.decode_step.total_s, 1e-9);
}

}  // namespace
}  // namespace gpuplan
