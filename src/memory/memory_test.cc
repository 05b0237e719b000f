#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "memory/activations.h"
#include "memory/inference_memory.h"
#include "memory/training_memory.h"

namespace gpuplan {
namespace {

// Llama 3 70B (Meta model card / config.json).
ModelArch llama3_70b() {
  ModelArch m;
  m.name = "llama3-70b";
  m.layers = 80;
  m.hidden = 8192;
  m.ffn_hidden = 28672;
  m.heads = 64;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.vocab = 128256;
  m.gated_mlp = true;
  m.tied_embeddings = false;
  m.attention = AttentionKind::gqa;
  return m;
}

// GPT-3 175B as in Korthikanti et al. 2022 Table 3: 96 layers, h 12288, 96 heads, s 2048, vocab 51200.
ModelArch gpt3_175b() {
  ModelArch m;
  m.name = "gpt3-175b";
  m.layers = 96;
  m.hidden = 12288;
  m.ffn_hidden = 4 * 12288;
  m.heads = 96;
  m.kv_heads = 96;
  m.head_dim = 128;
  m.vocab = 51200;
  m.gated_mlp = false;
  m.attention = AttentionKind::mha;
  m.mlp_bias = true;
  m.norm_bias = true;
  m.attention_bias = true;
  return m;
}

// Mixtral 8x7B: 32 layers, 8 experts, top-2.
ModelArch mixtral_8x7b() {
  ModelArch m = llama3_70b();
  m.name = "mixtral-8x7b";
  m.layers = 32;
  m.hidden = 4096;
  m.ffn_hidden = 14336;
  m.heads = 32;
  m.kv_heads = 8;
  m.vocab = 32000;
  m.moe.num_experts = 8;
  m.moe.top_k = 2;
  m.moe.expert_ffn_hidden = 14336;
  return m;
}

// DeepSeek-V3 (MLA, 256 routed + 1 shared expert, 3 dense layers).
ModelArch deepseek_v3() {
  ModelArch m;
  m.name = "deepseek-v3";
  m.layers = 61;
  m.hidden = 7168;
  m.ffn_hidden = 18432;
  m.heads = 128;
  m.kv_heads = 128;
  m.head_dim = 128;
  m.vocab = 129280;
  m.attention = AttentionKind::mla;
  m.mla = {1536, 512, 128, 64, 128};
  m.moe.num_experts = 256;
  m.moe.top_k = 8;
  m.moe.expert_ffn_hidden = 2048;
  m.moe.shared_experts = 1;
  m.moe.first_dense_layers = 3;
  return m;
}

TrainingWorkload workload(int gpus, int seq = 4096, long long gbs = 1024) {
  TrainingWorkload w;
  w.num_gpus = gpus;
  w.seq_len = seq;
  w.global_batch = gbs;
  return w;
}

double total(const ModelArch& m, const std::string& plan, const TrainingWorkload& w) {
  return training_memory(m, parse_training_plan(plan), w).total_bytes;
}

// ---- Golden figures ----

TEST(MemoryGolden, Llama3_70bBf16WeightsOnOneGpu) {
  InferenceMemoryInput in;
  in.context_tokens = 1;
  in.concurrency = 0;
  const auto r = inference_memory(llama3_70b(), in);
  EXPECT_NEAR(r.weights_bytes / 1e9, 141.1, 0.5);  // 70.55 B params x 2 bytes
}

TEST(MemoryGolden, Llama3_70bKvPerToken) {
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(llama3_70b(), 2.0), 327680.0);  // 2*80*8*128*2
  InferenceMemoryInput in;
  in.tp = 8;
  in.context_tokens = 8192;
  in.concurrency = 1;
  const auto r = inference_memory(llama3_70b(), in);
  EXPECT_EQ(r.kv_split, 8);
  EXPECT_DOUBLE_EQ(r.kv_bytes_per_token, 327680.0 / 8);
  EXPECT_DOUBLE_EQ(r.kv_bytes_per_sequence, 327680.0 / 8 * 8192);
  // tp = 16 > 8 KV heads: each head replicated on two GPUs, the per-GPU share stops at 1/8.
  in.tp = 16;
  EXPECT_DOUBLE_EQ(inference_memory(llama3_70b(), in).kv_bytes_per_token, 327680.0 / 8);
}

TEST(MemoryGolden, PagedBlocksRoundUp) {
  InferenceMemoryInput in;
  in.context_tokens = 17;  // two blocks of 16
  const auto r = inference_memory(llama3_70b(), in);
  EXPECT_DOUBLE_EQ(r.kv_bytes_per_sequence, 327680.0 * 32);
}

// Korthikanti et al. 2022 §4.2.2, GPT-3 175B, s = 2048, b = 1, t = 8.
TEST(MemoryGolden, Gpt3ActivationsPerLayerKorthikanti) {
  const ModelArch m = gpt3_175b();
  ActivationContext c;
  c.seq_local = 2048;
  c.micro_batch = 1;
  c.tp = 8;
  c.dropout = true;
  c.flash_attention = false;
  const double sbh = 2048.0 * 1 * 12288;
  const double as_h = 5.0 * 96 * 2048 / 12288;  // 5as/h = 80
  // TP + SP + selective recompute: sbh * 34 / t.
  c.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, false, c, Recompute::selective), sbh * 34 / 8);
  // TP + SP, no recompute: sbh/t * (34 + 5as/h).
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, false, c, Recompute::none), sbh / 8 * (34 + as_h));
  // Full recompute with SP: 2sbh/t.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, false, c, Recompute::full), 2 * sbh / 8);
  // TP without SP, no recompute: sbh * (10 + 24/t + 5as/(ht)).
  c.sequence_parallel = false;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, false, c, Recompute::none), sbh * (10 + 24.0 / 8 + as_h / 8));
  // No parallelism: sbh * (34 + 5as/h).
  c.tp = 1;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, false, c, Recompute::none), sbh * (34 + as_h));
}

