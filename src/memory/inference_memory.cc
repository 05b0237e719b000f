#include "memory/inference_memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.h"

namespace gpuplan {

namespace {

constexpr double kActBytes = 2.0;      // bf16 activations
constexpr double kLogitBytes = 4.0;    // fp32 logits for sampling

int kv_heads_of(const ModelArch& m) { return m.attention == AttentionKind::mha ? m.heads : m.kv_heads; }

void validate(const ModelArch& m, const InferenceMemoryInput& in) {
  if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.vocab < 1)
    throw InputError("model", fmt::format("'{}' needs layers, hidden, heads and vocab >= 1", m.name));
  if (in.tp < 1) throw InputError("--tp", fmt::format("must be >= 1, got {}", in.tp));
  const int kv = kv_heads_of(m);
  const bool tp_ok = in.tp <= m.heads && m.heads % in.tp == 0 &&
                     (m.attention == AttentionKind::mla || kv <= 0 || kv % in.tp == 0 || in.tp % kv == 0);
  if (!tp_ok) {
    const auto ok = valid_inference_tp(m, m.heads);
    throw InputError("--tp", fmt::format("{} must divide the {} attention heads of {} (and divide or be a multiple "
                                         "of its KV heads); allowed: {}",
                                         in.tp, m.heads, m.name, fmt::join(ok, ", ")));
  }
  if (in.ep < 1) throw InputError("--ep", fmt::format("must be >= 1, got {}", in.ep));
  if (!m.is_moe() && in.ep != 1)
    throw InputError("--ep", fmt::format("must be 1 for the dense model {}, got {}", m.name, in.ep));
  if (m.is_moe() && m.moe.num_experts % in.ep != 0)
    throw InputError("--ep", fmt::format("{} must divide the {} experts of {}", in.ep, m.moe.num_experts, m.name));
  if (in.tp % in.ep != 0 && in.ep % in.tp != 0)
    throw InputError("--ep", fmt::format("{} must divide tp = {} or be a multiple of it", in.ep, in.tp));
  if (in.pp < 1 || in.pp > m.layers)
    throw InputError("--pp", fmt::format("must be 1 to {} (the layers of {}), got {}", m.layers, m.name, in.pp));
  if (in.context_tokens < 1)
    throw InputError("--context", fmt::format("must be >= 1 token, got {}", in.context_tokens));
  if (in.concurrency < 0)
    throw InputError("--concurrency", fmt::format("must be >= 0 sequences, got {}", in.concurrency));
  if (in.max_batch_tokens < 1)
    throw InputError("max_batch_tokens", fmt::format("must be >= 1, got {}", in.max_batch_tokens));
  if (in.kv_block_tokens < 1)
    throw InputError("kv_block_tokens", fmt::format("must be >= 1, got {}", in.kv_block_tokens));
  if (!(in.kv_bytes_per_element > 0))
    throw InputError("--kv-precision", "bytes per KV element must be > 0");
  if (!(in.reserve_bytes >= 0)) throw InputError("--reserve-gb", "must be >= 0");
}

// Everything of one pipeline rank that does not depend on the concurrency.
using StageFixed = InferenceMemoryStage;

long long round_up(long long x, long long b) { return (x + b - 1) / b * b; }

// The model's figures every stage reads: its layers' parameters, its KV bytes per token and its
// embedding parameters, made once for all the stages.
struct ModelParts {
  ModelParts(const ModelArch& m, const InferenceMemoryInput& in)
      : dense_lp(layer_params(m, false)),
        moe_lp(m.is_moe() ? layer_params(m, true) : dense_lp),
        kv_bytes_per_token(kv_cache_bytes_per_token(m, in.kv_bytes_per_element)),
        embedding(embedding_params(m)) {}
  LayerParams dense_lp, moe_lp;
  double kv_bytes_per_token;
  double embedding;
};

StageFixed stage_fixed(const ModelArch& m, const InferenceMemoryInput& in, const ModelParts& parts, int rank,
                       int kv_split) {
  StageFixed s;
  const int lo = static_cast<int>(1LL * rank * m.layers / in.pp);
  const int hi = static_cast<int>(1LL * (rank + 1) * m.layers / in.pp);
  const double wb = weight_bytes(in.weight_precision);
  const double tp = in.tp;
  const double expert_split = std::max(in.tp, in.ep);  // E/ep experts per GPU, each split tp/ep ways
  const LayerParams& dense_lp = parts.dense_lp;
  const LayerParams& moe_lp = parts.moe_lp;
  // Each layer's weights: its TP-split part, its router (replicated, kept in bf16) and, in an MoE
  // layer, its share of the routed experts.
  const auto split_part = [&](const LayerParams& lp) { return wb * (lp.attention + lp.mlp_dense + lp.moe_shared) / tp; };
  const double dense_part = split_part(dense_lp), moe_part = split_part(moe_lp);
  const double dense_router = kTableBytes * dense_lp.moe_router, moe_router = kTableBytes * moe_lp.moe_router;
  const double experts = wb * m.moe.num_experts * moe_lp.moe_expert / expert_split;
  // MoE layers of [lo, hi): from first_dense_layers on, every layer_freq-th.
  const int freq = std::max(1, m.moe.layer_freq), first = m.moe.first_dense_layers;
  const auto moe_below = [&](int x) { return x <= first ? 0 : (x - first + freq - 1) / freq; };
  const int moe_layers = m.is_moe() ? moe_below(hi) - moe_below(lo) : 0;
  const int dense_layers = hi - lo - moe_layers;
  // Whole multiples of 2^-8 bytes whose every partial sum stays below 2^53 of them add exactly in any
  // order: then the sum over the layers is the counts times the parts; otherwise layer by layer.
  const auto on_grid = [](double x) { return std::floor(x * 256.0) == x * 256.0; };
  const double largest = std::abs(dense_part) + std::abs(moe_part) + std::abs(dense_router) + std::abs(moe_router) +
                         std::abs(experts);
  if (on_grid(dense_part) && on_grid(moe_part) && on_grid(dense_router) && on_grid(moe_router) && on_grid(experts) &&
      largest * (hi - lo + 1) * 256.0 < 0x1p53) {
    s.weights_bytes = dense_layers * (dense_part + dense_router) + moe_layers * (moe_part + moe_router + experts);
  } else {
    for (int i = lo; i < hi; ++i) {
      const bool moe = m.is_moe() && i >= first && (i - first) % freq == 0;
      s.weights_bytes += moe ? moe_part : dense_part;
      s.weights_bytes += moe ? moe_router : dense_router;
      if (moe) s.weights_bytes += experts;
    }
  }
  // Vocab-parallel embedding on the first stage, output head (or the tied table's copy) on the last.
  const double one_table = m.tied_embeddings ? parts.embedding : parts.embedding / 2;
  s.last = rank == in.pp - 1;
  if (in.pp == 1) s.weights_bytes += kTableBytes * parts.embedding / tp;
  else if (rank == 0 || s.last) s.weights_bytes += kTableBytes * one_table / tp;

  // KV cache (model.h's per-token figure, per layer), divided over TP by KV head; when tp exceeds the
  // KV heads each head is replicated (vLLM / TRT-LLM), so the split is min(tp, kv_heads). MLA's
  // latent is shared by all heads and replicated on every TP rank.
  const int n = hi - lo;
  const double per_layer = parts.kv_bytes_per_token / m.layers / kv_split;
  s.kv_bytes_per_token = per_layer * n;
  // Paged cache: each sequence takes whole blocks. Sliding-window layers keep at most the window
  // (plus the block it straddles), unless the engine's pool charges them the whole context
  // (in.window_kv_whole). Chunked-window layers are charged the whole context: TensorRT-LLM's pool sizes
  // every layer for the longest window, and vLLM turns its hybrid KV cache manager (which frees a
  // sequence's past chunks) off for chunked attention unless
  // VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE is set; with it on, the pool holds more sequences.
  const long long blocks_full = round_up(in.context_tokens, in.kv_block_tokens);
  const int windowed_total = (m.chunked_window || in.window_kv_whole) ? 0 : m.window_layers();
  const int windowed = static_cast<int>(std::lround(1.0 * n * windowed_total / m.layers));
  const long long blocks_window =
      std::min(blocks_full, round_up(m.sliding_window, in.kv_block_tokens) + in.kv_block_tokens);
  s.kv_bytes_per_sequence = per_layer * (1.0 * (n - windowed) * static_cast<double>(blocks_full) +
                                         1.0 * windowed * static_cast<double>(blocks_window));
  // Linear-attention layers (hybrid models) hold a fixed recurrent state per sequence instead, its
  // value heads split over TP (replicated past the value heads); the interleaved layer kinds spread
  // evenly over the stages.
  if (m.is_hybrid()) {
    const double state_split = std::min(in.tp, std::max(1, m.linear.value_heads));
    s.state_bytes_per_sequence = recurrent_state_bytes_per_sequence(m, kActBytes) * n / m.layers / state_split;
    s.kv_bytes_per_sequence += s.state_bytes_per_sequence;
  }

  // Activation workspace: one layer's transient tensors for max_batch_tokens tokens (inference keeps
  // nothing across layers). Per token, bf16: residual + normed hidden (2h), Q/K/V and attention output
  // split by TP, and the MLP intermediate (gated: gate, up, product = 3f; else 2f) split by TP; MoE:
  // top_k copies of the hidden state spread over ep and the routed intermediates over max(tp, ep).
  const double h = m.hidden;
  double q = 0, k = 0, v = 0;
  if (m.attention == AttentionKind::mla) {
    q = k = 1.0 * m.heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim);
    v = 1.0 * m.heads * m.mla.v_head_dim;
  } else {
    q = 1.0 * m.heads * m.head_dim;
    k = v = 1.0 * kv_heads_of(m) * m.head_dim;
  }
  const double g = m.gated_mlp ? 3.0 : 2.0;
  double mlp = n > moe_layers ? g * m.ffn_hidden / tp : 0.0;
  if (moe_layers > 0) {
    const MoeDims& e = m.moe;
    const double fs = 1.0 * e.shared_experts * (e.shared_ffn_hidden > 0 ? e.shared_ffn_hidden : e.expert_ffn_hidden);
    mlp = std::max(mlp, e.top_k * (2.0 * h / in.ep + g * e.expert_ffn_hidden / expert_split) + g * fs / tp);
  }
  const double per_token = 2.0 * h + (q + k + v + v) / tp + mlp;
  s.workspace_bytes = kActBytes * per_token * static_cast<double>(in.max_batch_tokens);
  return s;
}

