// Context-parallel communication volumes by kind (ring and a2a), from the attention shapes.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/error.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "training/context_parallel.h"
#include "training/training_step.h"

namespace gpuplan {
namespace {

// Llama 3.1 70B at tp=8: 64 query heads and 8 K/V heads of 128 over 8 TP ranks.
CpAttentionShape llama70b_tp8(double tokens) {
  CpAttentionShape a;
  a.tokens = tokens;
  a.q_heads = 8;
  a.kv_heads = 1;
  a.qk_dim = a.v_dim = 128;
  a.bytes_per_elem = 2;
  return a;
}

TEST(ContextParallel, RingPassesTheKvChunkCpMinusOneTimesEachWay) {
  // 131,072 tokens over cp=4: 32,768 a rank; its K and V (1 head x (128 + 128) x 2 B) = 16.8 MB,
  // sent 3 times per step of the ring over 3 steps (forward K/V; backward K/V and dK/dV).
  const CpAttentionShape a = llama70b_tp8(32768);
  const CpVolumes v = cp_volumes(CpKind::ring, a, 4);
  EXPECT_DOUBLE_EQ(v.forward_bytes, 32768.0 * 1 * 256 * 2);
  EXPECT_DOUBLE_EQ(v.backward_bytes, 2 * v.forward_bytes);
  EXPECT_EQ(v.forward_messages, 3);
  EXPECT_EQ(v.backward_messages, 6);
  EXPECT_DOUBLE_EQ(cp_wire_bytes(CpKind::ring, a, 4), 3.0 * 3 * 32768 * 256 * 2);
  EXPECT_DOUBLE_EQ(cp_wire_bytes(CpKind::ring, a, 1), 0.0);
}

TEST(ContextParallel, A2aMovesQKVAndTheOutputOnceEachWay) {
  // Q (8 x 128), K and V (1 x 256) and O (8 x 128) per token, (cp-1)/cp of them leave the rank,
  // forward and backward alike.
  const CpAttentionShape a = llama70b_tp8(32768);
  const CpVolumes v = cp_volumes(CpKind::a2a, a, 4);
  const double per_token = (8 * 128 + 256 + 8 * 128) * 2.0;
  EXPECT_DOUBLE_EQ(v.forward_bytes, 32768 * per_token);
  EXPECT_DOUBLE_EQ(v.backward_bytes, v.forward_bytes);
  EXPECT_EQ(v.forward_messages, 2);
  EXPECT_DOUBLE_EQ(cp_wire_bytes(CpKind::a2a, a, 4), 2.0 * 0.75 * 32768 * per_token);
}

TEST(ContextParallel, A2aTrafficFallsWithCpWhileTheRingsStaysPut) {
  // A fixed 1M-token sequence: the ring moves every other rank's K/V past each rank, about the whole
  // sequence's K/V whatever cp; Ulysses moves a rank's own tokens, 1/cp of the sequence.
  const double seq = 1 << 20;
  const double ring8 = cp_wire_bytes(CpKind::ring, llama70b_tp8(seq / 8), 8);
  const double ring32 = cp_wire_bytes(CpKind::ring, llama70b_tp8(seq / 32), 32);
  const double a2a8 = cp_wire_bytes(CpKind::a2a, llama70b_tp8(seq / 8), 8);
  const double a2a32 = cp_wire_bytes(CpKind::a2a, llama70b_tp8(seq / 32), 32);
  EXPECT_NEAR(ring32 / ring8, (31.0 / 32) / (7.0 / 8), 1e-9);
  EXPECT_NEAR(a2a32 / a2a8, (31.0 / 32 / 32) / (7.0 / 8 / 8), 1e-9);
  // GQA's 8:1 heads: the ring's K/V is small beside Ulysses' Q and O at cp=2 ...
  EXPECT_LT(cp_wire_bytes(CpKind::ring, llama70b_tp8(seq / 2), 2), cp_wire_bytes(CpKind::a2a, llama70b_tp8(seq / 2), 2));
  // ... and larger at cp=32.
  EXPECT_GT(ring32, a2a32);
}

TEST(ContextParallel, A2aNeedsHeadsPerTpRankDivisibleByCp) {
  EXPECT_TRUE(cp_kind_violation(CpKind::a2a, 8, 8, 8).empty());
  EXPECT_FALSE(cp_kind_violation(CpKind::a2a, 8, 1, 8).empty());
  EXPECT_TRUE(cp_kind_violation(CpKind::ring, 8, 1, 8).empty());
  // Through the evaluator's rules: Llama 3.1 70B at tp=8 has one K/V head per TP rank.
  TrainingPlan p = parse_training_plan("tp=8,cp=8,cp_kind=a2a");
  p.dp = 0;
  TrainingWorkload w;
  w.num_gpus = 64;
  w.global_batch = 8;
  w.seq_len = 131072;
  const auto v = check_plan(resolve_model("llama3.1-70b"), p, w);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.front().subject, "plan.cp_kind");
}

TEST(ContextParallel, RingHidesBehindLongAttentionA2aDoesNot) {
  // Llama 3.1 8B, 32K tokens over cp=8 on HGX H100 (one node): the ring's K/V steps hide behind the
  // attention kernel; Ulysses' all-to-alls wait on each other and show.
  static const Catalog catalog = Catalog::builtin();
  const Hardware hw = resolve_hardware(catalog, "hgx-h100");
  TrainingWorkload w;
  w.num_gpus = 64;
  w.global_batch = 64;
  w.seq_len = 32768;
  const ModelArch m = resolve_model("llama3.1-8b");
  TrainingPlan ring = parse_training_plan("tp=1,cp=8,mbs=1,cp_kind=ring");
  TrainingPlan a2a = parse_training_plan("tp=1,cp=8,mbs=1,cp_kind=a2a");
  ring.dp = a2a.dp = 0;
  const TrainingResult r = evaluate_training(m, hw, ring, w), u = evaluate_training(m, hw, a2a, w);
  ASSERT_TRUE(r.valid());
  ASSERT_TRUE(u.valid());
  EXPECT_DOUBLE_EQ(r.parts.cp_comm_s, 0.0);
  EXPECT_GT(u.parts.cp_comm_s, 0.0);
  EXPECT_GT(u.step_time_s, r.step_time_s);
}

}  // namespace
}  // namespace gpuplan