TEST(MemoryActivations, Fp8KeepsGemmInputsInOneByte) {
  // Llama 3 70B (SwiGLU, GQA), tp=1: in FP8, Transformer Engine keeps the inputs of the QKV, output,
  // up and down projections in FP8 (1 byte): h + h(attention output) + h + f bytes per token less.
  const ModelArch m = llama3_70b();
  ActivationContext c;
  c.seq_local = 8192;
  c.tp = 1;
  const double bf16 = layer_activation_bytes(m, false, c, Recompute::none);
  c.gemm_input_bytes = weight_bytes(Precision::fp8);
  const double fp8 = layer_activation_bytes(m, false, c, Recompute::none);
  const double h = m.hidden, f = m.ffn_hidden, v = 1.0 * m.heads * m.head_dim;
  EXPECT_NEAR(bf16 - fp8, 8192.0 * (h + v + h + f), 1e-9 * bf16);
  // Full recompute keeps only the BF16 layer input either way.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, false, c, Recompute::full), 8192.0 * 2 * h);
  // The training estimate follows the workload's precision.
  TrainingWorkload w = workload(64);
  const auto plan = parse_training_plan("tp=8,pp=1");
  const double a16 = training_memory(m, plan, w).stages[0].activations_bytes;
  w.precision = Precision::fp8;
  EXPECT_LT(training_memory(m, plan, w).stages[0].activations_bytes, a16);
}

TEST(MemoryActivations, EagerKernelsKeepWhatPyTorchModulesSave) {
  // Eager PyTorch under autocast with fp32 parameters, per token of a Llama layer: each norm's input is the
  // fp32 residual stream (4h, not 2h), SiLU keeps its output (2f) and the attention output is kept twice
  // (2 x heads x head_dim). Per token, 2h + 2h + 2f + 2v more than the fused kernels.
  const ModelArch m = llama3_70b();
  ActivationContext c;
  c.seq_local = 4096;
  const double fused = layer_activation_bytes(m, false, c, Recompute::none);
  c.eager = true;
  const double eager = layer_activation_bytes(m, false, c, Recompute::none);
  const double h = m.hidden, f = m.ffn_hidden, v = 1.0 * m.heads * m.head_dim;
  EXPECT_NEAR(eager - fused, 4096.0 * (2 * h + 2 * h + 2 * f + 2 * v), 1e-9 * eager);
  // Full recompute keeps the layer input either way.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, false, c, Recompute::full), 4096.0 * 2 * h);
  // The loss: F.cross_entropy on fp32-upcast logits holds 14 bytes per vocabulary entry and token against
  // the fused cross-entropy's 4, on the last stage.
  TrainingWorkload w = workload(8, 4096, 8);
  const auto plan = parse_training_plan("tp=8,pp=1,mbs=1");
  const auto a = training_memory(m, plan, w);
  w.finetune.kernels = LoopKernels::eager;
  const auto b = training_memory(m, plan, w);
  EXPECT_NEAR(b.stages[0].logits_bytes, a.stages[0].logits_bytes * 14.0 / 4.0, 1e-6 * b.stages[0].logits_bytes);
  EXPECT_GT(b.activations_bytes, a.activations_bytes);
  EXPECT_DOUBLE_EQ(b.optimizer_bytes, a.optimizer_bytes);  // only what the layers and the loss keep changes
}

