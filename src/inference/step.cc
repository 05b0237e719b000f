// One forward step of a serving instance (inference/step.h).
#include "inference/step.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "inference/speculative.h"
#include "memory/inference_memory.h"
#include "physics/collective.h"

namespace gpuplan {

double expected_active_experts(int experts, int top_k, double tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0.0;
  const double E = experts, k = std::min(top_k, experts);
  const double share = k / E;
  // (1 - share)^tokens <= exp(-tokens x share): from tokens x share >= 48 on it is below 1e-20, far below
  // the 2^-54 that 1 minus it rounds to 1 from, so every expert is active, as std::pow gives, without
  // the call (1 - share is share to within 2^-54, a billionth of the shares above 1e-6).
  if (share >= 1e-6 && tokens * share >= 48.0) return E;
  // A search asks the same few hundred token counts many times over (a load's steps and their halves,
  // the draft head's pass, the same batch of other deployments): the last answers are kept, per thread,
  // by their arguments.
  struct Kept {
    int experts = 0, top_k = 0;
    double tokens = 0, active = 0;
  };
  thread_local std::array<Kept, 1024> kept;  // 24 KiB
  Kept& e = kept[(std::bit_cast<std::uint64_t>(tokens) * 0x9E3779B97F4A7C15ULL) >> 54];
  if (e.experts == experts && e.top_k == top_k && e.tokens == tokens) return e.active;
  const double active = E * (1.0 - std::pow(1.0 - share, tokens));
  e = {experts, top_k, tokens, active};
  return active;
}

int dividing_expert_parallel(const ModelArch& m, int width, int at_most) {
  if (!m.is_moe()) return 1;
  int e = std::max(1, std::min(at_most, width));
  while (e > 1 && (m.moe.num_experts % e || width % e)) --e;
  return e;
}

namespace step {

namespace {

constexpr double kActBytes = 2.0;     // bf16 activations between layers
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

// std::ceil of x, without the library call for the positive values below 2^52 the steps ask (the
// same value: below 2^63 the truncation is exact, and an integer's next one up is exact too).
[[gnu::always_inline]] inline double ceil_of(double x) {
  if (!(x > 0 && x < 4503599627370496.0)) return std::ceil(x);
  const double t = static_cast<double>(static_cast<long long>(x));
  return t < x ? t + 1.0 : t;
}

[[gnu::always_inline]] inline double pad(double d, double tile) { return ceil_of(d / tile) * tile; }

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

// Keys a decode attends per layer at mean context `ctx`, the contexts spread evenly `half_spread` either
// side of it: at context p, p keys, at most the window (sliding windows, DSA's top-k), or p mod chunk
// (chunked_decode_keys).
double decode_keys(const Shape& s, double ctx, double half_spread) {
  if (s.window <= 0) return ctx;
  const double half = std::min(half_spread, ctx), lo = ctx - half, hi = ctx + half;
  const double local =
      s.chunked_window ? chunked_decode_keys(lo, hi, s.window) : windowed_decode_keys(lo, hi, s.window);
  return (1 - s.window_share) * ctx + s.window_share * local;
}

// Keys a prompt's query attends per layer, averaged over a causal prompt `isl` tokens long: query p
// attends p + 1 of them, at most the window (sliding windows, DSA's top-k), or p mod chunk + 1 (chunks).
double prompt_keys(const Shape& s, double isl) {
  const double all = (isl + 1) / 2.0;
  if (s.window <= 0) return all;
  const double local =
      s.chunked_window ? chunked_prompt_keys(isl, s.window) : windowed_prompt_keys(isl, s.window);
  return (1 - s.window_share) * all + s.window_share * local;
}

// Busiest EP rank's routed rows over the mean: uniform top-k routing spreads `rows_per_rank`
// rows per rank as a binomial, and the step waits for the largest of `ep` ranks, about mean +
// sqrt(2 ln ep x mean) (the expected maximum of ep near-normal counts); real routing adds its skew.
// `two_log_ep`: 2 ln(ep), made once per deployment.
double expert_imbalance(double rows_per_rank, int ep, double skew, double two_log_ep) {
  if (ep <= 1 || rows_per_rank <= 0) return skew;
  return skew * (1.0 + std::sqrt(two_log_ep / rows_per_rank));
}

// Distinct active experts on the busiest of `ep` ranks when `active` of the `experts` are active,
// each rank holding experts / ep of them: each held expert is active with p = active / experts, so a
// rank's count is binomial (mean n p, variance n p (1 - p), n = experts / ep) and the expected
// maximum of ep near-normal counts is the mean plus sqrt(2 ln ep) deviations, at most n. At decode's
// few tokens per step the busiest rank streams up to twice the mean's expert weights (what makes
// EP8 decode slower than TP8 at small batch); with every expert active (p -> 1) it is n, the mean.
double busiest_rank_experts(double experts, double active, double ep, double two_log_ep) {
  if (ep <= 1 || experts <= 0) return active;
  if (active >= experts) return experts / ep;  // p = 1: n, as the spread's zero term gives
  const double n = experts / ep, p = std::clamp(active / experts, 0.0, 1.0);
  return std::min(n, n * p + std::sqrt(two_log_ep * n * p * (1.0 - p)));
}

}  // namespace

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
    s.window_share = double(m.window_layers()) / m.layers;
    s.chunked_window = m.chunked_window;
  } else if (m.is_sparse()) {
    s.window = m.sparse.index_topk;  // each query attends at most index_topk keys, in every layer
    s.window_share = 1.0;
  }
  return s;
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
                    double verify, bool allow_overlap, double prefill_ranks) {
  return Stage(m, hw, par, w, s).step(kv_split, decode, ctx, prefill, isl, verify, allow_overlap, prefill_ranks);
}

