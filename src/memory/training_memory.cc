#include "memory/training_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "memory/activations.h"
#include "memory/lora_memory.h"

namespace gpuplan {

namespace {

// Bytes per parameter in Megatron mixed precision (Megatron-LM docs/distrib_optimizer.md: "6 + 12/d"):
// bf16 parameters (fp8 / fp4 recipes keep them: the low-precision copies are transient casts), fp32
// main gradients (bf16 runs accumulate and all-reduce gradients in fp32), and Adam's fp32 master
// weights, first and second moments.
constexpr double kParamBytes = 2.0;
constexpr double kGradBytes = 4.0;
constexpr double kAdamBytes = 12.0;
constexpr double kAdamBf16MomentsBytes = 8.0;  // fp32 master weights + bf16 first and second moments

std::string divisors_text(int n, int limit = 1 << 20) {
  std::vector<int> d;
  for (int i = 1; i <= n && i <= limit; ++i)
    if (n % i == 0) d.push_back(i);
  return fmt::format("{}", fmt::join(d, ", "));
}

void validate(const ModelArch& m, const TrainingPlan& p, const TrainingWorkload& w) {
  if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.vocab < 1)
    throw InputError("model", fmt::format("'{}' needs layers, hidden, heads and vocab >= 1", m.name));
  if (w.num_gpus < 1) throw InputError("--gpus", fmt::format("must be >= 1, got {}", w.num_gpus));
  if (w.seq_len < 1) throw InputError("--seq", fmt::format("must be >= 1 token, got {}", w.seq_len));
  if (w.global_batch < 1)
    throw InputError("--global-batch", fmt::format("must be >= 1 sequence, got {}", w.global_batch));
  if (p.tp < 1 || p.pp < 1 || p.vp < 1 || p.cp < 1 || p.ep < 1 || p.etp < 1 || p.mbs < 1 || p.dp < 0)
    throw InputError("--plan", "tp, pp, vp, cp, ep, etp and mbs must be >= 1 (dp >= 0)");
  if (p.zero < 0 || p.zero > 3)
    throw InputError("--plan.zero", fmt::format("must be 0, 1, 2 or 3, got {}", p.zero));