TEST(MemoryActivations, OffloadMovesTheFirstLayersToHost) {
  // Llama 3 70B FP8, tp=1 pp=1 ZeRO-3 on 64 GPUs, mbs=2 x 8k tokens (the Megatron-Bridge GB200 recipe,
  // which offloads 40 of the 80 layers: cpu_offloading_num_layers=40). Offloaded layers leave the GPU
  // and their bytes sit in host memory; while the micro-batch runs through them the GPU holds two.
  const ModelArch m = llama3_70b();
  TrainingWorkload w = workload(64, 8192, 256);
  w.precision = Precision::fp8;
  const auto none = training_memory(m, parse_training_plan("tp=1,pp=1,mbs=2,zero=3,sp=0"), w);
  const auto half = training_memory(m, parse_training_plan("tp=1,pp=1,mbs=2,zero=3,sp=0,offload_layers=40"), w);
  ActivationContext c;
  c.seq_local = 8192;
  c.micro_batch = 2;
  c.gemm_input_bytes = weight_bytes(Precision::fp8);
  const double layer = layer_activation_bytes(m, false, c, Recompute::none);
  EXPECT_DOUBLE_EQ(half.stages[0].offloaded_bytes_per_microbatch, 40 * layer);
  EXPECT_DOUBLE_EQ(half.host_offload_bytes, 40 * layer);
  EXPECT_NEAR(none.activations_bytes - half.activations_bytes, 40 * layer, 1e-9 * none.activations_bytes);
  EXPECT_DOUBLE_EQ(none.host_offload_bytes, 0);
  // By gpuplan's estimate the recipe's 40 layers are what it takes to fit 186 GB (GB200) without the
  // first-run reserve, and 20 would not: the estimate agrees with the recipe.
  MemoryOptions o;
  o.reserve_bytes = 0;
  o.capacity_bytes = 186e9;
  EXPECT_TRUE(training_memory(m, parse_training_plan("tp=1,pp=1,mbs=2,zero=3,sp=0,offload_layers=40"), w, o).fits);
  EXPECT_FALSE(training_memory(m, parse_training_plan("tp=1,pp=1,mbs=2,zero=3,sp=0,offload_layers=20"), w, o).fits);
  EXPECT_FALSE(training_memory(m, parse_training_plan("tp=1,pp=1,mbs=2,zero=3,sp=0"), w, o).fits);
  // Memory never rises as more layers are offloaded, and still grows with the micro-batch.
  double prev = none.total_bytes;
  for (int k = 1; k <= 80; ++k) {
    const double t = training_memory(m, parse_training_plan(fmt::format("tp=1,pp=1,mbs=2,zero=3,sp=0,offload_layers={}", k)), w).total_bytes;
    EXPECT_LE(t, prev + 1.0) << k;
    prev = t;
  }
  EXPECT_LT(training_memory(m, parse_training_plan("tp=1,pp=1,mbs=1,zero=3,sp=0,offload_layers=40"), w).total_bytes,
            half.total_bytes);
  TrainingPlan bad = parse_training_plan("tp=1");
  bad.offload_layers = -1;
  EXPECT_THROW(training_memory(m, bad, w), InputError);
}

TEST(MemoryActivations, ModuleRecomputeDropsNormActivationAndMlaOutputs) {
  // Megatron --recompute-modules layernorm moe_act mla_up_proj: per token, the two norm outputs (the
  // QKV and MLP GEMM inputs; a router's BF16 copy in an MoE layer), each routed copy's activation
  // output (the down projection's input) and MLA's up-projected Q, K, V are not kept.
  ActivationContext c;
  c.seq_local = 4096;
  c.tp = 1;
  const ModelArch dense = llama3_70b();
  c.gemm_input_bytes = 1.0;  // FP8
  EXPECT_NEAR(layer_activation_bytes(dense, false, c, Recompute::none) -
                  layer_activation_bytes(dense, false, c, Recompute::modules),
              4096.0 * 2 * dense.hidden, 1e-6);
  const ModelArch ds = deepseek_v3();
  c.gemm_input_bytes = 2.0;  // BF16
  const MlaDims& a = ds.mla;
  const double q = 1.0 * ds.heads * (a.qk_nope_head_dim + a.qk_rope_head_dim), v = 1.0 * ds.heads * a.v_head_dim;
  const double h = ds.hidden;
  const double saved = 2 * h + 2 * h + 2 * (q + q + v) + ds.moe.top_k * 2.0 * ds.moe.expert_ffn_hidden;
  EXPECT_NEAR(layer_activation_bytes(ds, true, c, Recompute::none) - layer_activation_bytes(ds, true, c, Recompute::modules),
              4096.0 * saved, 1e-6 * 4096.0 * saved);
  // Between keeping everything and recomputing whole layers.
  EXPECT_GT(layer_activation_bytes(ds, true, c, Recompute::modules), layer_activation_bytes(ds, true, c, Recompute::full));
  EXPECT_EQ(parse_training_plan("recompute=modules").recompute, Recompute::modules);
  EXPECT_THROW(parse_training_plan("recompute=some"), InputError);
}

