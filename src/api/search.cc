// gpuplan search: enumerate training plans, drop those that do not divide or fit, rank the rest.
#include <fmt/format.h>

#include <ostream>

#include "api/cost_options.h"
#include "api/band_json.h"
#include "api/mode_options.h"
#include "api/search.h"
#include "api/text.h"
#include "api/training_json.h"
#include "core/error.h"
#include "model/model_registry.h"
#include "search/report.h"
#include "search/search.h"

namespace gpuplan::api {

namespace {

void check_range(const char* name, long long v, long long lo, long long hi) {
  if (v < lo || v > hi)
    throw InputError(name, fmt::format("must be a whole number from {} to {}, got {}", lo, hi, v));
}

void print_candidate(std::ostream& os, std::size_t rank, const TrainingPlan& p, const TrainingResult& r) {
  const StepBreakdown& s = r.parts;
  const double compute = s.gemm_s + s.attention_s + s.memory_bound_s + s.recompute_s;
  os << fmt::format("#{:<3} {}\n", rank, to_string(p));
  os << fmt::format("     step {:.3f} s   {:.0f} tokens/s/GPU   MFU {:.1f}% (6N) {:.1f}% (with attention)   "
                    "memory {} of {} per GPU\n",
                    r.step_time_s, r.tokens_per_s_per_gpu, 100 * r.mfu_6n, 100 * r.mfu_attn,
                    human_bytes(r.memory.total_bytes), human_bytes(r.memory.capacity_bytes));
  os << fmt::format("     compute {:.3f} s (gemm {:.3f}, attention {:.3f}, memory-bound {:.3f}, recompute "
                    "{:.3f})\n",
                    compute, s.gemm_s, s.attention_s, s.memory_bound_s, s.recompute_s);
  os << fmt::format("     exposed comm: tp {:.3f}, cp {:.3f}, ep {:.3f}, pp {:.3f}, dp {:.3f} s   bubble {:.3f} s"
                    "   optimizer {:.3f} s{}\n",
                    s.tp_comm_s, s.cp_comm_s, s.ep_comm_s, s.pp_comm_s, s.dp_comm_s, s.bubble_s,
                    s.optimizer_s,
                    p.offload_layers > 0 ? fmt::format("   offload {:.3f} s", s.offload_s) : std::string());
}

}  // namespace

void add_search_options(CLI::App& app, SearchRequest& req) {
  app.description("Search training plans (TP, PP, VP, CP, EP, micro-batch, recompute, ZeRO/FSDP, sequence parallel; "
               "full recompute and activation offload of the fewest layers that fit): "
               "drop those that do not divide or fit memory, rank by tokens/s, print the top K with breakdowns");
  app.add_option("--model", req.model, kModelOptionHelp)->required();
  app.add_option("--system", req.system, "System from the catalog (e.g. hgx-h100, gb200-nvl72)")->required();
  app.add_option("--gpus", req.gpus, "GPUs in the job")->required();
  app.add_option("--global-batch", req.global_batch,
                 "Sequences per optimizer step (default: follows the model, as published pre-training schedules "
                 "chose it; see `train --help`)");
  app.add_option("--seq", req.seq, "Sequence length, tokens")->capture_default_str();
  app.add_option("--precision", req.precision, "bf16, fp8, mxfp8, nvfp4 or fp4")->capture_default_str();
  app.add_option("--top", req.top, "How many plans to print")->capture_default_str();
  app.add_option("--objective", req.objective,
                 "What to rank by: tokens (tokens/s) or cost ($ per million tokens from the system's TCO; "
                 "with the system and GPU count fixed it ranks as tokens does)")
      ->capture_default_str();
  add_cost_options(app, req.cost_opts);
  add_finetune_options(app, req.finetune);
}

int search(const Catalog& catalog, SearchRequest req, Output& output) {
  check_range("--gpus", req.gpus, 1, 1 << 20);
  req.check_global_batch(req.global_batch);
  check_range("--seq", req.seq, 1, 10'000'000);
  check_range("--top", req.top, 1, 1000);
  if (req.objective != "tokens" && req.objective != "cost")
    throw InputError("--objective", fmt::format("unknown objective '{}'; allowed: tokens, cost", req.objective));
  TrainingWorkload w;
  w.num_gpus = req.gpus;
  w.seq_len = req.seq;
  w.finetune = finetune_spec(req.finetune, req);
  if (auto p = parse_precision(req.precision)) w.precision = *p;
  else throw InputError("--precision", fmt::format("unknown precision '{}'; allowed: bf16, fp8, mxfp8, nvfp4, fp4",
                                                   req.precision));
  const ModelArch m = resolve_model(req.model, "--model");
  const BatchChoice batch = choose_global_batch(m, w.seq_len, req.given("--global-batch") ? req.global_batch : 0);
  w.global_batch = batch.sequences;
  catalog.system(req.system, "--system");  // a system, not a bare accelerator: its NVLink domain matters
  const Hardware hw = resolve_hardware(catalog, req.system);
  require_training_precision(hw, w.precision);
  SearchOptions so;
  so.top_k = static_cast<std::size_t>(req.top);
  so.objective = req.objective == "cost" ? Objective::cost : Objective::tokens_per_s;
  double usd_per_gpu_hour = 0;
  const cost::CostProfile profile = load_cost_profile(req.cost_opts);  // checked even when not the objective
  if (so.objective != Objective::cost)
    refuse_ignored_options(req,
                           {"--cost-profile", "--electricity-usd-per-kwh", "--pue", "--depreciation-years",
                            "--cost-of-capital", "--colocation-usd-per-kw-month", "--average-power-fraction",
                            "--maintenance-fraction"},
                           "prices the plans: add --objective cost");
  if (so.objective == Objective::cost) {
    const cost::Tco tco = system_tco(catalog, req.system, profile);
    if (!tco.priced)
      throw InputError("--objective", fmt::format("system '{}' has no price; give one in a cost profile "
                                                  "(--cost-profile: systems.{}.price_usd)", req.system, req.system));
    usd_per_gpu_hour = so.objective_context.usd_per_gpu_hour = tco.usd_per_gpu_hour();
  }
  const SearchResult r = search_plans(m, hw, w, so);
  FitsFrom from;  // when nothing fits: the doubling of --gpus that would
  if (r.top.empty())
    from = fits_from_search(r, w.num_gpus, 1, [&](int gpus) {
      TrainingWorkload at = w;
      at.num_gpus = gpus;
      return search_plans(m, hw, at, so);
    });

  const ErrorBand eb = training_band(catalog, m, hw, w);  // widened where the plan is off the bands' ground
  if (output.json()) {
    nlohmann::json j;
    j["model"] = m.name;
    j["system"] = req.system;
    j["accelerator"] = hw.accelerator.name;
    j["gpus"] = w.num_gpus;
    j["global_batch"] = w.global_batch;
    j["global_batch_basis"] = batch_json(batch, w.seq_len);
    j["seq_len"] = w.seq_len;
    j["precision"] = std::string(to_string(w.precision));
    if (!w.finetune.is_full()) j["finetune"] = finetune_json(m, w.finetune);
    j["objective"] = std::string(to_string(so.objective));
    if (usd_per_gpu_hour > 0) j["usd_per_gpu_hour"] = usd_per_gpu_hour;
    j.update(stats_json(r.stats));
    nlohmann::json top = nlohmann::json::array();
    for (std::size_t i = 0; i < r.top.size(); ++i) {
      nlohmann::json c = candidate_json(r.top[i].plan, r.top[i].result);
      c["rank"] = i + 1;
      c["band"] = band_json(with_band(r.top[i].result.tokens_per_s_per_gpu, eb));
      std::string mfu_note;
      c["published_mfu"] = published_mfu_check(hw, w.precision, r.top[i].result, mfu_note);
      if (usd_per_gpu_hour > 0) c["usd_per_million_tokens"] = usd_per_million_tokens(r.top[i].result, usd_per_gpu_hour);
      top.push_back(std::move(c));
    }
    j["top"] = std::move(top);
    j["fit_notes"] = fit_notes(hw, m, eb.generation);
    if (r.has_closest)
      j["closest"] = {{"plan", plan_json(r.closest_plan)}, {"memory", memory_summary_json(r.closest_memory)}};
    if (r.top.empty())
      j["fits_from"] = from.gpus > 0 ? nlohmann::json{{"gpus", from.gpus}, {"plan", plan_json(from.plan)}}
                                     : nlohmann::json(nullptr);
    output.emit("search", std::move(j));
    return r.top.empty() ? kExitDoesNotFit : kExitOk;  // as train, whose plan this search finds
  }

  const std::string name = m.display_name.empty() ? m.name : m.display_name;
  output.os() << fmt::format("{} on {} x {} ({}), global batch {}, seq {}, {}\n", name, w.num_gpus, req.system,
                           hw.accelerator.name, w.global_batch, w.seq_len, to_string(w.precision));
  output.os() << batch_line(batch, w.seq_len) << "\n";
  if (!w.finetune.is_full()) output.os() << fmt::format("fine-tuning: {}\n", describe(w.finetune));
  output.os() << fmt::format("Plans: {} enumerated, {} dropped ({} divisibility, {} memory), {} evaluated\n\n",
                           r.stats.enumerated, r.stats.dropped(), r.stats.dropped_divisibility,
                           r.stats.dropped_memory, r.stats.evaluated);
  if (r.top.empty()) {
    if (r.has_closest)
      output.os() << fmt::format("No plan fits in memory. Closest: {} needs {} per GPU of {}.\n",
                               to_string(r.closest_plan), human_bytes(r.closest_memory.total_bytes),
                               human_bytes(r.closest_memory.capacity_bytes));
    if (!r.has_closest) output.os() << "No plan divides this GPU count, model and global batch.\n";
    output.os() << fits_from_line(from, !r.has_closest);
    return kExitDoesNotFit;
  }
  output.os() << fmt::format("Top {} by {}:\n", r.top.size(),
                           usd_per_gpu_hour > 0 ? fmt::format("cost (${:.2f} per GPU-hour)", usd_per_gpu_hour)
                                                : std::string("tokens/s"));
  output.os() << fmt::format("(tokens/s/GPU {}; plans closer than that are within the model's error)\n",
                           band_text(with_band(r.top.front().result.tokens_per_s_per_gpu, eb)));
  for (const std::string& note : fit_notes(hw, m, eb.generation)) output.os() << "note: " << note << "\n";
  for (std::size_t i = 0; i < r.top.size(); ++i) {
    print_candidate(output.os(), i + 1, r.top[i].plan, r.top[i].result);
    std::string mfu_note;
    const nlohmann::json check = published_mfu_check(hw, w.precision, r.top[i].result, mfu_note);
    if (check["above"].get<bool>()) output.os() << "     note: " << mfu_note << "\n";
    if (usd_per_gpu_hour > 0)
      output.os() << fmt::format("     ${:.3f} per million tokens\n",
                               usd_per_million_tokens(r.top[i].result, usd_per_gpu_hour));
  }
  return kExitOk;
}


}  // namespace gpuplan::api
