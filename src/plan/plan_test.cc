#include <gtest/gtest.h>

#include "core/error.h"
#include "plan/plan.h"

namespace gpuplan {
namespace {

TEST(Plan, ParsesEveryKey) {
  auto p = parse_training_plan("tp=8,pp=4,vp=2,cp=2,ep=4,etp=2,mbs=2,recompute=selective,zero=3,sp=0,order=tp-ep-cp-dp-pp");
  EXPECT_EQ(p.tp, 8);
  EXPECT_EQ(p.pp, 4);
  EXPECT_EQ(p.vp, 2);
  EXPECT_EQ(p.cp, 2);
  EXPECT_EQ(p.ep, 4);
  EXPECT_EQ(p.etp, 2);
  EXPECT_EQ(p.mbs, 2);
  EXPECT_EQ(p.recompute, Recompute::selective);
  EXPECT_EQ(p.zero, 3);
  EXPECT_FALSE(p.sequence_parallel);
  EXPECT_EQ(to_string(p.order), "tp-ep-cp-dp-pp");
}

TEST(Plan, BadInputNamesTheKey) {
  try {
    parse_training_plan("tp=0");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--plan.tp");
  }
  EXPECT_THROW(parse_training_plan("tpp=2"), InputError);
  EXPECT_THROW(parse_training_plan("recompute=most"), InputError);
  EXPECT_THROW(parse_training_plan("order=tp-cp-dp-pp"), InputError);     // ep missing
  EXPECT_THROW(parse_training_plan("order=tp-tp-cp-dp-pp"), InputError);  // tp twice
  EXPECT_THROW(parse_training_plan("zero=4"), InputError);
}

// A key given twice is refused (not the last one silently winning), and so is an empty item.
TEST(Plan, RefusesAKeyGivenTwiceAndEmptyItems) {
  auto field_and_message = [](const std::string& text) {
    try {
      parse_training_plan(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(field_and_message("tp=8,tp=4").rfind("--plan.tp: given twice", 0), 0u) << field_and_message("tp=8,tp=4");
  for (const char* empty : {"tp=8,,pp=2", ",,,", "tp=8,", ",tp=8"})
    EXPECT_EQ(field_and_message(empty).rfind("--plan: empty item", 0), 0u) << empty << ": " << field_and_message(empty);
  EXPECT_EQ(parse_training_plan("").tp, 1);  // no text: the base plan
}

TEST(Plan, StridesFollowTheRankOrder) {
  TrainingPlan p = parse_training_plan("tp=8,cp=2,pp=4");
  auto s = group_strides(p, 128);  // dp = 128/(8*2*4) = 2
  EXPECT_EQ(s.tp, 1);
  EXPECT_EQ(s.cp, 8);
  EXPECT_EQ(s.dp, 16);
  EXPECT_EQ(s.pp, 32);
  p.order = {Dim::pp, Dim::tp, Dim::cp, Dim::ep, Dim::dp};
  s = group_strides(p, 128);
  EXPECT_EQ(s.pp, 1);
  EXPECT_EQ(s.tp, 4);
  EXPECT_EQ(s.cp, 32);
  EXPECT_EQ(s.dp, 64);
}

TEST(Plan, ExpertGridUsesEtpAndFoldsCpIntoExpertDp) {
  TrainingPlan p = parse_training_plan("tp=2,ep=8");
  auto s = group_strides(p, 64);  // dp=32; edp = 32*1*2/(8*1) = 8
  EXPECT_EQ(s.ep, 1);             // etp=1: experts of consecutive ranks
  EXPECT_EQ(s.edp, 8);
}

TEST(Plan, ContextParallelKindParsesAndPrints) {
  TrainingPlan p = parse_training_plan("cp=4,cp_kind=a2a");
  EXPECT_EQ(p.cp_kind, CpKind::a2a);
  EXPECT_NE(to_string(p).find("cp_kind=a2a"), std::string::npos);
  EXPECT_EQ(parse_training_plan(to_string(p)).cp_kind, CpKind::a2a);
  EXPECT_EQ(parse_training_plan("cp=4").cp_kind, CpKind::ring);
  EXPECT_EQ(parse_training_plan("ep=8").dispatcher, MoeDispatcher::flex);
  EXPECT_EQ(parse_training_plan("ep=8,dispatcher=hybridep").dispatcher, MoeDispatcher::flex);
  const TrainingPlan a2a = parse_training_plan("ep=8,dispatcher=alltoall");
  EXPECT_EQ(a2a.dispatcher, MoeDispatcher::alltoall);
  EXPECT_EQ(parse_training_plan(to_string(a2a)).dispatcher, MoeDispatcher::alltoall);
  EXPECT_THROW(parse_training_plan("dispatcher=allgather"), InputError);
  EXPECT_EQ(to_string(parse_training_plan("cp=4")).find("cp_kind"), std::string::npos);
  try {
    parse_training_plan("cp_kind=star");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--plan.cp_kind"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpuplan
