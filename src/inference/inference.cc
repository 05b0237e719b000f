#include "inference/inference.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "inference/speculative.h"
#include "physics/collective.h"
#include "physics/compute.h"

namespace gpuplan {

namespace {

constexpr double kActBytes = 2.0;     // bf16 activations between layers
constexpr double kHeadBytes = 2.0;    // output head stays bf16 in quantized checkpoints
// Kernels one transformer layer launches in a decode step (norms, QKV, rotary+KV append, attention,
// O-proj, all-reduce, MLP up/gate, activation, down; fused in TensorRT-LLM to about this many).
constexpr double kKernelsPerLayer = 8.0;
// Kernels an MoE layer launches beyond a dense one's MLP, whatever its active parameters: the router
// GEMM, top-k/softmax, the permutation of tokens to their experts and the weighted un-permutation
// (TensorRT-LLM's and SGLang's fused MoE: routing, expand, grouped fc1 + activation, grouped fc2,
// finalize). They do not shrink with the experts' size, which is what keeps small-active MoE steps
// (gpt-oss, Qwen3-30B-A3B) from being as short as their FLOPs and bytes.
constexpr double kMoeExtraKernelsPerLayer = 4.0;
// Kernels a sparse-attention (DSA) layer's indexer adds in a step, whatever the context: its query
// projection, the fused key / head-weight projection, the key LayerNorm with rope, the FP8 casts of
// query and key with the index-key cache store, the paged FP8 MQA logits and the top-k selection
// (SGLang's NSA indexer, DeepSeek-V3.2-Exp's reference inference: about six after fusion).
constexpr double kDsaExtraKernelsPerLayer = 6.0;
// The scheduler's own work per iteration (batch assembly, sampling, detokenisation hand-off) on the
// host is the generation's fitted infer_step_overhead_s; on top, per sequence in the batch:
constexpr double kStepHostPerSeqS = 1.0e-6;  // sampling, bookkeeping

// The efficiencies an inference step runs at: the training fit's GEMM and attention values, with the
// serving parameters (infer_*) in place of HBM streaming and per-kernel overhead.
// Board power bounds sustained tensor throughput. The fitted GEMM efficiencies describe the
// generation's reference part, which holds its clocks under load within its TDP: its board power
// per dense BF16 TFLOP/s (datasheet TDP / peak, data/catalog/accelerators.yaml) is the energy the
// generation spends per FLOP at full rate. A part of the same generation with less power per peak
// FLOP (H100 NVL 400 W and H100 PCIe 350 W against the H100 SXM's 700 W for 84% / 76% of its rate;
// MI300X 750 W against the MI325X's 1000 W for the same rate) runs its tensor cores at most at
// tdp / (peak x reference W per FLOP) of its peak: first order, at constant energy per FLOP.
// Voltage scaling at lower clocks (less energy per FLOP) makes the real limit milder, the HBM's and
// the static share of the budget make it harsher. Reference parts: the generation's full-die,
// GPU-only part with the most power per peak FLOP (superchip modules such as GH200/GB200 count the
// CPU in their TDP and are not references; cut-down dies such as the H20 are never limited).
double power_limited_share(const Accelerator& a) {
  struct Ref {
    const char* generation;
    double watts, bf16_tflops;  // reference part's TDP and dense BF16 peak
  };
  static constexpr Ref kRefs[] = {
      {"ampere", 400, 312},           // A100 SXM4
      {"ada", 350, 362.05},           // L40S
      {"hopper", 700, 989.5},         // H100 SXM5 / H200 SXM
      {"blackwell", 1000, 2250},      // B200 (HGX)
      {"blackwell_ultra", 1100, 2250},  // B300 (HGX)
      {"cdna3", 1000, 1307.4},        // MI325X
  };
  const double peak = a.peak(MathFormat::bf16) / 1e12;
  if (a.tdp_w <= 0 || peak <= 0) return 1.0;
  for (const Ref& r : kRefs) {
    if (a.generation != r.generation) continue;
    return std::min(1.0, a.tdp_w / (peak * r.watts / r.bf16_tflops));
  }
  return 1.0;
}

}  // namespace

Hardware serving_hardware(const Hardware& hw) {
  Hardware h = hw;
  const double share = power_limited_share(h.accelerator);
  for (auto& [fmt, rate] : h.accelerator.peak_flops) rate *= share;
  Efficiency& e = h.efficiency;
  e.hbm_eff = e.infer_hbm_eff;
  e.kernel_overhead_s = e.infer_kernel_overhead_s;
  // A serving GEMM rate fitted on TTFT (calibrate --inference --prefill --params infer_gemm_max)
  // where the generation states one: serving GEMMs run at it, not at the training fit's. (The MLA
  // prefill attention rate applies in the step, to MLA prompts only: stage_step.)
  if (e.infer_gemm_max > 0) e.gemm_max = e.infer_gemm_max;
  return h;
}

namespace {

// TP all-reduce of one step's activations. Serving engines reduce small messages with one-shot or
// two-shot kernels over NVLink (TensorRT-LLM customAllReduce, vLLM custom_all_reduce): one or two
// link latencies instead of the ring's 2 (k-1); large ones use the ring. The fastest applies.
double tp_all_reduce_s(double bytes, int tp, const Hardware& hw) {
  const Group g{tp, 1};
  const double ring = collective_time_s(Collective::all_reduce, bytes, g, hw);
  if (tp <= 1 || tp > hw.fabric.domain_gpus) return ring;
  const double up = hw.fabric.scaleup_bytes_per_s * hw.efficiency.scaleup_eff;
  const double lat = hw.fabric.scaleup_latency_s, k = tp;
  const double one_shot = hw.efficiency.kernel_overhead_s + (k - 1) * bytes / up + lat;
  const double two_shot = hw.efficiency.kernel_overhead_s + 2.0 * ((k - 1) / k * bytes / up + lat);
  return std::min({ring, one_shot, two_shot});
}

// What the serving engine holds outside weights, activation workspace and KV pool: the CUDA context
// and the engines' communication buffers (NCCL, custom all-reduce), about 1 GB on Hopper. The rest
// of the headroom is kv_mem_fraction: TensorRT-LLM sizes its KV pool as
// kv_cache_free_gpu_mem_fraction (0.9) of the memory free after loading the weights and
// allocating the activation buffers, so the 10% it leaves is the engine's reserve; a fixed 5 GB on
// top of it (the training default) left Llama 3.x 70B FP8 on one 80 GB H100 room for about one
// sequence where TensorRT-LLM runs some twenty.
constexpr double kServingReserveBytes = 1e9;

double pad(double d, double tile) { return std::ceil(d / tile) * tile; }

// Absorbed-MLA decode kernels (FlashMLA, FlashInfer's MLA on Hopper/Blackwell) put a sequence's
// query rows (its heads on this rank x the query tokens it verifies) on the tensor cores' M
// dimension in tiles of 64 rows (FlashMLA: kBlockM = 64 over seqlen_q x num_heads_q): with the
// heads split by TP (DeepSeek's 128 heads / TP16 = 8 per rank) a tile is partly empty and its math
// costs the full tile. Attention-DP keeps all heads on one rank (128 rows: no padding).
double mla_decode_row_padding(const ModelArch& m, const Hardware& hw, double verify, double heads_split) {
  if (m.attention != AttentionKind::mla) return 1.0;
  const double rows = std::max(1.0, verify * m.heads / std::max(1.0, heads_split));
  const double tile = std::max(1, hw.efficiency.mla_decode_tile_rows);
  return pad(rows, tile) / rows;
}

struct Work {
  double time_s = 0, flops = 0, bytes = 0;
};

// Attention of `flops` in the engines' own MLA kernels, whose rates are not the training fit's flash-
// attention rate: MLA prompts run the expanded form (192-wide query/key heads, 128-wide values, 128
// heads; FlashInfer / trtllm-gen / CUTLASS MLA on NVIDIA, AITER on AMD) at the generation's fitted MLA
// prefill rate (infer_mla_prefill_eff, calibrate --inference --prefill on TTFT at low load), MLA
// decodes the absorbed form (FlashMLA, trtllm-gen / FlashInfer MLA, AITER's MLA decode; padded rows
// included) at its fitted MLA decode rate (infer_mla_decode_eff, calibrate --inference --params
// infer_mla_decode_eff on TPOT). `mla_eff` is the one that applies; where it is unset (0), and for
// other attention, the training fit's attention_eff.
double mla_attention_s(const ModelArch& m, const Hardware& hw, double flops, double mla_eff) {
  if (m.attention != AttentionKind::mla || !(mla_eff > 0) || flops <= 0) return attention_time_s(hw, flops);
  return flops / (peak_flops(hw.accelerator, MathFormat::bf16) * mla_eff);
}

// A weight GEMM of `m` tokens through a (k x n) weight slice on one GPU: roofline maximum of the
// tensor-core time (the generation's gemm_max, precision scale, small-n/k roll-off, 64-row tiles)
// and the bytes streamed (weights once per step plus bf16 activations in and out). Decode GEMMs
// are skinny (m = batch), so the token dimension pads to the tile instead of rolling off.
//
// `grouped`: a grouped MoE GEMM (TensorRT-LLM's MoE plugin, vLLM fused_moe: CUTLASS/Triton grouped
// GEMM) walks the active experts one after another, each a few row tiles against its own weights.
// Streaming an expert's weights overlaps only with that expert's own math, which at a few hundred
// rows per expert is too short to hide it: the time is the weights' streaming plus the real
// (unpadded) math, and never less than the padded tiles' math. At decode's handful of rows per
// expert that is the streaming time, as for a dense GEMM; at prefill's hundreds it is their sum.
// `eff_share`: the share of the generation's GEMM efficiency the kernel reaches (the serving
// engine's grouped MoE kernels: InferenceWorkload::moe_gemm_eff).
Work linear(const Hardware& hw, MathFormat fmt, double m, double n, double k, double wbytes, double count = 1,
            bool grouped = false, double eff_share = 1.0) {
  Work w;
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0) return w;
  const Efficiency& e = hw.efficiency;
  fmt = executed_format(hw.accelerator, fmt);  // FP4 weights on a chip without FP4 math run in BF16
  double scale = 1.0;
  if (fmt == MathFormat::fp8 || fmt == MathFormat::fp6) scale = e.gemm_fp8_scale;
  if (fmt == MathFormat::fp4) scale = e.gemm_fp4_scale;
  const double tile_use = m / pad(m, 64);
  const double eff = e.gemm_max * scale / (1.0 + e.gemm_half_dim / n + e.gemm_half_dim / k) * tile_use * eff_share;
  w.flops = 2.0 * m * n * k * count;
  w.bytes = (n * k * wbytes + m * (n + k) * kActBytes) * count;
  const double t_math = w.flops / (peak_flops(hw.accelerator, fmt) * eff);
  const double t_mem = w.bytes / (hw.accelerator.memory_bandwidth_bytes_per_s * e.hbm_eff);
  w.time_s = grouped ? std::max(t_math, t_mem + t_math * tile_use) : std::max(t_math, t_mem);
  return w;
}

// The share of the FP8 GEMM rate a weight GEMM reaches given its weights' scaling block (`block`: 0
// per-tensor, -1 the model's checkpoint): block-scaled FP8 (DeepSeek's 128 x 128 weight blocks and
// 1 x 128 activation groups quantized at run time) at the generation's fitted infer_fp8_block_share
// (1 where it states none), anything else, or GEMMs that do not run in FP8 on this chip, 1.
// With `triton` (InferenceWorkload::fp8_block_gemm_triton) the generation's fitted share of the
// Triton fallback kernel where it has one.
double fp8_block_share(const ModelArch& m, const Hardware& hw, MathFormat fmt, int block, bool triton = false) {
  const int b = block >= 0 ? block : m.fp8_weight_block;
  const Efficiency& e = hw.efficiency;
  const double share = triton && e.infer_fp8_block_triton_share > 0 ? e.infer_fp8_block_triton_share
                                                                     : e.infer_fp8_block_share;
  if (b <= 0 || !(share > 0) || executed_format(hw.accelerator, fmt) != MathFormat::fp8) return 1.0;
  return share;
}

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
  // Per layer, averaged over the model's layers: the DSA indexer scores the whole context (FLOPs and
  // its FP8 keys per context token); linear-attention layers cost a fixed amount per token and read
  // and write their recurrent state once per decode step.
  double index_flops_per_ctx = 0, index_bytes_per_ctx = 0;
  double linear_flops_per_token = 0, state_bytes_per_seq = 0;
};

