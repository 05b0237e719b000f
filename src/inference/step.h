#pragma once
// One forward step of a serving instance, from FLOPs, bytes, bandwidths and latencies: the per-stage
// layer shape, the step of one pipeline stage (decodes and prompt tokens), the MTP draft head's work
// and the ways steps combine. Internal to src/inference: the evaluator (inference.cc) assembles
// decode and prefill from these.
#include "inference/inference.h"
#include "physics/collective.h"
#include "physics/compute.h"

namespace gpuplan::step {

// The scheduler's own work per iteration (batch assembly, sampling, detokenisation hand-off) on the
// host is the generation's fitted infer_step_overhead_s; on top, per sequence in the batch:
constexpr double kStepHostPerSeqS = 1.0e-6;  // sampling, bookkeeping

// The rows of a weight GEMM's tensor-core tile: a GEMM of m rows pays for m rounded up to it.
constexpr long long kGemmTileRows = 64;

// A GEMM's (or a sum of GEMMs') time, FLOPs and bytes moved.
struct Work {
  double time_s = 0, flops = 0, bytes = 0;
};

struct Shape {
  // Per stage (the largest), per layer kind.
  int layers = 0, moe_layers = 0, dense_layers = 0;
  bool has_head = true;  // the output head runs on the last stage; the largest stage is charged with it
  LayerParams dense, moe;
  double attn_flops_per_ctx = 0;  // attention FLOPs per token per context token per layer (full attention)
  double decode_flops_per_ctx = 0;  // the same for a decode token (MLA: absorbed form)
  double kv_bytes_per_token_layer = 0;  // whole model, one layer, at the KV precision
  double window_share = 0;  // share of layers with a sliding window (or, sparse attention: 1 of top-k)
  int window = 0;
  bool chunked_window = false;  // the window is aligned chunks (ModelArch::chunked_window)
  // Per layer, averaged over the model's layers: the DSA indexer scores the whole context (FLOPs and
  // its FP8 keys per context token); linear-attention layers cost a fixed amount per token and read
  // and write their recurrent state once per decode step.
  double index_flops_per_ctx = 0, index_bytes_per_ctx = 0;
  double linear_flops_per_token = 0, state_bytes_per_seq = 0;
};

Shape shape_of(const ModelArch& m, const InferenceParallel& par, double kv_bytes);

// One forward step of one pipeline stage: `decode` sequences generating one token each at mean
// context `ctx`, plus `prefill` prompt tokens of prompts `isl` long (causal attention). `verify`:
// tokens each decoding sequence runs through the model (MTP/speculative verify: k + 1).
// `prefill_ranks`: with attention data-parallel, the attention ranks the prompt tokens are spread
// over (0: all tp of them, a batch of prompts).
StepTime stage_step(const ModelArch& m, const Hardware& hw, const InferenceParallel& par, const InferenceWorkload& w,
                    const Shape& s, int kv_split, double decode, double ctx, double prefill, double isl,
                    double verify = 1.0, bool allow_overlap = true, double prefill_ranks = 0);

// stage_step of one deployment (model, hardware, parallelism, workload and per-stage shape) with what
// does not depend on a step's tokens made once: the GEMMs' shapes and rates, the block-scaled shares,
// the expert spread's terms and the launches. step() gives stage_step's figures, bit for bit; the
// evaluators ask it for the many steps of one deployment. Keeps references to the model and the
// hardware.
class Stage {
 public:
  Stage(const ModelArch& m, const Hardware& hw, const InferenceParallel& par, const InferenceWorkload& w,
        const Shape& s);
  Stage(ModelArch&&, const Hardware&, const InferenceParallel&, const InferenceWorkload&, const Shape&) = delete;
  Stage(const ModelArch&, Hardware&&, const InferenceParallel&, const InferenceWorkload&, const Shape&) = delete;
  // Stage(m, hw, par, w, s) of `full`'s deployment over a shape `s` of the same layers
  // (draft_shape(m, full's shape)): the same stage, its GEMMs taken from `full` rather than made again.
  Stage(const Stage& full, const Shape& s);
  // stage_step(m, hw, par, w, s, kv_split, decode, ctx, prefill, isl, verify, allow_overlap, prefill_ranks).
  StepTime step(int kv_split, double decode, double ctx, double prefill, double isl, double verify = 1.0,
                bool allow_overlap = true, double prefill_ranks = 0) const;

