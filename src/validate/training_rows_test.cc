// Training rows read as written: the framework release from the row's date, ZeRO as the notes spell
// it, rows that contradict themselves reported and not scored, and each scored row's command.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "training/flop_convention.h"
#include "training/training_step.h"
#include "validate/training_cases.h"
#include "validate/validation.h"

namespace gpuplan {
namespace {

const char* kColumns =
    "source_id,source_url_or_path,model,params_B,layers,hidden,ffn_hidden,heads,kv_heads,vocab,seq_len,"
    "moe_experts,moe_topk,gpu,num_gpus,precision,tp,pp,vp,cp,ep,dp,mbs,gbs,recompute,reported_metric,"
    "reported_value,notes,mfu_basis";

std::vector<TrainingCase> map(const std::string& csv, std::vector<SkippedRow>& skipped) {
  return map_training_cases(parse_csv(csv, "inline"), Catalog::builtin(), skipped);
}

TEST(TrainingRows, ReleaseFromTheDateColumn) {
  const std::string header = std::string(kColumns) + ",date\n";
  const std::string row = "X,u,GPT3-5B,5,24,4096,16384,32,32,50257,2048,,,A100-SXM-80GB,64,BF16,4,1,,1,,16,4,512,,"
                          "step_time_s,3.0,,,";
  std::vector<SkippedRow> skipped;
  const auto cases = map(header + row + "2021-04\n" + row + "2022\n" + row + "\n" + row + "2031-01-01\n", skipped);
  ASSERT_EQ(cases.size(), 4u) << (skipped.empty() ? "" : skipped[0].reason);
  EXPECT_EQ(cases[0].framework_release, 2021);
  EXPECT_EQ(cases[0].plan.zero, 0);
  EXPECT_FALSE(cases[0].plan.sequence_parallel);
  EXPECT_FALSE(cases[0].plan.tp_comm_overlap);
  EXPECT_EQ(cases[1].framework_release, 2022);
  EXPECT_TRUE(cases[1].plan.sequence_parallel);
  EXPECT_FALSE(cases[1].plan.tp_comm_overlap);
  EXPECT_EQ(cases[2].framework_release, 0);  // none stated: the newest
  EXPECT_TRUE(cases[2].plan.tp_comm_overlap);
  EXPECT_EQ(cases[3].framework_release, kNewestFrameworkRelease);  // past the range: its end, said
  bool said = false;
  for (const auto& a : cases[3].assumptions) said = said || a.find("dated 2031") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(TrainingRows, ZeroAsTheNotesSpellIt) {
  const std::string head = std::string(kColumns) + "\n";
  const std::string row = "X,u,Llama3.1-405B,405,,,,,,,8192,,,H100-SXM-80GB,1024,BF16,8,16,,1,,8,1,512,,step_time_s,20,";
  std::vector<SkippedRow> skipped;
  const auto cases = map(head + row + "FSDP-style (ZeRO),\n" + row + "FSDP/ZeRO-3-style sharded data parallel,\n" + row +
                             "compared against ZeRO-3 in same table,\n",
                         skipped);
  ASSERT_EQ(cases.size(), 3u) << (skipped.empty() ? "" : skipped[0].reason);
  EXPECT_EQ(cases[0].plan.zero, 1);
  EXPECT_EQ(cases[1].plan.zero, 3);
  EXPECT_EQ(cases[2].plan.zero, 1);  // another run's setting: the default
}

// The recompute cell as sources spell it: Megatron's words, torchtitan's selective activation checkpointing
// by op or by layer (about half the forward matmuls: full recompute of half the layers), a yes/no for
// activation checkpointing, and anything else not guessed.
TEST(TrainingRows, RecomputeAsSourcesSpellIt) {
  const std::string head = std::string(kColumns) + "\n";
  const std::string a = "X,u,Llama3-8B,8,,,,,,,8192,,,H100-SXM-80GB,8,BF16,1,1,,1,,8,1,8,";
  const std::string b = ",step_time_s,5,,\n";
  std::vector<SkippedRow> skipped;
  const auto cases = map(head + a + "selective (op)" + b + a + "Selective (layer)" + b + a + "selective+SP" + b + a +
                             "yes" + b + a + "false" + b + a + "sometimes" + b,
                         skipped);
  ASSERT_EQ(cases.size(), 5u);
  EXPECT_EQ(cases[0].plan.recompute, Recompute::full);
  EXPECT_EQ(cases[0].plan.recompute_layers, 16);  // 32 layers, one chunk
  EXPECT_EQ(cases[1].plan.recompute, Recompute::full);
  EXPECT_EQ(cases[1].plan.recompute_layers, 16);
  EXPECT_EQ(cases[2].plan.recompute, Recompute::selective);
  EXPECT_EQ(cases[3].plan.recompute, Recompute::full);
  EXPECT_EQ(cases[3].plan.recompute_layers, 0);  // every layer
  EXPECT_EQ(cases[4].plan.recompute, Recompute::none);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("recompute 'sometimes'"), std::string::npos) << skipped[0].reason;
}

// TP communication overlap as the notes state it, over what the row's framework release has.
TEST(TrainingRows, TpOverlapAsTheNotesStateIt) {
  const std::string head = std::string(kColumns) + ",date\n";
  const std::string a = "X,u,Llama3-70B,70,,,,,,,8192,,,H100-SXM-80GB,64,BF16,8,1,,1,,8,1,64,full,step_time_s,9,";
  std::vector<SkippedRow> skipped;
  const auto cases =
      map(head + a + "vanilla TP (communication not overlapped),,2024\n" + a + "async TP,,2022\n" + a + ",,2024\n",
          skipped);
  ASSERT_EQ(cases.size(), 3u) << (skipped.empty() ? "" : skipped[0].reason);
  EXPECT_FALSE(cases[0].plan.tp_comm_overlap);
  EXPECT_TRUE(cases[1].plan.tp_comm_overlap);  // the 2022 release had none; the notes say it ran
  EXPECT_TRUE(cases[2].plan.tp_comm_overlap);  // the release's own
}

TEST(TrainingRows, ContradictionIsReportedNotScored) {
  const std::string head = std::string(kColumns) + "\n";
  const std::string row = "NEMO-24.07,u,GPT3-5B,5,24,4096,16384,32,32,50257,2048,,,H100-SXM-80GB,64,FP8,1,1,,1,,64,4,2048,,"
                          "tokens_per_sec_per_gpu,23406,";
  std::vector<SkippedRow> skipped;
  const auto cases = map(head + row + "model TFLOP/s/GPU=765,\n" + row + "model TFLOP/s/GPU=190,\n" + row +
                             "README MFU=10%,\n" + row + "README MFU=40%,\n",
                         skipped);
  EXPECT_EQ(cases.size(), 2u);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].row, 1u);
  EXPECT_NE(skipped[0].reason.find("contradicts itself"), std::string::npos) << skipped[0].reason;
  EXPECT_NE(skipped[0].reason.find("190 TFLOP/s"), std::string::npos) << skipped[0].reason;
  EXPECT_EQ(skipped[1].row, 2u);
  EXPECT_NE(skipped[1].reason.find("MFU of 10%"), std::string::npos) << skipped[1].reason;
}