struct StageTotal {
  double weights = 0, kv = 0, acts = 0, total = 0;
};

// Logits of the running sequences (one sampled position each, at most max_batch_tokens rows),
// gathered to the full vocabulary in fp32 for sampling, on the last stage.
StageTotal stage_total(const ModelArch& m, const InferenceMemoryInput& in, const StageFixed& f, long long conc) {
  StageTotal t;
  t.weights = f.weights_bytes;
  t.kv = f.kv_bytes_per_sequence * static_cast<double>(conc);
  t.acts = f.workspace_bytes;
  if (f.last) t.acts += kLogitBytes * m.vocab * static_cast<double>(std::min(conc, in.max_batch_tokens));
  t.total = t.weights + t.kv + t.acts + in.reserve_bytes;
  return t;
}

}  // namespace

std::vector<int> valid_inference_tp(const ModelArch& m, int max_tp) {
  std::vector<int> out;
  const int kv = kv_heads_of(m);
  for (int t = 1; t <= max_tp && t <= m.heads; ++t) {
    if (m.heads % t != 0) continue;
    if (m.attention != AttentionKind::mla && kv > 0 && kv % t != 0 && t % kv != 0) continue;
    out.push_back(t);
  }
  return out;
}

namespace {

// The stage whose total at `conc` sequences is the largest (the first of equals), and its total.
StageTotal worst_at(const ModelArch& m, const InferenceMemoryInput& in, const StageFixed* stages, long long conc,
                    int* which) {
  StageTotal best;
  for (int i = 0; i < in.pp; ++i) {
    const StageTotal t = stage_total(m, in, stages[i], conc);
    if (i == 0 || t.total > best.total) {
      best = t;
      if (which) *which = i;
    }
  }
  return best;
}

}  // namespace

