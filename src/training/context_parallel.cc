#include "training/context_parallel.h"

#include <fmt/format.h>

namespace gpuplan {

CpVolumes cp_volumes(CpKind kind, const CpAttentionShape& a, int cp) {
  CpVolumes v;
  if (cp <= 1) return v;
  const double b = a.bytes_per_elem;
  if (kind == CpKind::ring) {
    const double chunk = a.tokens * a.kv_heads * (a.qk_dim + a.v_dim) * b;  // this rank's K and V
    v.forward_bytes = chunk;
    v.backward_bytes = 2.0 * chunk;  // K/V around again, the partial dK/dV back to their owners
    v.forward_messages = cp - 1;
    v.backward_messages = 2 * (cp - 1);
  } else {
    const double qkv = a.tokens * (a.q_heads * a.qk_dim + a.kv_heads * (a.qk_dim + a.v_dim)) * b;
    const double out = a.tokens * a.q_heads * a.v_dim * b;
    v.forward_bytes = qkv + out;
    v.backward_bytes = qkv + out;  // dO in, dQ/dK/dV out
    v.forward_messages = 2;
    v.backward_messages = 2;
  }
  return v;
}

double cp_wire_bytes(CpKind kind, const CpAttentionShape& a, int cp) {
  if (cp <= 1) return 0.0;
  const CpVolumes v = cp_volumes(kind, a, cp);
  if (kind == CpKind::ring) return (cp - 1.0) * (v.forward_bytes + v.backward_bytes);
  return (cp - 1.0) / cp * (v.forward_bytes + v.backward_bytes);
}

CpTime cp_time(CpKind kind, const CpAttentionShape& a, int cp, const Group& g, const Hardware& hw) {
  CpTime t;
  if (cp <= 1) return t;
  const CpVolumes v = cp_volumes(kind, a, cp);
  if (kind == CpKind::ring) {
    t.forward_s = (cp - 1) * collective_time_s(Collective::send_recv, v.forward_bytes, g, hw);
    t.backward_factor = 2.0;
    t.overlaps_attention = true;
  } else {
    const double qkv = a.tokens * (a.q_heads * a.qk_dim + a.kv_heads * (a.qk_dim + a.v_dim)) * a.bytes_per_elem;
    t.forward_s = collective_time_s(Collective::all_to_all, qkv, g, hw) +
                  collective_time_s(Collective::all_to_all, v.forward_bytes - qkv, g, hw);
    t.backward_factor = 1.0;
    t.overlaps_attention = false;
  }
  return t;
}

std::string cp_kind_violation(CpKind kind, int q_heads_per_tp_rank, int kv_heads_per_tp_rank, int cp) {
  if (kind != CpKind::a2a || cp <= 1) return {};
  if (q_heads_per_tp_rank % cp != 0 || kv_heads_per_tp_rank % cp != 0)
    return fmt::format("cp_kind=a2a scatters the attention heads over the CP group: {} query and {} K/V heads "
                       "per TP rank must both divide by cp={} (use cp_kind=ring, or a smaller cp or tp)",
                       q_heads_per_tp_rank, kv_heads_per_tp_rank, cp);
  return {};
}

}  // namespace gpuplan
