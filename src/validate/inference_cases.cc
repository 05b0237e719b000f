#include "validate/inference_cases.h"

#include "validate/dynamo_decode_recipes.h"
#include "validate/inferencex_cases.h"
#include "validate/inferencex_dump.h"
#include "validate/inferencex_scripts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <regex>

#include "core/csv.h"
#include "core/error.h"
#include "core/suggest.h"
#include "core/text.h"
#include "inference/engine.h"
#include "inference/engine_limits.h"
#include "model/model_registry.h"
#include "physics/compute.h"
#include "recipe/recipe_dates.h"
#include "validate/metric_name.h"
#include "validate/notes_deployment.h"
#include "validate/precision_text.h"
#include "validate/row_command.h"
#include "validate/row_contradiction.h"
#include "validate/row_scenario.h"
#include "validate/scenario_rules.h"
#include "validate/source_conventions.h"

namespace gpuplan {

namespace {

// Finite and within int range (core/csv.h): nan, inf and 1e400 cells are not numbers.
bool parse_number(const std::string& s, double& out) { return parse_cell_number(s, out); }

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// A number after `key` in the notes ("request_rate_qps=2", "attn_dp=8"), or nullopt.
bool note_number(const std::string& notes, const std::string& key, double& out) {
  const auto p = notes.find(key);
  if (p == std::string::npos) return false;
  const std::string s = notes.substr(p + key.size(), 24);
  if (to_lower(s).rfind("inf", 0) == 0) {  // request_rate_qps=INF: every request at t = 0
    out = std::numeric_limits<double>::infinity();
    return true;
  }
  return parse_number(s, out);
}

// The built-in model a row names: its own name, then without checkpoint suffixes.
bool resolve_row_model(const std::string& name, ModelArch& m) {
  std::vector<std::string> tries{name};
  std::string base = name;
  for (const char* suffix : {"-FP8", "-FP4", "-Instruct", "-0528"}) {
    const auto p = base.find(suffix);
    if (p != std::string::npos) {
      base = base.substr(0, p) + base.substr(p + std::string(suffix).size());
      tries.push_back(base);
    }
  }
  for (const auto& t : tries) {
    try {
      m = resolve_model(t, "model");
      return true;
    } catch (const InputError&) {
    }
  }
  return false;
}

// Framework family and version for grouping: "TensorRT-LLM v0.17", "trtllm 1.0.0rc3", "vllm 0.19.0".
std::string framework_group(const std::string& f) {
  std::string s = f.substr(0, f.find_first_of("(,"));
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s.empty() ? "unknown" : s;
}

// Limits are 99th percentiles; the model predicts means. Mean-to-p99 ratios from the MLPerf server
// logs themselves (the rows' notes give both: TPOT p99/mean ~1.2-1.3, TTFT ~2).
constexpr double kTpotP99OverMean = 1.25;
constexpr double kTtftP99OverMean = 2.0;

// AIConfigurator's quantization modes name the FP8 GEMMs of the attention/dense layers ("gemm=") and
// the routed experts ("moe="): "fp8_block" block-scaled (128 x 128 weight blocks); "fp8" names FP8
// math, its scaling the checkpoint's (InferenceWorkload::fp8_weight_block = -1), as a plain "FP8": the
// silicon runs serve the checkpoint the row's model_path names (AIConfigurator's silicon_sample.csv), and
// a block-scaled one (deepseek-ai/DeepSeek-R1 under TensorRT-LLM, MiniMaxAI/MiniMax-M2.5 under vLLM,
// both labelled "fp8") runs with its block scales.
void read_fp8_scaling(const std::string& text, InferenceWorkload& w) {
  const std::string l = to_lower(text);
  auto mode = [&](const std::string& key) {
    const size_t at = l.find(key + "=");
    if (at == std::string::npos) return -1;
    const std::string v = l.substr(at + key.size() + 1, l.find(';', at) - (at + key.size() + 1));
    return v.rfind("fp8_block", 0) == 0 ? 128 : -1;
  };
  w.fp8_weight_block = mode("gemm");
  w.fp8_moe_weight_block = mode("moe");
}

}  // namespace

std::string inference_row_key(const CsvTable& t, size_t row) {
  std::string k;
  for (const char* col : {"model", "gpu", "framework", "isl", "osl", "concurrency_or_batch", "tp", "metric", "value"})
    k += t.cell(row, col) + "|";
  return k;
}

bool is_inference_schema(const CsvTable& t) {
  return t.column("metric") >= 0 && t.column("isl") >= 0 && t.column("osl") >= 0 &&
         t.column("concurrency_or_batch") >= 0 && t.column("scenario") >= 0 && t.column("value") >= 0;
}

std::vector<InferenceCase> map_inference_cases(const CsvTable& t, const Catalog& catalog,
                                               std::vector<SkippedRow>& skipped) {
  std::vector<InferenceCase> out;
  const std::map<std::string, RunFigures> runs = run_figures(t);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    InferenceCase c;
    c.row = i;
    c.source_id = t.cell(i, "source_id");
    c.model_name = t.cell(i, "model");
    c.gpu_name = t.cell(i, "gpu");
    c.metric = canonical_metric_name(t.cell(i, "metric"));  // "TTFT_MS", "TTFT (ms)" and "ttft_ms" are one metric
    c.scenario = to_lower(t.cell(i, "scenario"));
    c.framework = framework_group(t.cell(i, "framework"));
    c.engine = t.cell(i, "framework");
    const std::string notes = t.cell(i, "notes");
    const std::string notes_l = to_lower(notes);
    const std::string url_l = to_lower(t.cell(i, "source_url_or_path"));
    auto skip = [&](std::string why) { skipped.push_back({i, std::move(why), {}}); };
    auto flag = [&](std::string why) { skipped.push_back({i, std::move(why), "contradiction"}); };
    if (!parse_number(t.cell(i, "value"), c.reported) || c.reported <= 0) {
      skip("value is blank or not a positive number");
      continue;
    }
    {
      // The scenario's first word ("Server", "server (interactive)"): MLPerf's offline, server and
      // interactive, the benchmark tools' throughput and latency runs; anything else is refused.
      std::string sc;
      for (char ch : c.scenario) {
        if (std::isalpha(static_cast<unsigned char>(ch))) sc += ch;
        else if (!sc.empty()) break;
      }
      if (contains(c.scenario, "interactive")) sc = "interactive";
      if (!sc.empty() && sc != "offline" && sc != "server" && sc != "interactive" && sc != "throughput" &&
          sc != "latency") {
        skip(fmt::format("scenario '{}' is not offline, server, interactive, throughput or latency",
                         echo_name(t.cell(i, "scenario"))));
        continue;
      }
      c.scenario = sc;
    }
    if (c.metric != "tokens_per_sec_total" && c.metric != "tokens_per_sec_per_gpu" &&
        c.metric != "tokens_per_sec_per_user" && c.metric != "ttft_ms" && c.metric != "tpot_ms") {
      skip(fmt::format("unknown metric '{}' (tokens_per_sec_total, tokens_per_sec_per_gpu, tokens_per_sec_per_user, "
                       "ttft_ms or tpot_ms)",
                       echo_name(t.cell(i, "metric"))));
      continue;
    }
    if (auto why = resolve_row_hardware(catalog, c, notes + " " + t.cell(i, "source_url_or_path"))) {
      skip(*why);
      continue;
    }
    if (!resolve_row_model(c.model_name, c.model)) {
      skip(fmt::format("model '{}' is not a built-in model", c.model_name));
      continue;
    }
    c.family = c.model.family;
    // Disaggregated prefill/decode pools as the notes state them (AIConfigurator rows).
    NotesDeployment notes_deployment;
    const bool disagg = has_notes_deployment(notes);
    // Worker counts (and the decode bs) blank, the pools' widths stated: a run of InferenceX's sweep may
    // be read with the deployment the sweep in force on its date lists (below, once the row is read).
    std::string counts_blank;
    if (disagg) {
      if (auto why = parse_notes_deployment(notes, notes_deployment)) {
        if (!notes_deployment.only_counts_blank) {
          skip(*why);
          continue;
        }
        counts_blank = *why;
      }
    }
    double v = 0;
    if (!parse_number(t.cell(i, "num_gpus"), v)) {
      // Blank: the notes' disaggregated pools, or one instance of the row's TP x PP.
      double tp_cell = 0, pp_cell = 1;
      const bool tp_stated = parse_number(t.cell(i, "tp"), tp_cell) && tp_cell >= 1 && tp_cell <= 4096;
      if (!parse_number(t.cell(i, "pp"), pp_cell) || pp_cell < 1 || pp_cell > 4096) pp_cell = 1;
      if (disagg) {
        v = notes_deployment.gpus();
        c.assumptions.push_back(fmt::format("num_gpus blank: {} (the notes' disaggregated pools)", v));
      } else if (tp_stated) {
        v = std::round(tp_cell) * std::round(pp_cell);
        c.assumptions.push_back(fmt::format("num_gpus blank: {} (one instance of tp {} x pp {})", v, tp_cell, pp_cell));
      } else {
        skip("num_gpus and tp blank: the deployment's size is unknown");
        continue;
      }
    }
    if (v < 1 && counts_blank.empty()) {
      skip(fmt::format("num_gpus {} is below 1", v));
      continue;
    }
    int gpus = static_cast<int>(v);
    InferenceWorkload& w = c.workload;
    w.num_gpus = gpus;

    // Precisions: blank weights = what the row's source runs on that chip (data/serving/source_conventions.yaml);
    // KV at FP8 with FP8/FP4 weights (TensorRT-LLM FP8/NVFP4 checkpoints quantize the KV cache), else BF16.
    const SourceConvention& source = source_convention(c.source_id);
    std::string wp = t.cell(i, "precision_weights");
    if (contains(to_lower(wp), "int4") && read_serving_weights(wp) != Precision::w4a16) {
      skip(fmt::format("precision_weights '{}': INT4 that does not say weight-only (int4_wo, AWQ, GPTQ, W4A16) "
                       "is not modelled",
                       echo_name(wp)));
      continue;
    }
    if (!wp.empty() && !read_serving_weights(wp)) {
      skip(fmt::format("precision_weights '{}' names no format the serving model runs (BF16/FP16, FP8, FP4/NVFP4/"
                       "MXFP4, weight-only INT4: W4A16, AWQ, GPTQ, int4_wo); INT8 GEMMs are not modelled",
                       echo_name(wp)));
      continue;
    }
    if (wp.empty()) {
      const std::string g = c.generation;
      wp = source.blank_weights_on(g);
      c.assumptions.push_back(fmt::format("precision_weights blank: {} (the framework's default on {})", wp, g));
    }
    c.precision_name = wp;
    w.weight_precision = *read_serving_weights(wp);
    read_fp8_scaling(wp, w);
    if (w.weight_precision == Precision::w4a16) {
      c.assumptions.push_back(fmt::format("precision_weights '{}' read as w4a16: 4-bit weights ({:.3f} bytes with "
                                          "group-128 scales), GEMMs in BF16, activations 16-bit",
                                          wp, weight_bytes(Precision::w4a16)));
    } else if (c.generation == "hopper" && contains(notes_l, "hopper triton")) {
      // The notes name TensorRT-LLM's Hopper MoE path, the Triton kernels: they take MXFP4 expert
      // weights (gpt-oss's only checkpoint) against BF16 activations, whatever the table's label.
      w.weight_precision = Precision::w4a16;
      c.assumptions.push_back(fmt::format("precision_weights '{}' with the notes' Hopper TRITON MoE path: read as "
                                          "w4a16, 4-bit (MXFP4) weights dequantized to BF16 GEMMs",
                                          wp));
    }
    std::string kvp = t.cell(i, "precision_kv");
    if (kvp.empty() && !c.generation.empty() && contains(notes_l, c.generation + ": use auto")) {
      // The source's recipe sets the KV cache dtype per generation (TensorRT-LLM's gpt-oss recipe: FP8
      // on Blackwell, "auto" on Hopper): "auto" is the checkpoint's activation dtype, BF16.
      kvp = "BF16";
      c.assumptions.push_back(fmt::format("precision_kv blank: BF16 (the notes' recipe sets the KV cache dtype to "
                                          "'auto', the checkpoint's BF16, on {})",
                                          c.generation));
    }
    if (kvp.empty()) {
      kvp = default_kv_bytes(w.weight_precision) == 2.0 ? "BF16" : "FP8";
      c.assumptions.push_back(fmt::format("precision_kv blank: {}", kvp));
    }
    const std::optional<double> kv_bytes = read_kv_cache_bytes(kvp);
    if (!kv_bytes) {
      skip(fmt::format("precision_kv '{}' names no KV-cache format (BF16/FP16, FP8, INT8)", echo_name(kvp)));
      continue;
    }
    w.kv_bytes_per_element = *kv_bytes;

    // ISL/OSL: MLPerf rows leave them blank; use the dataset's means and its scenario's limits
    // (data/serving/mlperf_scenarios.yaml).
    const MlperfBenchmark* bench =
        find_mlperf_benchmark(source.mlperf_benchmarks, t.cell(i, "source_url_or_path"), notes, c.model_name, c.scenario);
    if (auto why = mlperf_open_model_change(bench, t.cell(i, "source_url_or_path"))) {
      skip(*why);
      continue;
    }
    // The submitter's harness, where its published configuration sets what the columns cannot say
    // (data/serving/mlperf_scenarios.yaml `harnesses`).
    const MlperfHarness* harness = nullptr;
    if (bench) {
      MlperfHarnessQuery hq;
      hq.framework = t.cell(i, "framework");
      if (const ServingEngine* e = catalog.find_serving_engine(hq.framework)) hq.engine = e->name;
      hq.vendor = c.hardware.accelerator.vendor;
      hq.accelerator = c.hardware.accelerator.name;
      hq.scenario = c.scenario;
      hq.benchmark = bench->name;
      hq.round = mlperf_round(t.cell(i, "source_url_or_path"), c.source_id);
      harness = find_mlperf_harness(hq);
    }
    if (harness && !harness->runs.empty()) {
      // The engine and release the harness's configuration runs, where the framework cell states the
      // TensorRT version only: its engine entry and release settings as the row's.
      c.engine = harness->runs;
      c.assumptions.push_back(fmt::format("{}: runs {} ({} configuration of {})", harness->name, harness->runs,
                                          c.scenario, bench->name));
    }
    if (parse_token_count_cell(t.cell(i, "isl"), v) && v >= 1) {
      w.isl = static_cast<long long>(v);
    } else if (t.cell(i, "isl").find_first_not_of(" \t") != std::string::npos) {
      skip(fmt::format("isl '{}' is not a token count (a number >= 1, or 8k for 8192)", echo_name(t.cell(i, "isl"))));
      continue;
    } else if (bench) {
      w.isl = std::llround(bench->isl_mean);
      c.assumptions.push_back(fmt::format("isl blank: {} (MLPerf {} dataset mean input tokens: {})", w.isl,
                                          bench->name, bench->isl_basis));
    } else {
      skip("isl blank and no MLPerf benchmark to take it from");
      continue;
    }
    const bool isl_stated = t.cell(i, "isl").find_first_not_of(" \t") != std::string::npos;
    if (parse_token_count_cell(t.cell(i, "osl"), v) && v >= 1) {
      w.osl = static_cast<long long>(v);
    } else if (t.cell(i, "osl").find_first_not_of(" \t") != std::string::npos) {
      skip(fmt::format("osl '{}' is not a token count (a number >= 1, or 8k for 8192)", echo_name(t.cell(i, "osl"))));
      continue;
    } else if (bench) {
      double implied = 0;
      const bool measured = note_number(notes, "(implies ", implied) && implied >= 1 && implied <= 1e7;
      w.osl = std::llround(measured ? implied : bench->osl_mean);
      c.assumptions.push_back(fmt::format("osl blank: {} ({})", w.osl,
                                          measured ? "the run's output tokens per sample, from its notes"
                                                   : fmt::format("MLPerf {} dataset mean output tokens", bench->name)));
    } else {
      skip("osl blank and no MLPerf benchmark to take it from");
      continue;
    }
    if (bench) {
      // Stated lengths beyond the benchmark's dataset maxima (row_contradiction.h).
      const bool osl_stated = t.cell(i, "osl").find_first_not_of(" \t") != std::string::npos;
      if (auto why = lengths_contradiction(isl_stated ? w.isl : 0, osl_stated ? w.osl : 0, *bench)) {
        flag(*why);
        continue;
      }
    }

    // Attention-DP and MTP as the notes state them (validate/notes_deployment.h).
    const NotesServing said = read_notes_serving(notes);
    InferenceParallel& p = c.parallel;
    bool tp_filled = false;  // TP (and EP) blank: filled here, or chosen under the scenario's limits below
    const InferenceXSweepEntry* sweep_entry = nullptr;  // the disaggregated deployment read from InferenceX's sweep
    if (!counts_blank.empty()) {
      if (auto why = inferencex_dump_deployment(t, i, catalog, source, c, notes, counts_blank, notes_deployment,
                                                sweep_entry, c.assumptions)) {
        skip(*why);
        continue;
      }
      gpus = notes_deployment.gpus();
      w.num_gpus = gpus;
    }
    if (disagg) {
      // The pools the notes state (src/validate/notes_deployment.h): the decode pool capped at its bs per
      // attention rank.
      if (auto why = notes_disaggregated(c.model, notes_deployment, c.disagg, c.assumptions)) {
        skip(*why);
        continue;
      }
      if (gpus != notes_deployment.gpus()) {
        skip(fmt::format("num_gpus {} is not the notes' disaggregated deployment's {} GPUs", gpus,
                         notes_deployment.gpus()));
        continue;
      }
      c.mode = InferenceMode::disaggregated;
      c.deployment = "disaggregated";
      c.parallel = c.disagg.decode;
    } else {
      // Parallelism. AIConfigurator notes give attn_dp and moe_ep; TRT-LLM "DEPn" is attention-DP n
      // with EP n; MoE rows without EP use EP = TP with attention-DP (the TRT-LLM perf docs' recipe).
      // Every parallel degree is range-checked before it becomes an int (a cell or note may say 1e300 or inf).
      constexpr double kMaxDegree = 4096;
      const auto degree_ok = [&](double d) { return std::isfinite(d) && d >= 0 && d <= kMaxDegree; };
      double x = 0;
      double pp = 1;
      const bool pp_given = parse_number(t.cell(i, "pp"), pp);
      double attn_dp = 1;
      const bool attn_dp_read = note_number(notes, "attn_dp=", attn_dp);
      double batch_ranks = attn_dp;  // the attention ranks an AIConfigurator "batch=" counts, as stated
      const bool tp_blank = !parse_number(t.cell(i, "tp"), x);
      double ep = 0;
      const bool ep_read = parse_number(t.cell(i, "ep"), ep);
      double moe_ep = 0;
      const bool moe_ep_read = note_number(notes, "moe_ep=", moe_ep);
      if ((pp_given && !degree_ok(pp)) || !degree_ok(attn_dp) || (!tp_blank && !degree_ok(x)) || (ep_read && !degree_ok(ep)) ||
          (moe_ep_read && !degree_ok(moe_ep))) {
        skip(fmt::format("a parallel degree (pp, tp, ep, attn_dp or moe_ep) is outside 0..{:g}", kMaxDegree));
        continue;
      }
      p.pp = pp_given && pp >= 1 ? static_cast<int>(pp) : 1;
      double moe_tp_stated = 0;
      if (source.closed_loop_client && source.closed_loop_client->single_node_width_tp_times_ep && !tp_blank &&
          attn_dp_read && moe_ep_read && c.model.is_moe() && note_number(notes, "moe_tp=", moe_tp_stated)) {
        // A single-node script's run stated as TP x EP (data/serving/source_conventions.yaml): a width
        // beyond one NVLink node that is moe_tp x moe_ep with moe_tp = moe_ep is the script's TP (= EP).
        const System* sys = catalog.find_system(c.system);
        const double width = x * attn_dp, node = sys ? sys->nvlink_domain_gpus : 0;
        if (node > 0 && width > node && (x == 1 || attn_dp == 1) && moe_tp_stated == moe_ep &&
            moe_ep * moe_ep == width && moe_ep <= node &&
            gpus == static_cast<int>(width) * p.pp) {
          c.assumptions.push_back(fmt::format(
              "{} {:g} = moe_tp {:g} x moe_ep {:g} beyond one {:g}-GPU node: {}'s single-node script's TP {:g} x EP "
              "{:g} (source_conventions.yaml): {} {:g}, EP {:g} on {:g} GPUs",
              attn_dp > 1 ? "attn_dp" : "tp", attn_dp > 1 ? attn_dp : x, moe_tp_stated, moe_ep, node,
              source.closed_loop_client->name, moe_ep, moe_ep, attn_dp > 1 ? "attention-DP" : "TP", moe_ep, moe_ep,
              moe_ep));
          if (attn_dp > 1) attn_dp = moe_ep;
          else x = moe_ep;
          gpus = static_cast<int>(moe_ep) * p.pp;
          w.num_gpus = gpus;
        }
      }
      const bool ep_given = ep_read && ep >= 1;
      if (moe_ep_read && moe_ep >= 1) ep = moe_ep;
      if (!tp_blank) {
        p.tp = static_cast<int>(x);
      } else if (ep_given && c.model.is_moe()) {
        p.tp = static_cast<int>(ep);
        p.attention_dp = true;
        c.assumptions.push_back(fmt::format("tp blank with ep {}: attention-DP {} + EP {}", p.tp, p.tp, p.tp));
      } else if (c.model.is_moe() && !attn_dp_read && (said.attention_dp == 1 || said.tp_ep > 0)) {
        // The notes name the layout: "DEP8" (attention-DP 8 + EP 8), "TEP8" (TP 8 + EP 8), or attention-DP
        // over the instance's GPUs.
        const bool adp = said.attention_dp == 1;
        p.tp = adp ? (said.attention_dp_ranks > 0 ? said.attention_dp_ranks : gpus / p.pp) : said.tp_ep;
        p.attention_dp = adp;
        if (!ep_given) ep = p.tp;
        c.assumptions.push_back(fmt::format("tp blank: {} {} + EP {} as the notes state ({})", adp ? "attention-DP" : "TP",
                                            p.tp, static_cast<int>(ep), fmt::join(said.said, ", ")));
      } else if (harness && harness->sets_deployment() && !pp_given &&
                 gpus % (harness->tp * harness->pp) == 0 && (!harness->attention_dp || c.model.is_moe())) {
        p.tp = harness->tp;
        p.pp = harness->pp;
        p.attention_dp = harness->attention_dp;
        if (harness->ep > 0 && !ep_given) ep = harness->ep;
        c.assumptions.push_back(fmt::format("tp, pp blank: {} {}{}, PP {} ({}, its {} configuration of {}: "
                                            "data/serving/mlperf_scenarios.yaml)",
                                            harness->attention_dp ? "attention-DP" : "TP", p.tp,
                                            harness->ep > 0 ? fmt::format(" + EP {}", harness->ep) : std::string(),
                                            p.pp, harness->name, c.scenario, bench->name));
      } else {
        p.tp = smallest_kv_tp(c.model, c.hardware, w, gpus / p.pp);
        tp_filled = !ep_given;
        c.assumptions.push_back(fmt::format("tp blank: {} (smallest that leaves room for the KV cache)", p.tp));
      }
      if (p.tp < 1 || p.tp > 4096 || attn_dp > 4096) {  // 0 would divide below; the product must not overflow
        skip(fmt::format("tp {} (attn_dp {}) is outside 1..4096", p.tp, attn_dp));
        continue;
      }
      double moe_tp = 0;
      if (!attn_dp_read && contains(notes_l, "attn_dp=") && note_number(notes, "moe_tp=", moe_tp) && moe_tp >= 1 &&
          moe_tp <= kMaxDegree && c.model.is_moe()) {
        // AIConfigurator's notes with a blank attn_dp ("tp=1 pp=1 attn_dp= moe_tp=2 moe_ep=1"): its layouts
        // keep tp x attn_dp = moe_tp x moe_ep (the attention ranks are the MoE ranks), so the blank is
        // moe_tp x moe_ep / tp, and num_gpus, which AIConfigurator derives as workers x tp x pp x attn_dp,
        // was computed with the blank as 1.
        const double moe_ranks = moe_tp * std::max(1.0, moe_ep_read ? moe_ep : 1.0);
        const double implied = moe_ranks / p.tp;
        if (implied > 1 && implied == std::floor(implied)) {
          attn_dp = implied;
          batch_ranks = implied;
          const long long scaled = static_cast<long long>(gpus) * static_cast<long long>(implied);
          if (double(scaled) > kMaxDegree) {
            skip(fmt::format("attn_dp blank: implied {:g} (moe_tp x moe_ep / tp) makes num_gpus {} x {:g} exceed {:g}",
                             implied, gpus, implied, kMaxDegree));
            continue;
          }
          c.assumptions.push_back(fmt::format("attn_dp blank: {:g} (moe_tp {:g} x moe_ep {:g} / tp {}, AIConfigurator's "
                                              "tp x attn_dp = moe_tp x moe_ep); num_gpus {} x {:g} = {} (the row's count "
                                              "took the blank as 1)",
                                              implied, moe_tp, moe_ranks / moe_tp, p.tp, gpus, implied, scaled));
          gpus = static_cast<int>(scaled);
          w.num_gpus = gpus;
        }
      }
      if (attn_dp > 1) {
        p.tp = p.tp * static_cast<int>(attn_dp);
        p.attention_dp = c.model.is_moe();
      }
      double batch = 0, clients = 0;
      if (contains(notes_l, "agg: tp=") && note_number(notes, "batch=", batch) && batch >= 1 &&
          parse_number(t.cell(i, "concurrency_or_batch"), clients) && clients > batch * batch_ranks &&
          gpus == p.tp * p.pp) {
        // AIConfigurator's aggregated notes give one worker's layout and its batch per attention rank
        // as stated (clients = batch x attn_dp on nearly every row: one worker), and its num_gpus is
        // workers x tp x pp x attn_dp with no worker count in the notes. More clients than one worker's
        // batch on one worker's GPUs leaves the deployment open: workers the count took as one, or a cap
        // that queues the rest (the exports hold both: 0.72 s TTFTs at 32x the batch, an 80 s TTFT at 2x).
        skip(fmt::format("the notes' aggregated worker holds batch {:g} x attn_dp {:g} sequences but the row has {:g} "
                         "clients on one worker's {} GPUs: more workers than num_gpus counts, or a batch cap that "
                         "queues the rest (not stated: not guessed)",
                         batch, batch_ranks, clients, gpus));
        continue;
      }
      if (c.model.is_moe()) {
        if (ep >= 1) {
          p.ep = static_cast<int>(ep);
        } else {
          p.ep = p.tp;
          c.assumptions.push_back(fmt::format("ep blank: {} (= tp)", p.ep));
        }
        if (p.ep > p.tp) {
          // EP wider than the attention group: the worker spans the EP ranks with attention data-parallel
          // over them (TensorRT-LLM "DEP"), which the model can express only when attention is not also
          // tensor-parallel inside each rank group.
          if (p.tp != 1 || p.attention_dp) {
            skip(fmt::format("ep {} wider than tp {}{}: tensor-parallel attention inside a wider EP group is not "
                             "modelled",
                             p.ep, p.tp, p.attention_dp ? " with attention-DP" : ""));
            continue;
          }
          p.tp = p.ep;
          p.attention_dp = true;
          c.assumptions.push_back(fmt::format("ep {} wider than tp 1: attention-DP {} + EP {}", p.ep, p.tp, p.ep));
        }
        const int ep_stated = p.ep;
        p.ep = dividing_expert_parallel(c.model, p.tp, p.ep);
        if (p.ep != ep_stated)
          c.assumptions.push_back(fmt::format("ep {} does not divide the {} experts and tp {}: ep {}", ep_stated,
                                              c.model.moe.num_experts, p.tp, p.ep));
        if (!p.attention_dp && said.attention_dp == 1 && said.tp_ep == 0 && !attn_dp_read && p.tp > 1) {
          p.attention_dp = true;
          c.assumptions.push_back(fmt::format("attention-DP over the tp {} ranks as the notes state ({})", p.tp,
                                              fmt::join(said.said, ", ")));
        }
        // A source whose recipe enables attention-DP for its MoE runs (TensorRT-LLM's perf overview: "For
        // MoE models ... enable_attention_dp: true"), the row's EP blank: the recipe's layout.
        if (!t.cell(i, "ep").size() && !tp_blank && p.tp > 1 && attn_dp <= 1 && said.attention_dp != 0 &&
            contains(notes_l, "enable_attention_dp")) {
          p.attention_dp = true;
          c.assumptions.push_back(fmt::format(
              "MoE model with enable_attention_dp in the source's recipe: attention-DP {} + EP {}", p.tp, p.ep));
        }
      } else {
        p.ep = 1;
        if (said.attention_dp == 1)
          c.assumptions.push_back(fmt::format("the notes state attention-DP ({}): a dense model's attention-DP ranks "
                                              "are instances of tp {} of their own",
                                              fmt::join(said.said, ", "), p.tp));
      }
      if (!p.attention_dp) {
        const auto ok_tp = valid_inference_tp(c.model, p.tp);
        if (std::find(ok_tp.begin(), ok_tp.end(), p.tp) == ok_tp.end()) {
          // Engines split attention heads evenly over the TP ranks (heads / tp each; TensorRT-LLM, vLLM and
          // SGLang check it), so a TP that does not divide them is not a layout they run as stated.
          skip(fmt::format("tp {} does not divide the {} attention heads of {} (or is not a divisor or multiple of its "
                           "{} KV heads): engines split heads evenly over the TP ranks, so the stated layout{} is not "
                           "one they run; not modelled",
                           p.tp, c.model.heads, c.model.name, c.model.kv_heads > 0 ? c.model.kv_heads : c.model.heads,
                           contains(notes_l, "agg: tp=") ? " (AIConfigurator notes: attn_dp 1, moe_tp = tp)" : ""));
          continue;
        }
      }
      if (gpus % (p.tp * p.pp) != 0) {
        skip(fmt::format("num_gpus {} is not a multiple of tp x pp = {}", gpus, p.tp * p.pp));
        continue;
      }
    }

    // Two-batch overlap as the notes state it: an MoE layout whose experts are split over EP ranks.
    if (said.two_batch_overlap == 1) {
      if (c.model.is_moe() && p.ep > 1 && !disagg) {
        p.two_batch_overlap = true;
        c.assumptions.push_back(fmt::format("two-batch overlap as the notes state it ({})", fmt::join(said.said, ", ")));
      } else {
        c.assumptions.push_back(fmt::format("the notes state two-batch overlap ({}), which only an MoE layout with EP "
                                            "runs aggregated: not modelled here",
                                            fmt::join(said.said, ", ")));
      }
    }

    // MTP as the notes state it (validate/notes_deployment.h).
    int sweep_mtp = -1;  // whether InferenceX's sweep pins the run's MTP: 1 on, 0 off, -1 not known
    if (notes_mtp(said, c.model, engine_params(catalog, c.engine).mtp_accept, w, c.assumptions)) {
      c.spec_decode = "mtp";
    } else if (said.mtp < 0 && source.closed_loop_client && source.closed_loop_client->inferencex_scripts) {
      // A run of InferenceX's whose dump does not record MTP: as the sweep entries of its date ran it.
      sweep_mtp = inferencex_dump_mtp(t, i, catalog, source, notes, disagg, sweep_entry, c);
    }

    // Scenario semantics. The concurrency cell: a count ("64", "1k", "~100"), blank or a word for the maximum load
    // ("max", "inf", "unlimited", "n/a"); anything else is not read as a load.
    std::string conc_s = t.cell(i, "concurrency_or_batch");
    if (const auto tilde = conc_s.find_first_not_of(" \t"); tilde != std::string::npos && conc_s[tilde] == '~') {
      conc_s = conc_s.substr(tilde + 1);  // "~100": about 100, read as 100
      c.assumptions.push_back(fmt::format("concurrency '{}' read as {}", echo_name(t.cell(i, "concurrency_or_batch")),
                                          echo_name(conc_s)));
    }
    {
      double n = 0;
      const std::string cl = to_lower(conc_s);
      static const std::regex max_load(R"(^\s*(max(imum)?(\s+load)?|inf(inity|inite)?|unlimited|n/?a|-+)?\s*$)");
      if (!parse_token_count_cell(conc_s, n) && !std::regex_match(cl, max_load)) {
        skip(fmt::format("concurrency_or_batch '{}' is not a count (a number >= 1, 1k, or blank / max / inf for the "
                         "maximum load)",
                         echo_name(conc_s)));
        continue;
      }
    }
    double qps = 0;
    const bool batch_limit = contains(notes_l, "per-engine gpu_batch_size") && parse_token_count_cell(conc_s, v) && v >= 1;
    if (batch_limit) {
      // NVIDIA's MLPerf configs: the column is the engine's batch limit, not the offered load.
      w.max_batch_size = static_cast<long long>(v);
      c.assumptions.push_back(fmt::format("concurrency column is the engine's gpu_batch_size: max_batch_size {}",
                                          w.max_batch_size));
    }
    if (!batch_limit && parse_token_count_cell(conc_s, v) && v >= 1) {
      w.concurrency = static_cast<long long>(v);
      // Static batching (gptSessionBenchmark) runs in waves; the source's closed-loop clients (data/serving/
      // source_conventions.yaml) drift apart into staggered arrivals after the first requests.
      if (c.scenario == "latency" || c.scenario == "throughput") w.arrival = Arrival::synchronized;
      else if (source.closed_loop_client) {
        // Each client's requests one after another, lengths uniform in [ratio L, L]: means (1 + ratio) / 2 x L.
        const ClosedLoopClient& client = *source.closed_loop_client;
        const double mean_fraction = client.mean_length_fraction();
        w.arrival = Arrival::closed_loop;
        w.requests_per_client = client.requests_per_client;
        w.isl = std::max(1LL, std::llround(mean_fraction * double(w.isl)));
        w.osl = std::max(1LL, std::llround(mean_fraction * double(w.osl)));
        c.assumptions.push_back(fmt::format("{} client: {} requests per client starting together, lengths uniform in "
                                            "[{:g}, 1] x ISL/OSL (means {:g} x)",
                                            client.name, client.requests_per_client, client.random_range_ratio,
                                            mean_fraction));
        // The run's script: InferenceX's SGLang scripts pass a receive interval on B200/B300, read as
        // for the InferenceX file's own rows of the same runs.
        if (client.inferencex_scripts && !disagg && to_lower(t.cell(i, "framework")).rfind("sglang", 0) == 0) {
          const SglangScriptRecvInterval ri = inferencex_sglang_recv_interval(
              c.model.name, c.generation, w.weight_precision, p.tp, p.attention_dp, w.concurrency);
          if (ri.interval > 1) {
            w.scheduler_recv_interval = ri.interval;
            c.assumptions.push_back(ri.assumption(w.concurrency));
          }
          // ... and its --mem-fraction-static, on the run's date (the notes' "measured="): the MTP script's
          // or the other's as InferenceX's sweep pins the run's MTP; where it does not, the script in
          // force, or both where they agree.
          const std::string measured = notes_measured_date(notes);
          const SglangScriptMemFraction mf = inferencex_sglang_mem_fraction(
              c.model.name, c.hardware.accelerator.name, w.weight_precision, p.tp, sweep_mtp, measured);
          if (mf.fraction > 0) {
            w.mem_fraction_static = mf.fraction;
            c.assumptions.push_back(mf.assumption());
          }
        }
        // The same client through the engine's HTTP server: its front end's latency per request,
        // fitted on the InferenceX file (these rows are held out of that fit). Disaggregated rows sit
        // behind the source's front end (AIConfigurator's: Dynamo's router and hand-off).
        if (client.http_front_end) {
          const EngineParams eng =
              engine_params(catalog, (disagg ? client.disaggregated_engine_prefix : "") + t.cell(i, "framework"));
          w.request_overhead_s = eng.request_overhead_s;
          if (!eng.name.empty())
            c.assumptions.push_back(fmt::format("{} front end: {:.0f} ms per request before prefill", eng.name,
                                                eng.request_overhead_s * 1e3));
          else
            c.assumptions.push_back(fmt::format("framework '{}' has no serving-engine entry (data/catalog/"
                                                "serving_engines.yaml): no front-end latency per request",
                                                echo_name(t.cell(i, "framework"))));
        }
        // A disaggregated run read from InferenceX's sweep with the clients its CONFIG_FILE's body states:
        // the decode side of that recipe, as InferenceX's own rows of the same runs take it (a body that
        // lists other clients is a later state of the recipe than the run's: the entry's own reading stands).
        const std::string run_date = notes_measured_date(notes);
        const auto body = disagg && sweep_entry
                              ? sweep_entry_body_clients(*sweep_entry, run_date, builtin_recipe_bodies())
                              : std::nullopt;
        if (body && std::find(body->begin(), body->end(), w.concurrency) != body->end()) {
          DynamoDecodeQuery dq;
          dq.gpu = t.cell(i, "gpu");
          dq.precision = w.weight_precision == Precision::fp8 ? "fp8" : "fp4";
          double cell = 0;
          dq.isl = parse_number(t.cell(i, "isl"), cell) ? std::llround(cell) : 0;
          dq.osl = parse_number(t.cell(i, "osl"), cell) ? std::llround(cell) : 0;
          dq.prefill_workers = notes_deployment.prefill.workers;
          dq.prefill_gpus_per_worker = sweep_entry->prefill.width();
          dq.decode_workers = notes_deployment.decode.workers;
          dq.decode_gpus_per_worker = sweep_entry->decode.width();
          dq.decode_attention_dp = sweep_entry->decode.attention_dp;
          dq.mtp = c.spec_decode == "mtp";
          dq.concurrency = w.concurrency;
          dq.date = run_date;
          apply_dynamo_decode_recipe(sweep_entry->engine, dq, c.disagg.decode, c);
        }
        // ... and the prefill workers' limits of the recipe in force for its deployment and date, as
        // InferenceX's own rows take them.
        if (disagg && sweep_entry) {
          apply_prefill_recipe_limits(inferencex_prefill_limits(
              sweep_entry->engine, t.cell(i, "gpu"), w.weight_precision == Precision::fp8 ? "fp8" : "fp4",
              sweep_entry->isl, w.isl, c.disagg.prefill.tp, c.disagg.prefill.attention_dp,
              sweep_entry->decode.attention_dp, c.spec_decode == "mtp", run_date), c);
        }
      }
    } else if (note_number(notes, "request_rate_qps=", qps) && qps > 0) {
      c.mode = InferenceMode::rate;
      c.request_rate_qps = qps;  // "INF" parses as infinity: all requests at t = 0
      const std::string fw_l = to_lower(t.cell(i, "framework"));
      const auto rq = fw_l.find(" requests)");
      if (rq != std::string::npos) {
        const auto open = fw_l.rfind('(', rq);
        double n = 0;
        if (open != std::string::npos && parse_number(fw_l.substr(open + 1, rq - open - 1), n) && n >= 1)
          c.requests_in_run = static_cast<long long>(n);
      }
    } else if ((c.scenario == "server" || c.scenario == "interactive") && bench &&
               bench->limits(c.scenario).tpot_ms > 0) {
      c.mode = InferenceMode::under_limits;
      double ttft = bench->limits(c.scenario).ttft_ms, tpot = bench->limits(c.scenario).tpot_ms;
      note_number(notes, "TTFT<= ", ttft);
      note_number(notes, "TPOT<= ", tpot);
      c.ttft_limit_s = ttft / kTtftP99OverMean / 1e3;
      c.tpot_limit_s = tpot / kTpotP99OverMean / 1e3;
      c.assumptions.push_back(fmt::format("MLPerf {}: highest load with mean TTFT <= {:.0f} ms and TPOT <= "
                                          "{:.0f} ms (p99 limits {:.0f} / {:.0f} ms over p99/mean ratios)",
                                          c.scenario, c.ttft_limit_s * 1e3, c.tpot_limit_s * 1e3, ttft, tpot));
    } else {
      c.assumptions.push_back("concurrency blank: maximum load (as many sequences as the KV cache holds)");
      if (contains(to_lower(c.engine), "trtllm-bench")) {
        // trtllm-bench picks max_batch_size and max_num_tokens itself from the run's ISL/OSL and the
        // memory the weights leave (the perf-overview tables state neither), with chunked prefill off.
        const EngineLimits lim = trtllm_bench_limits(c.model, c.hardware.accelerator, p, w.weight_precision,
                                                     w.kv_bytes_per_element, w.isl, w.osl);
        w.max_batch_size = lim.max_batch_size;
        w.max_num_tokens = lim.max_num_tokens;
        c.assumptions.push_back(fmt::format("trtllm-bench's own limits for {}/{}: max_batch_size {}, max_num_tokens {} "
                                            "(tuning.py heuristic, chunked prefill off)",
                                            w.isl, w.osl, w.max_batch_size, w.max_num_tokens));
      }
    }
    if (w.concurrency > 0) {
      // The run's per-user rate and per-GPU throughput (this row's, the notes', the same run's other rows')
      // against its clients (row_contradiction.h).
      RunFigures fig;
      if (const auto it = runs.find(run_key(t, i)); it != runs.end()) fig = it->second;
      add_notes_figures(fig, notes);
      if (auto why = figures_contradiction(fig, double(w.concurrency), double(gpus), double(w.osl))) {
        flag(*why);
        continue;
      }
    }
    if (disagg && c.mode != InferenceMode::disaggregated) {
      skip("a request-rate or latency-limited run of a disaggregated deployment is not modelled");
      continue;
    }
    if (disagg && w.concurrency == 0 && !c.assumptions.empty() && c.assumptions.back().rfind("concurrency blank", 0) == 0)
      c.assumptions.back() = "concurrency blank: the decode pool's slots (decode workers x attention ranks x bs, "
                             "AIConfigurator's concurrency of a disaggregated deployment)";
    {
      // The engine's host work per sequence per step (data/catalog/serving_engines.yaml: TensorRT-LLM's
      // PyTorch executor; C++ runtimes none).
      const EngineParams eng = engine_params(catalog, c.engine);
      w.host_per_seq_step_s = eng.host_per_seq_step_s;
      apply_engine_facts(eng, w);  // the engine's scheduler and memory, as in `infer --engine`
      if (harness) {
        // The harness's scheduling and limits, where the row states none.
        if (harness->scheduler_steps > 1 && w.scheduler_recv_interval == 1) {
          w.scheduler_recv_interval = harness->scheduler_steps;
          c.assumptions.push_back(fmt::format("{}: multi-step scheduling in the {} scenario, new requests joining "
                                              "every {} decode steps (data/serving/mlperf_scenarios.yaml)",
                                              harness->name, c.scenario, harness->scheduler_steps));
        }
        if (harness->max_num_tokens > 0 || harness->max_batch_size > 0) {
          if (harness->max_num_tokens > 0) w.max_num_tokens = harness->max_num_tokens;
          if (harness->max_batch_size > 0 && !batch_limit) w.max_batch_size = harness->max_batch_size;
          c.assumptions.push_back(fmt::format("{}: max_num_tokens {}, max_batch_size {} ({} configuration of {})",
                                              harness->name, w.max_num_tokens, w.max_batch_size, c.scenario,
                                              bench ? bench->name : std::string("the benchmark")));
        }
        // Where infer takes it (api/long_context_options.h): not MLA prompts, not a chip without FP8 math.
        if (harness->fp8_context_attention && c.model.attention != AttentionKind::mla &&
            fp8_attention_refusal(c.hardware.accelerator).empty()) {
          w.fp8_context_attention = true;
          c.assumptions.push_back(fmt::format("{}: the prompts' attention in FP8 (use_fp8_context_fmha, {} "
                                              "configuration of {})",
                                              harness->name, c.scenario, bench ? bench->name : std::string("the benchmark")));
        }
        if (const auto adm = parse_kv_admission(harness->kv_admission); adm && *adm != w.kv_admission) {
          w.kv_admission = *adm;
          c.assumptions.push_back(fmt::format("{}: KV admitted by {} (batch_scheduler_policy)", harness->name,
                                              harness->kv_admission));
        }
      }
      if (eng.kv_admission == KvAdmission::current_length)
        c.assumptions.push_back(fmt::format("{}: KV admitted by current length (a running sequence holds isl + "
                                            "osl / 2 on average)", eng.name));
      if (eng.prefill_separate)
        c.assumptions.push_back(fmt::format("{}: prompts prefill in forwards of their own that the decodes wait for",
                                            eng.name));
      if (c.model.is_moe()) {
        w.moe_gemm_eff = eng.moe_gemm_eff;
        if (eng.moe_gemm_eff < 1.0)
          c.assumptions.push_back(fmt::format("{}: grouped MoE GEMMs at {:.2f} of the generation's GEMM efficiency",
                                              eng.name, eng.moe_gemm_eff));
      }
      // The release the framework states, where the engine's entry measured it apart from the newest.
      if (const ServingEngine* se = catalog.find_serving_engine(c.engine); se && !se->newest_release.empty()) {
        const std::string rel = framework_release(c.engine);
        if (const EngineRelease* r = find_engine_release(*se, rel)) {
          c.engine_release = r->release;
          w.moe_kernel_share = r->moe_kernel_share;
          if (c.model.is_moe())
            c.assumptions.push_back(fmt::format("{} {}: MoE kernels at {:.2f} of the newest release's ({}) rate "
                                                "(serving_engines.yaml releases)",
                                                eng.name, r->release, r->moe_kernel_share, se->newest_release));
        }
      }
      if (eng.host_per_seq_step_s > 0)
        c.assumptions.push_back(fmt::format("{}: {:.0f} us of host work per sequence per step, overlapped with the "
                                            "GPU step",
                                            eng.name, eng.host_per_seq_step_s * 1e6));
    }
    {
      // TensorRT-LLM's TRT engine flow (C++ runtime: trtllm-bench's engine build, gptSessionBenchmark,
      // gptManagerBenchmark, Triton's tensorrtllm_backend) attends over max_attention_window_size,
      // which defaults to the maximum sequence length; the perf-overview runs set none, so a
      // sliding-window model (Mistral 7B v0.1: 4,096) keeps and reads full-length KV there (and
      // trtllm-bench's tuning.py sizes its batch on full-length KV too). The PyTorch backend and other
      // engines use the model's window.
      const std::string fw = to_lower(c.engine);
      const bool trt_engine_flow = contains(fw, "engine flow") || contains(fw, "gptsessionbenchmark") ||
                                   contains(fw, "gptmanagerbenchmark") || contains(fw, "tensorrtllm_backend");
      if (trt_engine_flow && c.model.sliding_window > 0 && w.isl + w.osl > c.model.sliding_window) {
        c.assumptions.push_back(fmt::format("TensorRT-LLM TRT engine flow: attention window = max sequence length "
                                            "(max_attention_window_size not set), full-length KV instead of the "
                                            "model's {}-token sliding window",
                                            c.model.sliding_window));
        c.model.sliding_window = 0;
        c.model.sliding_window_layers = 0;
        c.full_attention_window = true;
      }
    }
    if (contains(notes_l, "input+output") || contains(notes_l, "input + output"))
      c.total_over_output = double(w.isl + w.osl) / double(w.osl);
    // A latency-limited row with its TP blank: the deployment a submitter tunes to the limits.
    if (c.mode == InferenceMode::under_limits && tp_filled) choose_row_deployment(c);
    out.push_back(std::move(c));
  }
  return out;
}