InferenceMemoryAtLoads::InferenceMemoryAtLoads(const ModelArch& m, const InferenceMemoryInput& in)
    : m_(&m), in_(in) {
  validate(m, in);
  InferenceMemory& r = fixed_;
  r.kv_split = m.attention == AttentionKind::mla ? 1 : std::min(in.tp, std::max(1, kv_heads_of(m)));
  r.reserve_bytes = in.reserve_bytes;
  r.capacity_bytes = in.capacity_bytes;

  // The stages' fixed figures: in place for the common few stages (no allocation).
  if (in.pp > static_cast<int>(few_.size())) many_.resize(static_cast<std::size_t>(in.pp));
  StageFixed* stages = in.pp > static_cast<int>(few_.size()) ? many_.data() : few_.data();
  const ModelParts parts(m, in);
  for (int rank = 0; rank < in.pp; ++rank) stages[rank] = stage_fixed(m, in, parts, rank, r.kv_split);

  if (in.capacity_bytes > 0) {
    // Largest concurrency whose every stage fits (total is monotone in concurrency: bisect).
    if (worst_at(m, in, stages, 0, nullptr).total > in.capacity_bytes) {
      r.max_concurrency = 0;
    } else {
      double min_seq = stages[0].kv_bytes_per_sequence;
      for (int i = 1; i < in.pp; ++i) min_seq = std::min(min_seq, stages[i].kv_bytes_per_sequence);
      const long long hi = min_seq > 0 ? static_cast<long long>(in.capacity_bytes / min_seq) + 1 : (1LL << 40);
      // Each stage's total is linear in the concurrency (the logits' rows: up to max_batch_tokens), so
      // its largest fitting concurrency is a quotient; the least over the stages, then stepped to the
      // exact largest that fits (a rounding's step at most).
      double est = double(hi);
      for (int i = 0; i < in.pp; ++i) {
        const StageFixed& f = stages[i];
        const double avail = in.capacity_bytes - stage_total(m, in, f, 0).total;
        const double logit = f.last ? kLogitBytes * m.vocab : 0.0;
        const double rows = static_cast<double>(in.max_batch_tokens);
        double c = 0;
        if (logit > 0 && (f.kv_bytes_per_sequence + logit) * rows > avail)
          c = avail / (f.kv_bytes_per_sequence + logit);
        else if (f.kv_bytes_per_sequence > 0)
          c = (avail - logit * rows) / f.kv_bytes_per_sequence;
        else
          c = double(hi);
        est = std::min(est, c);
      }
      long long lo = std::clamp(static_cast<long long>(std::floor(std::max(0.0, est))), 0LL, hi);
      auto fits = [&](long long c) { return worst_at(m, in, stages, c, nullptr).total <= in.capacity_bytes; };
      while (lo > 0 && !fits(lo)) --lo;
      while (lo < hi && fits(lo + 1)) ++lo;
      r.max_concurrency = lo;
    }
  } else {
    r.max_concurrency = -1;
  }
}