TEST(MemoryGolden, MegatronSixPlusTwelveOverD) {
  // Distributed optimizer, pp = 1: weights + grads + optimizer = params * (6 + 12/d) (Megatron docs).
  const ModelArch m = llama3_70b();
  const auto r = training_memory(m, parse_training_plan("tp=8,pp=1"), workload(64));
  ASSERT_EQ(r.dp, 8);
  const double params = r.stages[0].params;
  EXPECT_NEAR(params, total_params(m) / 8, total_params(m) * 0.01);  // norms replicated: ~0.001% off
  EXPECT_NEAR(r.weights_bytes + r.gradients_bytes + r.optimizer_bytes, params * (6 + 12.0 / 8), 1.0);
}

TEST(MemoryGolden, InterleavedFirstStageHoldsKorthikantiFactor) {
  // First stage holds pp * (1 + (pp-1)/(pp*vp)) micro-batches (Korthikanti §4.2.3).
  const auto r = training_memory(llama3_70b(), parse_training_plan("tp=8,pp=4,vp=2"), workload(64));
  EXPECT_DOUBLE_EQ(r.stages[0].in_flight_microbatches, 4 * (1 + 3.0 / 8));
  const auto plain = training_memory(llama3_70b(), parse_training_plan("tp=8,pp=4"), workload(64));
  EXPECT_DOUBLE_EQ(plain.stages[0].in_flight_microbatches, 4);
  EXPECT_DOUBLE_EQ(plain.stages[3].in_flight_microbatches, 1);
  // Capped by the micro-batches a step has: gbs 2 on dp 2 -> 1 micro-batch.
  const auto few = training_memory(llama3_70b(), parse_training_plan("tp=8,pp=4"), workload(64, 4096, 2));
  EXPECT_DOUBLE_EQ(few.stages[0].in_flight_microbatches, 1);
}

TEST(MemoryGolden, LogitsBufferOnLastStage) {
  const auto r = training_memory(llama3_70b(), parse_training_plan("tp=8,pp=4"), workload(64));
  EXPECT_DOUBLE_EQ(r.stages[3].logits_bytes, 4096.0 * 128256 / 8 * 4);
  EXPECT_DOUBLE_EQ(r.stages[0].logits_bytes, 0);
  EXPECT_EQ(r.stages[0].role, "first");
  EXPECT_EQ(r.stages[3].role, "last");
}

// ---- Properties ----

TEST(MemoryProperty, PartsSumToTotal) {
  for (const auto& [m, plan, gpus] :
       std::vector<std::tuple<ModelArch, std::string, int>>{
           {llama3_70b(), "tp=8,pp=1", 8},
           {llama3_70b(), "tp=4,pp=4,vp=5,recompute=full,recompute_layers=2", 64},
           {llama3_70b(), "tp=2,pp=2,zero=3,dist_opt=0", 16},
           {gpt3_175b(), "tp=8,pp=8,recompute=selective", 512},
           {mixtral_8x7b(), "tp=2,pp=2,ep=4", 64},
           {deepseek_v3(), "tp=2,pp=8,ep=32", 1024}}) {
    MemoryOptions o;
    o.capacity_bytes = 80e9;
    const auto r = training_memory(m, parse_training_plan(plan), workload(gpus), o);
    EXPECT_NEAR(r.parts_sum(), r.total_bytes, 1e-6 * r.total_bytes) << m.name << " " << plan;
    for (const auto& s : r.stages) {
      EXPECT_NEAR(s.weights_bytes + s.gradients_bytes + s.optimizer_bytes + s.activations_bytes + o.reserve_bytes,
                  s.total_bytes, 1e-6 * s.total_bytes);
      EXPECT_LE(s.total_bytes, r.total_bytes);
    }
    EXPECT_EQ(r.fits, r.total_bytes <= o.capacity_bytes);
    EXPECT_EQ(r.fits, r.violations.empty());
    EXPECT_DOUBLE_EQ(r.headroom_bytes, o.capacity_bytes - r.total_bytes);
  }
}

