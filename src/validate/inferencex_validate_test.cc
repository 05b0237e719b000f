// The serving model against InferenceX's DeepSeek-R1 points (shared/data/benchmarks/
// inferencex-deepseek-r1.csv): goldens on three published points (aggregated H200 FP8, disaggregated
// GB200 FP4, an MTP point), and the whole file's accuracy as score.py splits it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "inference/speculative.h"
#include "validate/inference_cases.h"
#include "validate/inferencex_cases.h"
#include "validate/validation.h"

namespace gpuplan {
namespace {

const std::string kFile = std::string(GPUPLAN_SHARED_DATA_DIR) + "/benchmarks/inferencex-deepseek-r1.csv";

bool have_data() { return std::filesystem::exists(kFile); }

struct Mapped {
  CsvTable table;
  std::vector<InferenceCase> cases;
  std::vector<SkippedRow> skipped;
};

const Mapped& mapped() {
  static const Mapped m = [] {
    Mapped x;
    x.table = read_csv_file(kFile, "--dataset");
    x.cases = map_inferencex_cases(x.table, Catalog::load({}), x.skipped);
    return x;
  }();
  return m;
}

// Predicted / reported of each of a row's metrics (0-based data row).
std::map<std::string, double> ratios(size_t row) {
  std::map<std::string, double> out;
  for (const auto& c : mapped().cases)
    if (c.row == row) out[c.metric] = predict_inference_case(c) / c.reported;
  return out;
}

// Goldens: throughput per GPU and TPOT within 20% of the published point (the model's error on the
// file is a median ~20%; these points sit inside it, and a regression of the deployment physics
// moves them out).
void expect_golden(size_t row, const char* what) {
  const auto r = ratios(row);
  ASSERT_EQ(r.size(), 4u) << what;
  EXPECT_NEAR(r.at("tokens_per_sec_per_gpu"), 1.0, 0.20) << what;
  EXPECT_NEAR(r.at("tpot_ms"), 1.0, 0.20) << what;
  EXPECT_NEAR(r.at("tokens_per_sec_per_user"), 1.0, 0.20) << what;
}

TEST(InferenceXValidation, SchemaIsRecognised) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  EXPECT_TRUE(is_inferencex_schema(mapped().table));
  EXPECT_FALSE(is_inference_schema(mapped().table));
}

// H200 TensorRT-LLM FP8, 1024/1024, TP8 EP8, 8 clients: 65.3 tok/s/GPU, TPOT 14.7 ms.
TEST(InferenceXValidation, GoldenAggregatedH200Fp8) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  ASSERT_EQ(t.cell(274, "gpu"), "H200-SXM");
  ASSERT_EQ(t.cell(274, "disaggregated"), "no");
  ASSERT_EQ(t.cell(274, "concurrency"), "8");
  expect_golden(274, "H200 aggregated");
}

// GB200 NVL72 Dynamo + SGLang NVFP4, 1024/1024: 16 prefill GPUs, one 32-wide attention-DP/EP decode
// worker, 4096 clients: 3355 tok/s/GPU over all 48 GPUs, TPOT 22.1 ms.
TEST(InferenceXValidation, GoldenDisaggregatedGb200Fp4) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  ASSERT_EQ(t.cell(190, "gpu"), "GB200");
  ASSERT_EQ(t.cell(190, "disaggregated"), "yes");
  ASSERT_EQ(t.cell(190, "precision"), "NVFP4");
  expect_golden(190, "GB200 disaggregated");
}

// B200 TensorRT-LLM FP8 with MTP, 1024/8192, 8 clients: 121.6 tok/s/GPU, TPOT 8.0 ms.
TEST(InferenceXValidation, GoldenMtpPoint) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  ASSERT_EQ(t.cell(89, "spec_decode"), "mtp");
  ASSERT_EQ(t.cell(89, "gpu"), "B200");
  expect_golden(89, "B200 MTP");
  for (const auto& c : mapped().cases)
    if (c.row == 89) {
      EXPECT_GT(c.workload.mtp_draft_tokens, 0);
    }
}

// One run, one deployment: every aggregated SGLang row of the file, written as AIConfigurator's
// silicon sample writes the same run (the inference schema, "agg: tp= ..." notes), maps to the same
// receive interval through the inference-schema mapping.
TEST(InferenceXValidation, AiConfiguratorFormOfARunTakesTheSameReceiveInterval) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  std::string csv =
      "source_id,source_url_or_path,model,params_B,active_params_B,gpu,num_gpus,tp,ep,pp,precision_weights,"
      "precision_kv,framework,isl,osl,concurrency_or_batch,scenario,metric,value,notes\n";
  std::vector<const InferenceCase*> own;
  for (const auto& c : mapped().cases) {
    if (t.cell(c.row, "framework") != "SGLang" || c.metric != "ttft_ms") continue;
    const bool dp = t.cell(c.row, "decode_attention_dp") == "yes";
    const std::string prec = t.cell(c.row, "precision");
    const std::string w = prec == "FP8" ? "gemm=fp8; moe=fp8_block" : prec == "NVFP4" ? "gemm=nvfp4; moe=nvfp4" : prec;
    csv += fmt::format("AIC-x,z,DeepSeek-R1,671,37,{},{},{},{},1,{},,sglang,{},{},{},server,ttft_ms,{},"
                       "agg: tp={} pp=1 attn_dp={} moe_tp={} moe_ep={} batch={}\n",
                       t.cell(c.row, "gpu"), c.parallel.tp, c.parallel.tp, c.parallel.ep, w, t.cell(c.row, "isl"),
                       t.cell(c.row, "osl"), t.cell(c.row, "concurrency"), c.reported,
                       dp ? 1 : c.parallel.tp, dp ? c.parallel.tp : 1, dp ? 1 : c.parallel.tp / c.parallel.ep,
                       c.parallel.ep, t.cell(c.row, "concurrency"));
    own.push_back(&c);
  }
  ASSERT_GT(own.size(), 20u);
  std::vector<SkippedRow> skipped;
  const auto aic = map_inference_cases(parse_csv(csv, "inline"), Catalog::load({}), skipped);
  ASSERT_EQ(aic.size(), own.size());
  size_t blackwell = 0;
  for (size_t k = 0; k < own.size(); ++k) {
    EXPECT_EQ(aic[k].workload.scheduler_recv_interval, own[k]->workload.scheduler_recv_interval) << own[k]->row;
    if (own[k]->workload.scheduler_recv_interval > 1) ++blackwell;
  }
  EXPECT_GT(blackwell, 10u);
}