namespace {

// Whether an engine of `x` gathers every attention rank's tokens to the experts (InferenceWorkload::
// attention_dp_moe_exchange): TensorRT-LLM's all-to-all needs a multi-node NVLink domain and an EP above
// the top-k.
bool moe_tokens_gathered(MoeExchange x, const Hardware& hw, const InferenceParallel& par, const ModelArch& m) {
  if (x == MoeExchange::all_gather) return true;
  if (x == MoeExchange::all_gather_unless_mnnvl) return !(hw.fabric.multi_node_nvlink && par.ep > m.moe.top_k);
  return false;
}

}  // namespace

// linear(): a weight GEMM of `m` tokens through a (k x n) weight slice on one GPU: roofline maximum of the
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
// Stage::gemm makes a weight GEMM's terms that do not depend on its rows, Stage::run the rest.
Stage::Gemm Stage::gemm(MathFormat fmt, double n, double k, double wbytes) const {
  Gemm g;
  g.on = !(n <= 0 || k <= 0);
  if (!g.on) return g;
  const Efficiency& e = hw_.efficiency;
  fmt = executed_format(hw_.accelerator, fmt);  // FP4 weights on a chip without FP4 math run in BF16
  double scale = 1.0;
  if (fmt == MathFormat::fp8 || fmt == MathFormat::fp6) scale = e.gemm_fp8_scale;
  if (fmt == MathFormat::fp4) scale = e.gemm_fp4_scale;
  g.n = n, g.k = k;
  g.weight_bytes = n * k * wbytes;
  g.n_plus_k = n + k;
  g.eff = e.gemm_max * scale / (1.0 + e.gemm_half_dim / n + e.gemm_half_dim / k);
  g.peak_flops = peak_flops(hw_.accelerator, fmt);
  return g;
}

// linear() of `m` rows through GEMM `g` (in linear()'s order of operations). Inlined: the steps run it
// several times a layer kind, many thousand steps a search.
[[gnu::always_inline]] inline Work Stage::run(const Gemm& g, double m, double count, bool grouped, double eff_share) const {
  Work w;
  if (m <= 0 || !g.on || count <= 0) return w;
  const double tile_use = m / pad(m, double(kGemmTileRows));
  const double eff = g.eff * tile_use * eff_share;
  w.flops = 2.0 * m * g.n * g.k * count;
  w.bytes = (g.weight_bytes + m * g.n_plus_k * kActBytes) * count;
  const double t_math = w.flops / (g.peak_flops * eff);
  const double t_mem = w.bytes / hbm_bytes_per_s_;
  w.time_s = grouped ? std::max(t_math, t_mem + t_math * tile_use) : std::max(t_math, t_mem);
  return w;
}

