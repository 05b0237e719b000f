// Validation against the published training measurements in shared/data: the accuracy targets of the
// training model, and the row mapping (blanks filled, conventions applied, nothing dropped silently).
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "memory/training_memory.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "validate/blank_plan.h"
#include "validate/precision_text.h"
#include "validate/training_cases.h"
#include "validate/validation.h"

namespace gpuplan {
namespace {

const std::string kTraining = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/training.csv";

TEST(Validate, TrainingTargetsHold) {
  const CsvTable t = read_csv_file(kTraining, "dataset");
  ASSERT_TRUE(is_training_schema(t));
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  const auto rep = validate_training(cases, skipped, "training.csv");
  const double scored = double(rep.rows.size()) / double(rep.rows.size() + rep.skipped.size());
  EXPECT_GE(scored, 0.90);
  EXPECT_LE(rep.overall.median_ape_pct, 10.0);
  EXPECT_LE(rep.overall.p90_ape_pct, 25.0);
  for (const auto& s : rep.skipped) EXPECT_FALSE(s.reason.empty());
}

TEST(Validate, BlanksAreFilledAndSaid) {
  const CsvTable t = parse_csv(
      "source_id,source_url_or_path,model,params_B,layers,hidden,ffn_hidden,heads,kv_heads,vocab,seq_len,"
      "moe_experts,moe_topk,gpu,num_gpus,precision,tp,pp,vp,cp,ep,dp,mbs,gbs,recompute,reported_metric,"
      "reported_value,notes\n"
      "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,A100 (Ampere),8,BF16,,1,,,,,,64,,step_time_s,3.0,\n"
      "Y,u,GPT-7B,7,32,4096,,32,,50257,2048,,,NoSuchGPU,8,BF16,1,1,,,,,,64,,step_time_s,3.0,\n",
      "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].model.ffn_hidden, 4 * 4096);
  EXPECT_FALSE(cases[0].model.gated_mlp);
  // Blank tp and mbs come from the search under the stated fields (pp=1, 8 GPUs), and the row says so.
  EXPECT_EQ(8 % cases[0].plan.tp, 0);
  EXPECT_GE(cases[0].plan.mbs, 1);
  bool said = false;
  for (const auto& a : cases[0].assumptions) said |= a.find("from the search") != std::string::npos;
  EXPECT_TRUE(said);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("NoSuchGPU"), std::string::npos);
}

const char* kHeader =
    "source_id,source_url_or_path,model,params_B,layers,hidden,ffn_hidden,heads,kv_heads,vocab,seq_len,"
    "moe_experts,moe_topk,gpu,num_gpus,precision,tp,pp,vp,cp,ep,dp,mbs,gbs,recompute,reported_metric,"
    "reported_value,notes,mfu_basis\n";

// The metric and GPU as other tables write them: "STEP_TIME_S", "NVIDIA A100 (Ampere)".
TEST(Validate, MetricAndGpuSpellingsOfRealTables) {
  const CsvTable t = parse_csv(std::string(kHeader) +
                                   "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,A100 (Ampere),8,BF16,1,1,,,,,1,64,,"
                                   "step_time_s,3.0,\n"
                                   "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,NVIDIA A100 (Ampere),8,BF16,1,1,,,,,1,64,,"
                                   "STEP_TIME_S,3.0,\n",
                               "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_TRUE(skipped.empty());
  EXPECT_EQ(cases[1].metric, "step_time_s");
  EXPECT_EQ(cases[1].accelerator, cases[0].accelerator);
}

// Metric names in words and units, and a value or sequence length as tables print them ("23,406",
// "2k"): read as what they mean, or the row is skipped naming the cell, never misread.
TEST(Validate, MetricWordsAndPrintedNumbersOfRealTables) {
  const std::string row = "X,u,GPT-7B,7,32,4096,,32,,50257,";
  const std::string mid = ",,,A100 (Ampere),8,BF16,1,1,,,,,1,64,,";
  const CsvTable t = parse_csv(std::string(kHeader) +
                                   row + "2048" + mid + "Step time (s),3.0,\n" +
                                   row + "2k" + mid + "tokens/s/GPU,\"2,731\",\n" +
                                   row + "2048" + mid + "TFLOP/s per GPU,120,\n" +
                                   row + "2048" + mid + "MFU (%),39%,\n" +
                                   row + "2048" + mid + "tokens,100,\n" +
                                   row + "2kk" + mid + "step_time_s,3.0,\n",
                               "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].metric, "step_time_s");
  EXPECT_EQ(cases[1].metric, "tokens_per_sec_per_gpu");
  EXPECT_EQ(cases[1].reported, 2731);
  EXPECT_EQ(cases[1].workload.seq_len, 2048);
  EXPECT_EQ(cases[2].metric, "tflops_per_gpu");
  EXPECT_EQ(cases[3].metric, "mfu");
  EXPECT_EQ(cases[3].reported, 39);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_NE(skipped[0].reason.find("reported_metric 'tokens'"), std::string::npos) << skipped[0].reason;
  EXPECT_NE(skipped[1].reason.find("seq_len '2kk'"), std::string::npos) << skipped[1].reason;
}

TEST(Validate, PrecisionSpellingsOfRealTables) {
  struct Case {
    const char* text;
    Precision want;
  };
  const Case cases[] = {
      {"BF16", Precision::bf16},
      {"BF16 (amp)", Precision::bf16},
      {"BF16/mixed (not stated)", Precision::bf16},
      {"BF16 (pure)", Precision::bf16},
      {"BF16 (inferred)", Precision::bf16},
      {"bf16 mixed", Precision::bf16},
      {"FP16", Precision::bf16},
      {"FP16/BF16 mixed", Precision::bf16},
      {"fp16 (apex O2)", Precision::bf16},
      {"mixed precision", Precision::bf16},
      {"", Precision::bf16},
      {"FP8", Precision::fp8},
      {"fp8", Precision::fp8},
      {"FP8-hybrid", Precision::fp8},
      {"FP8 (blockwise 1x128 act / 128x128 wt; BF16 attention/embedding/head)", Precision::fp8},
      {"FP8 delayed scaling (E4M3 fwd / E5M2 bwd)", Precision::fp8},
      {"MXFP8", Precision::mxfp8},
      {"mxfp8 (BF16 attention)", Precision::mxfp8},
      {"NVFP4", Precision::nvfp4},
      {"NVFP4 (FP8 attention)", Precision::nvfp4},
      {"MXFP4", Precision::fp4},
  };
  for (const auto& c : cases) {
    const PrecisionReading r = read_gemm_precision(c.text);
    ASSERT_TRUE(r.precision.has_value()) << c.text;
    EXPECT_EQ(*r.precision, c.want) << c.text;
    EXPECT_FALSE(r.note.empty()) << c.text;
  }
  // Formats gpuplan does not model are refused with the reason, never guessed.
  for (const char* text : {"TF32", "tf32 (A100 default)", "FP32", "INT8", "something else", "W4A16", "INT4 AWQ",
                           "int4_wo", "GPTQ (BF16 activations)"}) {
    const PrecisionReading r = read_gemm_precision(text);
    EXPECT_FALSE(r.precision.has_value()) << text;
    EXPECT_NE(r.note.find("does not model"), std::string::npos) << text << ": " << r.note;
  }
}

TEST(Validate, PrecisionReadIsSaidAndTf32RowSkippedWithReason) {
  const CsvTable t = parse_csv(
      std::string(kHeader) +
          "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,A100 (Ampere),8,BF16 (amp),1,1,,1,,,1,64,,step_time_s,3.0,,\n"
          "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,A100 (Ampere),8,TF32,1,1,,1,,,1,64,,step_time_s,3.0,,\n",
      "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  ASSERT_EQ(cases.size(), 1u);
  bool said = false;
  for (const auto& a : cases[0].assumptions) said |= a.find("'BF16 (amp)' read as BF16") != std::string::npos;
  EXPECT_TRUE(said);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("TF32"), std::string::npos);
  const auto counts = skip_reason_counts(skipped);
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts.begin()->second, 1u);
}

// Fuzz finding (fuzz_dataset_csv): a hidden of 1,228,954,812 with ffn_hidden blank made 4 x hidden
// overflow int. Dimensions out of the model bounds skip the row naming the column.
TEST(Validate, OutOfBoundsDimensionSkipsTheRowNamingTheColumn) {
  const CsvTable t = parse_csv(
      std::string(kHeader) +
          "X,u,GPT-7B,7,32,1228954812,,32,,50257,2048,,,A100 (Ampere),8,BF16,1,1,,1,,,1,64,,step_time_s,3.0,,\n"
          "X,u,GPT-7B,7,32,4096,99999999,32,,50257,2048,,,A100 (Ampere),8,BF16,1,1,,1,,,1,64,,step_time_s,3.0,,\n"
          "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,A100 (Ampere),8,BF16,1,1,,1,,,1,64,,step_time_s,3.0,,\n",
      "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  EXPECT_EQ(cases.size(), 1u);
  ASSERT_EQ(skipped.size(), 2u);
  EXPECT_EQ(skipped[0].reason.rfind("hidden: must be in [1, 16777216]", 0), 0u) << skipped[0].reason;
  EXPECT_EQ(skipped[1].reason.rfind("ffn_hidden: must be in [1, 16777216]", 0), 0u) << skipped[1].reason;
}

TEST(Validate, BlankVpWithDeepPipelinePredictsInterleaving) {
  // Llama 3.1 405B (126 layers) on 1024 H100, pp=16, 32 micro-batches: plain 1F1B would idle the
  // pipeline (pp-1)/m = 47% of the step; the authors interleaved, and so must the prediction.
  const CsvTable t = parse_csv(
      std::string(kHeader) +
          "X,u,Llama3.1-405B,405,,,,,,,8192,,,H100-SXM-80GB,1024,BF16,8,16,,2,,,1,128,,step_time_s,20,,\n",
      "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  ASSERT_EQ(cases.size(), 1u) << (skipped.empty() ? "" : skipped[0].reason);
  EXPECT_EQ(cases[0].plan.pp, 16);
  EXPECT_GT(cases[0].plan.vp, 1);
  bool said = false;
  for (const auto& a : cases[0].assumptions) said |= a.find("blank vp=") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Validate, BlankRecomputeRecomputesTheFewestLayersThatFit) {
  // Llama 3 70B, tp=1 pp=1 ZeRO-3 on 64 GB200, 8k tokens: mbs=1 holds its FP8 activations without
  // recompute; mbs=2 does not, and without a host link to offload to (host_link 0 here), the fastest
  // plan that fits recomputes only some layers.
  const Catalog catalog = Catalog::builtin();
  const ModelArch m = resolve_model("llama3-70b");
  Hardware hw = resolve_hardware(catalog, "gb200-nvl72");
  hw.accelerator.host_link_bytes_per_s = 0;
  TrainingWorkload w;
  w.num_gpus = 64;
  w.global_batch = 256;
  w.seq_len = 8192;
  w.precision = Precision::fp8;
  BlankFields blanks;
  blanks.recompute = true;
  TrainingPlan base = parse_training_plan("tp=1,pp=1,mbs=1,zero=3,sp=0");
  base.dp = 0;
  const BlankFill one = fill_blank_plan(m, hw, w, base, blanks);
  ASSERT_TRUE(one.found);
  EXPECT_TRUE(one.fits_memory);
  EXPECT_EQ(one.plan.recompute, Recompute::none);
  base.mbs = 2;
  const BlankFill two = fill_blank_plan(m, hw, w, base, blanks);
  ASSERT_TRUE(two.found);
  EXPECT_TRUE(two.fits_memory);
  EXPECT_EQ(two.plan.recompute, Recompute::full);
  EXPECT_GT(two.plan.recompute_layers, 0);
  EXPECT_LT(two.plan.recompute_layers, m.layers);
  MemoryOptions mo;
  mo.reserve_bytes = 0;
  mo.capacity_bytes = hw.accelerator.memory_bytes;
  TrainingPlan fewer = two.plan;
  fewer.recompute_layers -= 1;
  EXPECT_TRUE(training_memory(m, two.plan, w, mo).fits);
  EXPECT_FALSE(training_memory(m, fewer, w, mo).fits);  // one layer fewer does not fit
  EXPECT_NE(two.note.find("layers of each chunk"), std::string::npos);
}

TEST(Validate, BlankRecomputeOnGraceBlackwellOffloadsAsTheRecipes) {
  // The same run on GB200, whose GPUs reach Grace's memory over NVLink-C2C: offloading some layers'
  // activations hides behind the compute and beats recomputing them, so the search offloads the fewest
  // layers that fit (the Megatron-Bridge recipe offloads 40 of 80, cpu_offloading_num_layers=40), and
  // the row's assumptions say so.
  const CsvTable t = parse_csv(
      std::string(kHeader) +
          "X,u,LLAMA3_70B,70,,,,,,,8192,,,GB200,64,FP8,1,1,,1,,,2,256,,tokens_per_sec_per_gpu,4000,"
          "FSDP=64 (Megatron-FSDP sharding group),\n"
          "Y,u,LLAMA3_70B,70,,,,,,,8192,,,H100-SXM-80GB,64,FP8,4,8,5,1,,,1,256,,tokens_per_sec_per_gpu,1500,,\n",
      "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  ASSERT_EQ(cases.size(), 2u) << (skipped.empty() ? "" : skipped[0].reason);
  const TrainingPlan& p = cases[0].plan;
  // No whole layer is recomputed (module recompute of the cheap modules may come with the offload: it
  // shrinks what each offloaded layer copies while a layer's compute hides it).
  EXPECT_NE(p.recompute, Recompute::full);
  EXPECT_GT(p.offload_layers, 0);
  EXPECT_LT(p.offload_layers, cases[0].model.layers);
  bool said = false;
  for (const auto& a : cases[0].assumptions) said |= a.find("activation offload of") != std::string::npos;
  EXPECT_TRUE(said);
  // It fits with those layers offloaded and not with one fewer (reserve left out: the run fitted).
  MemoryOptions mo;
  mo.reserve_bytes = 0;
  mo.capacity_bytes = cases[0].hardware.accelerator.memory_bytes;
  TrainingPlan fewer = p;
  fewer.offload_layers -= 1;
  EXPECT_TRUE(training_memory(cases[0].model, p, cases[0].workload, mo).fits);
  EXPECT_FALSE(training_memory(cases[0].model, fewer, cases[0].workload, mo).fits);
  // An H100 run whose activations fit keeps everything on the GPU: no recompute, no offload.
  EXPECT_EQ(cases[1].plan.recompute, Recompute::none);
  EXPECT_EQ(cases[1].plan.offload_layers, 0);
  said = false;
  for (const auto& a : cases[1].assumptions) said |= a.find("blank recompute=none") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(Validate, MfuBasisChoosesThePeak) {
  const std::string row = "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,H100-SXM-80GB,8,FP8,1,1,,1,,,1,64,,mfu,40,,";
  const CsvTable t = parse_csv(std::string(kHeader) + row + "precision_peak\n" + row + "bf16_peak\n" + row + "\n" +
                                   row + "fp8_peak\n",
                               "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  ASSERT_EQ(cases.size(), 3u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("mfu_basis"), std::string::npos);
  const double own = predict_case(cases[0]), bf16 = predict_case(cases[1]), blank = predict_case(cases[2]);
  EXPECT_LT(own, 0.75 * bf16);  // the FP8 peak is twice the BF16 one on H100
  EXPECT_DOUBLE_EQ(blank, bf16);
}

TEST(Validate, GpuCountFromTheGridAndMfuAsFraction) {
  const CsvTable t = parse_csv(
      std::string(kHeader) +
          "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,H100-SXM-80GB,,BF16,2,2,,1,,4,1,64,,step_time_s,3.0,,\n"
          "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,H100-SXM-80GB,,BF16,2,2,,1,,,1,64,,step_time_s,3.0,,\n"
          "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,GB200 NVL72,8,BF16,1,1,,1,,,1,64,,mfu,0.45,,\n"
          "X,u,GPT-7B,7,32,4096,,32,,50257,2048,,,H100-SXM-80GB,8,BF16,n/a,-,,1,,,1,64,,step_time_s,3.0,,\n",
      "inline");
  std::vector<SkippedRow> skipped;
  const auto cases = map_training_cases(t, Catalog::builtin(), skipped);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[0].workload.num_gpus, 16);
  EXPECT_EQ(8 % (cases[2].plan.tp * cases[2].plan.pp), 0);  // "n/a" and "-" are blanks the search fills
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].reason.find("num_gpus"), std::string::npos);
  EXPECT_EQ(cases[1].accelerator, "gb200");  // a system's name maps to its accelerator
  EXPECT_DOUBLE_EQ(cases[1].reported, 45.0);
}

TEST(Validate, SummaryMatchesScorePy) {
  // Nearest-rank p90 as shared/tools/score.py: index int(0.9*(n-1)+0.5).
  auto s = summarize({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(s.median_ape_pct, 5.5);
  EXPECT_DOUBLE_EQ(s.p90_ape_pct, 9.0);
}

}  // namespace
}  // namespace gpuplan