// The run configuration each row gets from the engine's InferenceX scripts / srt-slurm recipes:
// SGLang's receive interval on B200/B300 (30 at concurrency >= 16, 10 below; 10 for FP8 at TP 4, the
// scripts' TP 4 branch; 1 elsewhere), its FP8
// KV cache on Blackwell (BF16 on Hopper), 2 MTP drafts for SGLang on NVIDIA (3 elsewhere), and the
// TTFT figure taken at the steady state (the file's medians).
TEST(InferenceXValidation, RecipeSettingsPerEngineAndGpu) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  size_t checked = 0;
  for (const auto& c : mapped().cases) {
    const std::string fw = t.cell(c.row, "framework"), gpu = t.cell(c.row, "gpu");
    const bool blackwell = gpu == "B200" || gpu == "B300" || gpu == "GB200";
    if (fw == "SGLang" && (gpu == "B200" || gpu == "B300")) {
      const bool fp8_tp4 = t.cell(c.row, "precision") == "FP8" && c.parallel.tp == 4;
      EXPECT_EQ(c.workload.scheduler_recv_interval, fp8_tp4 ? 10 : c.workload.concurrency >= 16 ? 30 : 10) << c.row;
      EXPECT_DOUBLE_EQ(c.workload.kv_bytes_per_element, 1.0) << c.row;
      ++checked;
    } else {
      // Dynamo + SGLang decode workers whose recipe sets the interval (the low-latency ones:
      // DynamoDecodeRecipes.SglangRowsTakeTheirRecipesDecodeSide) run it; every other row polls each step.
      bool decode_recipe = false;
      for (const auto& a : c.assumptions)
        decode_recipe = decode_recipe || a.find("decode workers receive requests every") != std::string::npos;
      EXPECT_EQ(c.workload.scheduler_recv_interval, decode_recipe && fw == "Dynamo + SGLang" ? 10 : 1) << c.row;
    }
    if (fw == "SGLang" && gpu == "H200-SXM") {
      EXPECT_DOUBLE_EQ(c.workload.kv_bytes_per_element, 2.0) << c.row;
    }
    if (fw == "Dynamo + SGLang" && blackwell) {
      EXPECT_DOUBLE_EQ(c.workload.kv_bytes_per_element, 1.0) << c.row;
    }
    if (fw.find("MoRI") != std::string::npos) {  // the recipes' --kv-cache-dtype fp8_e4m3
      EXPECT_DOUBLE_EQ(c.workload.kv_bytes_per_element, 1.0) << c.row;
    }
    if (c.spec_decode == "mtp") {
      const bool sglang_nvidia =
          fw.find("SGLang") != std::string::npos && fw.find("MoRI") == std::string::npos && gpu.rfind("MI", 0) != 0;
      const bool trt_adp = fw == "TensorRT-LLM" && t.cell(c.row, "decode_attention_dp") == "yes";
      // Dynamo + TensorRT-LLM rows with a matching decode recipe take its num_nextn_predict_layers
      // (DynamoDecodeRecipes.RowsTakeTheirRecipesDecodeSide).
      bool from_recipe = false;
      for (const auto& a : c.assumptions) from_recipe = from_recipe || a.find("the decode recipe's") != std::string::npos;
      // SGLang + MoRI rows take InferenceX's sweep config's DECODE_MTP_SIZE where it states one
      // (MoriMtpRecipes.*), the default 3 where it does not.
      bool from_sweep = false;
      for (const auto& a : c.assumptions) from_sweep = from_sweep || a.find("DECODE_MTP_SIZE,") != std::string::npos;
      // InferenceX's in-tree B200 FP4 8K/1K low-latency recipes (June 2026) run EAGLE with 3 steps.
      const bool sglang_recipe = fw == "Dynamo + SGLang" && from_recipe;
      if ((fw == "Dynamo + TensorRT-LLM" && from_recipe) || (fw.find("MoRI") != std::string::npos && from_sweep) ||
          sglang_recipe) {
        EXPECT_GE(c.workload.mtp_draft_tokens, 1) << c.row;
        EXPECT_LE(c.workload.mtp_draft_tokens, 3) << c.row;
      } else if (fw == "ATOM") {
        // The ATOM scripts pass --num-speculative-tokens 3 only for FP8 from 2026-04-02; ATOM's default
        // is 1.
        const bool fp8_count = c.precision_name == "FP8" && t.cell(c.row, "date") >= "2026-04-02";
        EXPECT_EQ(c.workload.mtp_draft_tokens, fp8_count ? 3 : 1) << c.row;
      } else {
        EXPECT_EQ(c.workload.mtp_draft_tokens, sglang_nvidia ? 2 : (trt_adp ? 1 : 3)) << c.row;
      }
    }
    // Aggregated SGLang and ATOM prefill in forwards of their own; TensorRT-LLM mixes, and
    // disaggregated decode workers carry no prompts.
    EXPECT_EQ(c.workload.prefill_separate, fw == "SGLang" || fw == "ATOM") << c.row;
    // Every case is the run (10 requests a client, the opening wave included); the TTFT case reads
    // the run's median request: an aggregated run's steady state, a disaggregated run's replayed
    // where clients exceed the slots. Only that case asks for it (and pays the replay).
    EXPECT_EQ(c.workload.requests_per_client, 10) << c.row;
    EXPECT_EQ(c.workload.ttft_median, c.metric == "ttft_ms") << c.row;
    EXPECT_DOUBLE_EQ(c.workload.length_low_fraction, 0.8) << c.row;
  }
  EXPECT_GT(checked, 100u);
}

