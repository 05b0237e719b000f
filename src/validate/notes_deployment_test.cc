// The disaggregated deployment of AIConfigurator rows' notes: every spelling the shared files use,
// partial and malformed fields as named reasons, and the deployment gpuplan evaluates for them.
#include "validate/notes_deployment.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "inference/engine.h"
#include "model/model_registry.h"
#include "validate/inference_cases.h"
#include "validate/validation.h"

namespace gpuplan {
namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// The spellings of inference.csv and aiconfigurator-silicon-sample-ttft-tpot.csv (prefixes shortened).
TEST(NotesDeployment, ReadsEachSpellingOfTheSharedFiles) {
  struct Case {
    const char* notes;
    NotesPool prefill, decode;
  };
  const Case cases[] = {
      // TensorRT-LLM attention-DP prefill, wide decode (the brief's example, inference.csv)
      {"id=dsr1_b200_trtllm_fp4_disagg_1024x1024_c2192_cfg346; provenance: db-dump/2026-04-27; config_id=346; "
       "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.8.1.post1; disagg: prefill: workers=1 tp=1 pp=1 attn_dp=4 "
       "moe_tp=1 moe_ep=4 bs=1; decode: workers=2 tp=1 pp=1 attn_dp=8 moe_tp=1 moe_ep=8 bs=137; num_gpus derived "
       "with AIC formula workers*tp*pp*attn_dp",
       {1, 1, 1, 4, 1, 4, 1},
       {2, 1, 1, 8, 1, 8, 137}},
      // SGLang TP8/EP8 both sides
      {"lmsysorg/sglang:v0.5.8.post1-cu130-amd64; disagg: prefill: workers=1 tp=8 pp=1 attn_dp=1 moe_tp=1 "
       "moe_ep=8 bs=1; decode: workers=1 tp=8 pp=1 attn_dp=1 moe_tp=1 moe_ep=8 bs=4; num_gpus derived with AIC "
       "formula workers*tp*pp*attn_dp",
       {1, 8, 1, 1, 1, 8, 1},
       {1, 8, 1, 1, 1, 8, 4}},
      // attention-DP with MoE tensor-parallel (moe_tp 4, moe_ep 1)
      {"lmsysorg/sglang:v0.5.5.post2; disagg: prefill: workers=1 tp=1 pp=1 attn_dp=4 moe_tp=4 moe_ep=1 bs=1; "
       "decode: workers=4 tp=1 pp=1 attn_dp=4 moe_tp=4 moe_ep=1 bs=1; num_gpus derived with AIC formula",
       {1, 1, 1, 4, 4, 1, 1},
       {4, 1, 1, 4, 4, 1, 1}},
      // gap-analysis rows: blank concurrency, dense model, vLLM's unstated MoE split (0)
      {"id=qwen3_32b_qwen3_32b_h100_sxm_vllm_disagg_4000x1000_c_tp_epnone_2; provenance: source_file=/x/qwen3_32b.csv; "
       "dynamo_version=0.8.0; disagg: prefill: workers=8 tp=1 pp=1 attn_dp=1 moe_tp=0 moe_ep=0 bs=1; decode: "
       "workers=2 tp=4 pp=1 attn_dp=1 moe_tp=0 moe_ep=0 bs=224; num_gpus derived with AIC formula "
       "workers*tp*pp*attn_dp",
       {8, 1, 1, 1, 0, 0, 1},
       {2, 4, 1, 1, 0, 0, 224}},
      // the last key of the notes, no trailing text
      {"disagg: prefill: workers=5 tp=1 pp=1 attn_dp=8 moe_tp=1 moe_ep=8 bs=1; decode: workers=1 tp=1 pp=1 "
       "attn_dp=32 moe_tp=1 moe_ep=32 bs=128",
       {5, 1, 1, 8, 1, 8, 1},
       {1, 1, 1, 32, 1, 32, 128}},
  };
  for (const Case& c : cases) {
    NotesDeployment d;
    const auto err = parse_notes_deployment(c.notes, d);
    ASSERT_FALSE(err) << *err << "\n" << c.notes;
    for (const auto& [got, want] : {std::pair{d.prefill, c.prefill}, std::pair{d.decode, c.decode}}) {
      EXPECT_EQ(got.workers, want.workers) << c.notes;
      EXPECT_EQ(got.tp, want.tp) << c.notes;
      EXPECT_EQ(got.pp, want.pp) << c.notes;
      EXPECT_EQ(got.attn_dp, want.attn_dp) << c.notes;
      EXPECT_EQ(got.moe_tp, want.moe_tp) << c.notes;
      EXPECT_EQ(got.moe_ep, want.moe_ep) << c.notes;
      EXPECT_EQ(got.bs, want.bs) << c.notes;
    }
  }
  NotesDeployment d;
  ASSERT_FALSE(parse_notes_deployment(cases[0].notes, d));
  EXPECT_EQ(d.gpus(), 4 + 16);  // the row's num_gpus 20
  EXPECT_TRUE(has_notes_deployment(cases[0].notes));
  EXPECT_TRUE(has_notes_deployment("Disagg: Prefill: ..."));  // any case, as the old check read it
  ASSERT_FALSE(parse_notes_deployment("DISAGG: PREFILL: WORKERS=1 TP=8 PP=1 ATTN_DP=1 MOE_TP=1 MOE_EP=8 BS=1; DECODE: "
                                      "WORKERS=1 TP=8 PP=1 ATTN_DP=1 MOE_TP=1 MOE_EP=8 BS=4",
                                      d));
  EXPECT_EQ(d.decode.bs, 4);
  EXPECT_FALSE(has_notes_deployment("agg: tp=4 pp=1 attn_dp=1 moe_tp=4 moe_ep=1 batch=128"));
  EXPECT_FALSE(has_notes_deployment("id=dsr1_b200_trtllm_fp4_disagg_1024x1024_c4_cfg1"));  // the id alone
}

// The AIConfigurator sample's 2,656 rows without worker counts or batches, and fields cut short or
// misspelt: each a reason naming what is missing, never a guess.
TEST(NotesDeployment, PartialOrMalformedFieldsAreNamedReasons) {
  NotesDeployment d;
  auto err = parse_notes_deployment(
      "wip=False; disagg: prefill: workers= tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=; decode: workers= tp=8 pp=1 "
      "attn_dp=1 moe_tp=1 moe_ep=8 bs=; num_gpus derived with AIC formula workers*tp*pp*attn_dp",
      d);
  ASSERT_TRUE(err);
  EXPECT_TRUE(has(*err, "prefill workers, decode workers, decode bs blank")) << *err;
  EXPECT_FALSE(has(*err, "prefill bs")) << *err;  // the prefill batch is not an input

  err = parse_notes_deployment("disagg: prefill: workers=1 tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=1", d);
  ASSERT_TRUE(err);
  EXPECT_TRUE(has(*err, "the decode pool")) << *err;

  err = parse_notes_deployment("disagg: prefill: workers=1 tp=4 pp=1 moe_tp=1 moe_ep=4 bs=1; decode: workers=1 tp=8 "
                               "pp=1 attn_dp=1 moe_tp=1 moe_ep=8 bs=2",
                               d);
  ASSERT_TRUE(err);
  EXPECT_TRUE(has(*err, "prefill attn_dp")) << *err;

  for (const auto& [notes, what] : std::vector<std::pair<std::string, std::string>>{
           {"disagg: prefill: workers=1 tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=1; decode: workers=x tp=8 pp=1 "
            "attn_dp=1 moe_tp=1 moe_ep=8 bs=2",
            "decode workers='x'"},
           {"disagg: prefill: workers=1 tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=1; decode: workers=1 tp=0 pp=1 "
            "attn_dp=1 moe_tp=1 moe_ep=8 bs=2",
            "decode tp='0'"},
           {"disagg: prefill: workers=1 tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=1; decode: workers=1 tp=8 pp=1 "
            "attn_dp=1 moe_tp=1 moe_ep=8 bs=-3",
            "decode bs='-3'"},
           {"disagg: prefill: workers=1 tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=1; decode: workers=1 tp=8 pp=1 "
            "attn_dp=1 moe_tp=1 moe_ep=8 bs=1e300",
            "decode bs='1e300'"},
           {"disagg: prefill: workers=1 tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=1 nextn=3; decode: workers=1 tp=8 "
            "pp=1 attn_dp=1 moe_tp=1 moe_ep=8 bs=2",
            "prefill 'nextn=3'"},
           {"disagg: prefill: workers=1 tp=4 tp=8 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=1; decode: workers=1 tp=8 "
            "pp=1 attn_dp=1 moe_tp=1 moe_ep=8 bs=2",
            "prefill tp given twice"},
           {"disagg: prefill: workers=4096 tp=4096 pp=1 attn_dp=1 moe_tp=1 moe_ep=1 bs=1; decode: workers=1 tp=8 "
            "pp=1 attn_dp=1 moe_tp=1 moe_ep=8 bs=2",
            "over 100000 GPUs"}}) {
    err = parse_notes_deployment(notes, d);
    ASSERT_TRUE(err) << notes;
    EXPECT_TRUE(has(*err, what)) << *err;
  }
}

TEST(NotesDeployment, PoolsBecomeWorkersOfTpTimesAttnDpGpus) {
  const ModelArch r1 = resolve_model("deepseek-r1");
  NotesDeployment n;
  ASSERT_FALSE(parse_notes_deployment(
      "disagg: prefill: workers=1 tp=1 pp=1 attn_dp=4 moe_tp=1 moe_ep=4 bs=1; decode: workers=2 tp=1 pp=1 "
      "attn_dp=8 moe_tp=1 moe_ep=8 bs=137",
      n));
  DisaggregatedDeployment d;
  std::vector<std::string> notes;
  ASSERT_FALSE(notes_disaggregated(r1, n, d, notes));
  EXPECT_EQ(d.prefill.tp, 4);
  EXPECT_TRUE(d.prefill.attention_dp);
  EXPECT_EQ(d.prefill.ep, 4);
  EXPECT_EQ(d.prefill_gpus, 4);
  EXPECT_EQ(d.decode.tp, 8);
  EXPECT_TRUE(d.decode.attention_dp);
  EXPECT_EQ(d.decode_gpus, 16);
  EXPECT_EQ(d.decode_max_batch, 137);  // per attention rank: 2 x 8 x 137 = 2,192 slots, the row's clients
  ASSERT_FALSE(notes.empty());
  EXPECT_TRUE(has(notes.back(), "2192 slots")) << notes.back();

  // TP attention with EP MoE (SGLang TP8/EP8): no attention-DP; MoE-TP inside attention-DP.
  ASSERT_FALSE(parse_notes_deployment("disagg: prefill: workers=1 tp=8 pp=1 attn_dp=1 moe_tp=1 moe_ep=8 bs=1; decode: "
                                      "workers=1 tp=1 pp=1 attn_dp=4 moe_tp=4 moe_ep=1 bs=4",
                                      n));
  ASSERT_FALSE(notes_disaggregated(r1, n, d, notes));
  EXPECT_EQ(d.prefill.tp, 8);
  EXPECT_FALSE(d.prefill.attention_dp);
  EXPECT_EQ(d.prefill.ep, 8);
  EXPECT_EQ(d.decode.tp, 4);
  EXPECT_TRUE(d.decode.attention_dp);
  EXPECT_EQ(d.decode.ep, 1);

  // A dense model: attention-DP ranks are workers of their own; moe fields (0) do not apply.
  const ModelArch q = resolve_model("qwen3-32b");
  ASSERT_FALSE(parse_notes_deployment("disagg: prefill: workers=8 tp=1 pp=1 attn_dp=1 moe_tp=0 moe_ep=0 bs=1; decode: "
                                      "workers=2 tp=4 pp=1 attn_dp=1 moe_tp=0 moe_ep=0 bs=224",
                                      n));
  ASSERT_FALSE(notes_disaggregated(q, n, d, notes));
  EXPECT_EQ(d.prefill_gpus, 8);
  EXPECT_EQ(d.decode.tp, 4);
  EXPECT_EQ(d.decode_gpus, 8);
  EXPECT_EQ(d.decode.ep, 1);
}

TEST(NotesDeployment, WhatTheModelCannotExpressIsAReason) {
  const ModelArch r1 = resolve_model("deepseek-r1");
  const ModelArch qwen_moe = resolve_model("qwen3-235b-a22b");
  for (const auto& [notes, model, what] : std::vector<std::tuple<std::string, const ModelArch*, std::string>>{
           {"disagg: prefill: workers=1 tp=4 pp=2 attn_dp=1 moe_tp=1 moe_ep=4 bs=1; decode: workers=1 tp=8 pp=1 "
            "attn_dp=1 moe_tp=1 moe_ep=8 bs=2",
            &r1, "pipeline-parallel prefill"},
           {"disagg: prefill: workers=1 tp=2 pp=1 attn_dp=4 moe_tp=1 moe_ep=8 bs=1; decode: workers=1 tp=8 pp=1 "
            "attn_dp=1 moe_tp=1 moe_ep=8 bs=2",
            &r1, "tensor-parallel attention inside attention-DP"},
           {"disagg: prefill: workers=2 tp=1 pp=1 attn_dp=4 moe_tp=0 moe_ep=0 bs=1; decode: workers=1 tp=1 pp=1 "
            "attn_dp=8 moe_tp=0 moe_ep=0 bs=7",
            &qwen_moe, "MoE split unstated"},
           {"disagg: prefill: workers=1 tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=1; decode: workers=1 tp=8 pp=1 "
            "attn_dp=1 moe_tp=2 moe_ep=8 bs=2",
            &r1, "moe_tp 2 x moe_ep 8 is not"}}) {
    NotesDeployment n;
    ASSERT_FALSE(parse_notes_deployment(notes, n)) << notes;
    DisaggregatedDeployment d;
    std::vector<std::string> a;
    const auto err = notes_disaggregated(*model, n, d, a);
    ASSERT_TRUE(err) << notes;
    EXPECT_TRUE(has(*err, what)) << *err;
  }
}

// Rows of the inference schema with a "disagg:" deployment become disaggregated cases of that
// deployment, as InferenceX-style closed-loop clients behind Dynamo's front end; partial notes are
// counted skips naming what is missing.
TEST(NotesDeployment, InferenceRowsBecomeDisaggregatedCases) {
  const std::string head =
      "source_id,source_url_or_path,model,params_B,active_params_B,gpu,num_gpus,tp,ep,pp,precision_weights,"
      "precision_kv,framework,isl,osl,concurrency_or_batch,scenario,metric,value,notes\n";
  const std::string deployment =
      "disagg: prefill: workers=1 tp=1 pp=1 attn_dp=4 moe_tp=1 moe_ep=4 bs=1; decode: workers=2 tp=1 pp=1 "
      "attn_dp=8 moe_tp=1 moe_ep=8 bs=137; num_gpus derived with AIC formula workers*tp*pp*attn_dp";
  const CsvTable t = parse_csv(
      head + "AIC-silicon-refs,x,DeepSeek-V3,671,37,B200,20,,,,gemm=nvfp4; moe=nvfp4,,trtllm 0.8.1.post1,1024,1024,2192,"
             "server,ttft_ms,2825.129,\"id=dsr1_b200_trtllm_fp4_disagg_1024x1024_c2192_cfg346; " + deployment + "\"\n" +
          "AIC-silicon-refs,x,DeepSeek-V3,671,37,B200,20,,,,gemm=nvfp4; moe=nvfp4,,trtllm 0.8.1.post1,1024,1024,,"
          "server,tpot_ms,24,\"" + deployment + "\"\n" +
          "AIC-silicon-refs,x,DeepSeek-V3,671,37,B200,24,,,,gemm=nvfp4; moe=nvfp4,,trtllm 0.8.1.post1,1024,1024,2192,"
          "server,tpot_ms,24,\"" + deployment + "\"\n" +
          "AIC-silicon-sample,x,DeepSeek-R1,,,B200,0,,,,gemm=fp8; moe=fp8_block,,trtllm,1024,1024,4,server,ttft_ms,200,"
          "\"wip=False; disagg: prefill: workers= tp=4 pp=1 attn_dp=1 moe_tp=1 moe_ep=4 bs=; decode: workers= tp=8 pp=1 "
          "attn_dp=1 moe_tp=1 moe_ep=8 bs=; num_gpus derived with AIC formula workers*tp*pp*attn_dp\"\n",
      "inline");
  const Catalog catalog = Catalog::load({});
  std::vector<SkippedRow> skipped;
  const auto cases = map_inference_cases(t, catalog, skipped);
  ASSERT_EQ(cases.size(), 2u);
  ASSERT_EQ(skipped.size(), 2u);
  const InferenceCase& c = cases[0];
  EXPECT_EQ(c.mode, InferenceMode::disaggregated);
  EXPECT_EQ(c.deployment, "disaggregated");
  EXPECT_EQ(c.disagg.prefill_gpus, 4);
  EXPECT_EQ(c.disagg.decode_gpus, 16);
  EXPECT_EQ(c.disagg.decode_max_batch, 137);
  EXPECT_EQ(c.workload.arrival, Arrival::closed_loop);
  EXPECT_EQ(c.workload.requests_per_client, 10);  // AIConfigurator's TTFT is the run's mean (wave included)
  EXPECT_EQ(c.workload.isl, 922);
  EXPECT_DOUBLE_EQ(c.workload.request_overhead_s, engine_params(catalog, "Dynamo + TensorRT-LLM").request_overhead_s);
  EXPECT_GT(c.workload.request_overhead_s, 0.0);  // a fitted front end (its size against trtllm's is the fit's)
  const InferenceResult r = evaluate_case(c);
  EXPECT_TRUE(r.disaggregated);
  EXPECT_EQ(r.max_concurrency, 2192);  // 2 workers x 8 ranks x 137: the row's clients
  EXPECT_GT(inference_metric(c, r), 0);
  // Concurrency blank: AIConfigurator's concurrency of a disaggregated deployment, the decode slots.
  EXPECT_EQ(cases[1].workload.concurrency, 0);
  EXPECT_EQ(evaluate_case(cases[1]).concurrency, 2192);
  EXPECT_TRUE(has(skipped[0].reason, "num_gpus 24 is not")) << skipped[0].reason;
  EXPECT_TRUE(has(skipped[1].reason, "prefill workers, decode workers, decode bs blank")) << skipped[1].reason;
  EXPECT_EQ(skip_reason_counts(skipped).size(), 2u);
}

}  // namespace
}  // namespace gpuplan