TEST(MemoryProperty, GrowsWithMicroBatchAndSequence) {
  const ModelArch m = llama3_70b();
  EXPECT_LT(total(m, "tp=8,pp=4,mbs=1", workload(64)), total(m, "tp=8,pp=4,mbs=2", workload(64)));
  EXPECT_LT(total(m, "tp=8,pp=4", workload(64, 2048)), total(m, "tp=8,pp=4", workload(64, 8192)));
}

TEST(MemoryProperty, FallsWithTpPpAndZero) {
  const ModelArch m = llama3_70b();
  EXPECT_GT(total(m, "tp=1", workload(64)), total(m, "tp=2", workload(64)));
  EXPECT_GT(total(m, "tp=2", workload(64)), total(m, "tp=4", workload(64)));
  EXPECT_GT(total(m, "tp=4", workload(64)), total(m, "tp=8", workload(64)));
  EXPECT_GT(total(m, "tp=8,pp=1", workload(64)), total(m, "tp=8,pp=2", workload(64)));
  EXPECT_GT(total(m, "tp=8,pp=2", workload(64)), total(m, "tp=8,pp=4", workload(64)));
  EXPECT_GT(total(m, "tp=8,zero=0,dist_opt=0", workload(64)), total(m, "tp=8,zero=1", workload(64)));
  EXPECT_GT(total(m, "tp=8,zero=1", workload(64)), total(m, "tp=8,zero=2", workload(64)));
  EXPECT_GT(total(m, "tp=8,zero=2", workload(64)), total(m, "tp=8,zero=3", workload(64)));
}

TEST(MemoryProperty, RecomputeOrdering) {
  for (const ModelArch& m : {llama3_70b(), gpt3_175b()}) {
    const double full = total(m, "tp=8,pp=4,recompute=full", workload(64));
    const double sel = total(m, "tp=8,pp=4,recompute=selective", workload(64));
    const double none = total(m, "tp=8,pp=4,recompute=none", workload(64));
    EXPECT_LT(full, sel) << m.name;
    EXPECT_LT(sel, none) << m.name;
  }
  // Recomputing fewer layers keeps more.
  const ModelArch m = llama3_70b();
  EXPECT_LT(total(m, "tp=8,pp=4,recompute=full", workload(64)),
            total(m, "tp=8,pp=4,recompute=full,recompute_layers=10", workload(64)));
}

TEST(MemoryProperty, GqaKeepsLessThanMha) {
  ModelArch gqa = llama3_70b(), mha = llama3_70b();
  mha.kv_heads = 64;
  mha.attention = AttentionKind::mha;
  ActivationContext c;
  c.tp = 8;
  EXPECT_LT(layer_activation_bytes(gqa, false, c, Recompute::selective),
            layer_activation_bytes(mha, false, c, Recompute::selective));
}

TEST(MemoryProperty, ContextParallelSplitsActivations) {
  const ModelArch m = llama3_70b();
  const auto a = training_memory(m, parse_training_plan("tp=8,cp=1"), workload(16, 8192, 64));
  const auto b = training_memory(m, parse_training_plan("tp=8,cp=2"), workload(16, 8192, 64));
  EXPECT_NEAR(b.activation_bytes_per_layer * 2, a.activation_bytes_per_layer, 1e-9 * a.activation_bytes_per_layer);
}

TEST(MemoryProperty, ExpertParallelShrinksMoeWeights) {
  const ModelArch m = mixtral_8x7b();
  const auto e1 = training_memory(m, parse_training_plan("tp=2,ep=1"), workload(16));
  const auto e8 = training_memory(m, parse_training_plan("tp=2,ep=8"), workload(16));
  EXPECT_GT(e1.weights_bytes, 3 * e8.weights_bytes);
  EXPECT_EQ(e8.expert_dp, 2);
}

TEST(MemoryProperty, MoeActivationsScaleWithTopK) {
  ModelArch m = mixtral_8x7b();
  ActivationContext c;
  const double k2 = layer_activation_bytes(m, true, c, Recompute::selective);
  m.moe.top_k = 4;
  EXPECT_GT(layer_activation_bytes(m, true, c, Recompute::selective), k2);
}

TEST(MemoryProperty, InferenceGrowsWithConcurrencyAndContext) {
  const ModelArch m = llama3_70b();
  InferenceMemoryInput in;
  in.tp = 8;
  in.concurrency = 8;
  in.context_tokens = 4096;
  const double base = inference_memory(m, in).total_bytes;
  in.concurrency = 16;
  EXPECT_GT(inference_memory(m, in).total_bytes, base);
  in.concurrency = 8;
  in.context_tokens = 8192;
  EXPECT_GT(inference_memory(m, in).total_bytes, base);
}