InferenceMemory InferenceMemoryAtLoads::at(long long concurrency) const { return at(concurrency, true); }

InferenceMemory InferenceMemoryAtLoads::figures_at(long long concurrency) const { return at(concurrency, false); }

InferenceMemory InferenceMemoryAtLoads::at(long long concurrency, bool judged) const {
  if (concurrency < 0)
    throw InputError("--concurrency", fmt::format("must be >= 0 sequences, got {}", concurrency));
  const InferenceMemoryInput& in = in_;
  const StageFixed* stages = in.pp > static_cast<int>(few_.size()) ? many_.data() : few_.data();
  InferenceMemory r = fixed_;
  const StageTotal w = worst_at(*m_, in, stages, concurrency, &r.stage);
  r.weights_bytes = w.weights;
  r.kv_cache_bytes = w.kv;
  r.activations_bytes = w.acts;
  r.total_bytes = w.total;
  r.kv_bytes_per_token = stages[r.stage].kv_bytes_per_token;
  r.kv_bytes_per_sequence = stages[r.stage].kv_bytes_per_sequence;
  r.state_bytes_per_sequence = stages[r.stage].state_bytes_per_sequence;

  if (in.capacity_bytes > 0) {
    r.headroom_bytes = in.capacity_bytes - r.total_bytes;
    r.fits = r.headroom_bytes >= 0;
    if (!r.fits && judged)
      r.violations.push_back({"memory.exceeds_capacity", fmt::format("pipeline stage {}", r.stage),
                              fmt::format("needs {:.1f} GB per GPU, capacity {:.1f} GB (at most {} sequences of {} "
                                          "tokens fit)",
                                          r.total_bytes / 1e9, in.capacity_bytes / 1e9, r.max_concurrency,
                                          in.context_tokens)});
  }
  return r;
}

InferenceMemory inference_memory(const ModelArch& m, const InferenceMemoryInput& in) {
  return InferenceMemoryAtLoads(m, in).at(in.concurrency);
}

}  // namespace gpuplan