Stage::Stage(const ModelArch& m, const Hardware& hw, const InferenceParallel& par, const InferenceWorkload& w,
             const Shape& s)
    : m_(m), hw_(hw), par_(par), s_(s), expert_skew_(w.expert_skew), moe_gemm_eff_(w.moe_gemm_eff),
      moe_kernel_share_(w.moe_kernel_share),
      dense_replicated_(par.attention_dp && w.attention_dp_dense_replicated),
      moe_gathered_(par.attention_dp && m.is_moe() && moe_tokens_gathered(w.attention_dp_moe_exchange, hw, par, m)),
      decode_half_spread_(static_cast<double>(w.osl) / 2.0) {
  const MathFormat fmt = gemm_format(w.weight_precision);
  const double wb = weight_bytes(w.weight_precision);
  dense_share_ = fp8_block_share(m, hw, fmt, w.fp8_weight_block, w.fp8_block_gemm_triton);
  moe_share_ = fp8_block_share(m, hw, fmt, w.fp8_moe_weight_block);
  hbm_bytes_per_s_ = hw.accelerator.memory_bandwidth_bytes_per_s * hw.efficiency.hbm_eff;
  two_log_ep_ = 2.0 * std::log(double(par.ep));
  const double tp = par.tp;
  const double h = m.hidden;
  const double attn_split = par.attention_dp ? 1.0 : tp;
  const double dense_split = dense_replicated_ ? 1.0 : tp;
  auto kind = [&](const LayerParams& lp, bool moe_layer) {
    LayerGemms g;
    const double attn_p = lp.attention / attn_split;
    g.attention = gemm(fmt, attn_p / h, h, wb);
    const double mlp_p = (lp.mlp_dense + lp.moe_shared) / dense_split;
    if (mlp_p > 0) g.mlp = gemm(fmt, mlp_p / h, h, wb);
    if (moe_layer && m.is_moe()) {
      const double moe_tp = std::max(1.0, tp / double(par.ep));
      const double ep_p = lp.moe_expert / moe_tp;
      g.experts = gemm(fmt, ep_p / h, h, wb);
      // Router: tokens x hidden x experts in bf16, replicated.
      g.router = gemm(MathFormat::bf16, double(m.moe.num_experts), h, 2.0);
    }
    return g;
  };
  dense_ = kind(s.dense, false);
  moe_ = kind(s.moe, true);
  same_attention_ = dense_.attention == moe_.attention;
  head_ = gemm(MathFormat::bf16, double(m.vocab) / dense_split, h, kTableBytes);
  // Attention of `flops` in the engines' own MLA kernels, whose rates are not the training fit's flash-
  // attention rate: MLA prompts run the expanded form (192-wide query/key heads, 128-wide values, 128
  // heads; FlashInfer / trtllm-gen / CUTLASS MLA on NVIDIA, AITER on AMD) at the generation's fitted MLA
  // prefill rate (infer_mla_prefill_eff, calibrate --inference --prefill on TTFT at low load), MLA
  // decodes the absorbed form (FlashMLA, trtllm-gen / FlashInfer MLA, AITER's MLA decode; padded rows
  // included) at its fitted MLA decode rate (infer_mla_decode_eff, calibrate --inference --params
  // infer_mla_decode_eff on TPOT). Where the one that applies is unset (0), and for other attention,
  // the training fit's attention_eff.
  const double bf16 = peak_flops(hw.accelerator, MathFormat::bf16);
  const Efficiency& e = hw.efficiency;
  const bool mla = m.attention == AttentionKind::mla;
  attention_flops_per_s_ = bf16 * e.attention_eff;
  // The prompts' attention in FP8 (InferenceWorkload::fp8_context_attention) where the chip has FP8
  // tensor cores: the FP8 peak at the generation's FP8 GEMM scale. MLA prompts keep their rate.
  prefill_attention_flops_per_s_ = attention_flops_per_s_;
  if (w.fp8_context_attention && !mla && executed_format(hw.accelerator, MathFormat::fp8) == MathFormat::fp8)
    prefill_attention_flops_per_s_ = std::max(
        attention_flops_per_s_, peak_flops(hw.accelerator, MathFormat::fp8) * e.attention_eff * e.gemm_fp8_scale);
  mla_decode_flops_per_s_ = mla && e.infer_mla_decode_eff > 0 ? bf16 * e.infer_mla_decode_eff : 0.0;
  mla_prefill_flops_per_s_ = mla && e.infer_mla_prefill_eff > 0 ? bf16 * e.infer_mla_prefill_eff : 0.0;
  shape_terms(true);
}

