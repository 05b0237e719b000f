// Rows of the InferenceX schema (shared/data/benchmarks/inferencex-deepseek-r1.csv): one measured point
// per row, with the deployment it ran (aggregated engine or prefill + decode pools), MTP on or off,
// and four measured figures; each becomes an inference case.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/csv.h"
#include "core/error.h"
#include "inference/engine.h"
#include "inference/speculative.h"
#include "model/model_registry.h"
#include "validate/inference_cases.h"
#include "validate/inferencex_cases.h"

namespace gpuplan {

namespace {

// Finite and within int range (core/csv.h): the GPU and worker counts become ints.
bool number(const std::string& s, double& out) { return parse_cell_number(s, out); }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

bool resolve_model_name(const std::string& name, ModelArch& m) {
  std::string base = name;
  for (const std::string& tryname : {name, base.substr(0, base.rfind("-0528")), std::string("deepseek-r1")}) {
    try {
      m = resolve_model(tryname, "model");
      return true;
    } catch (const InputError&) {
    }
  }
  return false;
}

// One side's worker: `gpus` over `workers` workers. A worker spans max(TP, EP) GPUs, and where the
// records' TP/EP are narrower than the GPU counts show (some Dynamo + SGLang records carry TP = EP = 1
// per worker), the counts are right: the worker is gpus / workers wide (the file's README). Attention
// runs data-parallel when the row says so or when its TP is narrower than the worker.
bool side_parallel(const ModelArch& m, double gpus, double workers, double tp, double ep, bool attn_dp,
                   InferenceParallel& p, std::vector<std::string>& notes, const char* side) {
  if (!(gpus >= 1) || !(workers >= 1)) return false;
  const int width = static_cast<int>(std::lround(gpus / workers));
  if (width < 1 || std::fabs(width * workers - gpus) > 0.5) return false;
  p.tp = width;
  p.pp = 1;
  int e = std::clamp(static_cast<int>(std::lround(ep >= 1 ? ep : 1)), 1, width);
  if (m.is_moe()) {
    while (e > 1 && (m.moe.num_experts % e || width % e)) --e;
  } else {
    e = 1;
  }
  p.ep = e;
  p.attention_dp = m.is_moe() && (attn_dp || (tp >= 1 && tp < width));
  // No two-batch overlap: none of the runs' recipes enables it (SGLang's --enable-two-batch-overlap
  // appears in no Dynamo + SGLang recipe of NVIDIA/srt-slurm behind these runs, nor in InferenceX's
  // single-node scripts; TensorRT-LLM's recipes have no such option). With it on for every
  // attention-DP/EP worker, the prefill pools hid their dispatch/combine and served up to 1.5x the
  // prompts the runs measured (GB200 FP8 5 x DEP8 prefill, 6144 clients: 87 requests/s against 59).
  p.two_batch_overlap = false;
  if (std::lround(std::max(tp, ep)) != width)
    notes.push_back(fmt::format("{} worker: {} GPUs over {} workers = {} wide (the record's TP {} / EP {} differ)", side,
                                gpus, workers, width, tp, ep));
  return true;
}

}  // namespace

long long mori_decode_max_batch(const std::string& date, Precision weights, bool attention_dp, bool ep) {
  // InferenceX's in-tree AMD disaggregation recipe (benchmarks/multi_node/amd_utils, models.yaml +
  // server.sh, from 2026-02-19; the FP8 script pinned the same sglang_disagg commit 14606ff from
  // 2026-02-16): decode --max-running-requests is the cuda-graph end (160) x TP with attention-DP
  // (SGLang divides it by dp_size: 160 per rank), 256 with EP only, 128 without either. From
  // 2026-05-07 (PR #1236) the MXFP4 runs serve the model entry DeepSeek-R1-0528-MXFP4-v2, whose
  // attention-DP decode captures CUDA graphs to 512: 512 per rank. From 2026-05-31 (PR #1584) a
  // decode worker with attention-DP and EP takes the sweep's largest concurrency instead: no cap
  // below the clients. Runs before those dates used pinned commits of billishyahao/sglang_disagg
  // that are not stored (its Jan 2026 branches: 8192 with attention-DP, 256 without): no cap.
  const bool fp8 = weights == Precision::fp8;
  if (date.size() != 10 || date < (fp8 ? "2026-02-16" : "2026-02-19")) return 0;
  if (attention_dp && ep && date >= "2026-05-31") return 0;
  if (attention_dp) return !fp8 && date >= "2026-05-07" ? 512 : 160;
  return ep ? 256 : 128;
}

bool is_inferencex_schema(const CsvTable& t) {
  for (const char* c : {"disaggregated", "decode_tp", "decode_ep", "decode_attention_dp", "output_tok_s_per_gpu",
                        "median_tpot_ms", "median_ttft_ms", "median_tok_s_per_user", "concurrency", "isl", "osl", "gpus"})
    if (t.column(c) < 0) return false;
  return true;
}

std::vector<InferenceCase> map_inferencex_cases(const CsvTable& t, const Catalog& catalog,
                                                std::vector<SkippedRow>& skipped) {
  std::vector<InferenceCase> out;
  struct Metric {
    const char* column;
    const char* metric;
  };
  static constexpr Metric kMetrics[] = {{"output_tok_s_per_gpu", "tokens_per_sec_per_gpu"},
                                        {"median_tok_s_per_user", "tokens_per_sec_per_user"},
                                        {"median_ttft_ms", "ttft_ms"},
                                        {"median_tpot_ms", "tpot_ms"}};
  for (size_t i = 0; i < t.rows.size(); ++i) {
    auto skip = [&](std::string why) { skipped.push_back({i, std::move(why)}); };
    InferenceCase c;
    c.row = i;
    c.source_id = "InferenceX";
    c.model_name = t.cell(i, "model");
    c.gpu_name = t.cell(i, "gpu");
    c.framework = t.cell(i, "framework");
    c.scenario = "closed_loop";
    if (c.framework.empty()) c.framework = "unknown";
    if (auto why = resolve_row_hardware(catalog, c)) {
      skip(*why);
      continue;
    }
    if (!resolve_model_name(c.model_name, c.model)) {
      skip(fmt::format("model '{}' is not a built-in model", c.model_name));
      continue;
    }
    c.family = c.model.family;
    const std::string fw = lower(c.framework);
    double isl = 0, osl = 0, conc = 0, gpus = 0;
    if (!number(t.cell(i, "isl"), isl) || isl < 1 || !number(t.cell(i, "osl"), osl) || osl < 1) {
      skip("isl/osl blank or below 1");
      continue;
    }
    if (!number(t.cell(i, "concurrency"), conc) || conc < 1) {
      skip("concurrency blank or below 1");
      continue;
    }
    if (!number(t.cell(i, "gpus"), gpus) || gpus < 1) {
      skip("gpus blank or below 1");
      continue;
    }
    InferenceWorkload& w = c.workload;
    // Precision: FP8 (block-scaled), NVFP4, MXFP4 weights; the KV format is not recorded: TensorRT-LLM
    // quantizes it to FP8 with FP8/FP4 checkpoints; SGLang on Blackwell runs the trtllm_mla attention
    // backend with --kv-cache-dtype fp8_e4m3 (InferenceX's B200/B300 SGLang scripts since Sep 2025 and
    // every Blackwell Dynamo + SGLang recipe of NVIDIA/srt-slurm); SGLang on Hopper (flashinfer MLA)
    // and ATOM/AMD single-node keep the default ("auto", BF16).
    c.precision_name = t.cell(i, "precision");
    const std::string prec = lower(c.precision_name);
    w.weight_precision = has(prec, "fp4") ? Precision::nvfp4 : (has(prec, "fp8") ? Precision::fp8 : Precision::bf16);
    const bool trt = has(fw, "tensorrt");
    const bool blackwell = c.generation == "blackwell" || c.generation == "blackwell_ultra";
    const bool sglang_fp8_kv = has(fw, "sglang") && !has(fw, "mori") && blackwell;
    // SGLang + MoRI (MI355X): --kv-cache-dtype fp8_e4m3 in every recipe the runs used
    // (billishyahao/sglang_disagg's server script since Jan 2026, InferenceX's amd_utils/models.yaml).
    const bool mori_fp8_kv = has(fw, "mori");
    const bool fp8_kv = (trt || sglang_fp8_kv || mori_fp8_kv) && w.weight_precision != Precision::bf16;
    w.kv_bytes_per_element = fp8_kv ? 1.0 : 2.0;
    c.assumptions.push_back(fmt::format("KV cache {} ({} with {} weights)", fp8_kv ? "FP8" : "BF16",
                                        trt             ? "TensorRT-LLM's default"
                                        : sglang_fp8_kv ? "SGLang's trtllm_mla recipes on Blackwell"
                                        : mori_fp8_kv   ? "SGLang + MoRI recipes' --kv-cache-dtype fp8_e4m3"
                                                        : "SGLang/ATOM's default",
                                        c.precision_name));
    // InferenceX client: --max-concurrency C, 10 C prompts, --request-rate inf, lengths uniform in
    // [0.8, 1] x nominal.
    w.arrival = Arrival::closed_loop;
    w.requests_per_client = 10;
    w.isl = std::max(1LL, std::llround(0.9 * isl));
    w.osl = std::max(1LL, std::llround(0.9 * osl));
    w.concurrency = static_cast<long long>(conc);
    c.assumptions.push_back("InferenceX client: 10 requests per client starting together, lengths uniform in "
                            "[0.8, 1] x ISL/OSL (means 0.9 x)");
    // InferenceX's aggregated SGLang scripts for B200/B300 set --scheduler-recv-interval 30 at
    // concurrency >= 16 and 10 below (benchmarks/single_node/dsr1_*_b200.sh, _b300.sh, since Sep 2025;
    // 1 with attention-DP, which the receive skipper does not support); other scripts keep SGLang's 1.
    if (lower(c.framework) == "sglang" && blackwell && lower(t.cell(i, "decode_attention_dp")) != "yes") {
      w.scheduler_recv_interval = conc >= 16 ? 30 : 10;
      c.assumptions.push_back(fmt::format("SGLang --scheduler-recv-interval {} (InferenceX's B200/B300 script at "
                                          "concurrency {})",
                                          w.scheduler_recv_interval, conc));
    }
    const bool disaggregated_row = lower(t.cell(i, "disaggregated")) == "yes";
    if (!disaggregated_row && (lower(c.framework) == "sglang" || lower(c.framework) == "atom")) {
      w.prefill_separate = true;
      c.assumptions.push_back("prompts prefill in forwards of their own that the decodes wait for (SGLang/ATOM)");
    }
    // InferenceX's TensorRT-LLM scripts (benchmarks/single_node/fixed_seq_len/dsr1_*_trt*.sh) run
    // attention-DP with attention_dp_config {enable_balance: true, timeout_iters: 60,
    // batching_wait_iters: 0}: context requests are held until every rank has one, at most 60
    // iterations.
    if (lower(c.framework) == "tensorrt-llm" && !disaggregated_row &&
        lower(t.cell(i, "decode_attention_dp")) == "yes") {
      w.adp_balance_timeout_iters = 60;
      c.assumptions.push_back("TensorRT-LLM attention-DP balance: context requests held up to 60 iterations "
                              "until every rank has one (InferenceX's trtllm-serve config)");
    }
    const EngineParams eng = engine_params(catalog, c.framework);
    w.request_overhead_s = eng.request_overhead_s;
    if (!eng.name.empty())
      c.assumptions.push_back(fmt::format("{} front end: {:.0f} ms per request before prefill", eng.name,
                                          eng.request_overhead_s * 1e3));
    if (lower(t.cell(i, "spec_decode")) == "mtp") {
      // SGLang on NVIDIA GPUs drafts 2 tokens a step (EAGLE --speculative-num-steps 2,
      // --speculative-num-draft-tokens 3: InferenceX's B200/B300/H200 SGLang MTP scripts and the
      // Dynamo + SGLang recipes of NVIDIA/srt-slurm); SGLang on AMD, ATOM and TensorRT-LLM draft 3.
      const bool nvidia = blackwell || c.generation == "hopper";
      const bool sglang_two = has(fw, "sglang") && !has(fw, "mori") && nvidia;
      // InferenceX's aggregated TensorRT-LLM MTP scripts (dsr1_*_trt_mtp.sh, since the first MTP runs
      // of 2026-01-15) set num_nextn_predict_layers 1 with attention-DP and 3 without.
      const bool trt_adp_one = lower(c.framework) == "tensorrt-llm" && !disaggregated_row &&
                               lower(t.cell(i, "decode_attention_dp")) == "yes";
      w.mtp_draft_tokens = sglang_two ? 2 : (trt_adp_one ? 1 : kMtpDraftTokensDefault);
      w.mtp_accept = eng.mtp_accept;
      c.spec_decode = "mtp";
      // SGLang's EAGLE worker runs its host work per step in series with the GPU (docs/inference-model.md,
      // "SGLang's speculative step") where the InferenceX scripts leave SGLANG_ENABLE_SPEC_V2 unexported
      // (dsr1_fp8_b200_mtp.sh since 2026-02-05, dsr1_fp8_b300_mtp.sh: spec v1 turns the overlap
      // scheduler off) and where the attention backend is FlashInfer (every Hopper SGLang MTP script and
      // recipe: EAGLEWorkerV2 captures its draft extend as a CUDA graph only for the Triton, TRTLLM-MLA,
      // FA3/FlashMLA and AMD aiter backends, and FlashInfer's MLA plan copies the batch's lengths to the
      // host each step). The B200 FP4 script, the Blackwell Dynamo + SGLang recipes (trtllm_mla, spec v2)
      // and AMD (aiter, spec v2) overlap it. The figures are the SGLang worker's, whatever front end.
      if (has(fw, "sglang") && !has(fw, "mori") && nvidia) {
        const bool spec_v1 = lower(c.framework) == "sglang" && blackwell && !disaggregated_row &&
                             w.weight_precision == Precision::fp8;
        const bool flashinfer = c.generation == "hopper";
        const EngineParams worker = engine_params(catalog, "sglang");
        w.mtp_host_step_s = worker.mtp_host_step_s;
        w.mtp_host_per_seq_step_s = worker.mtp_host_per_seq_step_s;
        w.mtp_host_in_series = spec_v1 || flashinfer;
        w.mtp_eager_draft_extend_s = worker.mtp_eager_draft_extend_s;
        w.mtp_draft_extend_eager = flashinfer;
        if (w.mtp_host_in_series)
          c.assumptions.push_back(fmt::format(
              "SGLang's speculative worker in series with the GPU ({}): {:.1f} ms + {:.0f} us per sequence a step",
              spec_v1 ? "spec v1, no overlap scheduler" : "FlashInfer MLA: eager draft extend",
              (w.mtp_host_step_s + (flashinfer ? w.mtp_eager_draft_extend_s : 0.0)) * 1e3,
              w.mtp_host_per_seq_step_s * 1e6));
      }
      c.assumptions.push_back(fmt::format("MTP: {} draft tokens ({}), acceptance {} per draft (default; not recorded)",
                                          w.mtp_draft_tokens,
                                          sglang_two    ? "SGLang's NVIDIA recipes"
                                          : trt_adp_one ? "TensorRT-LLM's attention-DP script"
                                                        : "default",
                                          eng.mtp_accept));
    }
    auto col = [&](const char* name) {
      double v = 0;
      return number(t.cell(i, name), v) ? v : 0.0;
    };
    const bool disagg = lower(t.cell(i, "disaggregated")) == "yes";
    InferenceParallel dec;
    const double dec_gpus = disagg ? col("decode_gpus") : gpus;
    const double dec_workers = disagg ? std::max(1.0, col("decode_workers")) : 1.0;
    if (!side_parallel(c.model, dec_gpus, dec_workers, col("decode_tp"), col("decode_ep"),
                       lower(t.cell(i, "decode_attention_dp")) == "yes", dec, c.assumptions, "decode")) {
      skip("decode_gpus / decode_workers is not a whole worker width");
      continue;
    }
    if (disagg) {
      InferenceParallel pre;
      if (!side_parallel(c.model, col("prefill_gpus"), std::max(1.0, col("prefill_workers")), col("prefill_tp"),
                         col("prefill_ep"), lower(t.cell(i, "prefill_attention_dp")) == "yes", pre, c.assumptions,
                         "prefill")) {
        skip("prefill_gpus / prefill_workers is not a whole worker width");
        continue;
      }
      c.mode = InferenceMode::disaggregated;
      c.deployment = "disaggregated";
      c.disagg = {pre, static_cast<int>(col("prefill_gpus")), dec, static_cast<int>(dec_gpus)};
      if (has(fw, "mori")) {
        const bool recipe_dp = lower(t.cell(i, "decode_attention_dp")) == "yes";
        const long long cap = mori_decode_max_batch(t.cell(i, "date"), w.weight_precision, recipe_dp,
                                                    col("decode_ep") > 1);
        // The cap is per rank; a per-worker cap on a worker the model runs attention-DP splits over
        // its ranks.
        c.disagg.decode_max_batch = (!recipe_dp && dec.attention_dp && cap > 0) ? (cap + dec.tp - 1) / dec.tp : cap;
        c.assumptions.push_back(
            cap > 0 ? fmt::format("MoRI decode: at most {} sequences per {} (InferenceX amd_utils recipe: "
                                  "--max-running-requests {})",
                                  cap, recipe_dp ? "attention-DP rank" : "decode worker",
                                  recipe_dp               ? "cuda-graph end x TP, / dp_size in SGLang"
                                  : col("decode_ep") > 1 ? "256 with EP"
                                                         : "128 without EP or DP")
                    : "MoRI decode: no running-request cap below the clients (the run's recipe: see "
                      "docs/inference-model.md, \"InferenceX MoRI recipes\")");
      }
      c.parallel = dec;
      w.num_gpus = c.disagg.prefill_gpus + c.disagg.decode_gpus;
    } else {
      c.parallel = dec;
      w.num_gpus = static_cast<int>(gpus);
      if (w.num_gpus % dec.tp) {
        skip(fmt::format("gpus {} is not a multiple of the worker's {}", w.num_gpus, dec.tp));
        continue;
      }
    }
    for (const Metric& mt : kMetrics) {
      double v = 0;
      if (!number(t.cell(i, mt.column), v) || v <= 0) continue;
      InferenceCase k = c;
      k.metric = mt.metric;
      k.reported = v;
      if (k.metric == "ttft_ms") {
        // The file's TTFT is the median request's. The run's opening wave (every client's first
        // prompt at once) holds 1 / requests_per_client of the requests, all slower than the steady
        // state, so the median request is a steady-state one: the wave weighs in the mean (and in
        // the throughput, which keeps it), not in the median.
        k.workload.requests_per_client = 0;
        k.assumptions.push_back("median TTFT: the steady state's (the opening wave is 1 in 10 requests)");
      }
      out.push_back(std::move(k));
    }
  }
  return out;
}

}  // namespace gpuplan