// SGLang and ATOM run a prompt's prefill in a forward of its own, which every running sequence waits
// for (and which streams the weights again); TensorRT-LLM rides it in the decodes' forward. MI355X
// ATOM FP8 8192/1024, TP8, 128 clients: 57.4 ms TPOT, 1,143 tok/s/GPU (TPOT 0.89x and throughput
// 1.11x with the prompts riding along). Within 15%: cdna4's serving values refit on all 118 MI355X
// TPOTs at the MLA decode rate (hbm 0.706 -> 0.611, step 1.33 -> 1.70 ms) put this point at 1.12x (1.06x before).
TEST(InferenceXValidation, GoldenSeparatePrefillAtom) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  ASSERT_EQ(t.cell(327, "gpu"), "MI355X");
  ASSERT_EQ(t.cell(327, "framework"), "ATOM");
  ASSERT_EQ(t.cell(327, "concurrency"), "128");
  expect_golden(327, "MI355X ATOM 8K/1K");
  EXPECT_NEAR(ratios(327).at("tpot_ms"), 1.0, 0.15);
}

// A published point whose inter-token latency is the decode step: H100 Dynamo + SGLang TP16 MTP decode
// workers stream every step (srt-slurm recipes/h100/1k1k/mtp: stream-interval 1), 1024/1024, 8 clients
// over two workers: median ITL 25.49 ms, TPOT 11.46 ms (2.22 tokens a step). SGLang's EAGLE worker on
// FlashInfer runs its draft extend eagerly and its host work in series with the GPU: the predicted
// step (TPOT x the accepted length) was 15.2 ms without it (0.60x of the ITL).
TEST(InferenceXValidation, GoldenSglangHopperMtpStepIsTheItl) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  ASSERT_EQ(t.cell(218, "gpu"), "H100-SXM");
  ASSERT_EQ(t.cell(218, "framework"), "Dynamo + SGLang");
  ASSERT_EQ(t.cell(218, "spec_decode"), "mtp");
  ASSERT_EQ(t.cell(218, "median_itl_ms"), "25.4893");
  bool seen = false;
  for (const auto& c : mapped().cases) {
    if (c.row != 218 || c.metric != "tpot_ms") continue;
    seen = true;
    EXPECT_TRUE(c.workload.mtp_host_in_series);
    EXPECT_TRUE(c.workload.mtp_draft_extend_eager);
    const double tpot_ms = predict_inference_case(c);
    EXPECT_NEAR(tpot_ms / 11.4648, 1.0, 0.20);
    const double step_ms = tpot_ms * mtp_accepted_length(c.workload.mtp_draft_tokens, c.workload.mtp_accept);
    EXPECT_NEAR(step_ms / 25.4893, 1.0, 0.25) << step_ms;
    InferenceCase overlapped = c;
    overlapped.workload.mtp_host_in_series = false;
    EXPECT_LT(predict_inference_case(overlapped), 0.8 * tpot_ms);
  }
  EXPECT_TRUE(seen);
}

// InferenceX's aggregated TensorRT-LLM MTP scripts draft 1 token with attention-DP (3 without):
// B200 FP8 DEP8 1024/1024, 256 clients: 21.4 ms TPOT (0.88x with 3 drafts).
TEST(InferenceXValidation, GoldenTensorRtAttentionDpMtpDraftsOne) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  ASSERT_EQ(t.cell(87, "framework"), "TensorRT-LLM");
  ASSERT_EQ(t.cell(87, "decode_attention_dp"), "yes");
  ASSERT_EQ(t.cell(87, "spec_decode"), "mtp");
  expect_golden(87, "B200 DEP8 MTP");
  for (const auto& c : mapped().cases) {
    if (c.row == 87) {
      EXPECT_EQ(c.workload.mtp_draft_tokens, 1);
    }
  }
}

// TensorRT-LLM attention-DP points (InferenceX's trtllm-serve config: enable_balance, timeout_iters
// 60): the median TTFT holds the balancer's wait. B200 FP8 DEP8 1024/1024, 256 clients: 1,331.5 ms
// measured (0.18 s predicted without the balancer); B200 NVFP4 DEP4, 256 clients: 1,016.1 ms.
TEST(InferenceXValidation, GoldenAttentionDpBalanceTtft) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  for (size_t row : {size_t(107), size_t(133)}) {
    ASSERT_EQ(t.cell(row, "framework"), "TensorRT-LLM");
    ASSERT_EQ(t.cell(row, "decode_attention_dp"), "yes");
    ASSERT_EQ(t.cell(row, "concurrency"), "256");
    for (const auto& c : mapped().cases) {
      if (c.row != row || c.metric != "ttft_ms") continue;
      EXPECT_EQ(c.workload.adp_balance_timeout_iters, 60);
      EXPECT_NEAR(predict_inference_case(c) / c.reported, 1.0, 0.35) << row;
      InferenceCase plain = c;
      plain.workload.adp_balance_timeout_iters = 0;
      EXPECT_LT(predict_inference_case(plain) / c.reported, 0.3) << row;
    }
  }
  for (const auto& c : mapped().cases)  // only aggregated TensorRT-LLM rows with attention-DP
    if (c.workload.adp_balance_timeout_iters > 0) {
      EXPECT_EQ(t.cell(c.row, "framework"), "TensorRT-LLM");
      EXPECT_TRUE(c.parallel.attention_dp);
    }
}