Shape shape_of(const ModelArch& m, const InferenceParallel& par, double kv_bytes) {
  Shape s;
  s.layers = (m.layers + par.pp - 1) / par.pp;
  const double moe_share = m.layers > 0 ? double(m.moe_layers()) / m.layers : 0.0;
  s.moe_layers = static_cast<int>(std::lround(s.layers * moe_share));
  s.dense_layers = s.layers - s.moe_layers;
  s.dense = layer_params(m, false);
  s.moe = m.is_moe() ? layer_params(m, true) : s.dense;
  // Attention FLOPs per context token, per layer (averaged over the layers: linear-attention layers
  // have no context term), and the KV bytes of the layers that keep a KV cache.
  const double layers = std::max(1, m.layers);
  const double full_share = m.full_attention_layers() / layers;
  s.attn_flops_per_ctx = attention_flops_per_context_token(m) * full_share;
  s.index_flops_per_ctx = indexer_flops_per_context_token(m) * full_share;
  s.index_bytes_per_ctx = indexer_key_bytes_per_token(m) / layers;
  s.kv_bytes_per_token_layer = (kv_cache_bytes_per_token(m, kv_bytes) - indexer_key_bytes_per_token(m)) / layers;
  s.linear_flops_per_token = linear_attention_flops_per_token(m) * m.linear.layers / layers;
  s.state_bytes_per_seq = recurrent_state_bytes_per_sequence(m, kActBytes) / layers;
  if (m.attention == AttentionKind::mla) {
    // Decode runs MLA in its absorbed form (DeepSeek-V2 paper, sec. 2.1.2; FlashMLA): every head
    // scores the compressed latent plus the rope key and sums the latent values, 2 (2 c + r) FLOPs
    // per head and context token, more than the expanded form prefill uses.
    s.decode_flops_per_ctx = 2.0 * m.heads * (2.0 * m.mla.kv_lora_rank + m.mla.qk_rope_head_dim) * full_share;
  } else {
    s.decode_flops_per_ctx = s.attn_flops_per_ctx;
  }
  if (m.sliding_window > 0) {
    s.window = m.sliding_window;
    s.window_share = m.sliding_window_layers > 0 ? double(m.sliding_window_layers) / m.layers : 1.0;
  } else if (m.is_sparse()) {
    s.window = m.sparse.index_topk;  // each query attends at most index_topk keys, in every layer
    s.window_share = 1.0;
  }
  return s;
}

double effective_ctx(const Shape& s, double ctx) {
  if (s.window <= 0) return ctx;
  return (1 - s.window_share) * ctx + s.window_share * std::min(ctx, double(s.window));
}

// Busiest EP rank's routed rows over the mean: uniform top-k routing spreads `rows_per_rank`
// rows per rank as a binomial, and the step waits for the largest of `ep` ranks, about mean +
// sqrt(2 ln ep x mean) (the expected maximum of ep near-normal counts); real routing adds its skew.
double expert_imbalance(double rows_per_rank, int ep, double skew) {
  if (ep <= 1 || rows_per_rank <= 0) return skew;
  return skew * (1.0 + std::sqrt(2.0 * std::log(double(ep)) / rows_per_rank));
}