  // Megatron splits attention heads and KV groups (num_query_groups) over TP.
  int groups = m.heads;
  if (m.attention == AttentionKind::gqa && m.kv_heads > 0) groups = std::gcd(m.heads, m.kv_heads);
  if (groups % p.tp != 0)
    throw InputError("--plan.tp", fmt::format("{} must divide the {} attention heads{} of {}; allowed: {}", p.tp,
                                              m.heads,
                                              m.attention == AttentionKind::gqa
                                                  ? fmt::format(" and {} KV heads", m.kv_heads)
                                                  : std::string(),
                                              m.name, divisors_text(groups)));
  if (p.vp > 1 && p.pp < 2)
    throw InputError("--plan.vp", fmt::format("interleaving (vp = {}) needs pp >= 2", p.vp));
  if (p.pp > m.layers)
    throw InputError("--plan.pp", fmt::format("{} exceeds the {} layers of {}", p.pp, m.layers, m.name));
  // Megatron may count the embedding and the loss as a pipeline layer each
  // (account_for_embedding/loss_in_pipeline_split), so pp * vp may reach layers + 2.
  if (p.pp * p.vp > m.layers + 2)
    throw InputError("--plan.vp", fmt::format("pp * vp = {} exceeds the {} layers (+2) of {}", p.pp * p.vp,
                                              m.layers, m.name));
  if (w.seq_len % p.cp != 0)
    throw InputError("--plan.cp", fmt::format("{} must divide the sequence length {}", p.cp, w.seq_len));
  if (!m.is_moe() && p.ep != 1)
    throw InputError("--plan.ep", fmt::format("must be 1 for the dense model {}, got {}", m.name, p.ep));
  if (m.is_moe() && m.moe.num_experts % p.ep != 0)
    throw InputError("--plan.ep", fmt::format("{} must divide the {} experts; allowed: {}", p.ep,
                                              m.moe.num_experts, divisors_text(m.moe.num_experts)));
  if (m.is_moe() && m.moe.expert_ffn_hidden % p.etp != 0)
    throw InputError("--plan.etp", fmt::format("{} must divide the expert FFN size {}", p.etp,
                                               m.moe.expert_ffn_hidden));
  const int model_par = p.tp * p.pp * p.cp;
  if (w.num_gpus % model_par != 0)
    throw InputError("--gpus", fmt::format("{} GPUs is not a multiple of tp*pp*cp = {}", w.num_gpus, model_par));
  const int dp = w.num_gpus / model_par;
  if (p.dp > 1 && p.dp != dp)
    throw InputError("--plan.dp", fmt::format("dp = {} disagrees with {} GPUs / (tp*pp*cp = {}) = {}", p.dp,
                                              w.num_gpus, model_par, dp));
  if ((w.num_gpus / p.pp) % (p.ep * p.etp) != 0)
    throw InputError("--plan.ep", fmt::format("ep * etp = {} must divide the {} GPUs of a pipeline stage",
                                              p.ep * p.etp, w.num_gpus / p.pp));
  const long long per_step = 1LL * p.mbs * dp;
  if (w.global_batch % per_step != 0)
    throw InputError("--global-batch", fmt::format("{} is not a multiple of mbs * dp = {} * {} = {}", w.global_batch,
                                                   p.mbs, dp, per_step));
  if (p.offload_layers < 0)
    throw InputError("--plan.offload_layers", fmt::format("must be >= 0 (0: none), got {}", p.offload_layers));
  if (p.recompute_layers < 0)  // more than a chunk has means all of them
    throw InputError("--plan.recompute_layers", fmt::format("must be >= 0 (0: all), got {}", p.recompute_layers));
}

// Layers of virtual chunk c (0 .. chunks-1): a balanced contiguous split.
std::pair<int, int> chunk_range(int layers, int chunks, int c) {
  const long long lo = 1LL * c * layers / chunks, hi = 1LL * (c + 1) * layers / chunks;
  return {static_cast<int>(lo), static_cast<int>(hi)};
}

}  // namespace

int derived_dp(const TrainingPlan& plan, int num_gpus) {
  const int model_par = std::max(1, plan.tp * plan.pp * plan.cp);
  return std::max(1, num_gpus / model_par);
}

double loss_bytes_per_logit(const FinetuneSpec& f) {
  const double element = loss_element_bytes(f.loss_precision);
  if (f.kernels != LoopKernels::eager) return element;
  return element >= 4.0 ? kEagerLossBytesPerLogit : 3.0 * element;
}