// InferenceX's SGLang + MoRI decode cap (benchmarks/multi_node/amd_utils: models.yaml + server.sh):
// 160 per attention-DP rank, 256 per worker with EP only, 128 without either, from the in-tree recipe
// (FP8 from 2026-02-16, MXFP4 from 2026-02-19; MXFP4 attention-DP 512 from 2026-05-07); DP + EP
// decode takes the sweep's top concurrency from 2026-05-31. Before the in-tree recipe, the stored
// sglang_disagg branches: 256 a worker without attention-DP, 8192 a worker with it (no cap below the
// clients); none before the first MoRI run (2026-01-08).
TEST(InferenceXValidation, MoriDecodeCapByRecipeDate) {
  EXPECT_EQ(mori_decode_cap("2026-03-03", Precision::fp8, true, true).max_batch, 160);
  EXPECT_EQ(mori_decode_cap("2026-03-03", Precision::nvfp4, false, true).max_batch, 256);
  EXPECT_EQ(mori_decode_cap("2026-05-28", Precision::nvfp4, false, false).max_batch, 128);
  EXPECT_EQ(mori_decode_cap("2026-05-31", Precision::nvfp4, false, false).max_batch, 128);
  EXPECT_EQ(mori_decode_cap("2026-05-06", Precision::nvfp4, true, true).max_batch, 160);
  EXPECT_EQ(mori_decode_cap("2026-05-27", Precision::nvfp4, true, true).max_batch, 512);
  EXPECT_EQ(mori_decode_cap("2026-05-27", Precision::fp8, true, false).max_batch, 160);
  EXPECT_EQ(mori_decode_cap("2026-05-31", Precision::nvfp4, true, true).max_batch, 0);
  EXPECT_EQ(mori_decode_cap("2026-02-16", Precision::fp8, false, false).max_batch, 128);
  EXPECT_EQ(mori_decode_cap("2026-02-16", Precision::nvfp4, false, false).max_batch, 256);
  EXPECT_EQ(mori_decode_cap("2026-02-13", Precision::nvfp4, false, true).max_batch, 256);
  EXPECT_EQ(mori_decode_cap("2026-02-15", Precision::fp8, false, true).max_batch, 256);
  EXPECT_EQ(mori_decode_cap("2026-02-06", Precision::fp8, true, true).max_batch, 0);
  EXPECT_EQ(mori_decode_cap("2026-01-07", Precision::fp8, false, true).max_batch, 0);
  EXPECT_EQ(mori_decode_cap("", Precision::fp8, true, true).max_batch, 0);
  EXPECT_EQ(mori_decode_cap("26-3-3", Precision::fp8, true, true).max_batch, 0);
}

// Only MoRI and Dynamo (TensorRT-LLM, SGLang) rows carry the cap; where it binds (clients above the decode slots) it lowers the
// predicted throughput and raises the predicted TTFT against the same row uncapped, and never the
// reverse (the clients beyond the slots wait before decode).
TEST(InferenceXValidation, MoriDecodeCapQueuesClients) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  size_t capped = 0, binding = 0;
  for (const auto& c : mapped().cases) {
    const bool mori = t.cell(c.row, "framework").find("MoRI") != std::string::npos;
    // Dynamo rows take their decode recipe's batch cap (DynamoDecodeRecipes.*): the same monotone
    // checks, not the MoRI goldens' decode-lifetime wait.
    const bool dynamo = t.cell(c.row, "framework") == "Dynamo + TensorRT-LLM" ||
                        t.cell(c.row, "framework") == "Dynamo + SGLang";
    if (!mori && !dynamo) {
      EXPECT_EQ(c.disagg.decode_max_batch, 0) << c.row;
      continue;
    }
    if (c.disagg.decode_max_batch == 0) continue;
    ++capped;
    InferenceCase open = c;
    open.disagg.decode_max_batch = 0;
    const double with = predict_inference_case(c), without = predict_inference_case(open);
    const long long ranks = c.disagg.decode.attention_dp ? c.disagg.decode.tp : 1;
    const long long slots = c.disagg.decode_max_batch * ranks * (c.disagg.decode_gpus / c.disagg.decode.tp);
    if (c.metric == "tokens_per_sec_per_gpu") {
      // Within 3%: where the uncapped batch's GEMMs are compute-bound (FP8 block-scaled experts at a
      // few thousand sequences) a capped batch can come out slightly more efficient per sequence (the
      // last 64-row tile and the expert spread); the queue itself never adds throughput.
      EXPECT_LE(with, without * 1.03) << c.row;
    }
    if (c.metric == "ttft_ms") {
      // The mean: the queue only adds to it. (The median can fall: the cap throttles the prefill
      // pool's load too, and which requests wait is the run's burst, ClosedLoopReplay.*.)
      InferenceCase mean = c, open_mean = open;
      mean.workload.ttft_median = open_mean.workload.ttft_median = false;
      EXPECT_GE(predict_inference_case(mean), predict_inference_case(open_mean) * (1 - 1e-9)) << c.row;
    }
    if (mori && c.metric == "ttft_ms" && c.workload.concurrency > slots) {
      // Clients the uncapped run decodes at once (Little's law over its mean TTFT and decode
      // lifetime): a run its prefill pool limits (8K prompts on one worker) never fills the slots,
      // and the cap changes nothing there.
      InferenceCase tpot = open, mean_open = open;
      tpot.metric = "tpot_ms";
      mean_open.workload.ttft_median = false;
      const double life_ms = predict_inference_case(tpot) * static_cast<double>(c.workload.osl);
      const double decoding =
          static_cast<double>(c.workload.concurrency) * life_ms / (predict_inference_case(mean_open) + life_ms);
      if (decoding > static_cast<double>(slots)) {
        ++binding;
        EXPECT_GT(with, 10.0 * without) << c.row;  // a decode lifetime's wait, not a prefill's
      } else {
        EXPECT_NEAR(with, without, 0.05 * without) << c.row;
      }
    }
  }
  EXPECT_GT(capped, 60u);
  EXPECT_GE(binding, 1u);
}