// Distinct active experts on the busiest of `ep` ranks when `active` of the `experts` are active,
// each rank holding experts / ep of them: each held expert is active with p = active / experts, so a
// rank's count is binomial (mean n p, variance n p (1 - p), n = experts / ep) and the expected
// maximum of ep near-normal counts is the mean plus sqrt(2 ln ep) deviations, at most n. At decode's
// few tokens per step the busiest rank streams up to twice the mean's expert weights (what makes
// EP8 decode slower than TP8 at small batch); with every expert active (p -> 1) it is n, the mean.
double busiest_rank_experts(double experts, double active, double ep) {
  if (ep <= 1 || experts <= 0) return active;
  const double n = experts / ep, p = std::clamp(active / experts, 0.0, 1.0);
  return std::min(n, n * p + std::sqrt(2.0 * std::log(ep) * n * p * (1.0 - p)));
}

// One forward step of one pipeline stage: `decode` sequences generating one token each at mean
// context `ctx`, plus `prefill` prompt tokens of prompts `isl` long (causal attention). `verify`:
// tokens each decoding sequence runs through the model (MTP/speculative verify: k + 1).
// `prefill_ranks`: with attention data-parallel, the attention ranks the prompt tokens are spread
// over (0: all tp of them, a batch of prompts). A request's KV cache lives on one attention-DP
// rank, so one prompt alone runs its attention (QKV/O projections, flash attention) on that rank
// while the others wait for it at the MoE layers: prefill_ranks = 1.
StepTime stage_step(const ModelArch& m, const Hardware& hw, const InferenceParallel& par, const InferenceWorkload& w,
                    const Shape& s, int kv_split, double decode, double ctx, double prefill, double isl,
                    double verify = 1.0, bool allow_overlap = true, double prefill_ranks = 0) {
  StepTime st;
  const double dec_seq_count = decode;
  decode *= verify;
  const double tokens = decode + prefill;
  if (tokens <= 0) return st;
  const MathFormat fmt = gemm_format(w.weight_precision);
  const double wb = weight_bytes(w.weight_precision);
  const double dense_share = fp8_block_share(m, hw, fmt, w.fp8_weight_block, w.fp8_block_gemm_triton);
  const double moe_share = fp8_block_share(m, hw, fmt, w.fp8_moe_weight_block);
  const double tp = par.tp;
  const double h = m.hidden;
  const double dp_prefill_ranks = prefill_ranks > 0 ? std::min(prefill_ranks, tp) : tp;
  const double attn_tokens = par.attention_dp ? decode / tp + prefill / dp_prefill_ranks : tokens;
  const double attn_split = par.attention_dp ? 1.0 : tp;
  Work gemm;
  auto add = [&](const Work& x, double times) {
    gemm.time_s += x.time_s * times;
    gemm.flops += x.flops * times;
    gemm.bytes += x.bytes * times;
  };
  auto layer_gemms = [&](const LayerParams& lp, bool moe_layer) {
    Work acc;
    const double attn_p = lp.attention / attn_split;
    const Work a = linear(hw, fmt, attn_tokens, attn_p / h, h, wb, 1, false, dense_share);
    acc.time_s += a.time_s, acc.flops += a.flops, acc.bytes += a.bytes;
    const double mlp_p = (lp.mlp_dense + lp.moe_shared) / tp;
    if (mlp_p > 0) {
      const Work d = linear(hw, fmt, tokens, mlp_p / h, h, wb, 1, false, dense_share);
      acc.time_s += d.time_s, acc.flops += d.flops, acc.bytes += d.bytes;
    }
    if (moe_layer && m.is_moe()) {
      const double E = m.moe.num_experts, k = m.moe.top_k;
      const double ep = par.ep;
      const double moe_tp = std::max(1.0, tp / ep);
      const double group = std::max(tp, ep);
      const double active = expected_active_experts(m.moe.num_experts, m.moe.top_k, tokens);
      // Grouped GEMM over the busiest rank's active experts: it streams the weights of the distinct
      // experts its tokens picked and runs their rows (uniform routing's spread over ep ranks times
      // the real skew), so the step waits for the rank with the most of both.
      const double per_gpu_experts = std::max(1.0, busiest_rank_experts(E, active, ep));
      const double imb = expert_imbalance(tokens * k / ep, par.ep, w.expert_skew);
      const double rows = tokens * k / ep * imb / per_gpu_experts;
      const double ep_p = lp.moe_expert / moe_tp;
      // The engine's MoE kernel share (moe_gemm_eff) is its prefill kernels': the prompt rows run at
      // it, the decode rows at the reference's (the engines' decode MoE paths, e.g. SGLang's DeepEP
      // low-latency masked grouped GEMM, are what the generation's decode rates were fitted with):
      // a mixed step's grouped GEMM runs at the rows' harmonic blend.
      const double prompt_rows = prefill / tokens;
      const double engine_share = 1.0 / (prompt_rows / w.moe_gemm_eff + (1.0 - prompt_rows));
      const Work x =
          linear(hw, fmt, rows, ep_p / h, h, wb, per_gpu_experts, /*grouped=*/true, engine_share * moe_share);
      acc.time_s += x.time_s, acc.flops += x.flops, acc.bytes += x.bytes;
      (void)E, (void)group;
      // Router: tokens x hidden x experts in bf16, replicated.
      const Work r = linear(hw, MathFormat::bf16, tokens, E, h, 2.0);
      acc.time_s += r.time_s, acc.flops += r.flops, acc.bytes += r.bytes;
    }
    return acc;
  };
  add(layer_gemms(s.dense, false), s.dense_layers);
  add(layer_gemms(s.moe, true), s.moe_layers);
  if (s.has_head) {
    // Logits only for the tokens that sample: every decode plus the last token of each prompt.
    const double head_tokens = decode + (isl > 0 ? prefill / isl : 0);  // verify: every draft position
    add(linear(hw, MathFormat::bf16, std::max(1.0, head_tokens), double(m.vocab) / tp, h, kHeadBytes), 1);
  }
  st.gemm_s = gemm.time_s;
  st.weight_bytes_read = gemm.bytes;
  st.flops = gemm.flops;

  // Attention core: decodes read their whole KV cache; prompts run causal flash attention.
  const double heads_split = par.attention_dp ? 1.0 : tp;
  const double kv_split_eff = par.attention_dp ? 1.0 : kv_split;
  const double dec_seqs = par.attention_dp ? dec_seq_count / tp : dec_seq_count;
  const double pre_tokens = par.attention_dp ? prefill / dp_prefill_ranks : prefill;
  const double dctx = effective_ctx(s, ctx);
  const double pctx = effective_ctx(s, (isl + 1) / 2.0);
  // Verify: k + 1 query tokens per sequence against one read of its KV cache.
  // Beyond the attended keys: the DSA indexer over the whole context (its keys replicated like
  // MLA's latent), the linear-attention layers' fixed work and their state read and written.
  const double dec_flops =
      dec_seqs * verify * (dctx * s.decode_flops_per_ctx + ctx * s.index_flops_per_ctx + s.linear_flops_per_token) /
      heads_split * s.layers;
  const double dec_bytes = dec_seqs *
                           (dctx * s.kv_bytes_per_token_layer / kv_split_eff + ctx * s.index_bytes_per_ctx +
                            2.0 * s.state_bytes_per_seq / heads_split) *
                           s.layers;
  const double pre_flops = pre_tokens *
                           (pctx * s.attn_flops_per_ctx + (isl + 1) / 2.0 * s.index_flops_per_ctx + s.linear_flops_per_token) /
                           heads_split * s.layers;
  const double t_dec =
      std::max(mla_attention_s(m, hw, dec_flops * mla_decode_row_padding(m, hw, verify, heads_split),
                               hw.efficiency.infer_mla_decode_eff),
               memory_bound_time_s(hw, dec_bytes));
  st.attention_s = t_dec + mla_attention_s(m, hw, pre_flops, hw.efficiency.infer_mla_prefill_eff);
  st.kv_bytes_read = dec_bytes;
  st.flops += dec_flops + pre_flops;

  // Communication, each collective on the link tier its group spans.
  if (par.tp > 1) {
    const Group g{par.tp, 1};
    if (!par.attention_dp) {
      st.tp_comm_s = 2.0 * s.layers * tp_all_reduce_s(tokens * h * kActBytes, par.tp, hw);
    } else {
      // Attention-DP: tokens are dispatched to their experts and combined back (all-to-all) in
      // MoE layers; dense layers gather and scatter the tokens.
      // Each rank sends its own tokens' top-k copies (DeepEP: what each rank really routes, the
      // busiest receiving the most): latency-bound at decode's few tokens, bandwidth-bound at
      // prefill's thousands, on the link tier the group spans (NVLink domain or scale-out RDMA).
      const double local = tokens / tp;
      const double imb = expert_imbalance(local * std::max(1, m.moe.top_k), par.ep, w.expert_skew);
      const double disp = local * std::max(1, m.moe.top_k) * h * kActBytes * imb;
      st.ep_comm_s = 2.0 * s.moe_layers * collective_time_s(Collective::all_to_all, disp, g, hw);
      st.tp_comm_s = s.dense_layers * (collective_time_s(Collective::all_gather, tokens * h * kActBytes, g, hw) +
                                       collective_time_s(Collective::reduce_scatter, tokens * h * kActBytes, g, hw));
    }
  }
  if (par.pp > 1)
    st.pp_comm_s = collective_time_s(Collective::send_recv, tokens * h * kActBytes, Group{2, par.tp}, hw);
  st.overhead_s = (kKernelsPerLayer * s.layers + (m.is_moe() ? kMoeExtraKernelsPerLayer * s.moe_layers : 0.0) +
                   (m.is_sparse() ? kDsaExtraKernelsPerLayer * s.layers : 0.0)) *
                  hw.efficiency.kernel_overhead_s;
  st.total_s = st.parts_sum();
  if (allow_overlap && par.two_batch_overlap && st.ep_comm_s > 0 && tokens >= 2) {
    // Two micro-batches: each runs the step's compute on half the tokens (streaming the weights
    // again) while the other's dispatch/combine is in flight; the exposed communication is what
    // the other half's compute does not cover. Engines enable it where it pays: the faster applies.
    StepTime half =
        stage_step(m, hw, par, w, s, kv_split, dec_seq_count / 2, ctx, prefill / 2, isl, verify, false, prefill_ranks);
    StepTime two = half;
    const double compute = half.gemm_s + half.attention_s;
    two.gemm_s *= 2, two.attention_s *= 2, two.tp_comm_s *= 2, two.pp_comm_s *= 2;
    two.overhead_s *= 2;
    two.ep_comm_s = 2.0 * std::max(0.0, half.ep_comm_s - compute);
    two.weight_bytes_read *= 2, two.kv_bytes_read *= 2, two.flops *= 2;
    two.total_s = two.parts_sum();
    if (two.total_s < st.total_s) return two;
  }
  return st;
}