TrainingMemoryModel::TrainingMemoryModel(const ModelArch& m, const TrainingPlan& p, const TrainingWorkload& w,
                                         const MemoryOptions& opt)
    : m_(m), w_(w), plan_(p), opt_(opt) {
  validate(m, p, w);
  check_finetune(m, w);
  dp_ = derived_dp(p, w.num_gpus);
  expert_dp_ = w.num_gpus / (p.pp * p.ep * p.etp);
  num_microbatches_ = w.global_batch / (1LL * p.mbs * dp_);

  tp_ = p.tp;
  const bool sp = p.sequence_parallel && p.tp > 1;
  seq_div_ = sp ? tp_ : 1.0;
  ActivationContext ctx;
  ctx.seq_local = w.seq_len / p.cp;
  ctx.micro_batch = p.mbs;
  ctx.tp = p.tp;
  ctx.sequence_parallel = p.sequence_parallel;
  ctx.etp = p.etp;
  ctx.dropout = opt.dropout < 0 ? !m.gated_mlp : opt.dropout > 0;
  ctx.flash_attention = opt.flash_attention;
  ctx.eager = w.finetune.kernels == LoopKernels::eager;
  ctx.gemm_input_bytes = weight_bytes(w.precision);
  ctx.moe_act_input_fp8 = p.moe_act_fp8;
  ctx.keep_expert_outputs = !p.combine_from_act;
  dropout_ = ctx.dropout;
  eager_ = ctx.eager;
  tokens_ = 1.0 * ctx.seq_local * p.mbs;

  const LayerParams dense_lp = layer_params(m, false);
  const LayerParams moe_lp = m.is_moe() ? layer_params(m, true) : dense_lp;
  // Optimizer and gradient shards: dense parameters over the DP x CP group (Megatron's distributed
  // optimizer shards over data_parallel_group_with_cp); routed experts, kept simple, over the expert
  // data-parallel group gpus / (pp * ep * etp).
  dense_shard_ = 1.0 * dp_ * p.cp;
  expert_shard_ = expert_dp_;
  embedding_ = embedding_params(m);
  one_table_ = m.tied_embeddings ? embedding_ : embedding_ / 2;
  logit_bytes_ = loss_bytes_per_logit(w.finetune);
  // A layer's parameters and activations depend only on whether it has routed experts and on its
  // recompute mode: computed once per kind, not once per layer or per memory-saver setting.
  const Recompute kept_mode = p.recompute == Recompute::full ? Recompute::none : p.recompute;
  // LoRA / QLoRA (w.finetune): the adapters of each kind of layer, this GPU's share (lora_memory.h).
  lora_ = !w.finetune.is_full();
  moe_model_ = m.is_moe();
  for (int moe = 0; moe < 2; ++moe) {
    LayerKind& k = kinds_[moe];
    const LayerParams& lp = moe ? moe_lp : dense_lp;
    // Attention, dense MLP and shared experts split by TP; the router is replicated; routed experts
    // split by EP (whole experts) and ETP (inside each expert).
    k.dense_params = (lp.attention + lp.mlp_dense + lp.moe_shared) / tp_ + lp.moe_router;
    k.expert_params = moe ? m.moe.num_experts * lp.moe_expert / (p.ep * p.etp) : 0.0;
    const LoraLayerAdapters adapters = lora_layer_adapters(m, w.finetune, moe == 1);
    if (lora_) {
      k.adapter_params = adapters.dense / tp_ + adapters.experts / (p.ep * p.etp);
      k.adapter_intermediate = adapters.intermediate_elems_per_token;
    }
    if (moe == 1 && !m.is_moe()) continue;
    k.acts_kept = layer_activation_bytes(m, moe == 1, ctx, kept_mode);
    if (p.recompute == Recompute::full) {
      k.acts_full = layer_activation_bytes(m, moe == 1, ctx, Recompute::full);
      k.acts_none = layer_activation_bytes(m, moe == 1, ctx, Recompute::none);
    }
  }

  // chunk_range's bounds, c * layers / chunks, stepped without dividing.
  const int chunks = p.pp * p.vp;
  if (chunks <= kMaxChunks) {
    const int base = m.layers / chunks, rest = m.layers % chunks;
    int lo = 0, acc = 0;
    chunk_lo_[0] = 0;
    for (int c = 0; c < chunks; ++c) {
      acc += rest;
      const int n = base + (acc >= chunks ? 1 : 0);
      if (acc >= chunks) acc -= chunks;
      lo += n;
      chunk_lo_[c + 1] = static_cast<std::uint16_t>(lo);
    }
  }

  // A middle pipeline rank (neither the first nor the last) whose model chunks hold, chunk by chunk, as
  // many layers of one kind as an earlier middle rank's has the same parameters and the same
  // activations per micro-batch as that rank under any memory-saver setting, and holds no more
  // micro-batches in flight: its totals (sums of the same non-negative terms, rounded alike) never
  // exceed that rank's, so totals() leaves it out. Each chunk is keyed by two bits: one layer above
  // the balanced split's floor or not, and MoE or dense; a chunk of both kinds keys nothing.
  if (p.pp > 3 && p.vp <= 32 && chunks <= kMaxChunks) {
    constexpr std::uint8_t kMixed = 0xFF;
    std::uint8_t chunk_key[kMaxChunks];
    const int base = m.layers / chunks;
    for (int c = 0; c < chunks; ++c) {
      const int lo = chunk_lo_[c], n = chunk_lo_[c + 1] - lo;
      const long long moe_n = moe_model_ ? moe_layers_before(m, lo + n) - moe_layers_before(m, lo) : 0;
      chunk_key[c] = moe_n == 0 || moe_n == n ? static_cast<std::uint8_t>((n - base) << 1 | (moe_n != 0 ? 1 : 0)) : kMixed;
    }
    std::uint64_t seen[8];
    int n_seen = 0;
    for (int rank = 1; rank < std::min(p.pp - 1, 64); ++rank) {
      std::uint64_t key = 0;
      bool keyed = true;
      for (int k = 0; keyed && k < p.vp; ++k) {
        const std::uint8_t ck = chunk_key[rank + k * p.pp];
        keyed = ck != kMixed;
        key = key << 2 | ck;
      }
      if (!keyed) continue;
      if (std::find(seen, seen + n_seen, key) != seen + n_seen) dominated_ranks_ |= std::uint64_t{1} << rank;
      else if (n_seen < 8) seen[n_seen++] = key;
    }
  }
}