Stage::Stage(const Stage& full, const Shape& s) : Stage(full) {
  s_ = s;
  shape_terms((s.dense_layers != 0) != (full.s_.dense_layers != 0));
}

void Stage::shape_terms(bool collectives) {
  const ModelArch& m = m_;
  const Hardware& hw = hw_;
  const InferenceParallel& par = par_;
  const Shape& s = s_;
  // Every GEMM a step of any tokens runs streams its weights (the experts': gemms_floor_s).
  auto weights_of = [](const LayerGemms& g) { return g.attention.weight_bytes + g.mlp.weight_bytes + g.router.weight_bytes; };
  fixed_weight_bytes_ = double(s.dense_layers) * weights_of(dense_) + double(s.moe_layers) * weights_of(moe_) +
                        (s.has_head ? head_.weight_bytes : 0.0);
  overhead_s_ = (kKernelsPerLayer * s.layers + (m.is_moe() ? kMoeExtraKernelsPerLayer * s.moe_layers : 0.0) +
                 (m.is_sparse() ? kDsaExtraKernelsPerLayer * s.layers : 0.0)) *
                hw.efficiency.kernel_overhead_s;
  // The collectives finish() runs.
  if (!collectives) return;
  if (par.tp > 1) {
    const Group g{par.tp, 1};
    if (!par.attention_dp) {
      tp_all_reduce_ = CollectiveTime(Collective::all_reduce, g, hw);
    } else {
      tp_all_to_all_ = CollectiveTime(Collective::all_to_all, g, hw);
      if ((s.dense_layers != 0 && !dense_replicated_) || moe_gathered_) {
        tp_all_gather_ = CollectiveTime(Collective::all_gather, g, hw);
        tp_reduce_scatter_ = CollectiveTime(Collective::reduce_scatter, g, hw);
      }
    }
  }
  if (par.pp > 1) pp_send_ = CollectiveTime(Collective::send_recv, Group{2, par.tp}, hw);
}

// TP all-reduce of one step's activations. Serving engines reduce small messages with one-shot or
// two-shot kernels over NVLink (TensorRT-LLM customAllReduce, vLLM custom_all_reduce): one or two
// link latencies instead of the ring's 2 (k-1); large ones use the ring. The fastest applies.
double Stage::tp_all_reduce_s(double bytes) const {
  const Hardware& hw = hw_;
  const int tp = par_.tp;
  const double ring = tp_all_reduce_.at(bytes);
  if (tp <= 1 || tp > hw.fabric.domain_gpus) return ring;
  const double up = hw.fabric.scaleup_group_bytes_per_s(tp) * hw.efficiency.scaleup_eff;
  const double lat = hw.fabric.scaleup_latency_s, k = tp;
  const double one_shot = hw.efficiency.kernel_overhead_s + (k - 1) * bytes / up + lat;
  const double two_shot = hw.efficiency.kernel_overhead_s + 2.0 * ((k - 1) / k * bytes / up + lat);
  return std::min({ring, one_shot, two_shot});
}

[[gnu::always_inline]] inline Stage::ExpertSpread Stage::expert_spread(double tokens) const {
  const double E = m_.moe.num_experts, k = m_.moe.top_k;
  const double ep = par_.ep;
  const double active = expected_active_experts(m_.moe.num_experts, m_.moe.top_k, tokens);
  ExpertSpread x;
  x.per_gpu_experts = std::max(1.0, busiest_rank_experts(E, active, ep, two_log_ep_));
  const double imb = expert_imbalance(tokens * k / ep, par_.ep, expert_skew_, two_log_ep_);
  x.rows = tokens * k / ep * imb / x.per_gpu_experts;
  return x;
}