// The MTP draft head's work in one decode step: k sequential passes, each of one transformer layer
// of the model's own kind (DeepSeek-V3's MTP module is one MoE block plus a projection) and the
// output head, for the batch's B sequences.
StepTime draft_step(const ModelArch& m, const Hardware& hw, const InferenceParallel& par, const InferenceWorkload& w,
                    const Shape& s, int kv_split, double decode, double ctx, int k) {
  Shape one = s;
  one.layers = 1;
  one.moe_layers = m.is_moe() ? 1 : 0;
  one.dense_layers = 1 - one.moe_layers;
  one.has_head = true;
  const StepTime d = stage_step(m, hw, par, w, one, kv_split, decode, ctx, 0, 0);
  StepTime st;
  st.draft_s = k * d.total_s;
  st.total_s = st.draft_s;
  st.weight_bytes_read = k * d.weight_bytes_read;
  st.kv_bytes_read = k * d.kv_bytes_read;
  st.flops = k * d.flops;
  return st;
}

// The mean of two kinds of step, a share f of them `b` and the rest `a`.
StepTime blend(const StepTime& a, const StepTime& b, double f) {
  StepTime s;
  auto mix = [f](double x, double y) { return (1.0 - f) * x + f * y; };
  s.gemm_s = mix(a.gemm_s, b.gemm_s), s.attention_s = mix(a.attention_s, b.attention_s);
  s.tp_comm_s = mix(a.tp_comm_s, b.tp_comm_s), s.ep_comm_s = mix(a.ep_comm_s, b.ep_comm_s);
  s.pp_comm_s = mix(a.pp_comm_s, b.pp_comm_s), s.overhead_s = mix(a.overhead_s, b.overhead_s);
  s.draft_s = mix(a.draft_s, b.draft_s);
  s.weight_bytes_read = mix(a.weight_bytes_read, b.weight_bytes_read);
  s.kv_bytes_read = mix(a.kv_bytes_read, b.kv_bytes_read), s.flops = mix(a.flops, b.flops);
  s.total_s = s.parts_sum();
  return s;
}

// One step `a` plus a share f of another kind of step `b` run beside it (the decodes wait for it).
StepTime added(const StepTime& a, const StepTime& b, double f) {
  StepTime s = a;
  s.gemm_s += f * b.gemm_s, s.attention_s += f * b.attention_s, s.tp_comm_s += f * b.tp_comm_s;
  s.ep_comm_s += f * b.ep_comm_s, s.pp_comm_s += f * b.pp_comm_s, s.overhead_s += f * b.overhead_s;
  s.draft_s += f * b.draft_s;
  s.weight_bytes_read += f * b.weight_bytes_read, s.kv_bytes_read += f * b.kv_bytes_read, s.flops += f * b.flops;
  s.total_s = s.parts_sum();
  return s;
}

StepTime scaled(StepTime s, double f) {
  s.gemm_s *= f, s.attention_s *= f, s.tp_comm_s *= f, s.ep_comm_s *= f, s.pp_comm_s *= f, s.overhead_s *= f;
  s.draft_s *= f;
  s.total_s = s.parts_sum();
  return s;
}

// Sequences one rank's process handles in a step: with attention data-parallel each rank runs its
// own share of the batch; otherwise every rank of the instance steps through the whole batch.
double rank_sequences(const InferenceParallel& par, double batch) {
  return par.attention_dp ? batch / std::max(1, par.tp) : batch;
}

// An overlap scheduler prepares step n + 1 on the host (scheduling, sampling the previous step's
// tokens, per-request bookkeeping and responses) while the GPU runs step n, so the step takes the
// longer of the two: host work beyond the GPU step is exposed as overhead (TensorRT-LLM PyExecutor,
// `disable_overlap_scheduler: false`, the default since v0.19).
void expose_host_work(StepTime& st, double host_s) {
  if (!(host_s > st.total_s)) return;
  st.overhead_s += host_s - st.total_s;
  st.total_s = st.parts_sum();
}

// The TP the memory model splits attention and dense layers by. With attention-DP the attention is
// replicated on every rank, so the worker may be wider than the heads divide (48 ranks of a
// 128-head model on NVL72): the dense layers then split over the widest divisor of both.
int memory_tp(const ModelArch& m, const InferenceParallel& par) {
  if (!par.attention_dp) return par.tp;
  const int kvh = m.kv_heads > 0 ? m.kv_heads : m.heads;
  for (int t = par.tp; t > 1; --t)
    if (par.tp % t == 0 && m.heads % t == 0 && (m.attention == AttentionKind::mla || kvh % t == 0 || t % kvh == 0))
      return t;
  return 1;
}