TrainingPlan TrainingMemoryModel::with_layers(int recompute_layers, int offload_layers) const {
  if (offload_layers < 0)
    throw InputError("--plan.offload_layers", fmt::format("must be >= 0 (0: none), got {}", offload_layers));
  if (recompute_layers < 0)
    throw InputError("--plan.recompute_layers", fmt::format("must be >= 0 (0: all), got {}", recompute_layers));
  TrainingPlan q = plan_;
  q.recompute_layers = recompute_layers;
  q.offload_layers = offload_layers;
  return q;
}

// Pipeline rank `rank`'s memory under `q` (the plan with its memory-saver layers), all but its role.
void TrainingMemoryModel::stage(const TrainingPlan& p, int rank, StageMemory& s) const {
  const ModelArch& m = m_;
  const double t = tp_;
  const double h = m.hidden;
  const double tokens = tokens_;
  const int chunks = p.pp * p.vp;
  double adapter_p = 0, adapter_inter = 0, adapter_inter_layer = 0;
  s.stage = rank;
  double dense_p = 0, expert_p = 0, largest_layer_p = 0;
  double acts_one_mb = 0, work_buffer = 0, offloaded_one_mb = 0, offload_buffer = 0;
  for (int k = 0; k < p.vp; ++k) {
    const int chunk = rank + k * p.pp;
    const auto [lo, hi] = chunks <= kMaxChunks ? std::pair<int, int>{chunk_lo_[chunk], chunk_lo_[chunk + 1]}
                                               : chunk_range(m.layers, chunks, chunk);
    // The chunk's layers fall in at most three runs of offsets (recomputed or not, offloaded or not);
    // within a run, each layer contributes by kind (dense or MoE) alone, so a run is summed by counting
    // its MoE layers: O(1) a chunk, not O(layers).
    const int n = hi - lo;
    const int n_full =
        p.recompute != Recompute::full ? 0 : p.recompute_layers == 0 ? n : std::min(n, p.recompute_layers);
    const int n_off = std::clamp(p.offload_layers, 0, n);
    const int cuts[4] = {0, std::min(n_full, n_off), std::max(n_full, n_off), n};  // sorted: both within 0..n
    for (int c = 0; c < 3; ++c) {
      const int a = cuts[c], b = cuts[c + 1];
      if (a >= b) continue;
      const long long moe_n = moe_model_ ? moe_layers_before(m, lo + b) - moe_layers_before(m, lo + a) : 0;
      const long long counts[2] = {b - a - moe_n, moe_n};
      // Full recompute of the first recompute_layers layers of each chunk (Megatron "block"
      // method; 0 = all); the other layers keep everything.
      const bool full = a < n_full;
      const bool offloaded = a < n_off;
      for (int moe = 0; moe < 2; ++moe) {
        if (counts[moe] == 0) continue;
        const double count = static_cast<double>(counts[moe]);
        const LayerKind& kind = kinds_[moe];
        const double dl = kind.dense_params;
        const double el = kind.expert_params;
        dense_p += count * dl;
        expert_p += count * el;
        if (lora_) {
          adapter_p += count * kind.adapter_params;
          adapter_inter += count * kind.adapter_intermediate / t;
          adapter_inter_layer = std::max(adapter_inter_layer, kind.adapter_intermediate / t);
        }
        largest_layer_p = std::max(largest_layer_p, dl + el);
        const double kept = full ? kind.acts_full : kind.acts_kept;
        if (offloaded) {
          // Activation offload of the first offload_layers layers of each chunk: the saved tensors go to
          // host memory as the forward pass leaves the layer and come back before its backward
          // (Transformer Engine's CPU offload, double-buffered): while the micro-batch runs through
          // offloaded layers the GPU holds two of them (the one in transfer and the one computing).
          offloaded_one_mb += count * kept;
          offload_buffer = std::max(offload_buffer, 2.0 * kept);
        } else {
          acts_one_mb += count * kept;
        }
        // During the backward of a recomputed layer its full activations exist once (one micro-batch).
        if (full) work_buffer = std::max(work_buffer, kind.acts_none);
      }
    }
    s.layers += hi - lo;
  }
  // Input embedding on the first stage, output head on the last, both split over TP (vocab-parallel).
  // With pp > 1 and tied embeddings Megatron keeps a copy of the table on the last stage.
  double emb_p = 0;
  if (p.pp == 1) emb_p = embedding_ / t;
  else if (rank == 0 || rank == p.pp - 1) emb_p = one_table_ / t;
  dense_p += emb_p;

  // Micro-batches in flight (Korthikanti §4.2.3; Megatron's schedules). 1F1B: rank r holds pp - r.
  // Interleaved: rank r runs (vp-1)*pp + 2*(pp-r-1) warm-up chunk passes plus one, i.e. rank 0 holds
  // pp * (1 + (pp-1)/(pp*vp)) whole-stage micro-batches. Never more than the step has.
  double in_flight = 0;
  if (p.vp == 1) {
    in_flight = static_cast<double>(std::min<long long>(p.pp - rank, num_microbatches_));
  } else {
    const long long chunk_passes =
        std::min<long long>(1LL * (p.vp - 1) * p.pp + 2LL * (p.pp - rank - 1) + 1, num_microbatches_ * p.vp);
    in_flight = static_cast<double>(chunk_passes) / p.vp;
  }
  s.in_flight_microbatches = in_flight;
  // The micro-batch being run holds its kept layers or, while in its offloaded layers, the two
  // transfer buffers (its offloaded layers come first in the forward and last in the backward, when
  // its kept layers are not yet or no longer held); the others in flight hold their kept layers.
  const double current_mb = std::max(acts_one_mb, offload_buffer);
  double acts = std::max(0.0, in_flight - 1.0) * acts_one_mb + (in_flight > 0 ? current_mb : 0.0) + work_buffer;
  s.offloaded_bytes_per_microbatch = offloaded_one_mb;
  s.host_bytes = in_flight * offloaded_one_mb;
  if (rank == 0 && dropout_) acts += in_flight * tokens * h / seq_div_;  // embedding dropout mask
  if (rank == p.pp - 1) {
    // Final norm input and output-head input (one micro-batch: the last stage runs its backward at
    // once), and the logits the vocab-parallel cross-entropy keeps in the loss's dtype: s*b*vocab/t * 4
    // bytes (fp32), 2 with the loss in 16 bits (Megatron's --fp16-lm-cross-entropy); eager kernels:
    // loss_bytes_per_logit. Eager, the final norm's input is the fp32 residual stream.
    acts += tokens * (eager_ ? 6.0 : 4.0) * h / seq_div_;
    s.logits_bytes = tokens * m.vocab / t * logit_bytes_;
    acts += s.logits_bytes;
  }
  s.activations_bytes = acts;
  s.layer_activations_per_microbatch_bytes = acts_one_mb;

  s.params = dense_p + expert_p;
  const double sharded = dense_p / dense_shard_ + expert_p / expert_shard_;
  const bool shard_optimizer = p.distributed_optimizer || p.zero >= 1;
  const bool shard_grads = p.zero >= 2;
  const bool shard_weights = p.zero >= 3;
  // ZeRO-3 / FSDP: weights sharded too; the current and the prefetched layer are gathered whole.
  s.weights_bytes = shard_weights ? kParamBytes * (sharded + 2.0 * largest_layer_p) : kParamBytes * s.params;
  s.gradients_bytes = kGradBytes * (shard_grads ? sharded : s.params);
  const double adam_bytes = p.bf16_moments ? kAdamBf16MomentsBytes : kAdamBytes;
  s.optimizer_bytes = adam_bytes * (shard_optimizer ? sharded : s.params);
  s.total_bytes = s.weights_bytes + s.gradients_bytes + s.optimizer_bytes + s.activations_bytes + opt_.reserve_bytes;
  if (lora_)
    apply_lora_to_stage(m, p, w_.finetune,
                        {adapter_p, emb_p, largest_layer_p, adapter_inter, adapter_inter_layer, tokens, dense_shard_,
                         opt_.reserve_bytes},
                        s);
}