// A hybrid model (Qwen3.5-397B-A17B's layout: 15 full-attention and 45 Gated DeltaNet layers) holds a
// fixed recurrent state per sequence; its memory grows with the context only through the full layers.
TEST(MemoryProperty, HybridGrowsWithContextOnlyThroughFullAttentionLayers) {
  ModelArch m = llama3_70b();
  m.layers = 60, m.heads = 32, m.kv_heads = 2, m.head_dim = 256;
  ModelArch hybrid = m;
  hybrid.linear = {45, 16, 64, 128, 128, 4, 4.0};
  InferenceMemoryInput in;
  in.tp = 4;
  in.concurrency = 8;
  auto per_seq = [&](const ModelArch& x, long long ctx) {
    in.context_tokens = ctx;
    return inference_memory(x, in).kv_bytes_per_sequence;
  };
  for (long long ctx : {1024LL, 8192LL, 65536LL}) {
    const double full_grow = per_seq(m, 2 * ctx) - per_seq(m, ctx);
    const double hybrid_grow = per_seq(hybrid, 2 * ctx) - per_seq(hybrid, ctx);
    EXPECT_DOUBLE_EQ(hybrid_grow, full_grow * 15.0 / 60.0) << ctx;
    in.context_tokens = ctx;
    const auto r = inference_memory(hybrid, in);
    // The state: 45 layers x (64 x 128 x 128 fp32 + 3 x 12288 bf16 conv taps), value heads split over tp=4.
    EXPECT_DOUBLE_EQ(r.state_bytes_per_sequence, 45.0 * (64.0 * 128 * 128 * 4 + 3.0 * 12288 * 2) / 4);
    EXPECT_GT(r.kv_bytes_per_sequence, r.state_bytes_per_sequence);
  }
  EXPECT_DOUBLE_EQ(inference_memory(m, in).state_bytes_per_sequence, 0);
}

// Training activations of a hybrid model: without flash attention the stored scores grow with the
// sequence only in the full-attention layers (a quarter of Qwen3.5's), never in the linear ones.
TEST(MemoryActivations, HybridScoresGrowOnlyInFullAttentionLayers) {
  ModelArch m = llama3_70b();
  m.layers = 60, m.heads = 32, m.kv_heads = 2, m.head_dim = 256;
  ModelArch hybrid = m;
  hybrid.linear = {45, 16, 64, 128, 128, 4, 4.0};
  auto per_token = [](const ModelArch& x, int seq) {
    ActivationContext c;
    c.seq_local = seq;
    c.micro_batch = 1;
    c.tp = 1;
    c.flash_attention = false;
    c.dropout = false;
    return layer_activation_bytes(x, false, c, Recompute::none) / seq;
  };
  const double full_grow = per_token(m, 8192) - per_token(m, 4096);
  const double hybrid_grow = per_token(hybrid, 8192) - per_token(hybrid, 4096);
  EXPECT_GT(full_grow, 0);
  EXPECT_NEAR(hybrid_grow, full_grow * 15.0 / 60.0, 1e-9 * full_grow);
  EXPECT_GT(per_token(hybrid, 4096), 0);
}

TEST(MemoryProperty, MaxConcurrencyFillsFreeMemory) {
  for (const ModelArch& m : {llama3_70b(), mixtral_8x7b(), deepseek_v3()}) {
    InferenceMemoryInput in;
    in.tp = 8;
    in.weight_precision = m.name == "deepseek-v3" ? Precision::fp8 : Precision::bf16;
    in.context_tokens = 8192;
    in.capacity_bytes = 141e9;
    in.concurrency = 1;
    const auto r = inference_memory(m, in);
    ASSERT_GT(r.max_concurrency, 0) << m.name;
    in.concurrency = r.max_concurrency;
    const auto at_max = inference_memory(m, in);
    EXPECT_TRUE(at_max.fits) << m.name;
    const double free = in.capacity_bytes - at_max.weights_bytes - at_max.activations_bytes - at_max.reserve_bytes;
    EXPECT_LE(static_cast<double>(r.max_concurrency) * at_max.kv_bytes_per_sequence, free) << m.name;
    EXPECT_NEAR(at_max.parts_sum(), at_max.total_bytes, 1.0);
    in.concurrency = r.max_concurrency + 1;
    const auto over = inference_memory(m, in);
    EXPECT_FALSE(over.fits) << m.name;
    EXPECT_EQ(over.violations.size(), 1u);
  }
}

TEST(MemoryProperty, MlaLatentReplicatedAcrossTp) {
  InferenceMemoryInput in;
  in.tp = 8;
  const auto r = inference_memory(deepseek_v3(), in);
  EXPECT_EQ(r.kv_split, 1);
  EXPECT_DOUBLE_EQ(r.kv_bytes_per_token, 61.0 * (512 + 64) * 2);
}