void check_input(const ModelArch& m, const InferenceParallel& par, const InferenceWorkload& w, int gpus) {
  if (par.tp < 1 || par.tp > 1024) throw InputError("--tp", fmt::format("must be 1 to 1024, got {}", par.tp));
  if (par.pp < 1 || par.pp > m.layers)
    throw InputError("--pp", fmt::format("must be 1 to {} (the layers of {}), got {}", m.layers, m.name, par.pp));
  if (par.ep < 1) throw InputError("--ep", fmt::format("must be >= 1, got {}", par.ep));
  if (par.ep > par.tp)
    throw InputError("--ep", fmt::format("{} must not exceed tp = {} (experts are split over the tp group)", par.ep,
                                         par.tp));
  if (par.attention_dp && !m.is_moe())
    throw InputError("--attention-dp", fmt::format("applies to MoE models; {} is dense", m.name));
  if (w.isl < 1 || w.isl > 10000000) throw InputError("--isl", fmt::format("must be 1 to 10000000, got {}", w.isl));
  if (w.osl < 1 || w.osl > 10000000) throw InputError("--osl", fmt::format("must be 1 to 10000000, got {}", w.osl));
  if (w.concurrency < 0) throw InputError("--concurrency", fmt::format("must be >= 0, got {}", w.concurrency));
  if (!(w.length_low_fraction > 0.0 && w.length_low_fraction <= 1.0))
    throw InputError("--length-low", fmt::format("must be in (0, 1], got {}", w.length_low_fraction));
  if (w.max_num_tokens < 1) throw InputError("--max-num-tokens", fmt::format("must be >= 1, got {}", w.max_num_tokens));
  if (w.max_batch_size < 1) throw InputError("--max-batch-size", fmt::format("must be >= 1, got {}", w.max_batch_size));
  if (w.mtp_draft_tokens < 0 || w.mtp_draft_tokens > 16)
    throw InputError("--mtp", fmt::format("must be 0 to 16 draft tokens, got {}", w.mtp_draft_tokens));
  if (!(w.mtp_accept >= 0.0 && w.mtp_accept < 1.0))
    throw InputError("--mtp-accept", fmt::format("must be in (0, 1) (0: the default), got {}", w.mtp_accept));
  if (!(w.mtp_host_step_s >= 0.0 && w.mtp_host_step_s <= 0.1))
    throw InputError("mtp_host_step_s",
                     fmt::format("must be 0 to 100 ms per decode step, got {} ms", w.mtp_host_step_s * 1e3));
  if (!(w.mtp_eager_draft_extend_s >= 0.0 && w.mtp_eager_draft_extend_s <= 0.1))
    throw InputError("mtp_eager_draft_extend_s", fmt::format("must be 0 to 100 ms per decode step, got {} ms",
                                                             w.mtp_eager_draft_extend_s * 1e3));
  if (!(w.mtp_host_per_seq_step_s >= 0.0 && w.mtp_host_per_seq_step_s <= 1e-3))
    throw InputError("mtp_host_per_seq_step_s", fmt::format("must be 0 to 1000 us per sequence per step, got {} us",
                                                            w.mtp_host_per_seq_step_s * 1e6));
  if (!(w.request_overhead_s >= 0.0 && w.request_overhead_s <= 60.0))
    throw InputError("--request-overhead-ms", fmt::format("must be 0 to 60000 ms, got {}", w.request_overhead_s * 1e3));
  if (w.scheduler_recv_interval < 1 || w.scheduler_recv_interval > 1000)
    throw InputError("--scheduler-recv-interval",
                     fmt::format("must be 1 to 1000 decode steps, got {}", w.scheduler_recv_interval));
  if (!(w.host_per_seq_step_s >= 0.0 && w.host_per_seq_step_s <= 1e-3))
    throw InputError("host_per_seq_step_s",
                     fmt::format("must be 0 to 1000 us per sequence per step, got {} us", w.host_per_seq_step_s * 1e6));
  if (!(w.moe_gemm_eff >= 0.05 && w.moe_gemm_eff <= 1.0))
    throw InputError("moe_gemm_eff", fmt::format("must be 0.05 to 1 (a share of the GEMM efficiency), got {}", w.moe_gemm_eff));
  if (!(w.expert_skew >= 1.0 && w.expert_skew <= 8.0))
    throw InputError("--expert-skew", fmt::format("must be 1 to 8, got {}", w.expert_skew));
  for (const auto& [name, b] : {std::pair{"--fp8-weight-block", w.fp8_weight_block},
                                 std::pair{"--fp8-moe-weight-block", w.fp8_moe_weight_block}})
    if (b < -1 || b > 4096)
      throw InputError(name, fmt::format("must be 0 (per-tensor scales) to 4096, or -1 (the model's checkpoint), got {}", b));
  if (w.batch_wait_iters < 0 || w.batch_wait_iters > 100000)
    throw InputError("--batch-wait-iters", fmt::format("must be 0 (off) to 100000 iterations, got {}", w.batch_wait_iters));
  if (!(w.batch_wait_tokens_ratio >= 0.0 && w.batch_wait_tokens_ratio <= 1.0))
    throw InputError("--batch-wait-tokens-ratio",
                     fmt::format("must be 0 (off) to 1 (a share of --max-num-tokens), got {}", w.batch_wait_tokens_ratio));
  if (w.adp_balance_timeout_iters < 0 || w.adp_balance_timeout_iters > 100000)
    throw InputError("--adp-balance-timeout-iters",
                     fmt::format("must be 0 (off) to 100000 iterations, got {}", w.adp_balance_timeout_iters));
  const int inst = par.tp * par.pp;
  if (gpus < 1 || gpus % inst != 0)
    throw InputError("--gpus", fmt::format("must be a positive multiple of tp x pp = {}, got {}", inst, gpus));
}

}  // namespace

const char* to_string(Arrival a) {
  switch (a) {
    case Arrival::staggered: return "staggered";
    case Arrival::synchronized: return "synchronized";
    case Arrival::closed_loop: return "closed_loop";
  }
  return "?";
}

double expected_active_experts(int experts, int top_k, double tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0.0;
  const double E = experts, k = std::min(top_k, experts);
  return E * (1.0 - std::pow(1.0 - k / E, tokens));
}

namespace {

struct AdpHold {
  double cycle_steps = 0;  // steps between releases
  double all_busy = 0;     // share of the time every rank has a generation request (the balancer holds)
};

AdpHold adp_hold(double batch, int ranks, double arrivals_per_seq_step, int timeout_iters) {
  if (ranks <= 1 || timeout_iters <= 0 || batch <= 0 || arrivals_per_seq_step <= 0) return {};
  const double n = ranks;
  // New requests go to the ranks whose sequences finished, at random: every rank holds a context
  // request after n H_n arrivals (coupon collector), at batch x arrivals_per_seq_step per step.
  double harmonic = 0;
  for (int i = 1; i <= ranks; ++i) harmonic += 1.0 / i;
  const double fill_steps = n * harmonic / (batch * arrivals_per_seq_step);
  // The hold counter runs every iteration not all ranks have a context request and releases them at
  // the timeout, so the release comes every min(fill, timeout) steps. The balancer holds nothing
  // while a rank has no generation request (Poisson occupancy of batch / ranks sequences per rank).
  return {std::min(fill_steps, double(timeout_iters)), std::pow(1.0 - std::exp(-batch / n), n)};
}

}  // namespace

double receive_interval_wait_s(int interval, double decode_step_s) {
  return 0.5 * double(std::max(1, interval) - 1) * decode_step_s;
}

double adp_balance_wait_steps(double batch, int ranks, double arrivals_per_seq_step, int timeout_iters) {
  // A request arriving at a random phase of the cycle waits half of it.
  const AdpHold h = adp_hold(batch, ranks, arrivals_per_seq_step, timeout_iters);
  return 0.5 * h.cycle_steps * h.all_busy;
}