// The GEMMs of one layer of a kind: `tokens` through the layer, `attn_tokens` of them through this
// rank's attention projections, `prefill` of them prompt tokens.
[[gnu::always_inline]] inline Work Stage::layer(const LayerGemms& g, bool moe_layer, double tokens, double attn_tokens,
                                               double prefill, const ExpertSpread* spread_made,
                                               const Work* attention) const {
  const ModelArch& m = m_;
  Work acc;
  const Work a = attention ? *attention : run(g.attention, attn_tokens, 1, false, dense_share_);
  acc.time_s += a.time_s, acc.flops += a.flops, acc.bytes += a.bytes;
  if (g.mlp.on) {
    const Work d = run(g.mlp, dense_replicated_ ? attn_tokens : tokens, 1, false, dense_share_);
    acc.time_s += d.time_s, acc.flops += d.flops, acc.bytes += d.bytes;
  }
  if (moe_layer && m.is_moe()) {
    // Grouped GEMM over the busiest rank's active experts: it streams the weights of the distinct
    // experts its tokens picked and runs their rows, so the step waits for the rank with the most of both.
    const ExpertSpread spread = spread_made ? *spread_made : expert_spread(tokens);
    // The engine's MoE kernel share (moe_gemm_eff) is its prefill kernels': the prompt rows run at
    // it, the decode rows at the reference's (the engines' decode MoE paths, e.g. SGLang's DeepEP
    // low-latency masked grouped GEMM, are what the generation's decode rates were fitted with):
    // a mixed step's grouped GEMM runs at the rows' harmonic blend.
    // (A decode step's is 1, as 1 / (0 / share + 1) gives.)
    double engine_share = 1.0;
    if (!(prefill == 0 && tokens > 0 && moe_gemm_eff_ > 0 && std::isfinite(moe_gemm_eff_))) {
      const double prompt_rows = prefill / tokens;
      engine_share = 1.0 / (prompt_rows / moe_gemm_eff_ + (1.0 - prompt_rows));
    }
    const Work x = run(g.experts, spread.rows, spread.per_gpu_experts, /*grouped=*/true, engine_share * moe_share_);
    // An older engine release's MoE kernels take 1 / moe_kernel_share of the newest's time.
    acc.time_s += x.time_s / moe_kernel_share_, acc.flops += x.flops, acc.bytes += x.bytes;
    const Work r = run(g.router, tokens);
    acc.time_s += r.time_s, acc.flops += r.flops, acc.bytes += r.bytes;
  }
  return acc;
}

StepTime Stage::step(int kv_split, double decode, double ctx, double prefill, double isl, double verify,
                     bool allow_overlap, double prefill_ranks) const {
  const double tokens = decode * verify + prefill;
  if (tokens <= 0) return StepTime{};
  return finish(gemms(decode * verify, prefill, isl, prefill_ranks), kv_split, decode, ctx, prefill, isl, verify,
                allow_overlap, prefill_ranks);
}

// Each GEMM gemms() runs (its rows are more than none) takes at least its weights' streaming (run():
// the longer of the math and the bytes, weights and activations): the sum of the weights over the
// HBM, the experts' times the busiest rank's active experts as layer() counts them.
double Stage::gemms_floor_s(const ExpertSpread& x) const {
  const ModelArch& m = m_;
  double bytes = fixed_weight_bytes_;
  if (s_.moe_layers != 0 && m.is_moe() && moe_.experts.on) {
    // layer()'s expert count (the spread given): the distinct experts' weights, where rows run
    if (x.rows > 0) bytes += double(s_.moe_layers) * moe_.experts.weight_bytes * x.per_gpu_experts;
  }
  return bytes / hbm_bytes_per_s_;
}