TEST(MemoryProperty, Fp8WeightsHalveInferenceWeights) {
  InferenceMemoryInput in;
  in.tp = 8;
  const double bf16 = inference_memory(llama3_70b(), in).weights_bytes;
  in.weight_precision = Precision::fp8;
  const double fp8 = inference_memory(llama3_70b(), in).weights_bytes;
  EXPECT_LT(fp8, 0.55 * bf16);
  EXPECT_GT(fp8, 0.5 * bf16);  // embeddings stay bf16
}

TEST(MemoryFit, DoesNotFitIsData) {
  MemoryOptions o;
  o.capacity_bytes = 80e9;
  const auto r = training_memory(llama3_70b(), parse_training_plan("tp=1"), workload(8), o);
  EXPECT_FALSE(r.fits);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].code, "memory.exceeds_capacity");
  EXPECT_LT(r.headroom_bytes, 0);
}

// ---- Malformed input ----

template <typename F>
std::string error_field(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.field();
  }
  return "(no error)";
}

TEST(MemoryInput, BadPlansNameTheField) {
  const ModelArch m = llama3_70b();
  EXPECT_EQ(error_field([&] { training_memory(m, parse_training_plan("tp=3"), workload(24)); }), "--plan.tp");
  EXPECT_EQ(error_field([&] { training_memory(m, parse_training_plan("tp=16"), workload(16)); }), "--plan.tp");
  EXPECT_EQ(error_field([&] { training_memory(m, parse_training_plan("tp=8"), workload(12)); }), "--gpus");
  EXPECT_EQ(error_field([&] { training_memory(m, parse_training_plan("tp=8"), workload(0)); }), "--gpus");
  EXPECT_EQ(error_field([&] { training_memory(m, parse_training_plan("tp=8,ep=2"), workload(16)); }), "--plan.ep");
  EXPECT_EQ(error_field([&] { training_memory(m, parse_training_plan("vp=2"), workload(8)); }), "--plan.vp");
  EXPECT_EQ(error_field([&] { training_memory(m, parse_training_plan("tp=8,dp=4"), workload(16)); }), "--plan.dp");
  EXPECT_EQ(error_field([&] { training_memory(m, parse_training_plan("tp=8"), workload(48, 4096, 1000)); }),
            "--global-batch");
  EXPECT_EQ(error_field([&] { training_memory(m, parse_training_plan("cp=3"), workload(3, 4096, 3)); }), "--plan.cp");
  try {
    training_memory(m, parse_training_plan("tp=3"), workload(24));
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("allowed: 1, 2, 4, 8"), std::string::npos) << e.what();
  }
}

TEST(MemoryInput, AcceptsWhatTheTrainingEvaluatorAccepts) {
  // Megatron's account_for_embedding/loss: pp * vp may reach layers + 2 (some chunks then hold none).
  const auto r = training_memory(llama3_70b(), parse_training_plan("tp=8,pp=2,vp=41"), workload(16));
  EXPECT_EQ(r.stages[0].layers + r.stages[1].layers, 80);
  EXPECT_NEAR(r.parts_sum(), r.total_bytes, 1e-6 * r.total_bytes);
  // More recomputed layers than a chunk has: all of them.
  EXPECT_DOUBLE_EQ(total(llama3_70b(), "tp=8,pp=4,recompute=full,recompute_layers=1000", workload(64)),
                   total(llama3_70b(), "tp=8,pp=4,recompute=full", workload(64)));
}

TEST(MemoryInput, BadInferenceNameTheField) {
  const ModelArch m = llama3_70b();
  InferenceMemoryInput in;
  in.tp = 3;
  EXPECT_EQ(error_field([&] { inference_memory(m, in); }), "--tp");
  in.tp = 1;
  in.ep = 2;
  EXPECT_EQ(error_field([&] { inference_memory(m, in); }), "--ep");
  in.ep = 1;
  in.pp = 81;
  EXPECT_EQ(error_field([&] { inference_memory(m, in); }), "--pp");
  in.pp = 1;
  in.context_tokens = 0;
  EXPECT_EQ(error_field([&] { inference_memory(m, in); }), "--context");
  in.context_tokens = 10;
  in.concurrency = -1;
  EXPECT_EQ(error_field([&] { inference_memory(m, in); }), "--concurrency");
  EXPECT_EQ(valid_inference_tp(m, 64), (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
}

TEST(MemoryActivations, MoeLayersBeforeCountsAsIsMoeLayer) {
  ModelArch m = deepseek_v3();
  for (int fd : {0, 1, 3, 7}) {
    for (int freq : {1, 2, 3}) {
      m.moe.first_dense_layers = fd;
      m.moe.layer_freq = freq;
      long long counted = 0;
      for (int i = 0; i <= 40; ++i) {
        EXPECT_EQ(moe_layers_before(m, i), counted) << "fd " << fd << " freq " << freq << " index " << i;
        counted += is_moe_layer(m, i) ? 1 : 0;
      }
    }
  }
  EXPECT_EQ(moe_layers_before(llama3_70b(), 80), 0);
}

}  // namespace
}  // namespace gpuplan