TrtllmBatchWait trtllm_batch_wait(double batch, double arrivals_per_seq_step, double isl, double tokens_per_decode,
                                  int timeout_iters, double threshold_tokens) {
  TrtllmBatchWait out;
  const double a = batch * std::max(0.0, arrivals_per_seq_step);  // prompts arriving per step
  if (timeout_iters <= 0 || threshold_tokens <= 0 || !(a > 0) || !(isl > 0)) return out;
  // The hold ends once the held prompts and the decodes reach the threshold (the first prompt and
  // m more) or after T = timeout_iters iterations. Prompts arrive as a Poisson stream of a per step;
  // with N the arrivals in T steps (Poisson, mean aT), integrating P(N(t) = j) over [0, T] gives
  // P(N >= j + 1) / a, so over a window:
  //   E[window] = sum_{j<m} P(N >= j+1) / a,  E[held behind the first] = sum_{j=1..m} P(N >= j),
  //   E[sum of the later prompts' holds] = sum_{j<m} j P(N >= j+1) / a,
  // and a prompt's mean hold is the window's total over the prompts it releases.
  const double need = threshold_tokens - batch * tokens_per_decode;
  const double m = std::max(0.0, std::ceil(need / isl) - 1.0);
  if (m < 1) return out;  // one prompt with the decodes meets the threshold: no hold
  const double lambda = a * double(timeout_iters);
  double cdf = 0, window = 0, later = 0, held = 0;
  for (double j = 0; j < m; ++j) {
    cdf += std::exp(-lambda + j * std::log(lambda) - std::lgamma(j + 1.0));  // P(N <= j)
    const double tail = std::max(0.0, 1.0 - cdf);                              // P(N >= j + 1)
    if (tail < 1e-15) break;  // the remaining terms vanish
    window += tail / a;
    later += j * tail / a;
    held += tail;
  }
  out.window_steps = window;
  out.released = 1.0 + held;
  out.mean_wait_steps = (window + later) / out.released;
  return out;
}

double adp_balance_released_prompts(double batch, int ranks, double arrivals_per_seq_step, int timeout_iters) {
  const AdpHold h = adp_hold(batch, ranks, arrivals_per_seq_step, timeout_iters);
  return std::max(1.0, h.all_busy * h.cycle_steps * batch * std::max(0.0, arrivals_per_seq_step));
}

namespace {

// The shared inference-memory model's input for one instance (no sequences yet: the KV pool is sized
// from what the weights and workspace leave).
InferenceMemoryInput serving_memory_input(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                          const InferenceWorkload& w) {
  InferenceMemoryInput mi;
  mi.weight_precision = w.weight_precision;
  mi.kv_bytes_per_element = w.kv_bytes_per_element;
  mi.tp = memory_tp(m, par);
  mi.ep = par.ep;
  mi.pp = par.pp;
  mi.context_tokens = w.isl + w.osl;
  mi.concurrency = 0;
  mi.max_batch_tokens = w.max_num_tokens;
  mi.kv_block_tokens = w.kv_block_tokens;
  mi.capacity_bytes = hw.accelerator.memory_bytes;
  mi.reserve_bytes = kServingReserveBytes;
  return mi;
}

}  // namespace