// Golden: MI355X MXFP4 1K/1K, prefill 1 x DEP4, decode 1 x DEP8, 2,048 clients (2026-03-13): the
// recipe's 160 per rank hold 1,280 and the rest queue before decode: median TTFT 81.4 s measured,
// 0.25 s predicted without the cap, 16 s with it (the rest of the miss is the decode step: TPOT
// 77.5 ms measured against 29 predicted, so each decode lifetime is 2.7x longer than the model's).
TEST(InferenceXValidation, GoldenMoriQueuedTtft) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  const size_t row = 405;
  ASSERT_EQ(t.cell(row, "framework"), "SGLang + MoRI (disaggregated)");
  ASSERT_EQ(t.cell(row, "date"), "2026-03-13");
  ASSERT_EQ(t.cell(row, "concurrency"), "2048");
  size_t seen = 0;
  for (const auto& c : mapped().cases) {
    if (c.row != row) continue;
    EXPECT_EQ(c.disagg.decode_max_batch, 160);
    InferenceCase open = c;
    open.disagg.decode_max_batch = 0;
    const double with = predict_inference_case(c) / c.reported, without = predict_inference_case(open) / c.reported;
    if (c.metric == "ttft_ms") {
      ++seen;
      EXPECT_GT(with, 0.15);
      EXPECT_LT(with, 1.0);
      EXPECT_LT(without, 0.01);
    }
    if (c.metric == "tokens_per_sec_per_gpu") {
      ++seen;
      EXPECT_LT(with, 0.85 * without);  // 1,280 decoding, not 2,048
    }
  }
  EXPECT_EQ(seen, 2u);
}

// Golden: MI355X MXFP4 1K/1K, the sweep config's "DEP8" (tp 1, ep 8, dp-attn false) of 1 prefill and
// 2 decode workers at 1,024 clients (2026-02-13). The FP4 script of that date passed no TP and set EP
// on: each worker ran TP8 + EP8 without attention-DP, and the sglang_disagg decode server held 256 a
// worker. 512 slots for 1,024 clients: half wait a decode lifetime. Median TTFT 27.6 s measured
// (0.21 s when the row was read as attention-DP without a cap), throughput 224 tokens/s per GPU
// measured (2.5x over then). The config's "TEP8" with ep 1 (row 408, 4 clients) ran EP8 as well.
TEST(InferenceXValidation, GoldenMoriWorkersAsTheLaunchScriptBuiltThem) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  ASSERT_EQ(t.cell(413, "framework"), "SGLang + MoRI (disaggregated)");
  ASSERT_EQ(t.cell(413, "date"), "2026-02-13");
  ASSERT_EQ(t.cell(413, "decode_tp"), "1");
  ASSERT_EQ(t.cell(413, "decode_attention_dp"), "no");
  ASSERT_EQ(t.cell(408, "decode_ep"), "1");
  size_t seen = 0;
  for (const auto& c : mapped().cases) {
    if (c.row != 413 && c.row != 408) continue;
    for (const InferenceParallel& side : {c.disagg.prefill, c.disagg.decode}) {
      EXPECT_EQ(side.tp, 8) << c.row;
      EXPECT_EQ(side.ep, 8) << c.row;
      EXPECT_FALSE(side.attention_dp) << c.row;
    }
    EXPECT_EQ(c.disagg.decode_max_batch, 256) << c.row;
    if (c.row != 413) continue;
    const double ratio = predict_inference_case(c) / c.reported;
    if (c.metric == "ttft_ms") {
      ++seen;
      EXPECT_GT(ratio, 0.6);  // a decode lifetime's wait: 20 s predicted
      EXPECT_LT(ratio, 1.4);
    }
    if (c.metric == "tokens_per_sec_per_gpu") {
      ++seen;
      EXPECT_LT(ratio, 1.5);  // 512 decoding, not 1,024
    }
  }
  EXPECT_EQ(seen, 2u);
  EXPECT_TRUE(mori_launch("2026-02-13", Precision::nvfp4).ep_is_worker);
  EXPECT_FALSE(mori_launch("2026-02-13", Precision::fp8).ep_is_worker);  // PR #674: the config's ep
  EXPECT_TRUE(mori_launch("2026-02-13", Precision::fp8).tp_is_worker);
  EXPECT_TRUE(mori_launch("2026-02-11", Precision::fp8).ep_is_worker);
  EXPECT_FALSE(mori_launch("2026-03-03", Precision::nvfp4).found);  // PR #823: the config's tp and ep
}

// A row whose prefill attention-DP contradicts the recipe in force runs the recipe's worker: the H200
// TensorRT-LLM 8K/1K context workers (recipes/trtllm/h200/8k1k: enable_attention_dp false) of the
// 2026-02-14 rows 247 and 250, which say "yes" and measure what the 2026-03-23 rows 246 and 249 that
// say "no" measure (TTFT 6.27 / 6.27 s, 6.89 / 6.87 s). The workers, the limits and the sentence; the
// pairs then predict alike, and the Feb rows' TTFT within 25% (0.44x and 0.42x with the label's).
TEST(InferenceXValidation, PrefillWorkerAsTheRecipeStatesIt) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  for (const auto& [feb, mar] : {std::pair<size_t, size_t>{247, 246}, {250, 249}}) {
    const InferenceCase* f = nullptr;
    const InferenceCase* m = nullptr;
    for (const auto& c : mapped().cases) {
      if (c.metric != "ttft_ms") continue;
      if (c.row == feb) f = &c;
      if (c.row == mar) m = &c;
    }
    ASSERT_NE(f, nullptr);
    ASSERT_NE(m, nullptr);
    EXPECT_FALSE(f->disagg.prefill.attention_dp) << feb;
    EXPECT_EQ(f->disagg.prefill_max_tokens, m->disagg.prefill_max_tokens) << feb;
    bool said = false;
    for (const auto& a : f->assumptions)
      said = said || a.find("prefill worker without attention-DP as the run's recipe states it") != std::string::npos;
    EXPECT_TRUE(said) << feb;
    EXPECT_NEAR(predict_inference_case(*f) / f->reported, 1.0, 0.25) << feb;
  }
}

