#include "training/training_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>

#include "core/error.h"
#include "training/context_parallel.h"
#include "training/lora_step.h"
#include "memory/lora_memory.h"
#include "physics/collective.h"
#include "physics/compute.h"

namespace gpuplan {

// Named (not anonymous): LayerCostCache::Impl, a member of a public class, holds them.
namespace step_detail {

// Work of one transformer layer for one micro-batch on one GPU, forward pass only. Backward is
// derived from it (GEMMs 2x: data and weight gradients; flash attention 2.5x: five matmuls to two).
struct LayerCost {
  double gemm_s = 0;
  double attention_s = 0;
  double memory_bound_s = 0;
  double tp_comm_s = 0;   // one direction (forward); backward moves the same bytes
  double cp_comm_s = 0;   // CP ring: K/V passed behind the attention kernel (forward)
  double cp_a2a_s = 0;    // CP a2a: the head all-to-alls of the forward; backward the same, not overlapped
  double ep_comm_s = 0;
  // With the expert all-to-all overlapped (Megatron-Core's batch-level overlap, combined 1F1B): the
  // all-to-all one micro-batch's forward and backward leave exposed, each hidden behind the one compute
  // block of the other micro-batch it runs beside, up to overlap_eff of either.
  double ep_overlapped_exposed_s = 0;
  double modules_recompute_s = 0;  // module recompute: the two norms, the experts' activation, MLA up-projections
};

// The costs of a plan's kinds of layer (forward, one micro-batch): dense and MoE, each plain, windowed
// and linear-attention where the model has them.
struct LayerCosts {
  LayerCost dense, moe, moe_win, dense_win, dense_lin, moe_lin;
  double head_gemm_s = 0, head_memory_bound_s = 0;  // output head GEMM and the fp32 softmax / cross-entropy
};

// What a step reads of the model and the sequence alone.
struct ModelTerms {
  LayerParams dense, moe;
  double embedding = 0;
  TokenFlops flops;
  int moe_layers = 0;
};

ModelTerms model_terms(const ModelArch& m, int seq) {
  return {layer_params(m, false), m.is_moe() ? layer_params(m, true) : LayerParams{}, embedding_params(m),
          forward_flops_per_token(m, seq, true), m.moe_layers()};
}

}  // namespace step_detail

using step_detail::LayerCost;
using step_detail::LayerCosts;
using step_detail::ModelTerms;
using step_detail::model_terms;

namespace {

constexpr double kActBytes = 2.0;  // activations and gradients flow in bf16

// Keys a query attends on average under the causal mask (query i sees i + 1 keys), at most the window
// (a sliding window, DSA's top-k) or within its own chunk: the same count as the FLOPs (model.h).
double attention_ctx(int seq, int window, bool chunked = false) {
  return chunked ? chunked_prompt_keys(seq, window) : windowed_prompt_keys(seq, window);
}

LayerCost layer_cost(const ModelArch& m, const Hardware& hw, const TrainingPlan& p, const GroupStrides& st,
                     MathFormat fmt, double T, int seq, bool moe_layer, bool windowed, bool linear_layer = false) {
  LayerCost c;
  const double tp = p.tp;
  const double h = m.hidden;
  const double heads = m.heads;
  // Sparse attention (DSA) attends at most index_topk keys per query, as a window caps them.
  const double ctx = windowed ? attention_ctx(seq, m.sliding_window, m.chunked_window)
                              : attention_ctx(seq, m.sparse.index_topk);
  double qk_dim = m.head_dim, v_dim = m.head_dim, kv_heads = m.kv_heads > 0 ? m.kv_heads : m.heads;

  // --- attention projections ---
  if (linear_layer) {
    // Gated DeltaNet: q,k,v,z,b,a in, out_proj back, split by value heads over TP; the chunked
    // delta rule's work is a fixed amount per token (model.h), run at the flash-attention rate.
    const LinearAttentionDims& d = m.linear;
    const double key_dim = 1.0 * d.key_heads * d.key_head_dim, value_dim = 1.0 * d.value_heads * d.value_head_dim;
    c.gemm_s += gemm_time_s(hw, fmt, T, (2 * key_dim + 2 * value_dim + 2.0 * d.value_heads) / tp, h);
    c.gemm_s += gemm_time_s(hw, fmt, T, h, value_dim / tp);
    c.attention_s = attention_time_s(hw, T * linear_attention_flops_per_token(m) / tp);
    qk_dim = d.key_head_dim, v_dim = d.value_head_dim, kv_heads = d.key_heads;
  } else if (m.attention == AttentionKind::mla) {
    const MlaDims& a = m.mla;
    qk_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
    v_dim = a.v_head_dim;
    // Down-projections are small and replicated across TP ranks; up-projections split by heads.
    if (a.q_lora_rank > 0) {
      c.gemm_s += gemm_time_s(hw, fmt, T, a.q_lora_rank, h);
      c.gemm_s += gemm_time_s(hw, fmt, T, heads * qk_dim / tp, a.q_lora_rank);
    } else {
      c.gemm_s += gemm_time_s(hw, fmt, T, heads * qk_dim / tp, h);
    }
    c.gemm_s += gemm_time_s(hw, fmt, T, a.kv_lora_rank + a.qk_rope_head_dim, h);
    const double kv_up = gemm_time_s(hw, fmt, T, heads * (a.qk_nope_head_dim + v_dim) / tp, a.kv_lora_rank);
    c.gemm_s += kv_up;
    // mla_up_proj recompute runs the up-projections again (the query's too when it is low-rank).
    c.modules_recompute_s += kv_up + (a.q_lora_rank > 0 ? gemm_time_s(hw, fmt, T, heads * qk_dim / tp, a.q_lora_rank) : 0.0);
    c.gemm_s += gemm_time_s(hw, fmt, T, h, heads * v_dim / tp);
    kv_heads = heads;
  } else {
    const double q = heads * m.head_dim, kv = kv_heads * m.head_dim;
    c.gemm_s += gemm_time_s(hw, fmt, T, ((m.attention_output_gate ? 2 : 1) * q + 2 * kv) / tp, h);  // + output gate
    c.gemm_s += gemm_time_s(hw, fmt, T, h, q / tp);
  }

  if (!linear_layer) {
    // --- attention core: QK^T and PV over the causal context (flash attention) ---
    const double attn_flops = 2.0 * T * ctx * (heads / tp) * (qk_dim + v_dim);
    // DSA indexer: its query/key/weight projections, then every query scores its whole causal context.
    double index_flops = 0;
    if (m.is_sparse()) {
      const SparseAttentionDims& d = m.sparse;
      const double q_in = m.attention == AttentionKind::mla && m.mla.q_lora_rank > 0 ? m.mla.q_lora_rank : h;
      c.gemm_s += gemm_time_s(hw, fmt, T, 1.0 * d.index_heads * d.index_head_dim / tp, q_in);
      c.gemm_s += gemm_time_s(hw, fmt, T, 1.0 * d.index_head_dim + d.index_heads, h);
      index_flops = T * attention_ctx(seq, 0) * indexer_flops_per_context_token(m) / tp;
    }
    c.attention_s = attention_time_s(hw, attn_flops + index_flops);
  }

  // --- MLP: dense, or router + routed experts + shared experts ---
  const double gemm_before_mlp = c.gemm_s;
  const double gate = m.gated_mlp ? 2.0 : 1.0;
  double mlp_act_elems = 0;  // elements the activation function reads
  if (!moe_layer) {
    const double f = m.ffn_hidden / tp;
    c.gemm_s += gemm_time_s(hw, fmt, T, gate * f, h) + gemm_time_s(hw, fmt, T, h, f);
    mlp_act_elems = T * gate * f;
  } else {
    const MoeDims& e = m.moe;
    const double etp = p.etp;
    // Tokens each GPU routes: sequence-parallel share, gathered across the expert-TP group.
    const double Tm = T / tp * etp;
    const double local_experts = double(e.num_experts) / p.ep;
    // Force-balanced routing: every GPU of the EP group receives Tm*top_k assignments.
    const double per_expert = Tm * e.top_k / local_experts;
    const double fe = e.expert_ffn_hidden / etp;
    c.gemm_s += gemm_time_s(hw, fmt, T / tp, e.num_experts, h);  // router (per SP shard)
    // Grouped GEMMs: each local expert's GEMM at its own shape, plus the fixed per-expert cost.
    c.gemm_s += grouped_gemm_time_s(hw, fmt, per_expert, gate * fe, h, local_experts);
    c.gemm_s += grouped_gemm_time_s(hw, fmt, per_expert, h, fe, local_experts);
    mlp_act_elems = Tm * e.top_k * gate * fe;
    // moe_act recompute: the routed experts' activation function again (read fc1 out, write its output).
    c.modules_recompute_s += memory_bound_time_s(hw, mlp_act_elems * (1.0 + 1.0 / gate) * kActBytes);
    if (e.shared_experts > 0) {
      const double fs = double(e.shared_experts) * (e.shared_ffn_hidden > 0 ? e.shared_ffn_hidden : e.expert_ffn_hidden) / tp;
      c.gemm_s += gemm_time_s(hw, fmt, T, gate * fs, h) + gemm_time_s(hw, fmt, T, h, fs);
      mlp_act_elems += T * gate * fs;
    }
    // Permutations of the routed tokens, each a read and a write of every routed copy, undone in the
    // combine: the flex dispatcher's one into expert order (DeepEP, HybridEP); the alltoall
    // dispatcher's by destination rank and, with more than one local expert, its sort of the received
    // chunks by local expert (plan.h, MoeDispatcher).
    const double permutations =
        (p.dispatcher == MoeDispatcher::alltoall && local_experts > 1) ? 2.0 : 1.0;
    c.memory_bound_s += memory_bound_time_s(hw, permutations * 4.0 * Tm * e.top_k * h * kActBytes);
    // Dispatch (fp8 where GEMMs are fp8) and combine (bf16) over the EP group.
    if (p.ep > 1) {
      const double dispatch_bytes = Tm * e.top_k * h * (fmt == MathFormat::bf16 ? 2.0 : 1.0);
      const double combine_bytes = Tm * e.top_k * h * 2.0;
      const Group g{p.ep, st.ep};
      const double dispatch = collective_time_s(Collective::all_to_all, dispatch_bytes, g, hw);
      const double combine = collective_time_s(Collective::all_to_all, combine_bytes, g, hw);
      c.ep_comm_s = dispatch + combine;
      // Megatron-Core's combined 1F1B (schedule_layer_1f1b) runs, layer by layer, micro-batch B's combine
      // backward beside A's attention forward, A's dispatch beside B's MLP data gradient, B's dispatch
      // backward beside A's MLP forward and B's delayed MLP weight gradient (delay_wgrad_compute), and A's
      // combine beside B's attention backward. Each all-to-all hides behind that block alone: at most
      // overlap_eff of it, and no more than overlap_eff of the block's time.
      const double mlp_f = (c.gemm_s - gemm_before_mlp) + c.memory_bound_s +
                           memory_bound_time_s(hw, mlp_act_elems * (1.0 + 1.0 / gate) * kActBytes);
      const double attn_gemm = gemm_before_mlp;
      const double ov = hw.efficiency.overlap_eff;
      auto hidden_behind = [&](double comm, double block) { return std::max((1.0 - ov) * comm, comm - ov * block); };
      // The attention block's memory-bound kernels (norm, residual, rotary) are left out: small beside its GEMMs.
      const double attn_f = attn_gemm + c.attention_s, attn_b = 2.0 * attn_gemm + 2.5 * c.attention_s;
      c.ep_overlapped_exposed_s = hidden_behind(combine, attn_f) + hidden_behind(dispatch, mlp_f) +
                                  hidden_behind(dispatch, 2.0 * mlp_f) + hidden_behind(combine, attn_b);
    }
  }

  // --- memory-bound kernels: two norms, two residual adds, rotary, activation function, casts ---
  const double sp = p.sequence_parallel ? tp : 1.0;  // norms/residuals run on the SP shard
  double bytes = 0;
  bytes += 2 * (2 * h) * (T / sp) * kActBytes;                 // RMSNorm/LayerNorm x2: read + write
  c.modules_recompute_s += memory_bound_time_s(hw, 2 * (2 * h) * (T / sp) * kActBytes);  // layernorm recompute
  bytes += 2 * (3 * h) * (T / sp) * kActBytes;                 // residual adds x2: 2 reads + 1 write
  bytes += 2 * T * (heads + kv_heads) * qk_dim / tp * kActBytes;  // rotary on q and k: read + write
  bytes += mlp_act_elems * (1.0 + 1.0 / gate) * kActBytes;  // activation: read in, write out
  if (fmt != MathFormat::bf16) bytes += 3.0 * T * (2 * h + heads * v_dim / tp) * 1.5;  // casts to fp8/fp4
  c.memory_bound_s += memory_bound_time_s(hw, bytes);

  // --- TP/SP collectives: all-gather before and reduce-scatter after attention and the MLP
  // (all-reduce without SP). Routed experts with etp=1 need none for the MLP. ---
  if (p.tp > 1) {
    const Group g{p.tp, st.tp};
    const double buf = T * h * kActBytes;
    const int blocks = (moe_layer && p.etp == 1) ? 1 : 2;
    const double one = p.sequence_parallel
                           ? collective_time_s(Collective::all_gather, buf, g, hw) +
                                 collective_time_s(Collective::reduce_scatter, buf, g, hw)
                           : collective_time_s(Collective::all_reduce, buf, g, hw);
    c.tp_comm_s = blocks * one;
  }
  // --- CP: ring exchange of K/V chunks behind the attention kernel, or Ulysses all-to-alls of the
  // heads (training/context_parallel.h) ---
  if (p.cp > 1) {
    CpAttentionShape a;
    a.tokens = T;
    a.q_heads = heads / tp;
    a.kv_heads = kv_heads / tp;
    a.qk_dim = qk_dim;
    a.v_dim = v_dim;
    a.bytes_per_elem = kActBytes;
    const CpTime t = cp_time(p.cp_kind, a, p.cp, Group{p.cp, st.cp}, hw);
    (t.overlaps_attention ? c.cp_comm_s : c.cp_a2a_s) = t.forward_s;
  }
  return c;
}

LayerCosts layer_costs(const ModelArch& m, const Hardware& hw, const TrainingPlan& p, const GroupStrides& st,
                       MathFormat fmt, double T, int seq) {
  const int windowed_layers = m.window_layers();
  const LayerCost dense = layer_cost(m, hw, p, st, fmt, T, seq, false, false);
  const LayerCost moe = m.is_moe() ? layer_cost(m, hw, p, st, fmt, T, seq, true, false) : LayerCost{};
  const LayerCost moe_win = (m.is_moe() && windowed_layers) ? layer_cost(m, hw, p, st, fmt, T, seq, true, true) : moe;
  const LayerCost dense_win = windowed_layers ? layer_cost(m, hw, p, st, fmt, T, seq, false, true) : dense;
  // Hybrid models: their linear-attention layers (MoE or dense MLP alike), in the same mix.
  const LayerCost dense_lin = m.is_hybrid() ? layer_cost(m, hw, p, st, fmt, T, seq, false, false, true) : dense;
  const LayerCost moe_lin =
      (m.is_hybrid() && m.is_moe()) ? layer_cost(m, hw, p, st, fmt, T, seq, true, false, true) : moe;
  // Output head + loss: GEMM over the vocabulary and the fp32 softmax / cross-entropy.
  const double head_gemm = gemm_time_s(hw, fmt, T, double(m.vocab) / p.tp, m.hidden);
  const double head_mem = memory_bound_time_s(hw, 3.0 * T * m.vocab / p.tp * 4.0);
  return {dense, moe, moe_win, dense_win, dense_lin, moe_lin, head_gemm, head_mem};
}

// What layer_cost reads of the plan and its group strides (the model, hardware, format and sequence
// are the cache's own).
using LayerCostKey = std::array<int, 11>;
LayerCostKey layer_cost_key(const TrainingPlan& p, const GroupStrides& st) {
  return {p.tp, p.etp, p.ep, static_cast<int>(p.dispatcher), p.sequence_parallel ? 1 : 0, p.cp,
          static_cast<int>(p.cp_kind), p.mbs, st.tp, st.ep, st.cp};
}

}  // namespace

namespace step_detail {

// FNV-1a over a layer-cost key's fields: the cache's lookups are a good share of a search's bound.
struct LayerCostKeyHash {
  std::size_t operator()(const std::array<int, 11>& key) const {
    std::uint64_t h = 14695981039346656037ull;
    for (int v : key) h = (h ^ static_cast<std::uint32_t>(v)) * 1099511628211ull;
    return static_cast<std::size_t>(h);
  }
};

}  // namespace step_detail

struct LayerCostCache::Impl {
  const ModelArch* model = nullptr;
  const Hardware* hw = nullptr;
  int seq = 0;
  MathFormat fmt = MathFormat::bf16;
  std::unordered_map<LayerCostKey, LayerCosts, step_detail::LayerCostKeyHash> costs;
  ModelTerms terms;  // of `model` at `seq`