TrainingMemoryTotals TrainingMemoryModel::totals(int recompute_layers, int offload_layers) const {
  const TrainingPlan q = with_layers(recompute_layers, offload_layers);
  const MemoryOptions& opt = opt_;
  // The stages as memory() judges them: the most loaded (the first of equals) and the most host memory.
  TrainingMemoryTotals r;
  double host_max = 0;
  for (int rank = 0; rank < q.pp; ++rank) {
    if (rank < 64 && (dominated_ranks_ >> rank & 1) != 0) continue;
    StageMemory s;
    stage(q, rank, s);
    if (rank == 0 || r.total_bytes < s.total_bytes) r.total_bytes = s.total_bytes;
    host_max = std::max(host_max, s.host_bytes);
    // A rank left out holds what an earlier one does, chunk by chunk: these maxima do not change.
    r.offloaded_bytes_per_microbatch = std::max(r.offloaded_bytes_per_microbatch, s.offloaded_bytes_per_microbatch);
    r.most_layers = std::max(r.most_layers, s.layers);
  }
  if (opt.capacity_bytes > 0) {
    r.headroom_bytes = opt.capacity_bytes - r.total_bytes;
    r.fits = r.headroom_bytes >= 0;
  }
  r.host_bytes_per_gpu = host_max + opt.host_reserve_bytes;
  if (opt.host_capacity_bytes > 0 && r.host_bytes_per_gpu > opt.host_capacity_bytes) {
    r.fits_host = false;
    r.fits = false;
    r.headroom_bytes = std::min(r.headroom_bytes, opt.host_capacity_bytes - r.host_bytes_per_gpu);
  }
  return r;
}