// The prefill workers' limits of the recipes behind the rows (NVIDIA/srt-slurm's
// sa-submission-q1-2026 recipes InferenceX's configs name; InferenceX's amd_utils for MoRI): values
// as the recipes state them per attention rank, chosen by engine, GPU, precision, ISL, worker shape
// and date, and none where no stored recipe matches.
TEST(InferenceXValidation, PrefillLimitsByRecipe) {
  // H100 Dynamo + SGLang, TP16 prefill: --max-running-requests 2, 2048-token chunks.
  auto h100 = inferencex_prefill_limits("Dynamo + SGLang", "H100-SXM", "FP8", 8192, 7373, 16, false, false, true,
                                        "2026-02-13");
  EXPECT_TRUE(h100.found);
  EXPECT_EQ(h100.max_batch, 2);
  EXPECT_EQ(h100.max_tokens, 2048);
  // B200 Dynamo + SGLang FP8 8K DEP8 prefill: 1024 / DP 8 requests and 32768 / DP 8 tokens a rank until
  // 2026-03-11; from 2026-03-12 the recipe's 8 requests over DP 8 and 8192 tokens; 32 from 03-23.
  auto feb = inferencex_prefill_limits("Dynamo + SGLang", "B200", "FP8", 8192, 7373, 8, true, true, false,
                                       "2026-02-07");
  EXPECT_EQ(feb.max_batch, 128);
  EXPECT_EQ(feb.max_tokens, 4096);
  auto mar = inferencex_prefill_limits("Dynamo + SGLang", "B200", "FP8", 8192, 7373, 8, true, false, true,
                                       "2026-03-18");
  EXPECT_EQ(mar.max_batch, 1);
  EXPECT_EQ(mar.max_tokens, 8192);
  EXPECT_EQ(inferencex_prefill_limits("Dynamo + SGLang", "B200", "FP8", 8192, 7373, 8, true, false, true,
                                      "2026-03-23").max_batch,
            4);
  // TensorRT-LLM context workers: whole prompts within max_batch_size and max_num_tokens, no held slot.
  auto trt8k = inferencex_prefill_limits("Dynamo + TensorRT-LLM", "B200", "FP8", 8192, 7373, 8, true, true, false,
                                         "2026-02-12");
  EXPECT_EQ(trt8k.max_batch, 0);
  EXPECT_EQ(trt8k.max_tokens, 7373);  // max_batch_size 1
  auto trt1k = inferencex_prefill_limits("Dynamo + TensorRT-LLM", "GB200", "FP8", 1024, 922, 8, true, true, false,
                                         "2026-02-05");
  EXPECT_EQ(trt1k.max_tokens, 16 * 922);  // max_batch_size 16, max_num_tokens 16384
  auto b300 = inferencex_prefill_limits("Dynamo + TensorRT-LLM", "B300", "FP8", 1024, 922, 4, true, true, false,
                                        "2026-02-12");
  EXPECT_EQ(b300.max_tokens, 8 * 922);  // max_batch_size 8 within max_num_tokens 8320
  // The recipe states the H200 TensorRT-LLM context worker without attention-DP: a row stating it
  // with attention-DP matches nothing.
  EXPECT_FALSE(inferencex_prefill_limits("Dynamo + TensorRT-LLM", "H200-SXM", "FP8", 8192, 7373, 8, true, true,
                                         false, "2026-02-14")
                   .found);
  EXPECT_TRUE(inferencex_prefill_limits("Dynamo + TensorRT-LLM", "H200-SXM", "FP8", 8192, 7373, 8, false, true,
                                        false, "2026-03-23")
                  .found);
  // Outside the branches' dates (after srt-slurm's to 2026-03-24, before InferenceX's in-tree recipes
  // of 2026-06-11), other engines, malformed dates: nothing.
  EXPECT_FALSE(inferencex_prefill_limits("Dynamo + SGLang", "B200", "NVFP4", 8192, 7373, 4, false, false, true,
                                         "2026-05-11")
                   .found);
  // InferenceX's in-tree B200 FP4 MTP recipes (PR #1688): the 8K/1K low-latency prefill worker,
  // --chunked-prefill-size 24576 under SGLang's default --max-prefill-tokens 16384, 512 requests; the
  // throughput one, 24576 / DP 4 tokens and 2048 / DP 4 requests a rank.
  const auto june = inferencex_prefill_limits("Dynamo + SGLang", "B200", "NVFP4", 8192, 7373, 4, false, false, true,
                                              "2026-06-11");
  ASSERT_TRUE(june.found);
  EXPECT_EQ(june.max_tokens, 16384);
  EXPECT_EQ(june.max_batch, 512);
  EXPECT_EQ(june.recipe.rfind("SemiAnalysisAI/InferenceX benchmarks/multi_node/", 0), 0u) << june.recipe;
  const auto june_dp = inferencex_prefill_limits("Dynamo + SGLang", "B200", "NVFP4", 8192, 7373, 4, true, true, true,
                                                 "2026-06-11");
  ASSERT_TRUE(june_dp.found);
  EXPECT_EQ(june_dp.max_tokens, 6144);
  EXPECT_EQ(june_dp.max_batch, 512);
  EXPECT_FALSE(inferencex_prefill_limits("SGLang", "B200", "FP8", 8192, 7373, 8, false, false, false, "2026-02-07")
                   .found);
  EXPECT_FALSE(inferencex_prefill_limits("Dynamo + SGLang", "H100-SXM", "FP8", 8192, 7373, 16, false, false, true,
                                         "2026-2-13")
                   .found);
  // MoRI's in-tree recipe: attention-DP 24 requests over the ranks and MORI_MAX_DISPATCH_TOKENS_PREFILL
  // a rank (SGLang's 16384 default caps the step), no_dp 128 requests; the MXFP4 entries chunk 16384
  // in all until 2026-03-12 (dp: 16384 / 4 ranks); 4096 requests and 8192 tokens with dp from 05-07.
  auto mori = mori_prefill_limits("2026-02-23", Precision::fp8, false, 8);
  EXPECT_EQ(mori.max_batch, 128);
  EXPECT_EQ(mori.max_tokens, 16384);
  auto mori_dp = mori_prefill_limits("2026-03-03", Precision::nvfp4, true, 4);
  EXPECT_EQ(mori_dp.max_batch, 6);
  EXPECT_EQ(mori_dp.max_tokens, 4096);
  EXPECT_EQ(mori_prefill_limits("2026-03-13", Precision::nvfp4, true, 4).max_tokens, 16384);
  auto v2 = mori_prefill_limits("2026-05-27", Precision::nvfp4, true, 8);
  EXPECT_EQ(v2.max_batch, 512);
  EXPECT_EQ(v2.max_tokens, 8192);
  // Before it, the stored sglang_disagg branches: 128 requests without attention-DP, 8 a worker
  // with it (one a rank at DP8), chunk 262144 under SGLang's 16384 a step; FP8's in-tree prefill
  // starts 2026-02-19, the branch's ends 2026-02-15 (the pinned 14606ff between: not stored).
  auto branch = mori_prefill_limits("2026-02-13", Precision::nvfp4, false, 8);
  EXPECT_TRUE(branch.found);
  EXPECT_EQ(branch.max_batch, 128);
  EXPECT_EQ(branch.max_tokens, 16384);
  auto branch_dp = mori_prefill_limits("2026-02-12", Precision::fp8, true, 8);
  EXPECT_EQ(branch_dp.max_batch, 1);
  EXPECT_EQ(branch_dp.max_tokens, 16384);
  EXPECT_NE(branch_dp.recipe.find("billishyahao/sglang_disagg"), std::string::npos) << branch_dp.recipe;
  EXPECT_FALSE(mori_prefill_limits("2026-02-17", Precision::fp8, false, 8).found);
  EXPECT_FALSE(mori_prefill_limits("2026-01-07", Precision::nvfp4, false, 8).found);
  EXPECT_FALSE(mori_prefill_limits("", Precision::fp8, false, 8).found);
}