 private:
  // One weight GEMM's fixed terms: its (k x n) slice, bytes and rate at full tiles.
  struct Gemm {
    bool on = false;        // n > 0 and k > 0
    double n = 0, k = 0;
    double weight_bytes = 0;  // n k x bytes per weight
    double n_plus_k = 0;
    double eff = 0;           // the GEMM efficiency before the tiles' use and the kernel's share
    double peak_flops = 0;    // of the format it executes in
    bool operator==(const Gemm&) const = default;
  };
  // The GEMMs of one kind of layer (dense, MoE).
  struct LayerGemms {
    Gemm attention, mlp, experts, router;
  };
  Gemm gemm(MathFormat fmt, double n, double k, double wbytes) const;
  Work run(const Gemm& g, double m, double count = 1, bool grouped = false, double eff_share = 1.0) const;
  // An MoE layer's expert GEMMs for `tokens` through it: the busiest rank's active experts (the distinct
  // experts its tokens picked, over the ep ranks) and the rows each runs (uniform routing's spread times
  // the real skew).
  struct ExpertSpread {
    double per_gpu_experts = 0, rows = 0;
  };
  ExpertSpread expert_spread(double tokens) const;
  // `spread`, when given: expert_spread(tokens), already made; `attention`: the attention GEMMs' work,
  // already run.
  Work layer(const LayerGemms& g, bool moe_layer, double tokens, double attn_tokens, double prefill,
             const ExpertSpread* spread, const Work* attention) const;
  Work gemms(double decode, double prefill, double isl, double prefill_ranks,
             const ExpertSpread* spread = nullptr) const;
  // A floor on gemms(decode, prefill, ...).time_s: the weights its GEMMs stream (each at least once; the
  // experts' as often as gemms counts them), over the HBM. `spread`: expert_spread(decode + prefill) where
  // the stage has MoE layers.
  double gemms_floor_s(const ExpertSpread& spread) const;
  // The terms of the shape's layer counts: the weights every step streams, the launches and (with
  // `collectives`) the collectives.
  void shape_terms(bool collectives);
  StepTime finish(const Work& gemm, int kv_split, double decode, double ctx, double prefill, double isl, double verify,
                  bool allow_overlap, double prefill_ranks) const;

  const ModelArch& m_;
  const Hardware& hw_;
  const InferenceParallel par_;
  Shape s_;
  double expert_skew_ = 1, moe_gemm_eff_ = 1, moe_kernel_share_ = 1;
  // Attention-DP with the dense MLPs, shared experts and head replicated on each rank (the engine's,
  // InferenceWorkload::attention_dp_dense_replicated): they run each rank's own tokens.
  bool dense_replicated_ = false;
  bool moe_gathered_ = false;
  // Half the spread of the running decodes' contexts about their mean (an output's length over two:
  // ages uniform over it), for the keys windowed and chunked layers attend.
  double decode_half_spread_ = 0;
  double dense_share_ = 1, moe_share_ = 1;  // fp8_block_share of the dense and the expert GEMMs
  double hbm_bytes_per_s_ = 0;              // the GEMMs' streaming rate
  double two_log_ep_ = 0;                   // 2 ln(ep), of the expert spread (ep > 1)
  LayerGemms dense_, moe_;
  bool same_attention_ = false;  // the dense and the MoE layers' attention GEMMs are the same
  Gemm head_;
  double overhead_s_ = 0;                   // the kernel launches of one step
  double fixed_weight_bytes_ = 0;           // the weights of a step's GEMMs but the experts'
  // The attention core's rates: the training fit's flash attention, and the engines' MLA kernels
  // (decode, prefill; 0 where the generation states none).
  double attention_flops_per_s_ = 0, mla_decode_flops_per_s_ = 0, mla_prefill_flops_per_s_ = 0;
  double prefill_attention_flops_per_s_ = 0;  // prompts' attention other than MLA's (fp8_context_attention)
  // The collectives of the stage's groups: the TP group's all-reduce, all-to-all, all-gather and
  // reduce-scatter, and the hand-off to the next stage.
  CollectiveTime tp_all_reduce_, tp_all_to_all_, tp_all_gather_, tp_reduce_scatter_, pp_send_;
  double tp_all_reduce_s(double bytes) const;
};

// The shape of the MTP draft head's pass: one layer of the model's own kind and the output head.
Shape draft_shape(const ModelArch& m, const Shape& s);
// draft_step from the draft pass's stage (a Stage of draft_shape).
StepTime draft_step(const Stage& one, int decode_kv_split, double decode, double ctx, int k);

// The MTP draft head's work in one decode step (k sequential passes of one layer and the head).
StepTime draft_step(const ModelArch& m, const Hardware& hw, const InferenceParallel& par, const InferenceWorkload& w,
                    const Shape& s, int kv_split, double decode, double ctx, int k);
// The mean of two kinds of step, a share f of them `b` and the rest `a`.
StepTime blend(const StepTime& a, const StepTime& b, double f);
// One step `a` plus a share f of another kind of step `b` run beside it.
StepTime added(const StepTime& a, const StepTime& b, double f);
StepTime scaled(StepTime s, double f);
// Sequences one rank's process handles in a step.
double rank_sequences(const InferenceParallel& par, double batch);
// Host work beyond the GPU step exposed as overhead (overlap scheduler).
void expose_host_work(StepTime& st, double host_s);

}  // namespace gpuplan::step