bool TrainingMemoryModel::fits_in(int recompute_layers, int offload_layers, bool with_host) const {
  const TrainingPlan q = with_layers(recompute_layers, offload_layers);
  const MemoryOptions& opt = opt_;
  // capacity - the largest total >= 0 exactly when capacity - each total >= 0 (subtraction rounds
  // monotonically), and the largest total <= capacity exactly when each is: any one stage decides no.
  double host_max = 0;
  for (int rank = 0; rank < q.pp; ++rank) {
    if (rank < 64 && (dominated_ranks_ >> rank & 1) != 0) continue;
    StageMemory s;
    stage(q, rank, s);
    if (opt.capacity_bytes > 0 && (with_host ? !(opt.capacity_bytes - s.total_bytes >= 0) : !(s.total_bytes <= opt.capacity_bytes)))
      return false;
    host_max = std::max(host_max, s.host_bytes);
  }
  return !with_host || !(opt.host_capacity_bytes > 0 && host_max + opt.host_reserve_bytes > opt.host_capacity_bytes);
}

TrainingMemory TrainingMemoryModel::memory(int recompute_layers, int offload_layers) const {
  const TrainingPlan p = with_layers(recompute_layers, offload_layers);
  const MemoryOptions& opt = opt_;
  TrainingMemory r;
  r.dp = dp_;
  r.expert_dp = expert_dp_;
  r.num_microbatches = num_microbatches_;
  r.reserve_bytes = opt.reserve_bytes;
  r.capacity_bytes = opt.capacity_bytes;
  r.stages.resize(static_cast<std::size_t>(p.pp));
  for (int rank = 0; rank < p.pp; ++rank) {
    StageMemory& s = r.stages[static_cast<std::size_t>(rank)];
    s.role = p.pp == 1 ? "only" : rank == 0 ? "first" : rank == p.pp - 1 ? "last" : "middle";
    stage(p, rank, s);
  }

  const auto worst = std::max_element(r.stages.begin(), r.stages.end(),
                                      [](const StageMemory& a, const StageMemory& b) { return a.total_bytes < b.total_bytes; });
  const StageMemory& s = *worst;
  r.stage = s.stage;
  r.stage_role = s.role;
  r.weights_bytes = s.weights_bytes;
  r.gradients_bytes = s.gradients_bytes;
  r.optimizer_bytes = s.optimizer_bytes;
  r.activations_bytes = s.activations_bytes;
  r.host_offload_bytes = s.host_bytes;
  r.total_bytes = s.total_bytes;
  r.activation_bytes_per_layer = s.layers > 0 ? s.layer_activations_per_microbatch_bytes / s.layers : 0;
  if (opt.capacity_bytes > 0) {
    r.headroom_bytes = opt.capacity_bytes - r.total_bytes;
    r.fits = r.headroom_bytes >= 0;
    if (!r.fits)
      r.violations.push_back({"memory.exceeds_capacity", fmt::format("pipeline stage {} ({})", s.stage, s.role),
                              fmt::format("needs {:.1f} GB per GPU, capacity {:.1f} GB", r.total_bytes / 1e9,
                                          opt.capacity_bytes / 1e9)});
  }
  // Host memory: every rank of the node holds its own offloaded activations in the node's DRAM; the
  // most loaded stage's share decides.
  double host_max = 0;
  for (const StageMemory& st : r.stages) host_max = std::max(host_max, st.host_bytes);
  r.host_bytes_per_gpu = host_max + opt.host_reserve_bytes;
  r.host_capacity_bytes_per_gpu = opt.host_capacity_bytes;
  if (opt.host_capacity_bytes > 0 && r.host_bytes_per_gpu > opt.host_capacity_bytes) {
    r.fits_host = false;
    r.fits = false;
    // Headroom in the worst of the two memories, so that "closest to fitting" weighs both.
    r.headroom_bytes = std::min(r.headroom_bytes, opt.host_capacity_bytes - r.host_bytes_per_gpu);
    r.violations.push_back({"memory.exceeds_host_capacity", "host memory",
                            fmt::format("needs {:.1f} GB of host memory per GPU (offloaded activations {:.1f} GB + "
                                        "{:.1f} GB for the process and pinned buffers), its share of the node's "
                                        "DRAM is {:.1f} GB",
                                        r.host_bytes_per_gpu / 1e9, host_max / 1e9, opt.host_reserve_bytes / 1e9,
                                        opt.host_capacity_bytes / 1e9)});
  }
  return r;
}

TrainingMemory training_memory(const ModelArch& m, const TrainingPlan& p, const TrainingWorkload& w,
                               const MemoryOptions& opt) {
  return TrainingMemoryModel(m, p, w, opt).memory(p.recompute_layers, p.offload_layers);
}

}  // namespace gpuplan