// Every row the recipes cap: the held-request cap never raises the predicted throughput nor lowers
// the predicted TTFT against the same row without it; rows of engines without a table carry none.
TEST(InferenceXValidation, PrefillRequestCapNeverRaisesThroughput) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  size_t capped = 0, limited = 0;
  for (const auto& c : mapped().cases) {
    const std::string fw = t.cell(c.row, "framework");
    if (fw.find("Dynamo") == std::string::npos && fw.find("MoRI") == std::string::npos) {
      EXPECT_EQ(c.disagg.prefill_max_batch, 0) << c.row;
      EXPECT_EQ(c.disagg.prefill_max_tokens, 0) << c.row;
      continue;
    }
    limited += c.disagg.prefill_max_tokens > 0;
    if (c.disagg.prefill_max_batch == 0) continue;
    ++capped;
    InferenceCase open = c;
    open.disagg.prefill_max_batch = 0;
    const double with = predict_inference_case(c), without = predict_inference_case(open);
    if (c.metric == "tokens_per_sec_per_gpu") {
      EXPECT_LE(with, without * (1 + 1e-9)) << c.row;
    }
    if (c.metric == "ttft_ms") {
      InferenceCase mean = c, open_mean = open;  // the mean (the median: see MoriDecodeCapQueuesClients)
      mean.workload.ttft_median = open_mean.workload.ttft_median = false;
      EXPECT_GE(predict_inference_case(mean), predict_inference_case(open_mean) * (1 - 1e-9)) << c.row;
    }
  }
  EXPECT_GT(capped, 150u);   // SGLang and MoRI rows (four metrics each)
  EXPECT_GT(limited, 350u);  // TensorRT-LLM rows too
}

// Golden on a saturated published point: GB200 Dynamo + SGLang NVFP4 8K/1K, 6 TP4 prefill workers
// and one DEP48 decode worker at 2,048 clients (2026-02-08): the recipe (gb200-fp4/8k1k/mid-curve)
// prefills 131,072 tokens a step on each worker. Median TTFT 33.7 s measured: 42 s predicted with the
// 8,192-token default step, 35.7 s with the recipe's; throughput 534 tokens/s per GPU measured, 576.
TEST(InferenceXValidation, GoldenSaturatedPrefillPool) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  const size_t row = 196;
  ASSERT_EQ(t.cell(row, "framework"), "Dynamo + SGLang");
  ASSERT_EQ(t.cell(row, "gpu"), "GB200");
  ASSERT_EQ(t.cell(row, "concurrency"), "2048");
  size_t seen = 0;
  for (const auto& c : mapped().cases) {
    if (c.row != row) continue;
    EXPECT_EQ(c.disagg.prefill_max_tokens, 131072);
    EXPECT_EQ(c.disagg.prefill_max_batch, 30000);
    InferenceCase deflt = c;
    deflt.disagg.prefill_max_tokens = 0;
    const double with = predict_inference_case(c) / c.reported, without = predict_inference_case(deflt) / c.reported;
    if (c.metric == "ttft_ms") {
      ++seen;
      EXPECT_NEAR(with, 1.0, 0.15);
      EXPECT_GT(without, 1.15);  // the default step's pool is slower than the run's
    }
    if (c.metric == "tokens_per_sec_per_gpu") {
      ++seen;
      EXPECT_NEAR(with, 1.0, 0.15);
    }
  }
  EXPECT_EQ(seen, 2u);
}