  const LayerCosts& get(const ModelArch& m, const Hardware& h, const TrainingPlan& p, const GroupStrides& st,
                        MathFormat f, double T, int s) {
    if (model != &m || hw != &h || seq != s || fmt != f) {
      costs.clear();
      model = &m, hw = &h, seq = s, fmt = f;
      terms = model_terms(m, s);
    }
    const LayerCostKey key = layer_cost_key(p, st);
    auto it = costs.find(key);
    if (it == costs.end()) it = costs.emplace(key, layer_costs(m, h, p, st, f, T, s)).first;
    return it->second;
  }
};

LayerCostCache::LayerCostCache() : impl_(std::make_unique<Impl>()) {}
LayerCostCache::~LayerCostCache() = default;

std::vector<Violation> check_plan(const ModelArch& m, TrainingPlan& p, const TrainingWorkload& w) {
  std::vector<Violation> v;
  auto bad = [&](const char* subject, std::string msg) { v.push_back({"divisibility", subject, std::move(msg)}); };
  // Ranges first: every later rule divides by these (a 0 read from a dataset row is a violation, not SIGFPE).
  const std::pair<const char*, long long> positive[] = {
      {"plan.tp", p.tp}, {"plan.pp", p.pp}, {"plan.vp", p.vp}, {"plan.cp", p.cp}, {"plan.ep", p.ep},
      {"plan.etp", p.etp}, {"plan.mbs", p.mbs}, {"workload.num_gpus", w.num_gpus},
      {"workload.global_batch", w.global_batch}, {"workload.seq_len", w.seq_len}};
  for (const auto& [subject, value] : positive)
    if (value < 1) v.push_back({"range", subject, fmt::format("{} must be >= 1, got {}", subject, value)});
  if (p.dp < 0) v.push_back({"range", "plan.dp", fmt::format("plan.dp must be >= 0 (0: derived), got {}", p.dp)});
  if (p.offload_layers < 0)
    v.push_back({"range", "plan.offload_layers", fmt::format("plan.offload_layers must be >= 0 (0: none), got {}", p.offload_layers)});
  if (m.layers < 1 || m.heads < 1) v.push_back({"range", "model", "the model needs >= 1 layer and >= 1 head"});
  if (!v.empty()) return v;
  const long long mp = 1LL * p.tp * p.pp * p.cp;
  if (w.num_gpus % mp != 0) {
    bad("plan", fmt::format("tp*pp*cp = {} does not divide {} GPUs", mp, w.num_gpus));
    return v;
  }
  const int dp = static_cast<int>(w.num_gpus / mp);
  if (p.dp == 0) p.dp = dp;
  if (p.dp != dp)
    bad("plan.dp", fmt::format("dp={} with tp*pp*cp={} needs {} GPUs, but the job has {} GPUs; leave dp out to "
                               "derive it (dp={}) or give {} GPUs",
                               p.dp, mp, mp * p.dp, w.num_gpus, dp, mp * p.dp));
  if (m.heads % p.tp != 0) bad("plan.tp", fmt::format("tp={} does not divide {} attention heads", p.tp, m.heads));
  else if (m.attention == AttentionKind::gqa && m.kv_heads > 0 && m.kv_heads % p.tp != 0)
    bad("plan.tp", fmt::format("tp={} does not divide {} KV heads (Megatron splits query groups over TP)", p.tp, m.kv_heads));
  if (p.pp > m.layers) bad("plan.pp", fmt::format("pp={} exceeds {} layers", p.pp, m.layers));
  if (p.vp > 1 && p.pp == 1) bad("plan.vp", "interleaving (vp>1) needs pp>1");
  // Megatron may count the embedding and the loss as one pipeline layer each
  // (account_for_embedding/loss_in_pipeline_split), so pp*vp may reach layers + 2.
  if (p.vp > 1 && p.pp * p.vp > m.layers + 2)
    bad("plan.vp", fmt::format("pp*vp={} exceeds {} layers (+2 for embedding and loss)", p.pp * p.vp, m.layers));
  if (w.seq_len % (2 * p.cp) != 0 && p.cp > 1)
    bad("plan.cp", fmt::format("seq {} must divide into 2*cp={} chunks", w.seq_len, 2 * p.cp));
  if (p.cp > 1 && p.cp_kind == CpKind::a2a && m.heads % p.tp == 0) {
    const int kvh = (m.attention == AttentionKind::gqa && m.kv_heads > 0) ? m.kv_heads : m.heads;
    if (kvh % p.tp == 0) {
      const std::string why = cp_kind_violation(p.cp_kind, m.heads / p.tp, kvh / p.tp, p.cp);
      if (!why.empty()) bad("plan.cp_kind", why);
    }
  }
  if (m.is_moe()) {
    if (m.moe.expert_ffn_hidden % p.etp != 0)
      bad("plan.etp", fmt::format("etp={} does not divide the expert FFN size {}", p.etp, m.moe.expert_ffn_hidden));
    if (m.moe.num_experts % p.ep != 0)
      bad("plan.ep", fmt::format("ep={} does not divide {} experts", p.ep, m.moe.num_experts));
    if ((1LL * p.dp * p.cp * p.tp) % (1LL * p.ep * p.etp) != 0)
      bad("plan.ep", fmt::format("ep*etp={} must divide dp*cp*tp={}", p.ep * p.etp, p.dp * p.cp * p.tp));
  } else if (p.ep > 1) {
    bad("plan.ep", "ep>1 needs an MoE model");
  }
  if (p.dp > 0 && w.global_batch % (1LL * p.dp * p.mbs) != 0) {
    bad("plan.mbs", fmt::format("global batch {} is not a multiple of dp*mbs = {}", w.global_batch, p.dp * p.mbs));
  } else if (p.dp > 0 && p.vp > 1 && p.pp > 1) {
    // Megatron-LM's interleaved 1F1B schedule runs the micro-batches in groups of pp per virtual
    // stage and rejects a count that is not a multiple of pp (schedules.py,
    // forward_backward_pipelining_with_interleaving).
    const long long nmb = w.global_batch / (1LL * p.dp * p.mbs);
    if (nmb % p.pp != 0)
      bad("plan.vp", fmt::format("interleaved pipelining (vp={}) needs the micro-batches per step "
                                 "(global batch {} / (dp*mbs = {}) = {}) to be a multiple of pp={}; use vp=1 "
                                 "or a global batch that gives a multiple",
                                 p.vp, w.global_batch, 1LL * p.dp * p.mbs, nmb, p.pp));
  }
  return v;
}

MemoryOptions with_capacities(MemoryOptions o, const Hardware& hw) {
  if (o.capacity_bytes <= 0) o.capacity_bytes = hw.accelerator.memory_bytes;
  if (o.host_capacity_bytes <= 0) o.host_capacity_bytes = hw.host.memory_bytes_per_gpu;
  return o;
}

namespace {

// evaluate_training, or with `floor_only` its step's compute floor (training_step_floor).
TrainingResult evaluate_step(const ModelArch& m, const Hardware& hw, const TrainingPlan& plan_in,
                             const TrainingWorkload& w, const TrainingOptions& options, bool floor_only) {
  TrainingResult r;
  TrainingPlan p = plan_in;
  if (!options.plan_checked) r.violations = check_plan(m, p, w);
  try {
    check_finetune(m, w);
  } catch (const InputError& err) {
    r.violations.push_back({"finetune.invalid", err.field(), err.what()});
  }
  // Training recipes need their GEMM format's tensor cores (NVFP4 training is a Blackwell recipe; FP8
  // needs Hopper or later): no framework trains in FP4 on FP8 units, so this is an error, not a fallback.
  if (const std::string why = unsupported_precision(hw.accelerator, w.precision); !why.empty())
    r.violations.push_back({"precision.unsupported", "precision", why});
  if (const std::string why = training_refusal(w.precision); !why.empty())
    r.violations.push_back({"precision.not_trainable", "precision", why});
  if (!r.violations.empty()) return r;
  const Efficiency& e = hw.efficiency;
  const MathFormat fmt = gemm_format(w.precision);
  r.dp = p.dp;
  const long long nmb = w.global_batch / (1LL * p.dp * p.mbs);
  r.microbatches = nmb;

  const GroupStrides st = group_strides(p, w.num_gpus);
  const double T = double(p.mbs) * w.seq_len / p.cp;  // tokens per micro-batch per GPU (before TP)
  const int windowed_layers = m.window_layers();

  // Cost of each kind of layer (forward, one micro-batch), and what the step reads of the model alone.
  const LayerCosts* cached =
      options.layer_costs ? &options.layer_costs->impl().get(m, hw, p, st, fmt, T, w.seq_len) : nullptr;
  // (Without a cache the step's own; with one, not even zeroed: a search's floors are this cheap.)
  std::optional<LayerCosts> own;
  std::optional<ModelTerms> own_terms;
  if (!cached) {
    own.emplace(layer_costs(m, hw, p, st, fmt, T, w.seq_len));
    own_terms.emplace(model_terms(m, w.seq_len));
  }
  const LayerCosts& costs = cached ? *cached : *own;
  const ModelTerms& terms = cached ? options.layer_costs->impl().terms : *own_terms;
  const int moe_layers = terms.moe_layers;
  const LayerCost& dense = costs.dense;
  const LayerCost& moe = costs.moe;
  const LayerCost& moe_win = costs.moe_win;
  const LayerCost& dense_win = costs.dense_win;
  const LayerCost& dense_lin = costs.dense_lin;
  const LayerCost& moe_lin = costs.moe_lin;

  // Average layer composition per pipeline stage. The stages run in lock step (1F1B), so the step
  // follows the slowest: Megatron splits the layers evenly over the pp * vp model chunks (ceil), and
  // where pp * vp leaves slack (layers + 1 or + 2 chunk slots) it counts the loss, then the embedding,
  // as a layer (account_for_loss/embedding_in_pipeline_split): the last stage gives up one layer for
  // the output head. The last stage carries the head and the loss in full, not a 1/pp share.
  const double L = m.layers;
  const double frac_moe = moe_layers / L, frac_win = windowed_layers / L, frac_lin = m.linear.layers / L;
  auto mix = [&](auto field) {
    const double d = (1 - frac_win - frac_lin) * field(dense) + frac_win * field(dense_win) + frac_lin * field(dense_lin);
    const double mo = (1 - frac_win - frac_lin) * field(moe) + frac_win * field(moe_win) + frac_lin * field(moe_lin);
    return (1 - frac_moe) * d + frac_moe * mo;
  };
  const double lg = mix([](const LayerCost& c) { return c.gemm_s; });
  const double la = mix([](const LayerCost& c) { return c.attention_s; });
  const double lm = mix([](const LayerCost& c) { return c.memory_bound_s; });
  const double ltp = mix([](const LayerCost& c) { return c.tp_comm_s; });
  const double lcp = mix([](const LayerCost& c) { return c.cp_comm_s; });
  const double lcp_a2a = mix([](const LayerCost& c) { return c.cp_a2a_s; });
  const double lep = mix([](const LayerCost& c) { return c.ep_comm_s; });
  const double lep_overlapped = mix([](const LayerCost& c) { return c.ep_overlapped_exposed_s; });
  const double lmod = mix([](const LayerCost& c) { return c.modules_recompute_s; });

  const double head_gemm = costs.head_gemm_s;
  const double head_mem = costs.head_memory_bound_s;

  // The critical stage: a full one (vp chunks of ceil(L / (pp*vp)) layers), or the last with the head.
  const int chunks = p.pp * p.vp;
  const int per_chunk = (m.layers + chunks - 1) / chunks;
  const int slack = per_chunk * chunks - m.layers;
  double n = p.pp == 1 ? L : double(p.vp) * per_chunk;
  double head_share = 1.0;
  if (p.pp > 1) {
    const double n_last = n - (slack >= 1 ? 1.0 : 0.0);
    const double layer_t = 3.0 * (lg + lm) + 3.5 * la + 2.0 * ltp;
    const double head_t = 3.0 * (head_gemm + head_mem);
    if (n * layer_t >= n_last * layer_t + head_t) head_share = 0.0;  // a full stage is the slower
    else n = n_last;
  }

  // Per micro-batch, forward and backward of one stage.
  const double f_gemm = n * lg + head_share * head_gemm;
  const double f_attn = n * la;
  const double f_mem = n * lm + head_share * head_mem;
  double f_compute = f_gemm + f_attn + f_mem;
  double b_compute = 2.0 * f_gemm + 2.5 * f_attn + 2.0 * f_mem;
  // LoRA / QLoRA (lora_step.h): the frozen GEMMs' backward is the data gradient alone; the adapters'
  // GEMMs and QLoRA's dequantize passes come on top.
  const bool lora = !w.finetune.is_full();
  const LoraStepCost lc = lora_step_cost(m, hw, p, w, T, n);
  if (lora) {
    f_compute += lc.adapter_forward_s + lc.dequantize_pass_s;
    b_compute = f_gemm + 2.5 * f_attn + 2.0 * f_mem + lc.adapter_backward_s + lc.backward_dequantize_s;
  }
  StepBreakdown& s = r.parts;
  const double k = static_cast<double>(nmb);
  s.gemm_s = lora ? k * (2.0 * f_gemm + 3.0 * lc.adapter_forward_s) : k * 3.0 * f_gemm;
  s.attention_s = k * 3.5 * f_attn;
  s.memory_bound_s = lora ? k * (3.0 * f_mem + lc.dequantize_pass_s + lc.backward_dequantize_s) : k * 3.0 * f_mem;
  double recompute = 0;
  // Full recompute re-runs whole layers' forward from their checkpointed inputs, collectives included:
  // the TP all-gathers/reduce-scatters, the CP ring's K/V exchange and the MoE token dispatcher's
  // all-to-alls run again (Megatron's checkpointed TransformerLayer.forward). `recomputed_passes` is
  // the forward passes' share of the layers that recompute: the communication below counts it.
  double recomputed_passes = 0;
  // The floor: no recompute, and none of its recomputed collectives.
  const Recompute recompute_mode = floor_only ? Recompute::none : p.recompute;
  if (recompute_mode == Recompute::full) {
    // recompute_layers counts per virtual chunk (Megatron --recompute-num-layers), as the memory model does.
    const double share = p.recompute_layers > 0 ? std::min(1.0, double(p.recompute_layers) * p.vp / n) : 1.0;
    recomputed_passes = share;
    recompute = share * n * (lg + la + lm);
    if (lora) recompute += share * (lc.adapter_forward_s + lc.dequantize_pass_s);
  } else if (recompute_mode == Recompute::selective) {
    recompute = f_attn;  // the attention core is recomputed in backward
  } else if (recompute_mode == Recompute::modules) {
    recompute = n * lmod;  // norms, the experts' activation and MLA up-projections again in backward
  }

  // Exposed communication per micro-batch.
  // TP overlap on Hopper and older orders each collective ahead of the GEMM it hides behind with one CUDA
  // device connection (CUDA_DEVICE_MAX_CONNECTIONS=1); the expert all-to-all overlap's second stream needs
  // more, and with more the collective queues behind the GEMM (Megatron-Bridge perf_plugins.py,
  // _set_num_cuda_device_max_connections): with both on there, the TP collectives run exposed.
  const int cc = hw.accelerator.compute_capability;
  const bool tp_overlap_ordered = !(p.ep_overlap && p.ep > 1 && cc > 0 && cc < 100);
  const double ov = p.tp_comm_overlap && tp_overlap_ordered ? e.overlap_eff : 0.0;
  const double tp_fb = (2.0 + recomputed_passes) * n * ltp;  // forward + backward move the same bytes
  const double tp_exposed = tp_fb * (1.0 - ov);
  const double cp_exposed =
      (3.0 + recomputed_passes) * std::max(0.0, n * lcp - e.overlap_eff * f_attn) +  // fwd KV + bwd KV,dKV
      (2.0 + recomputed_passes) * n * lcp_a2a;  // a2a: forward and backward all-to-alls, on the critical path
  const double ep_fb = (2.0 + recomputed_passes) * n * lep;
  // Overlapped: each layer's forward and backward all-to-alls behind the other micro-batch's blocks; the
  // recomputed forward's at overlap_eff.
  const double ep_exposed =
      p.ep_overlap ? n * lep_overlapped + recomputed_passes * n * lep * (1.0 - e.overlap_eff) : ep_fb;
  if (floor_only) {
    // Recompute and the recomputed passes' collectives (each term above grows with them), offload,
    // hand-offs, data-parallel traffic and the optimizer only add non-negative terms to the
    // micro-batch time and the step; the bubble is (pp-1)/vp micro-batch times.
    s.tp_comm_s = k * tp_exposed;
    s.cp_comm_s = k * cp_exposed;
    s.ep_comm_s = k * ep_exposed;
    const double mb_floor = f_compute + b_compute + recompute + tp_exposed + cp_exposed + ep_exposed;
    s.bubble_s = p.pp > 1 ? (p.pp - 1.0) / p.vp * mb_floor : 0.0;
    r.step_time_s = s.total_s();
    return r;
  }

  // Pipeline hand-offs: one activation tensor per chunk boundary each way (scatter/gather over TP).
  double p2p = 0;
  if (p.pp > 1) {
    const double bytes = T * m.hidden * kActBytes / (p.sequence_parallel ? p.tp : 1);
    p2p = collective_time_s(Collective::send_recv, bytes, Group{p.pp, st.pp}, hw);
  }

  // Activation offload (offload_layers): the offloaded layers' saved activations cross the host link
  // once each way per micro-batch, GPU to host during the forward pass and back during the backward,
  // on copy engines beside the compute, layer by layer (Transformer Engine's CPU offload: a layer's
  // copy overlaps the next layer's compute and is waited for at the layer boundary, double-buffered).
  // So each offloaded layer's copy hides behind one layer's compute, up to overlap_eff, and what it
  // outlasts is exposed. The copy runs at this GPU's share of the host side: its host link, or the
  // node's host-memory bandwidth over its GPUs when all of them offload at once (HostSide).
  double offload_exposed = 0;
  if (p.offload_layers > 0) {
    const double host_bw = hw.host.bandwidth_bytes_per_s_per_gpu > 0
                               ? std::min(hw.accelerator.host_link_bytes_per_s, hw.host.bandwidth_bytes_per_s_per_gpu)
                               : hw.accelerator.host_link_bytes_per_s;
    if (host_bw <= 0) {
      r.violations.push_back({"offload.no_host_link", "plan.offload_layers",
                              fmt::format("activation offload needs the GPU's host link bandwidth, which the catalog "
                                          "does not give for {} (host_link_gb_per_s); use offload_layers=0",
                                          hw.accelerator.name)});
      return r;
    }
    double bytes = 0;
    int offloaded_layers = 0;
    try {
      // The stage that offloads the most: max over stages of min(layers, offload_layers * vp) is the
      // min of the most layers and offload_layers * vp.
      const TrainingMemoryTotals t =
          TrainingMemoryModel(m, p, w, options.memory).totals(p.recompute_layers, p.offload_layers);
      bytes = t.offloaded_bytes_per_microbatch;
      offloaded_layers = std::min(t.most_layers, p.offload_layers * p.vp);
    } catch (const InputError& err) {
      r.violations.push_back({"memory.invalid", "plan", err.what()});
      return r;
    }
    if (offloaded_layers > 0 && bytes > 0) {
      const double per_layer_copy = bytes / offloaded_layers / host_bw;
      const double per_layer_f = f_compute / n, per_layer_b = (b_compute + recompute) / n;
      offload_exposed = offloaded_layers * (std::max(0.0, per_layer_copy - e.overlap_eff * per_layer_f) +
                                            std::max(0.0, per_layer_copy - e.overlap_eff * per_layer_b));
    }
  }

  const double mb_time = f_compute + b_compute + recompute + tp_exposed + cp_exposed + ep_exposed + offload_exposed;

  // Parameters held by this GPU (one stage), for DP traffic and the optimizer.
  const LayerParams& dense_lp = terms.dense;
  const LayerParams& moe_lp = terms.moe;
  const double shared_per_layer = ((1 - frac_moe) * (dense_lp.attention + dense_lp.mlp_dense) +
                                   frac_moe * (moe_lp.attention + moe_lp.moe_shared + moe_lp.moe_router)) / p.tp;
  const double expert_per_layer = frac_moe * m.moe.num_experts * moe_lp.moe_expert / (double(p.ep) * p.etp);
  const double emb = terms.embedding / p.tp / p.pp;
  // Fine-tuning with adapters: gradients, their all-reduce and the optimizer cover the adapters only.
  const double dense_params = lora ? lc.adapter_params : n * shared_per_layer + emb;
  const double expert_params = lora ? 0.0 : n * expert_per_layer;

  // Data-parallel traffic: gradients reduce-scattered and parameters all-gathered (distributed
  // optimizer), in bf16; dense weights over dp*cp ranks, expert weights over the expert-DP group.
  const int dense_group = p.dp * p.cp;
  const int expert_group = std::max(1, int((1LL * p.dp * p.cp * p.tp) / (1LL * p.ep * p.etp)));
  auto dp_time = [&](Collective c, double elems_dense, double elems_expert) {
    return collective_time_s(c, elems_dense * 2.0, Group{dense_group, p.cp > 1 ? std::min(st.cp, st.dp) : st.dp}, hw) +
           collective_time_s(c, elems_expert * 2.0, Group{expert_group, st.edp}, hw);
  };
  double dp_exposed = 0;
  const double f_stage = f_compute, b_stage = b_compute + recompute;
  if (p.zero >= 3) {
    // FSDP: parameters gathered for forward and again for backward, gradients reduce-scattered, every
    // micro-batch, each overlapped with the compute it precedes.
    // The gathers run one layer ahead of the compute (prefetch): the first layer's gather of each pass
    // (and the last layer's reduce-scatter) has nothing to hide behind; the rest hide behind the
    // pass's compute up to overlap_eff. Gather bytes per micro-batch are fixed while compute grows
    // with mbs, so the exposed time has a knee where the compute window covers the gathers (see
    // docs/training-model.md).
    // Under LoRA the gathered weights are the frozen base in its format (bytes / 2 bf16-equivalents).
    const double frozen_scale = lora ? frozen_bytes_per_param(w.finetune) / 2.0 : 1.0;
    const double ag = lora ? dp_time(Collective::all_gather, (n * shared_per_layer) * frozen_scale + emb,
                                     n * expert_per_layer * frozen_scale) +
                                 dp_time(Collective::all_gather, dense_params, 0.0)
                           : dp_time(Collective::all_gather, dense_params, expert_params);
    const double rs = dp_time(Collective::reduce_scatter, dense_params, expert_params);
    const double fill = 1.0 / std::max(1.0, n / p.vp);  // one layer of a model chunk
    auto exposed = [&](double comm, double window) {
      return comm * fill + std::max(0.0, comm * (1.0 - fill) - e.overlap_eff * window);
    };
    const double per_mb = p.vp * (exposed(ag / p.vp, f_stage / p.vp) + exposed((ag + rs) / p.vp, b_stage / p.vp));
    dp_exposed = per_mb * static_cast<double>(nmb);
  } else {
    const bool dist = p.distributed_optimizer || p.zero >= 1;
    const double rs = dist ? dp_time(Collective::reduce_scatter, dense_params, expert_params)
                           : dp_time(Collective::all_reduce, dense_params, expert_params);
    const double ag = dist ? dp_time(Collective::all_gather, dense_params, expert_params) : 0.0;
    const double window_b = p.dp_overlap ? e.overlap_eff * b_stage : 0.0;
    const double window_f = p.dp_overlap ? e.overlap_eff * f_stage : 0.0;
    dp_exposed = std::max(0.0, rs - window_b) + std::max(0.0, ag - window_f);
  }

  // Optimizer: Adam over this GPU's shard of fp32 master weights, moments and gradients
  // (read 16 B + write 14 B per parameter).
  const bool shard = p.distributed_optimizer || p.zero >= 1;
  const double opt_params = dense_params / (shard ? dense_group : 1) + expert_params / (shard ? expert_group : 1);
  // (read 16 B + write 14 B per parameter; with BF16 moments 12 B + 10 B).
  const double optimizer = memory_bound_time_s(hw, (p.bf16_moments ? 22.0 : 30.0) * opt_params);

  // Schedule: nmb micro-batches through pp stages. 1F1B: the last micro-batch leaves the last stage
  // (nmb + pp - 1) micro-batch times after the first entered, for any nmb >= 1, so the bubble is
  // pp-1 micro-batch times (one micro-batch through 8 stages idles 7/8 of the step). Interleaved
  // (vp chunks of 1/vp micro-batch time each): (nmb*vp + pp - 1) chunk times, a bubble of (pp-1)/vp
  // micro-batch times (Narayanan et al. 2021, Sec. 2.2.2); check_plan admits it only when nmb is a
  // multiple of pp, the schedule's precondition.
  const double bubble = p.pp > 1 ? (p.pp - 1.0) / p.vp * mb_time : 0.0;
  // Hand-offs: in the steady state each chunk boundary's send hides behind the compute up to
  // overlap_eff. In the warm-up the first micro-batch crosses every chunk boundary in order, pp*vp - 1
  // of them, and nothing waits to fill those hand-offs: interleaving runs the micro-batches in groups
  // of pp, whose pp chunk times exactly span the pp stages' compute, so each of the vp rounds' wrap from
  // the last stage back to the first waits out pp hand-offs (Megatron's interleaved warm-up). The
  // cool-down mirrors it in the backward: 2 (pp*vp - 1) exposed hand-offs, the extra communication
  // interleaving costs (Narayanan et al. 2021, Sec. 2.2.2); pp - 1 each way without interleaving.
  const double pp_exposed = p.pp > 1 ? 2.0 * p.vp * static_cast<double>(nmb) * p2p * (1.0 - e.overlap_eff) +
                                           2.0 * (p.pp * p.vp - 1) * p2p
                                     : 0.0;

  s.recompute_s = k * recompute;
  s.offload_s = k * offload_exposed;
  s.tp_comm_s = k * tp_exposed;
  s.cp_comm_s = k * cp_exposed;
  s.ep_comm_s = k * ep_exposed;
  s.pp_comm_s = pp_exposed;
  s.dp_comm_s = dp_exposed;
  s.bubble_s = bubble;
  s.optimizer_s = optimizer;
  r.step_time_s = s.total_s();

  const double tokens = double(w.global_batch) * w.seq_len;
  r.tokens_per_s = tokens / r.step_time_s;
  r.tokens_per_s_per_gpu = r.tokens_per_s / w.num_gpus;
  const TokenFlops& tf = terms.flops;
  r.model_flops_per_token_6n = 3.0 * tf.dense_matmul;
  r.model_flops_per_token_attn = 3.0 * tf.total();
  if (lora) {  // forward + data gradients of the base (4N), the adapters forward and backward (3x)
    const double adapters = 3.0 * lora_forward_flops_per_token(m, w.finetune);
    r.model_flops_per_token_6n = 2.0 * tf.dense_matmul + adapters;
    r.model_flops_per_token_attn = 2.0 * tf.dense_matmul + 3.0 * tf.attention + adapters;
  }
  r.model_tflops_per_gpu = r.tokens_per_s_per_gpu * r.model_flops_per_token_attn / 1e12;
  const double peak = peak_flops(hw.accelerator, fmt);
  const double peak_bf16 = peak_flops(hw.accelerator, MathFormat::bf16);
  r.mfu_6n = r.tokens_per_s_per_gpu * r.model_flops_per_token_6n / peak;
  r.mfu_attn = r.tokens_per_s_per_gpu * r.model_flops_per_token_attn / peak;
  r.mfu_6n_bf16 = r.tokens_per_s_per_gpu * r.model_flops_per_token_6n / peak_bf16;
  r.mfu_attn_bf16 = r.tokens_per_s_per_gpu * r.model_flops_per_token_attn / peak_bf16;
  r.model_flops_per_token_noncausal = 2.0 * r.model_flops_per_token_attn - r.model_flops_per_token_6n;
  r.mfu_noncausal = r.tokens_per_s_per_gpu * r.model_flops_per_token_noncausal / peak;
  r.mfu_noncausal_bf16 = r.tokens_per_s_per_gpu * r.model_flops_per_token_noncausal / peak_bf16;
  if (options.with_memory) {
    const MemoryOptions mo = with_capacities(options.memory, hw);
    try {
      r.memory = training_memory(m, p, w, mo);
    } catch (const InputError& err) {
      r.violations.push_back({"memory.invalid", "plan", err.what()});
    }
  }
  return r;
}

}  // namespace

TrainingResult evaluate_training(const ModelArch& m, const Hardware& hw, const TrainingPlan& plan,
                                 const TrainingWorkload& w, const TrainingOptions& options) {
  return evaluate_step(m, hw, plan, w, options, false);
}

TrainingResult training_step_floor(const ModelArch& m, const Hardware& hw, const TrainingPlan& plan,
                                   const TrainingWorkload& w, const TrainingOptions& options) {
  return evaluate_step(m, hw, plan, w, options, true);
}

}  // namespace gpuplan