TEST(TrainingRows, EveryScoredRowCarriesItsCommand) {
  const std::string head = std::string(kColumns) + "\n";
  std::vector<SkippedRow> skipped;
  const auto cases = map(head +
                             "NARAYANAN-2021-T1,u,GPT-18.4B (Narayanan Table 1),18.4,40,6144,,48,,51200,2048,,,A100-SXM-80GB,"
                             "256,FP16,8,1,,,,32,8,1024,full,tflops_per_gpu,135,,\n"
                             "X,u,Llama3-8B,8,,,,,,,8192,,,H100-SXM-80GB,8,BF16,,,,,,,,128,,mfu,40,,precision_peak\n",
                         skipped);
  ASSERT_EQ(cases.size(), 2u) << (skipped.empty() ? "" : skipped[0].reason);
  const ValidationReport rep = validate_training(cases, skipped, "inline");
  ASSERT_EQ(rep.rows.size(), 2u);
  const auto& a = rep.rows[0];
  EXPECT_EQ(a.command.rfind("gpuplan train --model 'GPT-18.4B (Narayanan Table 1)'", 0), 0u) << a.command;
  for (const char* s : {"--framework-release 2021", "--flop-convention narayanan-2021", "zero=0", "sp=0", "tp_overlap=0",
                        "recompute=full", "--arch layers=40,hidden=6144,heads=48,vocab=51200", "--json"})
    EXPECT_NE(a.command.find(s), std::string::npos) << s << "\n" << a.command;
  EXPECT_EQ(a.command_field, "tflops_per_gpu");
  const auto& b = rep.rows[1];
  EXPECT_EQ(b.command.find("--arch"), std::string::npos) << b.command;  // the built-in model as it is
  EXPECT_EQ(b.command.find("--framework-release"), std::string::npos) << b.command;
  EXPECT_EQ(b.command_field, "mfu.with_attention");
  EXPECT_EQ(b.command_scale, 100.0);
}

// MosaicML's and torchtitan's counters take attention unmasked: their MFU rows read the non-causal count,
// which is the causal count's attention doubled, and replay from the field that holds it.
TEST(TrainingRows, UnmaskedAttentionSourcesCountTheirWay) {
  const std::string head = std::string(kColumns) + "\n";
  const std::string row = ",Llama3-8B,8,,,,,,,32768,,,H100-SXM-80GB,8,BF16,1,1,,1,,8,1,8,full,mfu,30,,bf16_peak\n";
  std::vector<SkippedRow> skipped;
  const auto cases = map(head + "TT,https://github.com/pytorch/torchtitan/blob/main/docs/performance.md" + row +
                             "X,https://example.com/report" + row,
                         skipped);
  ASSERT_EQ(cases.size(), 2u) << (skipped.empty() ? "" : skipped[0].reason);
  EXPECT_EQ(cases[0].flop_convention, FlopConvention::noncausal_attention);
  EXPECT_EQ(cases[1].flop_convention, FlopConvention::model);
  TrainingOptions opts;
  opts.with_memory = false;
  const TrainingResult r = evaluate_training(cases[0].model, cases[0].hardware, cases[0].plan, cases[0].workload, opts);
  const double attention = r.model_flops_per_token_attn - r.model_flops_per_token_6n;
  EXPECT_GT(attention, 0);
  EXPECT_NEAR(r.model_flops_per_token_noncausal, r.model_flops_per_token_6n + 2 * attention, 1e-6 * attention);
  EXPECT_GT(metric_from_result(cases[0], r), metric_from_result(cases[1], r));
  const ValidationReport rep = validate_training(cases, skipped, "inline");
  ASSERT_EQ(rep.rows.size(), 2u);
  EXPECT_EQ(rep.rows[0].command_field, "mfu.with_noncausal_attention_vs_bf16_peak");
  EXPECT_EQ(rep.rows[1].command_field, "mfu.with_attention_vs_bf16_peak");
}

}  // namespace
}  // namespace gpuplan