// The weight GEMMs of a step of `decode` decoding tokens (each sequence's verified ones) and `prefill`
// prompt tokens, more than none.
Work Stage::gemms(double decode, double prefill, double isl, double prefill_ranks, const ExpertSpread* spread) const {
  const InferenceParallel& par = par_;
  const Shape& s = s_;
  const double tokens = decode + prefill;
  const double tp = par.tp;
  const double dp_prefill_ranks = prefill_ranks > 0 ? std::min(prefill_ranks, tp) : tp;
  const double attn_tokens = par.attention_dp ? decode / tp + prefill / dp_prefill_ranks : tokens;
  Work gemm;
  auto add = [&](const Work& x, double times) {
    gemm.time_s += x.time_s * times;
    gemm.flops += x.flops * times;
    gemm.bytes += x.bytes * times;
  };
  // Both kinds of layer with the same attention GEMMs run them alike: once.
  Work attention;
  const Work* both = nullptr;
  if (same_attention_ && s.dense_layers != 0 && s.moe_layers != 0) {
    attention = run(dense_.attention, attn_tokens, 1, false, dense_share_);
    both = &attention;
  }
  // A kind of layer the stage has none of adds nothing (its figures times 0).
  if (s.dense_layers != 0) add(layer(dense_, false, tokens, attn_tokens, prefill, nullptr, both), s.dense_layers);
  if (s.moe_layers != 0) add(layer(moe_, true, tokens, attn_tokens, prefill, spread, both), s.moe_layers);
  if (s.has_head) {
    // Logits only for the tokens that sample: every decode plus the last token of each prompt.
    // Replicated (attention-DP): the busiest rank's, its decodes and its prompts' last tokens.
    const double head_tokens = dense_replicated_ ? decode / tp + (isl > 0 ? prefill / isl / dp_prefill_ranks : 0)
                                                 : decode + (isl > 0 ? prefill / isl : 0);  // verify: every draft position
    add(run(head_, std::max(1.0, head_tokens)), 1);
  }
  return gemm;
}

