// Training-step evaluator: golden rows from published measurements (with the fitted efficiencies of
// data/catalog/efficiency.yaml) and physical properties that must hold for any parameters.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/catalog.h"
#include "core/error.h"
#include "model/model_registry.h"
#include "physics/collective.h"
#include "physics/compute.h"
#include "physics/hardware.h"
#include "training/training_step.h"

namespace gpuplan {
namespace {

struct Setup {
  ModelArch model;
  Hardware hw;
  TrainingPlan plan;
  TrainingWorkload w;
};

Setup make(const std::string& model, const std::string& system, int gpus, long long gbs, int seq, Precision p,
           const std::string& plan) {
  static const Catalog catalog = Catalog::builtin();
  Setup s{resolve_model(model), resolve_hardware(catalog, system), parse_training_plan(plan), {}};
  s.plan.dp = 0;
  s.w.num_gpus = gpus;
  s.w.global_batch = gbs;
  s.w.seq_len = seq;
  s.w.precision = p;
  return s;
}

TrainingResult run(const Setup& s) { return evaluate_training(s.model, s.hw, s.plan, s.w); }

double ape(double pred, double actual) { return std::abs(pred - actual) / actual; }

// Golden rows: tolerance 15% on rows the fit was made on; a regression of the model shows here.
TEST(TrainingGolden, Gpt3_175B_128xH100_Bf16) {
  // DGX Cloud recipes v25.02.01: GPT-3 175B, 128 H100, BF16, TP4 PP8 VP12, GBS 256, 8.309 s/step.
  auto s = make("gpt3-175b", "hgx-h100", 128, 256, 2048, Precision::bf16, "tp=4,pp=8,vp=12,mbs=1");
  EXPECT_LT(ape(run(s).step_time_s, 8.309), 0.15) << run(s).step_time_s;
}

TEST(TrainingGolden, Gpt3_175B_128xH100_Fp8) {
  // Same recipe in FP8: 5.626 s/step.
  auto s = make("gpt3-175b", "hgx-h100", 128, 256, 2048, Precision::fp8, "tp=4,pp=8,vp=12,mbs=1");
  EXPECT_LT(ape(run(s).step_time_s, 5.626), 0.15) << run(s).step_time_s;
}

TEST(TrainingGolden, Llama3_70B_64xH100_Fp8) {
  // DGX Cloud v25.02.01: Llama 3.1 70B, 64 H100, FP8, TP4 PP4 VP5 CP2, GBS 128, 10.46 s/step.
  auto s = make("llama3.1-70b", "hgx-h100", 64, 128, 8192, Precision::fp8, "tp=4,pp=4,vp=5,cp=2,mbs=1");
  EXPECT_LT(ape(run(s).step_time_s, 10.46), 0.15) << run(s).step_time_s;
}

TEST(TrainingGolden, Grok1_GB200_MoE_Fp8) {
  // DGX Cloud v25.05.04: Grok-1 314B MoE, 128 GB200, FP8, TP4 EP8 ETP4, GBS 256, 5.298 s/step.
  auto s = make("grok-1", "gb200-nvl72", 128, 256, 8192, Precision::fp8, "tp=4,ep=8,etp=4,mbs=1");
  EXPECT_LT(ape(run(s).step_time_s, 5.298), 0.20) << run(s).step_time_s;
}

TEST(TrainingGolden, Qwen3_30B_A3B_16xH100_Fp8_SmallExperts) {
  // Megatron-Bridge 26.06 (performance-summary-archive.md): Qwen3-30B-A3B (128 experts of FFN 768,
  // top-8), 16 H100, FP8, EP16, MBS 1, GBS 1024, seq 4096: 8,826 tokens/s per GPU.
  auto s = make("qwen3-30b-a3b", "hgx-h100", 16, 1024, 4096, Precision::fp8, "tp=1,pp=1,ep=16,mbs=1");
  EXPECT_LT(ape(run(s).tokens_per_s_per_gpu, 8826), 0.20) << run(s).tokens_per_s_per_gpu;
}

TEST(TrainingProperties, MoreExpertsAtTheSameActiveParamsAreNeverFasterPerToken) {
  // Fine-grained MoE: split every expert in two (half the FFN, twice the experts, twice the top-k):
  // the same parameters and active FLOPs, but twice the expert GEMMs at narrower shapes.
  for (const char* plan : {"tp=1,pp=1,ep=8,mbs=1", "tp=1,pp=1,ep=8,mbs=4"}) {
    auto coarse = make("qwen3-30b-a3b", "hgx-h100", 8, 256, 4096, Precision::fp8, plan);
    auto fine = coarse;
    fine.model.moe.num_experts *= 2;
    fine.model.moe.expert_ffn_hidden /= 2;
    fine.model.moe.top_k *= 2;
    const TrainingResult a = run(coarse), b = run(fine);
    ASSERT_TRUE(a.valid() && b.valid());
    EXPECT_LE(b.tokens_per_s_per_gpu, a.tokens_per_s_per_gpu) << plan;
  }
}

TEST(TrainingProperties, MoreTokensPerExpertAmortiseTheExpertGemms) {
  // The grouped GEMMs' fixed per-expert cost is paid per micro-batch: a larger micro-batch gives each
  // expert more rows and never lowers tokens/s when nothing else changes (no pipeline, no bubble).
  auto one = make("qwen3-30b-a3b", "hgx-h100", 8, 256, 4096, Precision::fp8, "tp=1,pp=1,ep=8,mbs=1");
  auto four = make("qwen3-30b-a3b", "hgx-h100", 8, 256, 4096, Precision::fp8, "tp=1,pp=1,ep=8,mbs=4");
  const TrainingResult a = run(one), b = run(four);
  EXPECT_GT(b.tokens_per_s_per_gpu, a.tokens_per_s_per_gpu);
  EXPECT_LT(b.parts.gemm_s, a.parts.gemm_s);  // same tokens per step, fewer expert-GEMM calls
}

TEST(TrainingProperties, AlltoallDispatcherSortsReceivedChunksByLocalExpert) {
  // Megatron-Core's alltoall token dispatcher permutes the routed tokens by destination rank, then sorts
  // the received chunks by local expert (sort_chunks_by_idxs) and undoes both around the combine: with
  // 16 local experts twice the flex dispatcher's permutation traffic, memory-bound only; with one local
  // expert (EP = experts) no sort, the same time.
  auto flex = make("qwen3-30b-a3b", "hgx-h100", 8, 256, 4096, Precision::fp8, "tp=1,pp=1,ep=8,mbs=1");
  auto a2a = make("qwen3-30b-a3b", "hgx-h100", 8, 256, 4096, Precision::fp8, "tp=1,pp=1,ep=8,mbs=1,dispatcher=alltoall");
  const TrainingResult f = run(flex), a = run(a2a);
  ASSERT_TRUE(f.valid() && a.valid());
  EXPECT_GT(a.parts.memory_bound_s, f.parts.memory_bound_s);
  EXPECT_DOUBLE_EQ(a.parts.gemm_s, f.parts.gemm_s);
  const long long tokens = 256LL * 4096 / 8;  // per GPU per step
  // Every layer, forward and backward (2x): a read and a write of each routed copy, each way, in bf16.
  const double sort_bytes = flex.model.layers * 3.0 * 4.0 * tokens * 8 * 2048 * 2.0;
  EXPECT_NEAR(a.parts.memory_bound_s - f.parts.memory_bound_s, memory_bound_time_s(flex.hw, sort_bytes), 1e-9);
  auto one_flex = make("qwen3-30b-a3b", "hgx-h100", 128, 1024, 4096, Precision::fp8, "tp=1,pp=1,ep=128,mbs=1");
  auto one_a2a = one_flex;
  one_a2a.plan.dispatcher = MoeDispatcher::alltoall;
  EXPECT_DOUBLE_EQ(run(one_a2a).step_time_s, run(one_flex).step_time_s);
}

TEST(TrainingProperties, PartsAddUpToStepTime) {
  for (auto prec : {Precision::bf16, Precision::fp8}) {
    auto s = make("llama3.1-70b", "hgx-h100", 64, 128, 8192, prec, "tp=4,pp=4,vp=5,cp=2");
    auto r = run(s);
    ASSERT_TRUE(r.valid());
    EXPECT_NEAR(r.parts.total_s(), r.step_time_s, 1e-12 * r.step_time_s);
    EXPECT_GT(r.parts.gemm_s, 0);
    EXPECT_GT(r.parts.bubble_s, 0);
    EXPECT_GT(r.parts.tp_comm_s, 0);
  }
}

// A hybrid model's linear-attention layers cost the same per token at any sequence length: only its
// full-attention layers' attention time grows with the context.
TEST(TrainingProperties, HybridAttentionGrowsOnlyThroughFullAttentionLayers) {
  auto attention_at = [](int linear_layers, int seq) {
    auto s = make("qwen3.5-397b-a17b", "gb200-nvl72", 256, 256, seq, Precision::bf16, "tp=2,pp=4,ep=32");
    s.model.linear.layers = linear_layers;
    const auto r = run(s);
    EXPECT_TRUE(r.valid());
    return r.parts.attention_s / (double(seq) * 256);  // per token
  };
  // Per-token attention time from 4k to 32k context: the growth scales with the full layers (15 of 60).
  const double hybrid_grow = attention_at(45, 32768) - attention_at(45, 4096);
  const double full_grow = attention_at(0, 32768) - attention_at(0, 4096);
  EXPECT_GT(hybrid_grow, 0);
  EXPECT_NEAR(hybrid_grow / full_grow, 15.0 / 60.0, 0.02);
}

// Sparse attention (DSA) attends at most index_topk keys: beyond it, the per-token attention time
// grows only by the indexer's scoring, an eighth of what dense MLA attention would add.
TEST(TrainingProperties, SparseAttentionStopsGrowingBeyondTopK) {
  auto attention_at = [](bool sparse, int seq) {
    auto s = make("glm-5", "gb200-nvl72", 512, 512, seq, Precision::bf16, "tp=4,pp=8,ep=32");
    if (!sparse) s.model.sparse = {};
    const auto r = run(s);
    EXPECT_TRUE(r.valid());
    return r.parts.attention_s / (double(seq) * 512);
  };
  const double sparse_grow = attention_at(true, 65536) - attention_at(true, 16384);
  const double dense_grow = attention_at(false, 65536) - attention_at(false, 16384);
  EXPECT_GT(sparse_grow, 0);
  EXPECT_LT(sparse_grow, 0.2 * dense_grow);
}

// Local windows cap the attended keys in the layers that have them: Mistral 7B v0.1's 4,096-token window
// in every layer (its catalog entry names no layer count), Llama 4's 8,192-token chunks in 36 of 48.
TEST(TrainingProperties, WindowedLayersStopGrowingBeyondTheWindow) {
  auto attention_at = [](const std::string& model, bool window, int seq, const std::string& plan) {
    auto s = make(model, "hgx-h100", 64, 64, seq, Precision::bf16, plan);
    if (!window) s.model.sliding_window = 0, s.model.sliding_window_layers = 0, s.model.chunked_window = false;
    const auto r = run(s);
    EXPECT_TRUE(r.valid()) << model;
    return r.parts.attention_s / (double(seq) * 64);  // per token
  };
  const std::string dense = "tp=1,pp=1,cp=8", moe = "tp=8,pp=8,ep=8,cp=1";
  EXPECT_LT(attention_at("mistral-7b", true, 32768, dense), 0.25 * attention_at("mistral-7b", false, 32768, dense));
  EXPECT_DOUBLE_EQ(attention_at("mistral-7b", true, 4096, dense), attention_at("mistral-7b", false, 4096, dense));
  const double chunked = attention_at("llama4-scout", true, 65536, moe);
  const double global = attention_at("llama4-scout", false, 65536, moe);
  EXPECT_LT(chunked, 0.5 * global);
  EXPECT_GT(chunked, 0.25 * global);  // the 12 global layers still attend the whole context
}

TEST(TrainingProperties, MoreBandwidthIsNeverSlower) {
  for (const char* plan : {"tp=8,pp=4,vp=2", "tp=2,pp=2,cp=2", "tp=8,cp=2,pp=2"}) {
    auto s = make("llama3.1-70b", "hgx-h100", 128, 256, 8192, Precision::bf16, plan);
    const double base = run(s).step_time_s;
    auto faster = s;
    faster.hw.fabric.scaleup_bytes_per_s *= 2;
    EXPECT_LE(run(faster).step_time_s, base) << plan;
    faster = s;
    faster.hw.fabric.scaleout_bytes_per_s *= 2;
    EXPECT_LE(run(faster).step_time_s, base) << plan;
    faster = s;
    faster.hw.accelerator.memory_bandwidth_bytes_per_s *= 2;
    EXPECT_LE(run(faster).step_time_s, base) << plan;
  }
}

TEST(TrainingProperties, Fp8FasterButLowerMfuAgainstItsPeak) {
  auto bf = make("gpt3-175b", "hgx-h100", 128, 256, 2048, Precision::bf16, "tp=4,pp=8,vp=12");
  auto f8 = make("gpt3-175b", "hgx-h100", 128, 256, 2048, Precision::fp8, "tp=4,pp=8,vp=12");
  const auto rb = run(bf), r8 = run(f8);
  EXPECT_LT(r8.step_time_s, rb.step_time_s);
  EXPECT_LT(r8.mfu_attn, rb.mfu_attn);          // FP8 MFU against the FP8 peak is lower...
  EXPECT_GT(r8.mfu_attn_bf16, rb.mfu_attn_bf16);  // ...though against BF16's it is higher
}

TEST(TrainingProperties, NvlinkDomainKeepsTensorParallelFast) {
  // TP=16 leaves an 8-GPU HGX domain but stays inside a 72-GPU NVL72 domain.
  auto hgx = make("gpt3-175b", "hgx-b200", 256, 256, 2048, Precision::bf16, "tp=16,pp=4");
  auto nvl = make("gpt3-175b", "gb200-nvl72", 256, 256, 2048, Precision::bf16, "tp=16,pp=4");
  nvl.hw.accelerator = hgx.hw.accelerator;  // same chip: only the domain differs
  nvl.hw.efficiency = hgx.hw.efficiency;
  EXPECT_GT(run(hgx).parts.tp_comm_s, 1.3 * run(nvl).parts.tp_comm_s);
}

TEST(TrainingProperties, RankOrderDecidesWhichGroupLeavesTheDomain) {
  // TP=8 innermost fills an HGX node; with PP innermost the TP group spans 8 nodes.
  auto inner = make("llama3.1-70b", "hgx-h100", 64, 128, 8192, Precision::bf16, "tp=8,pp=8");
  auto outer = make("llama3.1-70b", "hgx-h100", 64, 128, 8192, Precision::bf16, "tp=8,pp=8,order=pp-tp-cp-ep-dp");
  EXPECT_GT(run(outer).parts.tp_comm_s, 3.0 * run(inner).parts.tp_comm_s);
  EXPECT_LT(run(outer).parts.pp_comm_s, run(inner).parts.pp_comm_s);
}

TEST(TrainingProperties, InterleavingExposesEveryChunkBoundaryInTheWarmUp) {
  // Llama 3.1 405B, tp=8 pp=8 on 16,384 H100 (8 micro-batches): the warm-up and cool-down cross
  // pp*vp - 1 chunk boundaries each, so the exposed hand-offs grow with vp beyond the steady state's
  // vp-fold sends: vp=8 exposes 2 x 63 boundary hand-offs against 2 x 7 at vp=1.
  auto plain = make("llama3.1-405b", "hgx-h100", 16384, 2048, 8192, Precision::bf16, "tp=8,pp=8,vp=1,mbs=1");
  auto inter = make("llama3.1-405b", "hgx-h100", 16384, 2048, 8192, Precision::bf16, "tp=8,pp=8,vp=8,mbs=1");
  const double a = run(plain).parts.pp_comm_s, b = run(inter).parts.pp_comm_s;
  ASSERT_GT(a, 0.0);
  EXPECT_GT(b, 8.0 * a);
  EXPECT_LT(b, 10.0 * a);
}

TEST(TrainingProperties, MoreMicrobatchesShrinkTheBubbleShare) {
  auto small = make("llama3.1-70b", "hgx-h100", 64, 64, 8192, Precision::bf16, "tp=4,pp=8,vp=5");
  auto large = make("llama3.1-70b", "hgx-h100", 64, 512, 8192, Precision::bf16, "tp=4,pp=8,vp=5");
  const auto rs = run(small), rl = run(large);
  EXPECT_GT(rs.parts.bubble_s / rs.step_time_s, rl.parts.bubble_s / rl.step_time_s);
}

TEST(TrainingProperties, RecomputeLayersCountPerVirtualChunkAsInMemory) {
  // Llama 3.1 70B, 80 layers, pp=4, vp=5: 4 layers a chunk, 20 a stage. Recomputing 2 layers of each
  // chunk recomputes half the stage, as the memory model counts them; all 4 equal recompute=full.
  auto half = make("llama3.1-70b", "hgx-h100", 64, 512, 8192, Precision::bf16,
                   "tp=4,pp=4,vp=5,recompute=full,recompute_layers=2");
  auto all = make("llama3.1-70b", "hgx-h100", 64, 512, 8192, Precision::bf16, "tp=4,pp=4,vp=5,recompute=full");
  auto chunk = make("llama3.1-70b", "hgx-h100", 64, 512, 8192, Precision::bf16,
                    "tp=4,pp=4,vp=5,recompute=full,recompute_layers=4");
  const auto rh = run(half), ra = run(all), rc = run(chunk);
  EXPECT_NEAR(rh.parts.recompute_s, 0.5 * ra.parts.recompute_s, 1e-9 * ra.parts.recompute_s);
  EXPECT_NEAR(rc.parts.recompute_s, ra.parts.recompute_s, 1e-9 * ra.parts.recompute_s);
}

// Busy time of the pipeline's micro-batches (what the schedule runs), to compare the bubble with.
double microbatch_work_s(const TrainingResult& r) {
  const StepBreakdown& p = r.parts;
  return p.gemm_s + p.attention_s + p.memory_bound_s + p.recompute_s + p.tp_comm_s + p.cp_comm_s + p.ep_comm_s;
}

TEST(TrainingProperties, ActivationOffloadHidesBehindComputeOnlyOverAFastHostLink) {
  // Llama 3 70B FP8 on GB200 with Megatron-FSDP, mbs=2 x 8k (the Megatron-Bridge recipe, 40 of 80
  // layers offloaded): ~3.6 GB per layer and micro-batch cross NVLink-C2C (225 GB/s per direction per
  // GPU), 16 ms a layer, each beside one layer's compute (~12.5 ms forward, Transformer Engine waits
  // for a layer's copy at the next layer's end): mostly hidden, a few percent of the step exposed.
  // Over PCIe Gen5 (64 GB/s) the same bytes are not.
  auto s = make("llama3-70b", "gb200-nvl72", 64, 256, 8192, Precision::fp8, "tp=1,pp=1,mbs=2,zero=3,sp=0");
  EXPECT_DOUBLE_EQ(s.hw.accelerator.host_link_bytes_per_s, 225e9);  // accelerators.yaml host_link_gb_per_s
  const TrainingResult none = run(s);
  ASSERT_TRUE(none.valid());
  s.plan.offload_layers = 40;
  const TrainingResult c2c = run(s);
  ASSERT_TRUE(c2c.valid());
  EXPECT_LT(c2c.parts.offload_s, 0.03 * c2c.step_time_s);
  EXPECT_GE(c2c.step_time_s, none.step_time_s);
  EXPECT_NEAR(c2c.parts.total_s(), c2c.step_time_s, 1e-9 * c2c.step_time_s);
  s.hw.accelerator.host_link_bytes_per_s = 64e9;
  const TrainingResult pcie = run(s);
  ASSERT_TRUE(pcie.valid());
  EXPECT_GT(pcie.parts.offload_s, 5.0 * c2c.parts.offload_s);
  EXPECT_NEAR(pcie.parts.total_s(), pcie.step_time_s, 1e-9 * pcie.step_time_s);
  // More layers offloaded never take less time; a slower link never less either.
  s.plan.offload_layers = 80;
  EXPECT_GE(run(s).parts.offload_s, pcie.parts.offload_s);
  s.hw.accelerator.host_link_bytes_per_s = 32e9;
  EXPECT_GT(run(s).parts.offload_s, pcie.parts.offload_s);
  // A GPU whose host link the catalog does not give is not offered offload: a violation naming the field.
  s.hw.accelerator.host_link_bytes_per_s = 0;
  const TrainingResult unknown = run(s);
  ASSERT_FALSE(unknown.valid());
  EXPECT_EQ(unknown.violations[0].subject, "plan.offload_layers");
  s.plan.offload_layers = -1;
  EXPECT_FALSE(run(s).valid());
}

TEST(TrainingProperties, ModuleRecomputeCostsLessThanWholeLayers) {
  // DeepSeek-V3 (MLA, 256 experts) on 256 GB200: module recompute runs the norms, the experts'
  // activation and the MLA up-projections again, a small share of what recomputing whole layers costs.
  auto s = make("deepseek-v3", "gb200-nvl72", 256, 4096, 4096, Precision::bf16, "tp=1,pp=4,vp=4,ep=64,mbs=1,sp=0");
  s.plan.recompute = Recompute::modules;
  const TrainingResult mod = run(s);
  ASSERT_TRUE(mod.valid());
  s.plan.recompute = Recompute::full;
  const TrainingResult full = run(s);
  EXPECT_GT(mod.parts.recompute_s, 0.0);
  EXPECT_LT(mod.parts.recompute_s, 0.2 * full.parts.recompute_s);
  EXPECT_NEAR(mod.parts.total_s(), mod.step_time_s, 1e-9 * mod.step_time_s);
}

TEST(TrainingProperties, BubbleFollowsTheScheduleForAnyMicrobatchCount) {
  // 1F1B: nmb micro-batches through pp stages take nmb + pp - 1 micro-batch times, so the idle share
  // is (pp-1)/(nmb+pp-1): one micro-batch through 8 stages idles 7/8 of the time.
  for (long long gbs : {1, 2, 8, 64}) {
    auto s = make("llama3.1-70b", "hgx-h100", 64, gbs, 8192, Precision::bf16, "tp=8,pp=8");
    const auto r = run(s);
    ASSERT_TRUE(r.valid()) << gbs;
    const double idle = r.parts.bubble_s / (r.parts.bubble_s + microbatch_work_s(r));
    EXPECT_NEAR(idle, 7.0 / (static_cast<double>(gbs) + 7.0), 1e-9) << gbs;
  }
  // Interleaved: (pp-1)/(vp*nmb + pp-1) with nmb a multiple of pp.
  auto s = make("llama3.1-70b", "hgx-h100", 64, 16, 8192, Precision::bf16, "tp=8,pp=8,vp=5");
  const auto r = run(s);
  ASSERT_TRUE(r.valid());
  EXPECT_NEAR(r.parts.bubble_s / (r.parts.bubble_s + microbatch_work_s(r)), 7.0 / (5 * 16 + 7.0), 1e-9);
}

TEST(TrainingProperties, Zero3GathersEveryMicrobatchAndExposeTheirPrefetchFill) {
  // 405B on 16,384 H100: a stage's parameters are gathered for every micro-batch's forward and backward.
  // With mbs=1 the gathers outlast the compute they hide behind (seconds exposed); with mbs=2 the
  // compute window covers them but the first layer's gather of each pass stays exposed (never 0).
  auto one = make("llama3.1-405b", "hgx-h100", 16384, 2048, 8192, Precision::bf16, "tp=8,pp=16,zero=3,mbs=1");
  auto two = make("llama3.1-405b", "hgx-h100", 16384, 2048, 8192, Precision::bf16, "tp=8,pp=16,zero=3,mbs=2");
  const auto r1 = run(one), r2 = run(two);
  ASSERT_TRUE(r1.valid());
  ASSERT_TRUE(r2.valid());
  EXPECT_GT(r2.parts.dp_comm_s, 0.0);
  EXPECT_GT(r1.parts.dp_comm_s, 2.0 * r2.parts.dp_comm_s);
}

TEST(TrainingPlanChecks, InterleavingNeedsMicrobatchesAMultipleOfStages) {
  // The case: one micro-batch, 8 stages, vp=10 reported a 37% bubble; Megatron rejects it.
  auto s = make("llama3.1-70b", "hgx-h100", 64, 1, 8192, Precision::bf16, "tp=8,pp=8,vp=10");
  auto r = run(s);
  ASSERT_FALSE(r.valid());
  EXPECT_EQ(r.violations.front().subject, "plan.vp");
  EXPECT_NE(r.violations.front().message.find("multiple of pp=8"), std::string::npos) << r.violations.front().message;
  s = make("llama3.1-70b", "hgx-h100", 64, 12, 8192, Precision::bf16, "tp=8,pp=8,vp=5");  // 12 micro-batches
  EXPECT_FALSE(run(s).valid());
  s = make("llama3.1-70b", "hgx-h100", 64, 24, 8192, Precision::bf16, "tp=8,pp=8,vp=5");  // 24 = 3 x 8
  EXPECT_TRUE(run(s).valid());
}

TEST(TrainingPlanChecks, InvalidPlansAreViolationsNotExceptions) {
  auto s = make("llama3.1-70b", "hgx-h100", 64, 128, 8192, Precision::bf16, "tp=3");
  auto r = run(s);
  EXPECT_FALSE(r.valid());
  s = make("llama3.1-70b", "hgx-h100", 64, 128, 8192, Precision::bf16, "ep=2");
  EXPECT_FALSE(run(s).valid());
  s = make("llama3.1-70b", "hgx-h100", 64, 100, 8192, Precision::bf16, "tp=8,mbs=1");
  EXPECT_FALSE(run(s).valid());  // 100 sequences do not split over dp=8
}

TEST(TrainingMemory, ReportedWithTheStep) {
  auto s = make("llama3.1-70b", "hgx-h100", 64, 128, 8192, Precision::bf16, "tp=4,pp=4,vp=5,cp=2");
  auto r = run(s);
  EXPECT_GT(r.memory.total_bytes, 0);
  EXPECT_DOUBLE_EQ(r.memory.capacity_bytes, s.hw.accelerator.memory_bytes);
  auto one = make("llama3.1-70b", "hgx-h100", 8, 8, 8192, Precision::bf16, "tp=1");
  EXPECT_FALSE(run(one).memory.fits);  // 70B with Adam state on one 80 GB GPU per replica
}

// The scale-out fabric's shape (gpuplan fabric): an r:1 oversubscribed leaf slows only groups wider
// than one scalable unit, by up to r on the scale-out part; rail-only slows only cross-domain all-to-all.
TEST(FabricShape, OversubscriptionAndRailOnlyReachTheCollectives) {
  static const Catalog catalog = Catalog::builtin();
  const Hardware flat = resolve_hardware(catalog, "hgx-h100");
  Hardware over = flat;
  over.fabric.scaleout_beyond_leaf_fraction = 1.0 / 3;
  over.fabric.scaleout_leaf_gpus = 384;  // 48 nodes per SU at 3:1 on a 64-port leaf
  const double bytes = 1e9;
  const Group inside{32, 8}, wide{128, 8};  // DP groups of 256 and 1,024 GPUs' span
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_reduce, bytes, inside, over),
                   collective_time_s(Collective::all_reduce, bytes, inside, flat));
  const double t_flat = collective_time_s(Collective::all_reduce, bytes, wide, flat);
  const double t_over = collective_time_s(Collective::all_reduce, bytes, wide, over);
  EXPECT_GT(t_over, 2.0 * t_flat);
  EXPECT_LT(t_over, 3.0 * t_flat + 1e-3);
  Hardware rail_only = flat;
  rail_only.fabric.scaleout_rail_only = true;
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_reduce, bytes, wide, rail_only), t_flat);
  EXPECT_GT(collective_time_s(Collective::all_to_all, bytes, Group{64, 1}, rail_only),
            collective_time_s(Collective::all_to_all, bytes, Group{64, 1}, flat));
  EXPECT_DOUBLE_EQ(collective_time_s(Collective::all_to_all, bytes, Group{8, 1}, rail_only),
                   collective_time_s(Collective::all_to_all, bytes, Group{8, 1}, flat));
}

}  // namespace
}  // namespace gpuplan