#include "catalog/catalog.h"
#include "model/model_registry.h"

namespace gpuplan {
namespace {

// figures_at is at() less the violation of a total beyond the capacity: every figure the same, bit for
// bit, `fits` included, at loads that fit and loads that do not.
TEST(MemoryAtLoads, FiguresAtAreAtWithoutTheViolation) {
  InferenceMemoryInput in;
  in.tp = 8;
  in.context_tokens = 8192;
  in.capacity_bytes = 80e9;
  const ModelArch m = llama3_70b();  // outlives `loads`, which keeps a reference to it
  const InferenceMemoryAtLoads loads(m, in);
  const long long top = loads.at(0).max_concurrency;
  ASSERT_GT(top, 1);
  for (long long c : {0LL, 1LL, top, top + 1, 4 * top}) {
    const InferenceMemory judged = loads.at(c), figures = loads.figures_at(c);
    EXPECT_EQ(figures.total_bytes, judged.total_bytes) << c;
    EXPECT_EQ(figures.kv_cache_bytes, judged.kv_cache_bytes) << c;
    EXPECT_EQ(figures.activations_bytes, judged.activations_bytes) << c;
    EXPECT_EQ(figures.headroom_bytes, judged.headroom_bytes) << c;
    EXPECT_EQ(figures.fits, judged.fits) << c;
    EXPECT_EQ(figures.max_concurrency, judged.max_concurrency) << c;
    EXPECT_EQ(judged.violations.size(), judged.fits ? 0u : 1u) << c;
    EXPECT_TRUE(figures.violations.empty()) << c;
  }
  EXPECT_FALSE(loads.at(top + 1).fits);
}

// DeepSeek-V3's published plan (report sec. 3: 2,048 H800, pp16, ep64 over 8 nodes, ZeRO-1 over DP,
// FP8 GEMMs with FP32 master weights and gradients and BF16 Adam moments, RMSNorm and MLA
// up-projections recomputed, SwiGLU inputs cached in FP8) fits the H800's 80 GB, as it ran. With
// Megatron's activation memory (BF16 SwiGLU inputs, expert outputs kept for the combine) it does not.
TEST(TrainingMemory, DeepSeekV3PublishedPlanFitsOnH800) {
  const Catalog catalog = Catalog::builtin();
  const ModelArch m = resolve_model("deepseek-v3");
  TrainingWorkload w;
  w.num_gpus = 2048;
  w.seq_len = 4096;
  w.global_batch = 15360;
  w.precision = Precision::fp8;
  MemoryOptions o;
  o.capacity_bytes = catalog.accelerator(catalog.system("hgx-h800").accelerator).memory_bytes;
  o.host_capacity_bytes = catalog.system("hgx-h800").host_memory_bytes_per_gpu();
  TrainingPlan p = parse_training_plan(
      "tp=1,pp=16,ep=64,mbs=1,zero=1,recompute=modules,moments=bf16,moe_act_fp8=1,combine_from_act=1");
  p.dp = 0;
  const TrainingMemory r = training_memory(m, p, w, o);
  EXPECT_TRUE(r.fits) << r.total_bytes / 1e9 << " GB of " << o.capacity_bytes / 1e9;
  EXPECT_EQ(r.dp, 128);
  EXPECT_EQ(r.expert_dp, 2);
  TrainingPlan megatron = p;
  megatron.moe_act_fp8 = false;
  megatron.combine_from_act = false;
  EXPECT_FALSE(training_memory(m, megatron, w, o).fits);
  // Each saving is strict: both lower the activations, neither touches the rest.
  TrainingPlan one = megatron;
  one.moe_act_fp8 = true;
  const TrainingMemory r1 = training_memory(m, one, w, o), r0 = training_memory(m, megatron, w, o);
  EXPECT_LT(r1.activations_bytes, r0.activations_bytes);
  EXPECT_LT(r.activations_bytes, r1.activations_bytes);
  EXPECT_DOUBLE_EQ(r.weights_bytes + r.gradients_bytes + r.optimizer_bytes,
                   r0.weights_bytes + r0.gradients_bytes + r0.optimizer_bytes);
}

}  // namespace
}  // namespace gpuplan
