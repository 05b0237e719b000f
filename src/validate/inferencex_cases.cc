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
#include "inference/inference.h"
#include "inference/speculative.h"
#include "model/model_registry.h"
#include "validate/dynamo_decode_recipes.h"
#include "validate/dynamo_prefill_recipes.h"
#include "validate/inference_cases.h"
#include "validate/inferencex_cases.h"
#include "validate/row_contradiction.h"
#include "validate/inferencex_mtp.h"
#include "validate/inferencex_scripts.h"
#include "validate/inferencex_row.h"
#include "validate/mori_recipes.h"
#include "validate/precision_text.h"
#include "validate/recipe_dates.h"

namespace gpuplan {

namespace {

// Finite and within int range (core/csv.h): the GPU and worker counts become ints.
bool number(const std::string& s, double& out) { return parse_cell_number(s, out); }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// The row's model by the registry's rules (release stamps such as "-0528" and Hugging Face
// repository ids included); a name it does not know skips the row, never a stand-in model.
bool resolve_model_name(const std::string& name, ModelArch& m) {
  try {
    m = resolve_model(name, "model");
    return true;
  } catch (const InputError&) {
    return false;
  }
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
    e = dividing_expert_parallel(m, width, e);
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

MoriDecodeCap mori_decode_cap(const std::string& date, Precision weights, bool attention_dp, bool ep) {
  // InferenceX's SGLang + MoRI decode worker by run date: data/recipes/inferencex_mori.yaml
  // (validate/mori_recipes.h; --max-running-requests per attention-DP rank, per worker without).
  MoriDecodeCap out;
  if (const MoriDecodeRecipe* r =
          match_mori_decode_recipe(builtin_mori_recipes(), date, weights == Precision::fp8, attention_dp, ep)) {
    out.found = true;
    out.max_batch = r->max_running_requests;
    out.recipe = r->source + ": " + r->recipe;
  }
  return out;
}

MoriLaunch mori_launch(const std::string& date, Precision weights) {
  MoriLaunch out;
  if (const MoriLaunchRecipe* r = match_mori_launch_recipe(builtin_mori_recipes(), date, weights == Precision::fp8)) {
    out.found = true;
    out.tp_is_worker = r->tp_is_worker;
    out.ep_is_worker = r->ep_is_worker;
    out.recipe = r->recipe;
  }
  return out;
}

PrefillRecipeLimits mori_prefill_limits(const std::string& date, Precision weights, bool attention_dp, int prefill_tp) {
  // InferenceX's amd_utils prefill worker by run date: data/recipes/inferencex_mori.yaml. SGLang
  // divides both the requests and the chunk by dp_size (= TP with attention-DP; server_args,
  // pool_configurator) and caps a rank's step at --max-prefill-tokens.
  PrefillRecipeLimits out;
  if (prefill_tp < 1) return out;
  const MoriPrefillRecipe* r =
      match_mori_prefill_recipe(builtin_mori_recipes(), date, weights == Precision::fp8, attention_dp);
  if (!r) return out;
  const long long dp = attention_dp ? prefill_tp : 1;
  const long long requests = r->max_running_requests;
  const long long chunk =
      r->chunked_prefill_size > 0 ? r->chunked_prefill_size : r->dispatch_tokens_per_rank * prefill_tp;
  out.found = true;
  out.max_batch = std::max(1LL, requests / dp);
  out.max_tokens = std::max(1LL, std::min(chunk / dp, r->max_prefill_tokens));
  out.recipe = fmt::format("{}: {}; in force on {}: --max-running-requests {}, --chunked-prefill-size {}", r->source,
                           r->recipe, date, requests, chunk);
  return out;
}

PrefillRecipeLimits inferencex_prefill_limits(const std::string& framework, const std::string& gpu,
                                              const std::string& precision, long long isl, long long prompt_tokens,
                                              int prefill_tp, bool prefill_attention_dp, bool decode_attention_dp,
                                              bool mtp, const std::string& date) {
  PrefillRecipeLimits out;
  const std::string fw = lower(framework), prec = lower(precision);
  const bool dynamo = has(fw, "dynamo");
  const bool trtllm = has(fw, "tensorrt");
  if (!dynamo || (!trtllm && !has(fw, "sglang")) || date.size() != 10) return out;
  const bool fp4 = has(prec, "fp4");
  if (!fp4 && !has(prec, "fp8")) return out;
  // The recipe a row ran: data/recipes/dynamo_prefill.yaml (validate/dynamo_prefill_recipes.h), keyed
  // by the row's engine, GPU, precision, ISL, prefill worker (TP, attention-DP), decode attention-DP,
  // MTP and date.
  DynamoPrefillQuery q;
  q.trtllm = trtllm;
  q.gpu = gpu;
  q.fp4 = fp4;
  q.isl = isl;
  q.prefill_tp = prefill_tp;
  q.prefill_attention_dp = prefill_attention_dp;
  q.decode_attention_dp = decode_attention_dp;
  q.mtp = mtp;
  q.date = date;
  if (const DynamoPrefillRecipe* found = match_dynamo_prefill_recipe(builtin_dynamo_prefill_recipes(), q)) {
    const DynamoPrefillRecipe& r = *found;
    out.found = true;
    // srt-slurm's recipes are named by their path under recipes/, InferenceX's in-tree recipe files by
    // their source first; an InferenceX config's own settings name themselves ("InferenceX config ...").
    out.recipe = r.source == "NVIDIA/srt-slurm"                ? "NVIDIA/srt-slurm recipes/" + r.recipe
                 : r.recipe.rfind("InferenceX config", 0) == 0 ? r.recipe
                                                               : r.source + " " + r.recipe;
    if (trtllm) {
      // Context requests run whole (no chunked prefill): as many prompts a step as max_batch_size and
      // max_num_tokens admit, at least one; the slot is not held through the transfer.
      const long long prompt = std::max(1LL, prompt_tokens);
      out.max_tokens = std::max(1LL, std::min(r.max_batch, r.max_tokens / prompt)) * prompt;
      out.max_batch = 0;
    } else {
      out.max_batch = r.max_batch;
      out.max_tokens = r.max_tokens;
      out.fp8_gemm_triton = r.fp8_gemm_triton;
    }
  }
  return out;
}

namespace {

constexpr const char* kPrefillTritonNote = "; dense block-FP8 GEMMs on SGLang's Triton kernel (the recipe's "
                                          "environment: JIT DeepGEMM disabled, FlashInfer's FP8 GEMM not enabled)";

// The decode side of the Dynamo recipe a disaggregated row ran (src/validate/dynamo_decode_recipes.h):
// data/recipes/dynamo_trtllm_decode.yaml for Dynamo + TensorRT-LLM, dynamo_sglang_decode.yaml for
// Dynamo + SGLang. The decode worker's draft tokens (TensorRT-LLM's num_nextn_predict_layers,
// SGLang's speculative-num-steps) replace the default count, and its batch cap (max_batch_size;
// SGLang's max-running-requests / data-parallel-size) caps the sequences per decode attention rank
// (clients beyond the slots wait before decode). Rows without a matching recipe keep the defaults
// and say so. Only the row's stated deployment, concurrency and date select the recipe.
struct DecodeRecipeEngine {
  const char* name;        // the row's framework
  const char* draft_key;   // the recipe setting the draft count comes from
  const char* batch_key;   // the recipe setting the batch cap comes from
  const DynamoDecodeRecipes& (*recipes)();
};
constexpr DecodeRecipeEngine kDynamoTrtllmDecode{"Dynamo + TensorRT-LLM", "num_nextn_predict_layers", "max_batch_size",
                                                 builtin_dynamo_decode_recipes};
constexpr DecodeRecipeEngine kDynamoSglangDecode{"Dynamo + SGLang", "speculative-num-steps",
                                                 "max-running-requests / data-parallel-size",
                                                 builtin_dynamo_sglang_decode_recipes};

void apply_decode_recipe_match(const DecodeRecipeEngine& engine, const DynamoDecodeQuery& q,
                               const InferenceParallel& dec, InferenceCase& c);

void apply_dynamo_decode_recipe(const DecodeRecipeEngine& engine, const CsvTable& t, size_t i,
                                const InferenceXDeployment& dep, const InferenceParallel& dec, InferenceCase& c) {
  auto cell_int = [&](const char* name) {
    double v = 0;
    return parse_token_count_cell(t.cell(i, name), v) ? static_cast<long long>(std::llround(v)) : 0LL;
  };
  DynamoDecodeQuery q;
  q.gpu = t.cell(i, "gpu");
  q.precision = t.cell(i, "precision");
  q.isl = cell_int("isl");
  q.osl = cell_int("osl");
  q.prefill_workers = static_cast<int>(std::llround(dep.prefill_workers));
  q.prefill_gpus_per_worker = c.disagg.prefill.tp;
  q.decode_workers = static_cast<int>(std::llround(dep.decode_workers));
  q.decode_gpus_per_worker = dec.tp;
  q.decode_attention_dp = dep.decode_attention_dp;
  q.mtp = c.spec_decode == "mtp";
  q.concurrency = c.workload.concurrency;
  q.date = read_row_date(t.cell(i, "date")).value_or("");
  apply_decode_recipe_match(engine, q, dec, c);
}

void apply_decode_recipe_match(const DecodeRecipeEngine& engine, const DynamoDecodeQuery& q,
                               const InferenceParallel& dec, InferenceCase& c) {
  const DynamoDecodeMatch m = match_dynamo_decode_recipe(engine.recipes(), q);
  if (m.candidates == 0) {
    c.assumptions.push_back(fmt::format("decode recipe: no stored {} recipe matches the row's "
                                        "deployment and date; defaults kept ({}no decode batch cap below the clients)",
                                        engine.name,
                                        q.mtp ? fmt::format("{} draft tokens, ", c.workload.mtp_draft_tokens) : ""));
    return;
  }
  std::vector<std::string> said;
  if (q.mtp && m.draft_known && m.mtp_draft_tokens > 0) {
    c.workload.mtp_draft_tokens = m.mtp_draft_tokens;
    // The MTP assumption names the count the row runs.
    for (std::string& a : c.assumptions)
      if (a.rfind("MTP: ", 0) == 0)
        a = fmt::format("MTP: {} draft tokens (the decode recipe's {}), acceptance {} per draft "
                        "(default; not recorded)",
                        m.mtp_draft_tokens, engine.draft_key, c.workload.mtp_accept);
    said.push_back(fmt::format("{} draft tokens", m.mtp_draft_tokens));
  } else if (q.mtp) {
    said.push_back(fmt::format("draft tokens differ between the candidates: default {}", c.workload.mtp_draft_tokens));
  }
  if (m.batch_known && m.decode_max_batch > 0) {
    // The cap is per attention rank with attention-DP, per worker without; a worker the model runs
    // attention-DP where the recipe does not splits the cap over its ranks.
    const long long cap = (!q.decode_attention_dp && dec.attention_dp) ? (m.decode_max_batch + dec.tp - 1) / dec.tp
                                                                        : m.decode_max_batch;
    c.disagg.decode_max_batch = cap;
    said.push_back(fmt::format("at most {} sequences per decode {} ({} {})", cap,
                               dec.attention_dp ? "attention-DP rank" : "worker", engine.batch_key, m.decode_max_batch));
  } else if (m.batch_known) {
    said.push_back("the recipe states no decode batch cap: none");
  } else {
    said.push_back("batch caps differ between the candidates: no decode batch cap");
  }
  if (m.recv_known && m.scheduler_recv_interval > 1) {
    // The decode workers take in new requests every N steps (the prefill awaits their KV
    // preallocation): InferenceWorkload::scheduler_recv_interval is the decode workers' here.
    c.workload.scheduler_recv_interval = m.scheduler_recv_interval;
    said.push_back(fmt::format("decode workers receive requests every {} steps (--scheduler-recv-interval)",
                               m.scheduler_recv_interval));
  } else if (!m.recv_known) {
    said.push_back("receive intervals differ between the candidates: 1");
  }
  if (m.fp8_gemm_known && m.fp8_gemm_triton) {
    // The decode workers' environment (JIT DeepGEMM disabled, FlashInfer's FP8 GEMM not enabled):
    // InferenceWorkload::fp8_block_gemm_triton is the decode workers' here (the prefill workers' is
    // DisaggregatedDeployment::prefill_fp8_block_gemm_triton, from their recipe).
    c.workload.fp8_block_gemm_triton = true;
    said.push_back("dense block-FP8 GEMMs on SGLang's Triton kernel (JIT DeepGEMM disabled, FlashInfer's FP8 GEMM "
                   "not enabled)");
  } else if (!m.fp8_gemm_known) {
    said.push_back("FP8 GEMM kernels differ between the candidates: the default");
  }
  std::string joined;
  for (const std::string& x : said) joined += (joined.empty() ? "" : "; ") + x;
  c.assumptions.push_back(fmt::format("decode recipe ({} {} at {}): {}{}", m.sources, m.recipes, m.commits, joined,
                                      m.eplb_slots > 0 ? fmt::format("; expert load balancer {} slots (balanced "
                                                                     "placement: expert_skew 1, the default)",
                                                                     m.eplb_slots)
                                                       : std::string()));
}

}  // namespace

void apply_prefill_recipe_limits(const PrefillRecipeLimits& lim, InferenceCase& c) {
  c.disagg.prefill_fp8_block_gemm_triton = lim.fp8_gemm_triton;
  if (!lim.found) return;
  c.disagg.prefill_max_batch = lim.max_batch;
  c.disagg.prefill_max_tokens = lim.max_tokens;
  c.assumptions.push_back(fmt::format(
      "prefill worker limits of the run's recipe ({}): {} prompt tokens per {} a step{}{}", lim.recipe, lim.max_tokens,
      c.disagg.prefill.attention_dp ? "attention-DP rank" : "worker",
      lim.max_batch > 0
          ? fmt::format(", at most {} request{} held through the KV hand-off", lim.max_batch, lim.max_batch == 1 ? "" : "s")
          : std::string(),
      lim.fp8_gemm_triton ? kPrefillTritonNote : ""));
}

void apply_dynamo_decode_recipe(const std::string& engine, const DynamoDecodeQuery& q, const InferenceParallel& dec,
                                InferenceCase& c) {
  if (engine == "dynamo+tensorrt-llm") apply_decode_recipe_match(kDynamoTrtllmDecode, q, dec, c);
  if (engine == "dynamo+sglang") apply_decode_recipe_match(kDynamoSglangDecode, q, dec, c);
}

bool is_inferencex_schema(const CsvTable& t) {
  for (const char* c : {"disaggregated", "decode_tp", "decode_ep", "decode_attention_dp", "output_tok_s_per_gpu",
                        "median_tpot_ms", "median_ttft_ms", "median_tok_s_per_user", "concurrency", "isl", "osl", "gpus"})
    if (t.column(c) < 0) return false;
  return true;
}

std::vector<InferenceCase> map_inferencex_cases(const CsvTable& t, const Catalog& catalog,
                                                std::vector<SkippedRow>& skipped, bool p99_ttft) {
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
    c.engine = c.framework;  // its serving-engine entry (the replaying command's --engine)
    if (auto why = resolve_row_hardware(catalog, c, t.cell(i, "system"))) {
      skip(*why);
      continue;
    }
    if (!resolve_model_name(c.model_name, c.model)) {
      skip(fmt::format("model '{}' is not a built-in model", c.model_name));
      continue;
    }
    c.family = c.model.family;
    const std::string fw = lower(c.framework);
    double isl = 0, osl = 0, conc = 0;
    if (!parse_token_count_cell(t.cell(i, "isl"), isl) || isl < 1 || !parse_token_count_cell(t.cell(i, "osl"), osl) ||
        osl < 1) {
      skip("isl/osl blank or below 1");
      continue;
    }
    if (!number(t.cell(i, "concurrency"), conc) || conc < 1) {
      skip("concurrency blank or below 1");
      continue;
    }
    InferenceXDeployment dep;
    if (auto why = read_inferencex_deployment(t, i, dep)) {
      skip(*why);
      continue;
    }
    const double gpus = dep.gpus;
    {
      // A point whose per-user rate and per-GPU throughput cannot both be true: flagged, not scored
      // (validate/row_contradiction.h).
      RunFigures fig;
      double v = 0;
      if (number(t.cell(i, "output_tok_s_per_gpu"), v))
        add_metric_figure(fig, "tokens_per_sec_per_gpu", v, gpus, "output_tok_s_per_gpu");
      if (number(t.cell(i, "median_tok_s_per_user"), v))
        add_metric_figure(fig, "tokens_per_sec_per_user", v, gpus, "median_tok_s_per_user");
      if (number(t.cell(i, "median_ttft_ms"), v)) add_metric_figure(fig, "ttft_ms", v, gpus, "median_ttft_ms");
      if (auto why = figures_contradiction(fig, conc, gpus, osl)) {
        skipped.push_back({i, *why, "contradiction"});
        continue;
      }
    }
    c.assumptions.insert(c.assumptions.end(), dep.notes.begin(), dep.notes.end());
    // The run's day selects its recipes (data/recipes): ISO or another unambiguous form, said when read
    // from another form; unreadable, no recipe is chosen by date and the row says so.
    const std::string& date_cell = t.cell(i, "date");
    const std::string row_date = read_row_date(date_cell).value_or("");
    if (row_date.empty())
      c.assumptions.push_back(
          date_cell.find_first_not_of(" \t") == std::string::npos
              ? std::string("date blank: no recipe is chosen by date")
              : fmt::format("date '{}' is not a day gpuplan reads (YYYY-MM-DD, or a form whose day and month "
                            "order is unambiguous): no recipe is chosen by date",
                            date_cell.substr(0, 40)));
    else if (!row_date.empty() && row_date != date_cell)
      c.assumptions.push_back(fmt::format("date '{}' read as {}", date_cell.substr(0, 40), row_date));
    InferenceWorkload& w = c.workload;
    // Precision: FP8 (block-scaled), NVFP4, MXFP4 weights; the KV format is not recorded: TensorRT-LLM
    // quantizes it to FP8 with FP8/FP4 checkpoints; SGLang on Blackwell runs the trtllm_mla attention
    // backend with --kv-cache-dtype fp8_e4m3 (InferenceX's B200/B300 SGLang scripts since Sep 2025 and
    // every Blackwell Dynamo + SGLang recipe of NVIDIA/srt-slurm); SGLang on Hopper (flashinfer MLA)
    // and ATOM/AMD single-node keep the default ("auto", BF16).
    c.precision_name = t.cell(i, "precision");
    const std::optional<Precision> weights = read_serving_weights(c.precision_name);
    if (!weights) {
      skip(fmt::format("precision '{}' names no weight format of the schema (FP8, NVFP4, MXFP4, BF16)",
                       c.precision_name.substr(0, 40)));
      continue;
    }
    w.weight_precision = *weights;
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
    w.length_low_fraction = 0.8;
    w.isl = std::max(1LL, std::llround(0.9 * isl));
    w.osl = std::max(1LL, std::llround(0.9 * osl));
    w.concurrency = static_cast<long long>(conc);
    c.assumptions.push_back("InferenceX client: 10 requests per client starting together, lengths uniform in "
                            "[0.8, 1] x ISL/OSL (means 0.9 x)");
    const bool disaggregated_row = dep.disaggregated;
    // InferenceX's TensorRT-LLM scripts (benchmarks/single_node/fixed_seq_len/dsr1_*_trt*.sh) run
    // attention-DP with attention_dp_config {enable_balance: true, timeout_iters: 60,
    // batching_wait_iters: 0}: context requests are held until every rank has one, at most 60
    // iterations.
    const bool trt_aggregated_adp = lower(c.framework) == "tensorrt-llm" && !disaggregated_row && dep.decode_attention_dp;
    if (trt_aggregated_adp) {
      w.adp_balance_timeout_iters = 60;
      c.assumptions.push_back("TensorRT-LLM attention-DP balance: context requests held up to 60 iterations "
                              "until every rank has one (InferenceX's trtllm-serve config)");
    }
    if (lower(c.framework) == "tensorrt-llm" && !disaggregated_row) {
      // The script's batch waiting (validate/inferencex_scripts.h).
      const TrtllmScriptBatchWait bw =
          inferencex_trtllm_batch_wait(c.model.name, c.hardware.accelerator.name, w.weight_precision, std::llround(isl),
                                       std::llround(osl), std::llround(conc), dep.decode_attention_dp, row_date);
      if (bw.iters > 0) {
        w.batch_wait_iters = bw.iters;
        w.batch_wait_tokens_ratio = bw.tokens_ratio;
        c.assumptions.push_back(bw.assumption(std::llround(conc)));
      }
    }
    const EngineParams eng = engine_params(catalog, c.framework);
    w.request_overhead_s = eng.request_overhead_s;
    apply_engine_facts(eng, w);  // the engine's scheduler and memory (serving_engines.yaml), as in `infer --engine`
    w.moe_gemm_eff = eng.moe_gemm_eff;  // the engine's grouped MoE kernels (serving_engines.yaml), as in `infer --engine`
    if (eng.prefill_separate && !disaggregated_row)
      c.assumptions.push_back(fmt::format("prompts prefill in forwards of their own that the decodes wait for ({})",
                                          eng.name));
    if (!eng.name.empty())
      c.assumptions.push_back(fmt::format("{} front end: {:.0f} ms per request before prefill", eng.name,
                                          eng.request_overhead_s * 1e3));
    else
      c.assumptions.push_back(fmt::format("framework '{}' has no serving-engine entry (data/catalog/"
                                          "serving_engines.yaml): no front-end latency per request",
                                          c.framework.substr(0, 60)));
    auto col = [&](const char* name) {
      double v = 0;
      return number(t.cell(i, name), v) ? v : 0.0;
    };
    if (dep.mtp) {
      // The draft tokens InferenceX's script or recipe sets (validate/inferencex_mtp.h).
      InferenceXMtpRun run;
      run.framework = lower(c.framework);
      run.generation = c.generation;
      run.model = c.model.name;
      run.weights = w.weight_precision;
      run.date = row_date;
      run.disaggregated = disaggregated_row;
      run.attention_dp = dep.decode_attention_dp;
      const InferenceXMtpDrafts d = inferencex_mtp_drafts(run);
      w.mtp_draft_tokens = d.drafts;
      std::string drafts_from = d.from;
      if (has(fw, "mori") && disaggregated_row) {
        // The run's draft tokens: InferenceX's sweep config (DECODE_MTP_SIZE) for this deployment,
        // concurrency and date (data/recipes/inferencex_mori_mtp.yaml).
        auto shape = [&](double side_gpus, double workers, const char* ep_col, bool dp) {
          MoriWorkerShape sh;
          sh.workers = static_cast<int>(std::lround(workers));
          sh.width = workers > 0 ? static_cast<int>(std::lround(side_gpus / workers)) : 0;
          sh.ep = col(ep_col) > 1;
          sh.attention_dp = dp;
          return sh;
        };
        std::vector<const MoriMtpRecipe*> matched;
        const int drafts = match_mori_mtp_draft_tokens(
            builtin_mori_recipes(), row_date, w.weight_precision == Precision::fp8, std::llround(isl),
            std::llround(osl), shape(dep.prefill_gpus, dep.prefill_workers, "prefill_ep", dep.prefill_attention_dp),
            shape(dep.decode_gpus, dep.decode_workers, "decode_ep", dep.decode_attention_dp), w.concurrency, &matched);
        if (drafts > 0) {
          w.mtp_draft_tokens = drafts;
          drafts_from = fmt::format("InferenceX's sweep config DECODE_MTP_SIZE, {} at {}",
                                    matched.front()->recipe.substr(0, 80), matched.front()->commit);
        } else {
          drafts_from += matched.empty() ? "; no InferenceX sweep config entry states the run's DECODE_MTP_SIZE"
                                         : "; the InferenceX sweep config's entries for the run disagree";
        }
      }
      w.mtp_accept = eng.mtp_accept;
      c.spec_decode = "mtp";
      if (const std::string host = apply_inferencex_sglang_mtp_host(catalog, run, w); !host.empty())
        c.assumptions.push_back(host);
      c.assumptions.push_back(fmt::format("MTP: {} draft tokens ({}), acceptance {} per draft (default; not recorded)",
                                          w.mtp_draft_tokens, drafts_from, eng.mtp_accept));
    }
    const bool disagg = dep.disaggregated;
    // SGLang + MoRI: the launch script of the run's date built each worker from the sweep config
    // (data/recipes/inferencex_mori.yaml `launch`): until 2026-03-02 TP over the whole worker (the
    // config's tp a label) and, for a while, EP over it whatever the config's ep.
    const MoriLaunch mori =
        has(fw, "mori") && disaggregated_row ? mori_launch(row_date, w.weight_precision) : MoriLaunch{};
    auto side_tp = [&](const char* tp_col, double side_gpus, double workers) {
      return mori.tp_is_worker && workers > 0 ? side_gpus / workers : col(tp_col);
    };
    auto side_ep = [&](const char* ep_col, double side_gpus, double workers) {
      return mori.ep_is_worker && workers > 0 ? side_gpus / workers : col(ep_col);
    };
    if (mori.found && (mori.tp_is_worker || mori.ep_is_worker))
      c.assumptions.push_back(fmt::format("MoRI workers as the run's launch script built them ({}): {}{}", mori.recipe,
                                          mori.tp_is_worker ? "TP over each worker's GPUs, attention-DP only where "
                                                              "the row says so"
                                                            : "the row's TP",
                                          mori.ep_is_worker ? ", EP over each worker's GPUs" : ", the row's EP"));
    InferenceParallel dec;
    const double dec_gpus = dep.decode_gpus;
    const double dec_workers = disagg ? dep.decode_workers : 1.0;
    if (!side_parallel(c.model, dec_gpus, dec_workers, side_tp("decode_tp", dec_gpus, dec_workers),
                       side_ep("decode_ep", dec_gpus, dec_workers), dep.decode_attention_dp, dec, c.assumptions,
                       "decode")) {
      skip("decode_gpus / decode_workers is not a whole worker width");
      continue;
    }
    if (lower(c.framework) == "sglang") {
      // InferenceX's aggregated SGLang scripts for B200/B300 pass --scheduler-recv-interval
      // (validate/inferencex_scripts.h), the same reading as for AIConfigurator's dump of these runs.
      const SglangScriptRecvInterval ri = inferencex_sglang_recv_interval(
          c.model.name, c.generation, w.weight_precision, dec.tp, dep.decode_attention_dp, std::llround(conc));
      if (ri.interval > 1) {
        w.scheduler_recv_interval = ri.interval;
        c.assumptions.push_back(ri.assumption(std::llround(conc)));
      }
      // ... and --mem-fraction-static: the share of memory the weights and the KV pool take.
      const SglangScriptMemFraction mf =
          inferencex_sglang_mem_fraction(c.model.name, c.hardware.accelerator.name, w.weight_precision, dec.tp,
                                         c.spec_decode == "mtp" ? 1 : 0, row_date);
      if (mf.fraction > 0) {
        w.mem_fraction_static = mf.fraction;
        c.assumptions.push_back(mf.assumption());
      }
    }
    if (disagg) {
      InferenceParallel pre;
      if (!side_parallel(c.model, dep.prefill_gpus, dep.prefill_workers,
                         side_tp("prefill_tp", dep.prefill_gpus, dep.prefill_workers),
                         side_ep("prefill_ep", dep.prefill_gpus, dep.prefill_workers), dep.prefill_attention_dp, pre,
                         c.assumptions, "prefill")) {
        skip("prefill_gpus / prefill_workers is not a whole worker width");
        continue;
      }
      c.mode = InferenceMode::disaggregated;
      c.deployment = "disaggregated";
      c.disagg = {pre, static_cast<int>(std::lround(dep.prefill_gpus)), dec, static_cast<int>(std::lround(dec_gpus))};
      if (has(fw, "mori")) {
        const bool recipe_dp = dep.decode_attention_dp;
        const bool recipe_ep = side_ep("decode_ep", dec_gpus, dec_workers) > 1;
        const MoriDecodeCap dc = mori_decode_cap(row_date, w.weight_precision, recipe_dp, recipe_ep);
        const long long cap = dc.max_batch;
        // The cap is per rank; a per-worker cap on a worker the model runs attention-DP splits over
        // its ranks.
        c.disagg.decode_max_batch = (!recipe_dp && dec.attention_dp && cap > 0) ? (cap + dec.tp - 1) / dec.tp : cap;
        c.assumptions.push_back(
            cap > 0    ? fmt::format("MoRI decode: at most {} sequences per {} ({})", cap,
                                     recipe_dp ? "attention-DP rank" : "decode worker", dc.recipe)
            : dc.found ? fmt::format("MoRI decode: no running-request cap below the clients ({})", dc.recipe)
                       : std::string("MoRI decode: no stored recipe for the run's date and worker; no running-request "
                                     "cap (docs/inference-model.md, \"InferenceX recipes' scheduler limits\")"));
      }
      if (has(fw, "dynamo") || has(fw, "mori")) {
        const bool stated_dp = dep.prefill_attention_dp;
        auto dynamo_limits = [&](bool attention_dp) {
          return inferencex_prefill_limits(c.framework, c.gpu_name, c.precision_name, std::llround(isl), w.isl,
                                           pre.tp, attention_dp, dep.decode_attention_dp, dep.mtp, row_date);
        };
        PrefillRecipeLimits lim = has(fw, "mori") ? mori_prefill_limits(row_date, w.weight_precision, stated_dp, pre.tp)
                                                  : dynamo_limits(stated_dp);
        bool recipe_worker = false;  // the worker rebuilt as the recipe states it
        if (!lim.found && has(fw, "dynamo") && pre.attention_dp == stated_dp) {
          // The recipe in force states the context worker's attention-DP the other way round (the
          // H200 TensorRT-LLM 8K/1K context workers: enable_attention_dp false, where the Feb 2026
          // rows say "yes"; their measured figures equal the March rows that say "no"): the run
          // ran the recipe's worker.
          InferenceParallel flipped;
          const PrefillRecipeLimits other = dynamo_limits(!stated_dp);
          if (other.found && side_parallel(c.model, dep.prefill_gpus, dep.prefill_workers, pre.tp, pre.ep, !stated_dp,
                                           flipped, c.assumptions, "prefill") &&
              flipped.attention_dp == !stated_dp) {
            pre = flipped;
            c.disagg.prefill = pre;
            lim = other;
            recipe_worker = true;
            c.assumptions.push_back(fmt::format("prefill worker {} attention-DP as the run's recipe states it, where the "
                                                "row says {} ({})",
                                                stated_dp ? "without" : "with", stated_dp ? "with" : "without",
                                                lim.recipe));
          }
        }
        // The recipe's environment picks the prefill workers' FP8 GEMM kernel whatever their limits.
        c.disagg.prefill_fp8_block_gemm_triton = lim.fp8_gemm_triton;
        const std::string triton_note = lim.fp8_gemm_triton ? kPrefillTritonNote : "";
        if (lim.found && (recipe_worker || stated_dp == pre.attention_dp)) {
          apply_prefill_recipe_limits(lim, c);
        } else {
          c.assumptions.push_back(
              lim.found ? "prefill worker limits: the recipe's attention-DP differs from the model's worker; none "
                          "applied" + triton_note
                        : std::string("prefill worker limits: no stored recipe matches the row's date and "
                                      "deployment; the engine's --max-num-tokens budget per rank, no request cap"));
        }
      }
      if (fw == "dynamo + tensorrt-llm") apply_dynamo_decode_recipe(kDynamoTrtllmDecode, t, i, dep, dec, c);
      if (fw == "dynamo + sglang") apply_dynamo_decode_recipe(kDynamoSglangDecode, t, i, dep, dec, c);
      c.parallel = dec;
      w.num_gpus = c.disagg.prefill_gpus + c.disagg.decode_gpus;
    } else {
      c.parallel = dec;
      w.num_gpus = static_cast<int>(std::lround(gpus));
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
        // the throughput, which keeps it), not in the median. A disaggregated run with more clients
        // than decode slots is replayed (InferenceResult::ttft_median_s): which requests wait for a
        // slot is set by the burst the run opens with.
        k.workload.ttft_median = true;  // read by this case only: the others do not pay the replay
        k.assumptions.push_back(k.mode == InferenceMode::disaggregated
                                    ? "median TTFT: the steady state's (the opening wave is 1 in 10 requests); with "
                                      "more clients than decode slots, the run replayed (round-robin decode workers)"
                                    : "median TTFT: the steady state's (the opening wave is 1 in 10 requests)");
      }
      out.push_back(std::move(k));
    }
    double p99 = 0;
    if (p99_ttft && c.mode == InferenceMode::disaggregated && t.column("p99_ttft_ms") >= 0 &&
        number(t.cell(i, "p99_ttft_ms"), p99) && p99 > 0) {
      InferenceCase k = c;
      k.metric = "p99_ttft_ms";
      k.reported = p99;
      k.assumptions.push_back("p99 TTFT: the opening wave's tail (every client's first prompt at once)");
      out.push_back(std::move(k));
    }
  }
  return out;
}

}  // namespace gpuplan
