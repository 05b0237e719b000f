#pragma once
// Context parallelism: the sequence of a micro-batch split over `cp` ranks, and what attention then
// moves between them, by kind (TrainingPlan::cp_kind):
// - ring (Megatron --cp-comm-type p2p; Liu et al. 2023, Ring Attention): each rank keeps its queries
//   and passes its K/V chunk around the ring, cp - 1 steps, each overlapped with the attention
//   kernel on the chunk it already holds. Backward passes K/V again and the partial dK/dV back.
// - a2a (Megatron --cp-comm-type a2a; Jacobs et al. 2023, DeepSpeed-Ulysses): an all-to-all turns
//   sequence-split Q, K, V into head-split ones over the whole sequence, attention runs locally on
//   heads / cp heads, and a second all-to-all returns the output to the sequence split; backward
//   moves dO in and dQ, dK, dV out, the same bytes. Each all-to-all waits on the one before it: no
//   overlap with the layer's own attention. Needs the attention heads (and the K/V heads) on each
//   TP rank to divide by cp.
// Volumes are per GPU, per layer, per micro-batch, in bytes each rank holds before the exchange
// (the collective's own (n-1)/n applies in collective_time_s).
#include "physics/collective.h"
#include "plan/plan.h"

namespace gpuplan {

// Shapes of one rank's attention: tokens it holds (T = mbs x seq / cp), heads on this TP rank.
struct CpAttentionShape {
  double tokens = 0;        // tokens per rank per micro-batch
  double q_heads = 0;       // query heads on this TP rank
  double kv_heads = 0;      // K/V heads on this TP rank
  double qk_dim = 0, v_dim = 0;
  double bytes_per_elem = 2.0;  // BF16 activations
};

struct CpVolumes {
  // ring: bytes of one K/V chunk, sent cp - 1 times per pass (forward: K/V; backward: K/V and dK/dV).
  // a2a: the bytes each rank's all-to-alls hold per pass (Q, K, V and O forward; dO, dQ, dK, dV back).
  double forward_bytes = 0;
  double backward_bytes = 0;
  int forward_messages = 0;   // ring steps (cp - 1) or all-to-alls (2) per forward
  int backward_messages = 0;
};

CpVolumes cp_volumes(CpKind kind, const CpAttentionShape& a, int cp);

// Bytes one rank puts on the wire per layer per micro-batch, forward plus backward: ring
// 3 (cp - 1) x chunk, a2a 2 x (cp - 1)/cp x (Q + K + V + O). For cp = 1, 0.
double cp_wire_bytes(CpKind kind, const CpAttentionShape& a, int cp);

// Seconds of CP communication of one layer's forward pass (backward: `backward_factor` times it),
// over the CP group.
struct CpTime {
  double forward_s = 0;
  double backward_factor = 0;  // ring: 2 (K/V and dK/dV); a2a: 1
  bool overlaps_attention = false;  // ring: hidden behind the attention kernel up to overlap_eff
};
CpTime cp_time(CpKind kind, const CpAttentionShape& a, int cp, const Group& g, const Hardware& hw);

// Empty when the kind fits the heads; otherwise why not (a2a needs heads per TP rank divisible by cp).
std::string cp_kind_violation(CpKind kind, int q_heads_per_tp_rank, int kv_heads_per_tp_rank, int cp);

}  // namespace gpuplan