double inference_metric(const InferenceCase& c, const InferenceResult& r) {
  if (!(r.tokens_per_s_total > 0)) return 0.0;
  if (c.metric == "tokens_per_sec_total") return r.tokens_per_s_total * c.total_over_output;
  if (c.metric == "tokens_per_sec_per_gpu") return r.tokens_per_s_per_gpu * c.total_over_output;
  if (c.metric == "tokens_per_sec_per_user") return r.tokens_per_s_per_user;
  // A case whose workload asks for the median request's TTFT reads it (InferenceWorkload::ttft_median).
  if (c.metric == "ttft_ms")
    return (c.workload.ttft_median && r.ttft_median_s > 0 ? r.ttft_median_s : r.ttft_s) * 1e3;
  if (c.metric == "p99_ttft_ms") return r.ttft_p99_s * 1e3;
  if (c.metric == "tpot_ms") return r.tpot_s * 1e3;
  return 0.0;
}

double predict_inference_case(const InferenceCase& c) {
  try {
    const InferenceResult r = evaluate_case(c);
    bool hard = false;
    for (const auto& v : r.violations) hard = hard || v.code == "memory.exceeds_capacity";
    return hard ? 0.0 : inference_metric(c, r);
  } catch (const InputError&) {
    return 0.0;
  }
}