// step() of `decode` sequences whose weight GEMMs are `gemm`.
StepTime Stage::finish(const Work& gemm, int kv_split, double decode, double ctx, double prefill, double isl,
                       double verify, bool allow_overlap, double prefill_ranks) const {
  const ModelArch& m = m_;
  const Hardware& hw = hw_;
  const InferenceParallel& par = par_;
  const Shape& s = s_;
  StepTime st;
  const double dec_seq_count = decode;
  decode *= verify;
  const double tokens = decode + prefill;
  const double tp = par.tp;
  const double h = m.hidden;
  const double dp_prefill_ranks = prefill_ranks > 0 ? std::min(prefill_ranks, tp) : tp;
  st.gemm_s = gemm.time_s;
  st.weight_bytes_read = gemm.bytes;
  st.flops = gemm.flops;

  // Attention core: decodes read their whole KV cache; prompts run causal flash attention.
  const double heads_split = par.attention_dp ? 1.0 : tp;
  const double kv_split_eff = par.attention_dp ? 1.0 : kv_split;
  const double dec_seqs = par.attention_dp ? dec_seq_count / tp : dec_seq_count;
  const double pre_tokens = par.attention_dp ? prefill / dp_prefill_ranks : prefill;
  const double dctx = decode_keys(s, ctx, decode_half_spread_);
  const double pctx = prompt_keys(s, isl);
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
  auto core_s = [](double flops, double mla_flops_per_s, double other_flops_per_s) {
    if (flops <= 0) return 0.0;
    return flops / (mla_flops_per_s > 0 ? mla_flops_per_s : other_flops_per_s);
  };
  const double t_dec = std::max(core_s(dec_flops * mla_decode_row_padding(m, hw, verify, heads_split),
                                       mla_decode_flops_per_s_, attention_flops_per_s_),
                                dec_bytes <= 0 ? 0.0 : dec_bytes / hbm_bytes_per_s_);
  st.attention_s = t_dec + core_s(pre_flops, mla_prefill_flops_per_s_, prefill_attention_flops_per_s_);
  st.kv_bytes_read = dec_bytes;
  st.flops += dec_flops + pre_flops;

  // Communication, each collective on the link tier its group spans.
  if (par.tp > 1) {
    if (!par.attention_dp) {
      st.tp_comm_s = 2.0 * s.layers * tp_all_reduce_s(tokens * h * kActBytes);
    } else {
      // Attention-DP: tokens are dispatched to their experts and combined back (all-to-all) in
      // MoE layers; dense layers gather and scatter the tokens.
      // Each rank sends its own tokens' top-k copies (DeepEP: what each rank really routes, the
      // busiest receiving the most): latency-bound at decode's few tokens, bandwidth-bound at
      // prefill's thousands, on the link tier the group spans (NVLink domain or scale-out RDMA).
      const double local = tokens / tp;
      const double imb = expert_imbalance(local * std::max(1, m.moe.top_k), par.ep, expert_skew_, two_log_ep_);
      const double disp = local * std::max(1, m.moe.top_k) * h * kActBytes * imb;
      st.ep_comm_s = moe_gathered_ ? s.moe_layers * (tp_all_gather_.at(tokens * h * kActBytes) +
                                                     tp_reduce_scatter_.at(tokens * h * kActBytes))
                                   : 2.0 * s.moe_layers * tp_all_to_all_.at(disp);
      // A stage without dense layers gathers nothing (0 times the collectives), nor one whose dense
      // layers run each rank's own tokens.
      if (s.dense_layers != 0 && !dense_replicated_)
        st.tp_comm_s = s.dense_layers *
                       (tp_all_gather_.at(tokens * h * kActBytes) + tp_reduce_scatter_.at(tokens * h * kActBytes));
    }
  }
  if (par.pp > 1)
    st.pp_comm_s = pp_send_.at(tokens * h * kActBytes);
  st.overhead_s = overhead_s_;
  st.total_s = st.parts_sum();
  if (allow_overlap && par.two_batch_overlap && st.ep_comm_s > 0 && tokens >= 2) {
    // Two micro-batches: each runs the step's compute on half the tokens (streaming the weights
    // again) while the other's dispatch/combine is in flight; the exposed communication is what
    // the other half's compute does not cover. Engines enable it where it pays: the faster applies.
    // The half step's GEMMs first: the two halves' step is at least twice them and the launches (its
    // other parts are not negative), and where that is no shorter than the one step, the rest of the
    // half step could not make it the faster.
    const double half_seqs = dec_seq_count / 2, half_prefill = prefill / 2;
    StepTime half;  // step(kv_split, half_seqs, ctx, half_prefill, isl, verify, false, prefill_ranks)
    if (!(half_seqs * verify + half_prefill <= 0)) {
      // Before them, the floor of the half step's GEMMs (the weights they stream), with margins far
      // above the rounding of both sums: where it already makes two halves no shorter, so would the
      // GEMMs.
      // The half step's expert spread, for both.
      const bool moe = s.moe_layers != 0 && m.is_moe();
      ExpertSpread spread;
      if (moe) spread = expert_spread(half_seqs * verify + half_prefill);
      if (2.0 * (gemms_floor_s(spread) * (1 - 1e-9)) + 2.0 * overhead_s_ >= st.total_s * (1 + 1e-12)) return st;
      const Work half_gemm = gemms(half_seqs * verify, half_prefill, isl, prefill_ranks, moe ? &spread : nullptr);
      if (2.0 * half_gemm.time_s + 2.0 * overhead_s_ >= st.total_s) return st;
      half = finish(half_gemm, kv_split, half_seqs, ctx, half_prefill, isl, verify, false, prefill_ranks);
    }
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
Shape draft_shape(const ModelArch& m, const Shape& s) {
  Shape one = s;
  one.layers = 1;
  one.moe_layers = m.is_moe() ? 1 : 0;
  one.dense_layers = 1 - one.moe_layers;
  one.has_head = true;
  return one;
}

StepTime draft_step(const ModelArch& m, const Hardware& hw, const InferenceParallel& par, const InferenceWorkload& w,
                    const Shape& s, int kv_split, double decode, double ctx, int k) {
  return draft_step(Stage(m, hw, par, w, draft_shape(m, s)), kv_split, decode, ctx, k);
}

StepTime draft_step(const Stage& one, int kv_split, double decode, double ctx, int k) {
  const StepTime d = one.step(kv_split, decode, ctx, 0, 0);
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

}  // namespace step

}  // namespace gpuplan
