// One workload, one answer: validate's blank-plan fill and the search pick the same plan.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "memory/training_memory.h"
#include "training/training_step.h"
#include "model/model_registry.h"
#include "search/search.h"
#include "validate/blank_plan.h"

namespace gpuplan {
namespace {

// The Megatron-Bridge row of training.csv (MBRIDGE-26.04.01, GB200): Llama 3 70B FP8 on 64 GPUs,
// tp=1 pp=1 cp=1, FSDP, mbs=2, global batch 256, 8k tokens, recompute blank.
void same_plan_as_search(const Hardware& hw) {
  const ModelArch m = resolve_model("llama3-70b");
  TrainingWorkload w;
  w.num_gpus = 64;
  w.global_batch = 256;
  w.seq_len = 8192;
  w.precision = Precision::fp8;
  TrainingPlan base = parse_training_plan("tp=1,pp=1,cp=1,mbs=2,zero=3,sp=0");
  base.dp = 0;
  BlankFields blanks;
  blanks.recompute = true;
  const BlankFill fill = fill_blank_plan(m, hw, w, base, blanks);
  ASSERT_TRUE(fill.found);
  ASSERT_TRUE(fill.fits_memory);

  // The search over the same space (the stated fields fixed, recompute free), memory checked as the
  // fill checks it (no first-run reserve: the published run fitted).
  PlanSpace space = build_plan_space(m, hw, w);
  space.tp = space.pp = space.vp = space.cp = space.ep = {1};
  space.mbs = {2};
  space.zero = {3};
  SearchOptions o;
  o.memory.reserve_bytes = 0;
  const SearchResult r = search_plan_space(space, m, hw, w, o);
  ASSERT_FALSE(r.top.empty());
  const TrainingPlan& best = r.top.front().plan;
  EXPECT_EQ(to_string(best), to_string(fill.plan));
  const TrainingResult filled = evaluate_training(m, hw, fill.plan, w);
  EXPECT_DOUBLE_EQ(r.top.front().result.step_time_s, filled.step_time_s);
}

TEST(BlankPlan, OffloadFillIsTheSearchsBestPlan) {
  const Hardware hw = resolve_hardware(Catalog::builtin(), "gb200-nvl72");
  same_plan_as_search(hw);
}

TEST(BlankPlan, PartialRecomputeFillIsTheSearchsBestPlan) {
  Hardware hw = resolve_hardware(Catalog::builtin(), "gb200-nvl72");
  hw.accelerator.host_link_bytes_per_s = 0;
  same_plan_as_search(hw);
}

TEST(BlankPlan, AnUnstatedGridKeepsTheReserveOfAPlanNobodyRan) {
  // Llama 3.1 70B BF16 on 64 H100, 8k tokens, global batch 128, every plan field blank: the fill picks
  // among plans nobody ran, so it checks them as the search does, the first-run reserve included.
  const ModelArch m = resolve_model("llama3.1-70b");
  const Hardware hw = resolve_hardware(Catalog::builtin(), "hgx-h100");
  TrainingWorkload w;
  w.num_gpus = 64;
  w.global_batch = 128;
  w.seq_len = 8192;
  TrainingPlan base;
  base.dp = 0;
  BlankFields blanks;
  blanks.tp = blanks.pp = blanks.vp = blanks.cp = blanks.mbs = blanks.recompute = true;
  const BlankFill fill = fill_blank_plan(m, hw, w, base, blanks);
  ASSERT_TRUE(fill.found);
  ASSERT_TRUE(fill.fits_memory);
  const TrainingMemory mem = training_memory(m, fill.plan, w, with_capacities(MemoryOptions{}, hw));
  EXPECT_TRUE(mem.fits) << to_string(fill.plan);
}

TEST(BlankPlan, SequenceParallelStaysOffWhereTheFrameworkHadNone) {
  // A 2021 Megatron row: a blank tp fills without sequence parallelism.
  const ModelArch m = resolve_model("gpt3-175b");
  const Hardware hw = resolve_hardware(Catalog::builtin(), "hgx-a100");
  TrainingWorkload w;
  w.num_gpus = 64;
  w.global_batch = 64;
  w.seq_len = 2048;
  TrainingPlan base = parse_training_plan("pp=8,mbs=1,recompute=full,zero=0,dist_opt=0,sp=0,tp_overlap=0");
  base.dp = 0;
  BlankFields blanks;
  blanks.tp = blanks.vp = true;
  blanks.sequence_parallel_available = false;
  const BlankFill fill = fill_blank_plan(m, hw, w, base, blanks);
  ASSERT_TRUE(fill.found);
  EXPECT_GT(fill.plan.tp, 1);
  EXPECT_FALSE(fill.plan.sequence_parallel);
}

}  // namespace
}  // namespace gpuplan