ValidationReport validate_inference(const std::vector<InferenceCase>& cases, std::vector<SkippedRow> skipped,
                                    const std::string& dataset, const Catalog* catalog) {
  ValidationReport rep;
  rep.dataset = dataset;
  rep.skipped = std::move(skipped);
  ErrorGroups groups;
  std::vector<double> all;
  for (const auto& c : cases) {
    std::string why;
    double pred = 0;
    RowReading reading;
    try {
      const InferenceResult r = evaluate_case(c);
      reading = serving_row_reading(c, r);
      for (const auto& v : r.violations)
        if (v.code == "memory.exceeds_capacity") why = v.message;
      if (why.empty()) pred = inference_metric(c, r);
    } catch (const InputError& e) {
      why = e.what();
    }
    if (!(pred > 0) || !std::isfinite(pred)) {
      rep.skipped.push_back({c.row, why.empty() ? "the model returned no prediction" : why});
      continue;
    }
    ScoredRow r = scored_row(c, pred);
    if (catalog) {
      r.command = serving_row_command(*catalog, c);
      r.command_field = reading.field;
      r.command_scale = reading.scale;
    }
    r.plan = fmt::format("tp={},ep={},pp={}{} isl={} osl={} conc={} {}", c.parallel.tp, c.parallel.ep, c.parallel.pp,
                         c.parallel.attention_dp ? ",attention_dp" : "", c.workload.isl, c.workload.osl,
                         c.workload.concurrency, to_string(c.workload.arrival));
    if (c.mode == InferenceMode::disaggregated)
      r.plan = fmt::format("disagg prefill {}x(tp={},ep={}{}) decode {}x(tp={},ep={}{}) isl={} osl={} conc={}",
                           c.disagg.prefill_gpus / c.disagg.prefill.tp, c.disagg.prefill.tp, c.disagg.prefill.ep,
                           c.disagg.prefill.attention_dp ? ",attention_dp" : "", c.disagg.decode_gpus / c.disagg.decode.tp,
                           c.disagg.decode.tp, c.disagg.decode.ep, c.disagg.decode.attention_dp ? ",attention_dp" : "",
                           c.workload.isl, c.workload.osl, c.workload.concurrency);
    if (c.workload.mtp_draft_tokens > 0) r.plan += fmt::format(" mtp={}", c.workload.mtp_draft_tokens);
    all.push_back(r.ape_pct);
    const bool latency = c.metric == "ttft_ms" || c.metric == "tpot_ms";
    groups["accelerator"][r.accelerator].push_back(r.ape_pct);
    groups["framework"][c.framework].push_back(r.ape_pct);
    groups["source"][r.source_id].push_back(r.ape_pct);
    groups["family"][r.family].push_back(r.ape_pct);
    groups["metric"][r.metric].push_back(r.ape_pct);
    groups["kind"][latency ? "latency" : "throughput"].push_back(r.ape_pct);
    groups["deployment"][c.deployment].push_back(r.ape_pct);
    groups["spec_decode"][c.spec_decode].push_back(r.ape_pct);
    rep.rows.push_back(std::move(r));
  }
  finish_report(rep, all, groups);
  return rep;
}

}  // namespace gpuplan