#include "training/default_batch.h"

namespace gpuplan {
namespace {

// The default global batch follows the model, as the published schedules do, never the GPU count.
TEST(DefaultBatch, FollowsTheModelAsPublishedSchedulesDo) {
  const DefaultBatch b405 = default_global_batch(resolve_model("llama3.1-405b"), 8192);
  const DefaultBatch b70 = default_global_batch(resolve_model("llama3.1-70b"), 8192);
  const DefaultBatch b8 = default_global_batch(resolve_model("llama3.1-8b"), 8192);
  // Llama 3 405B trained at 16M tokens (2048 x 8192): the default is that order of magnitude.
  EXPECT_GE(b405.tokens, 8e6);
  EXPECT_LE(b405.tokens, 32e6);
  EXPECT_GT(b405.sequences, b70.sequences);
  EXPECT_GE(b70.sequences, b8.sequences);
  for (const DefaultBatch& b : {b405, b70, b8}) {
    long long rest = b.sequences;  // a round count: 2^a x 3^b, b <= 2
    while (rest % 2 == 0) rest /= 2;
    EXPECT_TRUE(rest == 1 || rest == 3 || rest == 9) << b.sequences;
    EXPECT_LE(std::abs(std::log2(b.tokens / b.fitted_tokens)), 0.5 + 1e-9);
    EXPECT_FALSE(b.basis.empty());
  }
  // The law's exponent: between the constant-batch and the linear extremes, as the literature has it.
  EXPECT_GT(default_batch_law().b, 0.1);
  EXPECT_LT(default_batch_law().b, 0.7);
  EXPECT_GE(default_batch_law().schedules, 10);
}

TEST(DefaultBatch, TokensStayPutAcrossSequenceLengths) {
  const ModelArch m = resolve_model("llama3.1-70b");
  const DefaultBatch a = default_global_batch(m, 4096), b = default_global_batch(m, 8192);
  EXPECT_NEAR(a.tokens, b.tokens, 0.5 * a.tokens + 1);
}

// The last pipeline stage carries the output head in full: a model whose head is large next to its
// layers runs slower per step on a pipeline than the same layers with the head spread over stages.
TEST(TrainingProperties, PipelineStepFollowsItsSlowestStage) {
  auto s = make("llama3.1-8b", "hgx-h100", 64, 256, 8192, Precision::bf16, "tp=1,pp=4,mbs=1");
  TrainingOptions o;
  o.with_memory = false;
  const TrainingResult r = evaluate_training(s.model, s.hw, s.plan, s.w, o);
  ASSERT_TRUE(r.valid());
  ModelArch no_head = s.model;
  no_head.vocab = 1;  // the head and loss vanish; the layers stay
  const TrainingResult r0 = evaluate_training(no_head, s.hw, s.plan, s.w, o);
  // 32 layers over 4 stages, 8 each: the last also runs a 128K-vocabulary head, so the head's whole
  // cost (not a quarter of it) lands on every micro-batch slot.
  const double head_share = (r.parts.gemm_s - r0.parts.gemm_s) / r0.parts.gemm_s;
  EXPECT_GT(head_share, 0.10);
}

}  // namespace
}  // namespace gpuplan