// Every point maps (disaggregated and MTP ones included) and the file's accuracy holds where it is
// now. The targets (15% / 20% medians, 40% p90) are not met yet; these bounds keep the
// present figures (throughput median 21.8%, latency 26.1%) from sliding back.
TEST(InferenceXValidation, FileAccuracy) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& m = mapped();
  const ValidationReport rep = validate_inference(m.cases, m.skipped, kFile);
  std::vector<double> thr, lat;
  size_t disagg = 0, mtp = 0;
  for (const auto& r : rep.rows) (r.metric == "ttft_ms" || r.metric == "tpot_ms" ? lat : thr).push_back(r.ape_pct);
  for (const auto& c : m.cases) disagg += c.deployment == "disaggregated", mtp += c.spec_decode == "mtp";
  const double metrics = 4.0 * double(m.table.rows.size());
  EXPECT_GE(double(rep.rows.size()), 0.90 * metrics);
  EXPECT_GT(disagg, 600u);
  EXPECT_GT(mtp, 500u);
  const ErrorSummary t = summarize(thr), l = summarize(lat);
  std::printf("inferencex: throughput median %.1f%% p90 %.1f%%; latency median %.1f%% p90 %.1f%%\n",
              t.median_ape_pct, t.p90_ape_pct, l.median_ape_pct, l.p90_ape_pct);
  EXPECT_LT(t.median_ape_pct, 15.0);  // issue 19's targets: 15% / 20% (met: 12.8% / 18.6%)
  EXPECT_LT(l.median_ape_pct, 20.0);
  EXPECT_TRUE(rep.groups.at("deployment").count("disaggregated"));
  EXPECT_TRUE(rep.groups.at("spec_decode").count("mtp"));
}


// Golden on a moderate-load published point (the prefill pool's batched steps): B200 Dynamo +
// TensorRT-LLM FP8 8K/1K, one DEP8 context worker, one DEP8 generation worker, 128 clients
// (2026-02-12): median TTFT 1,165 ms with the pool at about half its capacity, several times one
// prompt alone (~0.35 s at 1 client, row 31). A prompt waits for the running step and rides a step
// of the prompts that arrived during it (prefill_pool_sojourn_s); the single-prompt M/D/1 pool gave
// 806 ms (0.69x).
TEST(InferenceXValidation, GoldenModerateLoadPrefillPoolTtft) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  const size_t row = 32;
  ASSERT_EQ(t.cell(row, "framework"), "Dynamo + TensorRT-LLM");
  ASSERT_EQ(t.cell(row, "gpu"), "B200");
  ASSERT_EQ(t.cell(row, "isl"), "8192");
  ASSERT_EQ(t.cell(row, "concurrency"), "128");
  size_t seen = 0;
  for (const auto& c : mapped().cases) {
    if (c.row != row || c.metric != "ttft_ms") continue;
    ++seen;
    EXPECT_NEAR(predict_inference_case(c) / c.reported, 1.0, 0.2);
  }
  EXPECT_EQ(seen, 1u);
}

// Golden on a published point with a few clients more than the decode slots: H100 Dynamo +
// TensorRT-LLM FP8 1K/1K, one TEP16 context worker, three TEP16 generation workers of 8 sequences
// (max_batch_size 8: 24 slots), 30 clients (2026-02-08): median TTFT 2,191 ms, mean 5,052 ms. The
// run replayed (round-robin workers, each queueing as its sequences finish) puts the median within
// 40%; taking it as one request's own path (no wait: 0.2 s) missed it by 91%.
TEST(InferenceXValidation, GoldenMedianTtftBeyondTheDecodeSlots) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  const size_t row = 228;
  ASSERT_EQ(t.cell(row, "framework"), "Dynamo + TensorRT-LLM");
  ASSERT_EQ(t.cell(row, "gpu"), "H100-SXM");
  ASSERT_EQ(t.cell(row, "concurrency"), "30");
  EXPECT_NEAR(ratios(row).at("ttft_ms"), 1.0, 0.4);
}

// Every case the validation maps from `row` runs `drafts` MTP draft tokens a step.
void expect_draft_tokens(size_t row, int drafts) {
  for (const auto& c : mapped().cases) {
    if (c.row == row) {
      EXPECT_EQ(c.workload.mtp_draft_tokens, drafts) << "row " << row;
    }
  }
}

// An SGLang + MoRI MTP point whose run drafted 1 token a step (InferenceX's sweep config, DECODE_MTP_SIZE=1
// for the DEP8 decode of 2026-02-12; data/recipes/inferencex_mori_mtp.yaml): MI355X FP8 1K/1K, one DEP8
// prefill and two DEP8 decode workers, 256 clients. At the former default of 3 drafts the model's TPOT
// was 0.75x of measured and its tokens/s per GPU 1.6x.
TEST(InferenceXValidation, GoldenMoriMtpDraftsOfTheSweepConfig) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  const size_t row = 384;
  ASSERT_EQ(t.cell(row, "framework"), "SGLang + MoRI (disaggregated)");
  ASSERT_EQ(t.cell(row, "concurrency"), "256");
  ASSERT_EQ(t.cell(row, "spec_decode"), "mtp");
  expect_draft_tokens(row, 1);
  EXPECT_NEAR(ratios(row).at("tpot_ms"), 1.0, 0.15);
  EXPECT_NEAR(ratios(row).at("tokens_per_sec_per_gpu"), 1.0, 0.4);
}

// An ATOM MTP point whose script sets no draft count (benchmarks/single_node/dsr1_fp4_mi355x_atom_mtp.sh:
// `--method mtp` alone), so ATOM drafts its default, 1: MI355X MXFP4 TP8 8K/1K, 4 clients. At 3 drafts
// the model's TPOT was 0.83x of measured.
TEST(InferenceXValidation, GoldenAtomMtpAtItsDefaultDraftCount) {
  if (!have_data()) GTEST_SKIP() << "shared data not present";
  const auto& t = mapped().table;
  const size_t row = 333;
  ASSERT_EQ(t.cell(row, "framework"), "ATOM");
  ASSERT_EQ(t.cell(row, "precision"), "MXFP4");
  ASSERT_EQ(t.cell(row, "spec_decode"), "mtp");
  expect_draft_tokens(row, 1);
  EXPECT_NEAR(ratios(row).at("tpot_ms"), 1.0, 0.12);
}

}  // namespace
}  // namespace gpuplan