InferenceResult evaluate_inference(const ModelArch& m, const Hardware& hw_in, const InferenceParallel& par,
                                   const InferenceWorkload& w) {
  const Hardware hw = serving_hardware(hw_in);
  const int gpus = w.num_gpus > 0 ? w.num_gpus : par.tp * par.pp;
  check_input(m, par, w, gpus);
  InferenceResult r;
  double steady_ttft_s = -1;  // an aggregated closed loop's steady-state TTFT, before its opening wave
  r.gpus_per_instance = par.tp * par.pp;
  r.instances = gpus / r.gpus_per_instance;

  // Memory: weights and workspace from the shared inference-memory model; the KV pool takes
  // kv_mem_fraction of what is left (TensorRT-LLM kv_cache_free_gpu_mem_fraction), each sequence
  // reserving its whole isl + osl (guaranteed-no-evict scheduling).
  InferenceMemoryInput mi = serving_memory_input(m, hw, par, w);
  const InferenceMemory base = inference_memory(m, mi);
  const Shape s = shape_of(m, par, w.kv_bytes_per_element);
  double weights = base.weights_bytes;
  double kv_seq_gpu = base.kv_bytes_per_sequence;  // per sequence of the instance, per GPU
  if (par.attention_dp) {
    weights += weight_bytes(w.weight_precision) * s.dense.attention * (1.0 - 1.0 / mi.tp) * s.layers;
    // A sequence's KV and recurrent state live on its one attention rank: per GPU, on average 1/tp.
    kv_seq_gpu = (base.kv_bytes_per_sequence - base.state_bytes_per_sequence) * base.kv_split / par.tp +
                 base.state_bytes_per_sequence * std::min(par.tp, std::max(1, m.linear.value_heads)) / par.tp;
  }
  const double free_bytes = hw.accelerator.memory_bytes - weights - base.activations_bytes - base.reserve_bytes;
  const double pool = w.kv_mem_fraction * free_bytes;
  long long max_batch = kv_seq_gpu > 0 ? static_cast<long long>(std::floor(pool / kv_seq_gpu)) : 0;
  if (par.attention_dp) max_batch = max_batch / par.tp * par.tp;
  // The scheduler admits at most max_batch_size sequences and max_num_tokens tokens per step per
  // rank (attention-DP: per attention rank).
  const long long ranks = par.attention_dp ? par.tp : 1;
  max_batch = std::min({max_batch, w.max_batch_size * ranks, w.max_num_tokens * ranks});
  // In continuous batching every step carries its decodes (k + 1 tokens each with MTP) and the
  // prompts of the requests that replace the finished ones (isl x accepted / osl tokens per
  // sequence), all within the max_num_tokens budget: a larger batch cannot be sustained, and the
  // requests beyond it wait for admission (TTFT grows, TPOT does not), as the KV-full ones do.
  // Engines that prefill in forwards of their own (prefill_separate: SGLang, ATOM) spend the budget
  // on those forwards, not on the decodes' step: their running batch is bounded by the KV cache and
  // the request limit only (SGLang's max-running-requests), and the prompts' forwards slow its steps.
  {
    const double acc = mtp_accepted_length(w.mtp_draft_tokens, w.mtp_accept > 0 ? w.mtp_accept : mtp_accept_default());
    const double per_seq = 1.0 + w.mtp_draft_tokens + (w.decode_only ? 0.0 : double(w.isl) * acc / double(w.osl));
    if (w.arrival != Arrival::synchronized && !w.prefill_separate) {
      long long budget_batch =
          static_cast<long long>(std::floor(double(w.max_num_tokens) * double(ranks) / per_seq));
      if (par.attention_dp) budget_batch = budget_batch / par.tp * par.tp;
      max_batch = std::min(max_batch, std::max(budget_batch, ranks));
    }
  }
  r.max_concurrency = std::max(0LL, max_batch) * r.instances;
  if (free_bytes <= 0 || max_batch < 1) {
    r.violations.push_back({"memory.exceeds_capacity", "gpu",
                            fmt::format("weights {:.1f} GB + workspace leave no room for the KV cache of one "
                                        "{}-token sequence in {:.1f} GB per GPU",
                                        weights / 1e9, w.isl + w.osl, hw.accelerator.memory_bytes / 1e9)});
    r.memory = base;
    return r;
  }
  long long conc = w.concurrency > 0 ? w.concurrency : r.max_concurrency;
  if (conc > r.max_concurrency) {
    r.violations.push_back({"memory.kv_full", "concurrency",
                            fmt::format("concurrency {} exceeds the {} sequences whose KV cache fits", conc,
                                        r.max_concurrency)});
    conc = r.max_concurrency;
  }
  r.concurrency = conc;
  const double B = std::max(1.0, double(conc) / r.instances);
  r.batch_per_instance = static_cast<long long>(std::ceil(B));
  mi.concurrency = r.batch_per_instance;
  r.memory = inference_memory(m, mi);
  if (par.attention_dp) {  // the same per-GPU split the capacity above was computed with
    r.memory.weights_bytes = weights;
    r.memory.kv_cache_bytes = r.memory.kv_cache_bytes * base.kv_split / par.tp;
    r.memory.kv_bytes_per_sequence = kv_seq_gpu;
    r.memory.total_bytes = r.memory.weights_bytes + r.memory.kv_cache_bytes + r.memory.activations_bytes +
                           r.memory.reserve_bytes;
    r.memory.headroom_bytes = r.memory.capacity_bytes - r.memory.total_bytes;
    r.memory.fits = r.memory.total_bytes <= r.memory.capacity_bytes;
  }
  r.expected_active_experts = expected_active_experts(m.moe.num_experts, m.moe.top_k, B);

  const double pp = par.pp;
  const double isl = double(w.isl), osl = double(w.osl);
  // MTP: each decode step verifies k + 1 tokens per sequence and yields `accepted` of them.
  const int k = w.mtp_draft_tokens;
  const double verify = 1.0 + k;
  const double accepted = mtp_accepted_length(k, w.mtp_accept > 0 ? w.mtp_accept : mtp_accept_default());
  r.tokens_per_step = accepted;
  const double host = hw.efficiency.infer_step_overhead_s;
  // Prefill of one request alone, in chunks of max_num_tokens (on one attention-DP rank).
  {
    const double chunk = std::min(isl, double(w.max_num_tokens));
    const double nch = std::ceil(isl / chunk);
    const StepTime c = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, chunk, isl, 1.0, true, 1.0);
    r.prefill_s = (nch + pp - 1) * c.total_s + nch * host;
  }
  // The decode step of one instance from one stage's step: the MTP draft, the pipeline, the
  // framework's host time per step and per sequence, and the MTP worker's host work where it runs in
  // series with the GPU.
  auto set_decode_step = [&](StepTime st) {
    if (k > 0) st.draft_s = draft_step(m, hw, par, w, s, base.kv_split, B / pp, isl + osl / 2, k).draft_s;
    st.total_s = st.parts_sum();
    r.decode_step = scaled(st, pp);
    r.decode_step.overhead_s += host + kStepHostPerSeqS * B;
    r.decode_step.total_s = r.decode_step.parts_sum();
    expose_host_work(r.decode_step, w.host_per_seq_step_s * rank_sequences(par, B));
    if (k > 0 && w.mtp_host_in_series) {
      r.decode_step.overhead_s +=
          mtp_exposed_host_s(w.mtp_host_step_s + (w.mtp_draft_extend_eager ? w.mtp_eager_draft_extend_s : 0.0),
                             w.mtp_host_per_seq_step_s, rank_sequences(par, B));
      r.decode_step.total_s = r.decode_step.parts_sum();
    }
  };
  if (w.arrival == Arrival::synchronized) {
    // Waves: all B prompts prefill together (chunked), then B sequences decode together.
    const double ptok = B * isl;
    const double chunk = std::min(ptok, double(w.max_num_tokens));
    const double nch = std::ceil(ptok / chunk);
    r.prefill_chunk = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, chunk, isl);
    const double chunk_s = r.prefill_chunk.total_s + host;
    const double wave_prefill_s = (nch + pp - 1) * chunk_s;
    set_decode_step(stage_step(m, hw, par, w, s, base.kv_split, B / pp, isl + osl / 2, 0, 0, verify));
    // Requests get their first token as their chunk completes: mean over the wave.
    r.ttft_s = (pp - 1) * chunk_s + chunk_s * (nch + 1) / 2;
    const double rest = std::max(0.0, wave_prefill_s - r.ttft_s);
    r.tpot_s = r.decode_step.total_s / accepted + (osl > 1 ? rest / (osl - 1) : 0);
    const double cycle = wave_prefill_s + std::max(0.0, osl - 1) * r.decode_step.total_s / accepted;
    r.tokens_per_s_total = r.instances * B * osl / cycle;
  } else {
    // Continuous batching, steady state: each step decodes B tokens and prefills the prompts of the
    // B/osl requests that replace the finishing ones (B isl/osl tokens), in one mixed forward.
    // A disaggregated decode worker's steps carry no prompts. With MTP each step yields `accepted`
    // tokens per sequence, so requests finish (and prompts arrive) that much faster per step.
    // Engines prefill a prompt in chunks of the token budget (the whole prompt when shorter), not a
    // few tokens in every step: when the prompts arriving per step are fewer than one chunk, a share
    // ptok / chunk of the steps carry a chunk beside their decodes and the rest decode alone. For a
    // dense model that differs from spreading them only in GEMM tiles; for an MoE a chunk activates
    // (nearly) every expert in one step, where spread prompt tokens would activate more of them in
    // every step.
    const double ptok = w.decode_only ? 0.0 : B * isl * accepted / osl;
    const double chunk_tok = std::min(isl, double(w.max_num_tokens));
    StepTime st;
    double received_prefill_s = 0.0;  // prefill_separate: a prompt's share of its received batch's forwards
    if (ptok > 0 && w.prefill_separate) {
      // Prompts in forwards of their own: the prompts that arrived over the receive interval (at least
      // one chunk of one prompt, at most the token budget) run as one prefill forward, which the
      // decodes wait for; per decode step, ptok / forward_tokens of those forwards.
      const double budget = double(w.max_num_tokens) * (par.attention_dp ? par.tp : 1);
      const double fwd_tok = std::min(budget, std::max(chunk_tok, ptok * w.scheduler_recv_interval));
      const StepTime dec = stage_step(m, hw, par, w, s, base.kv_split, B / pp, isl + osl / 2, 0, isl, verify);
      StepTime pre = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, fwd_tok / pp, isl);
      pre.overhead_s += host / pp;
      pre.total_s = pre.parts_sum();
      st = added(dec, pre, ptok / fwd_tok);
      // The prompts received together (one receive interval's) prefill as forwards of fwd_tok tokens,
      // first come first: a prompt's first token comes with its last chunk, on average after
      // (n + 1) / 2 of the n prompts' tokens (one prompt alone: its own prefill, as before).
      const double n = std::max(1.0, ptok * double(w.scheduler_recv_interval) / isl);
      received_prefill_s = pp * pre.total_s * (n * isl / fwd_tok) * (n + 1.0) / (2.0 * n);
    } else if (ptok > 0 && ptok < chunk_tok) {
      const StepTime dec = stage_step(m, hw, par, w, s, base.kv_split, B / pp, isl + osl / 2, 0, isl, verify);
      const StepTime mixed = stage_step(m, hw, par, w, s, base.kv_split, B / pp, isl + osl / 2, chunk_tok / pp, isl, verify);
      st = blend(dec, mixed, ptok / chunk_tok);
    } else {
      st = stage_step(m, hw, par, w, s, base.kv_split, B / pp, isl + osl / 2, ptok / pp, isl, verify);
    }
    set_decode_step(st);
    r.prefill_chunk = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, std::min(isl, double(w.max_num_tokens)), isl);
    r.tpot_s = r.decode_step.total_s / accepted;
    // A new prompt waits for the running step to end (half a step on average; with a receive
    // interval of N decode steps, N/2 of them), then rides in the next step(s), whose decodes it
    // shares: its own prefill plus one decode step, chunked within the token budget the decodes leave.
    const double budget = std::max(1.0, double(w.max_num_tokens) * (par.attention_dp ? par.tp : 1) - B);
    const double steps = std::ceil(isl / budget);
    const double recv_wait_steps = 0.5 * double(w.scheduler_recv_interval);
    r.ttft_s = B > 1 ? std::max(r.prefill_s, received_prefill_s) + (recv_wait_steps + steps) * r.decode_step.total_s
                     : r.prefill_s;
    // Of that wait, what the receive interval adds to the half step any prompt waits for.
    r.receive_wait_s = B > 1 ? receive_interval_wait_s(w.scheduler_recv_interval, r.decode_step.total_s) : 0.0;
    if (!par.attention_dp && !w.prefill_separate && B > 1 && w.batch_wait_iters > 0 &&
        w.batch_wait_tokens_ratio > 0 && !w.decode_only) {
      const TrtllmBatchWait bw = trtllm_batch_wait(B, accepted / osl, isl, 1.0 + w.mtp_draft_tokens,
                                                   w.batch_wait_iters, w.batch_wait_tokens_ratio * double(w.max_num_tokens));
      if (bw.window_steps > 0) {
        // The released prompts ride one step together (within the token budget the decodes leave):
        // that step carries their tokens where it carried one prompt's.
        const StepTime one = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, chunk_tok / pp, isl);
        const StepTime all =
            stage_step(m, hw, par, w, s, base.kv_split, 0, 0, std::min(budget, bw.released * isl) / pp, isl);
        r.batch_wait_s = bw.mean_wait_steps * r.decode_step.total_s + pp * std::max(0.0, all.total_s - one.total_s);
        r.ttft_s += r.batch_wait_s;
      }
    }
    if (par.attention_dp && par.tp > 1 && w.adp_balance_timeout_iters > 0 && B > 1) {
      r.ttft_s += adp_balance_wait_steps(B, par.tp, accepted / osl, w.adp_balance_timeout_iters) *
                  r.decode_step.total_s;
      // The released requests prefill together, one per rank a round (the balancer's purpose): each
      // rank's attention is its own prompt's, but the expert GEMMs and the dispatch/combine of a
      // round carry its k = min(released, ranks) prompts' tokens; a request waits on average for
      // (rounds + 1) / 2 of the rounds its release needs (one prompt alone: its own prefill).
      const double released =
          adp_balance_released_prompts(B, par.tp, accepted / osl, w.adp_balance_timeout_iters);
      if (released > 1.0) {
        const double together = std::min(released, double(par.tp));
        const double rounds = released / double(par.tp);
        const StepTime one = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, chunk_tok / pp, isl);
        const StepTime all = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, together * chunk_tok / pp, isl);
        const double shared_s = std::max(0.0, (all.gemm_s + all.ep_comm_s) - (one.gemm_s + one.ep_comm_s));
        const double round_s = r.prefill_s + pp * shared_s * std::ceil(isl / chunk_tok);
        r.ttft_s += round_s * std::max(1.0, (rounds + 1.0) / 2.0) - r.prefill_s;
      }
    }
    steady_ttft_s = r.ttft_s;
    if (w.arrival == Arrival::closed_loop && B > 1 && w.requests_per_client > 0) {
      // The run opens with all B clients sending at once: that first round prefills as one wave in
      // chunks of the token budget, each request getting its first token as its chunk completes
      // (the synchronized mean); the clients then drift apart into the staggered steady state
      // above. The measured mean weighs the wave by 1 / requests_per_client.
      const double wave_tok = B * isl;
      const double chunk = std::min(wave_tok, double(w.max_num_tokens) * (par.attention_dp ? par.tp : 1));
      const double nch = std::ceil(wave_tok / chunk);
      const StepTime c = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, chunk, isl);
      const double chunk_s = c.total_s + host;
      const double wave_ttft = (pp - 1) * chunk_s + chunk_s * (nch + 1) / 2;
      const double R = w.requests_per_client;
      r.ttft_s = (wave_ttft + (R - 1) * r.ttft_s) / R;
    }
    r.tokens_per_s_total = r.instances * B / r.tpot_s;
  }
  r.ttft_s += w.request_overhead_s;
  r.e2e_latency_s = r.ttft_s + std::max(0.0, osl - 1) * r.tpot_s;
  // More requests in flight than the KV cache holds: the rest queue for a slot. Little's law:
  // requests leave at concurrency / e2e, so each spends requested / served times as long in the
  // system; the difference is waited before the first token.
  const double queue_factor =
      w.concurrency > r.concurrency && r.concurrency > 0 ? double(w.concurrency) / double(r.concurrency) - 1.0 : 0.0;
  if (queue_factor > 0) {
    r.queue_wait_s = r.e2e_latency_s * queue_factor;
    r.ttft_s += r.queue_wait_s;
    r.e2e_latency_s += r.queue_wait_s;
  }
  if (w.arrival == Arrival::closed_loop && w.requests_per_client > 0 && steady_ttft_s >= 0) {
    // The median request of a closed-loop run is a steady-state one: the opening wave (every
    // client's first prompt at once) is 1 in requests_per_client requests, in the mean above only.
    const double ttft = steady_ttft_s + w.request_overhead_s;
    r.ttft_median_s = ttft + (ttft + std::max(0.0, osl - 1) * r.tpot_s) * queue_factor;
  }
  if (w.arrival == Arrival::closed_loop && !w.decode_only) {
    // Closed loop: each client's request cycle is its whole end-to-end latency, first token
    // included, so the deployment completes clients / e2e requests per second (Little's law); the
    // decode steps above hold fewer than all clients at a time.
    r.tokens_per_s_total = std::min(r.tokens_per_s_total, double(r.concurrency) * osl / r.e2e_latency_s);
  }
  r.tokens_per_s_per_gpu = r.tokens_per_s_total / gpus;
  r.tokens_per_s_per_user = 1.0 / r.tpot_s;
  r.requests_per_s = r.tokens_per_s_total / osl;
  return r;
}