namespace gpuplan {
namespace {

// An unknown name is an error listing the systems, not a bare accelerator guessed from it.
TEST(Hardware, UnknownSystemIsAnErrorListingTheSystems) {
  const Catalog catalog = Catalog::builtin();
  try {
    resolve_hardware(catalog, "hgx-h900");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hgx-h100"), std::string::npos) << e.what();
  }
  const Hardware h20 = resolve_hardware(catalog, "hgx-h20");
  EXPECT_EQ(h20.system_name, "hgx-h20");
  EXPECT_GT(h20.host.memory_bytes_per_gpu, 0);
  // The host share: min(PCIe Gen5 x16 64 GB/s, 614 GB/s over 8 GPUs = 77): the link binds.
  EXPECT_NEAR(resolve_hardware(catalog, "hgx-h100").host.bandwidth_bytes_per_s_per_gpu, 64e9, 1e6);
  // DGX A100: 4 PCIe Gen4 switch uplinks for 8 GPUs, 16 GB/s each.
  EXPECT_NEAR(resolve_hardware(catalog, "hgx-a100").host.bandwidth_bytes_per_s_per_gpu, 16e9, 1e6);
}

// A direct mesh (HGX H100 4-GPU; a mesh of 8, as AMD's Infinity Fabric is wired) gives a group of k of its n GPUs the links to its k - 1
// peers; through switches every group talks at the GPU's whole bandwidth. A mesh is never faster than the
// switch, a wider group never gets less bandwidth per GPU, and the whole domain gets it all.
TEST(ScaleupTopology, ADirectMeshGivesAGroupItsPeersLinks) {
  static const Catalog catalog = Catalog::builtin();
  const Hardware switched = resolve_hardware(catalog, "hgx-h100");
  const Hardware mesh4 = resolve_hardware(catalog, "hgx-h100-4gpu");
  ASSERT_TRUE(mesh4.fabric.scaleup_direct_mesh);
  ASSERT_FALSE(switched.fabric.scaleup_direct_mesh);
  const double all = mesh4.fabric.scaleup_bytes_per_s;
  EXPECT_DOUBLE_EQ(mesh4.fabric.scaleup_group_bytes_per_s(2), all / 3);  // 6 of 18 NVLinks to one peer
  EXPECT_DOUBLE_EQ(mesh4.fabric.scaleup_group_bytes_per_s(4), all);
  EXPECT_DOUBLE_EQ(switched.fabric.scaleup_group_bytes_per_s(2), switched.fabric.scaleup_bytes_per_s);
  Hardware mi = resolve_hardware(catalog, "mi300x-platform");  // its Infinity Fabric wired as a mesh of 8
  mi.fabric.scaleup_direct_mesh = true;
  EXPECT_DOUBLE_EQ(mi.fabric.scaleup_group_bytes_per_s(4), mi.fabric.scaleup_bytes_per_s * 3 / 7);
  double last = 0;
  for (int k = 2; k <= 8; ++k) {
    const double b = mi.fabric.scaleup_group_bytes_per_s(k);
    EXPECT_GE(b, last) << k;
    EXPECT_LE(b, mi.fabric.scaleup_bytes_per_s) << k;
    last = b;
  }
  const double bytes = 64e6;
  for (Collective kind : {Collective::all_reduce, Collective::all_gather, Collective::all_to_all,
                          Collective::send_recv}) {
    const double t_mesh = collective_time_s(kind, bytes, Group{2, 1}, mesh4);
    const double t_switch = collective_time_s(kind, bytes, Group{2, 1}, switched);
    EXPECT_GT(t_mesh, 2.5 * t_switch) << to_string(kind);  // a third of the bandwidth, the same latencies
    if (kind != Collective::send_recv) {  // a pipeline hop is one pair whatever the group
      EXPECT_DOUBLE_EQ(collective_time_s(kind, bytes, Group{4, 1}, mesh4),
                       collective_time_s(kind, bytes, Group{4, 1}, switched))
          << to_string(kind);
    }
  }
}

}  // namespace
}  // namespace gpuplan