StepTime prefill_step(const ModelArch& m, const Hardware& hw_in, const InferenceParallel& par,
                      const InferenceWorkload& w, double prompt_tokens) {
  const Hardware hw = serving_hardware(hw_in);
  check_input(m, par, w, w.num_gpus > 0 ? w.num_gpus : par.tp * par.pp);
  const InferenceMemory base = inference_memory(m, serving_memory_input(m, hw, par, w));
  const Shape s = shape_of(m, par, w.kv_bytes_per_element);
  StepTime st = stage_step(m, hw, par, w, s, base.kv_split, 0, 0, prompt_tokens, double(w.isl));
  st.overhead_s += hw.efficiency.infer_step_overhead_s;
  st.total_s = st.parts_sum();
  return st;
}

InferenceResult evaluate_under_limits(const ModelArch& m, const Hardware& hw, const InferenceParallel& par,
                                      InferenceWorkload w, double ttft_limit_s, double tpot_limit_s) {
  w.concurrency = 0;
  InferenceResult top = evaluate_inference(m, hw, par, w);
  if (!top.valid()) return top;
  auto ok = [&](const InferenceResult& r) {
    return (ttft_limit_s <= 0 || r.ttft_s <= ttft_limit_s) && (tpot_limit_s <= 0 || r.tpot_s <= tpot_limit_s);
  };
  if (ok(top)) return top;
  long long lo = top.instances, hi = top.max_concurrency;
  w.concurrency = lo;
  InferenceResult best = evaluate_inference(m, hw, par, w);
  if (!ok(best)) {
    best.violations.push_back({"latency.limit", "concurrency",
                               fmt::format("even one sequence per instance misses the limits (TTFT {:.1f} ms, "
                                           "TPOT {:.2f} ms)",
                                           best.ttft_s * 1e3, best.tpot_s * 1e3)});
    return best;
  }
  while (hi - lo > 1) {
    const long long mid = lo + (hi - lo) / 2;
    w.concurrency = mid;
    InferenceResult r = evaluate_inference(m, hw, par, w);
    if (ok(r)) {
      lo = mid;
      best = std::move(r);
    } else {
      hi = mid;
    }
  }
  return best;
}

}  // namespace gpuplan
