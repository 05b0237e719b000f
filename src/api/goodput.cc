// gpuplan goodput: a training run's useful time under failures, checkpoints and restarts; with and
// without spares; side by side for two systems.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "api/goodput.h"
#include "api/text.h"
#include "api/cost_options.h"
#include "api/mode_options.h"
#include "core/numbers.h"
#include "core/error.h"
#include "deploy/goodput.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "api/training_json.h"
#include "search/search.h"
#include "training/training_step.h"

namespace gpuplan::api {

namespace goodput_detail {  // named, not anonymous: the CLI is a unity build

struct Side {
  std::string system;
  TrainingPlan plan;  // dp filled in
  double usd_per_gpu_hour = 0;  // the price the cost uses (0: none)
  std::string usd_basis;
  TrainingResult train;
  deploy::GoodputResult good;
  deploy::JobShape shape;
  std::string mfu_warning;  // the plan's MFU is far below what its generation has reached (empty: not)
};

// Where a step goes when it is not computing: the two largest exposed parts, as shares of the step.
std::string idle_parts(const StepBreakdown& p) {
  std::vector<std::pair<double, const char*>> parts = {
      {p.ep_comm_s, "expert all-to-all"}, {p.cp_comm_s, "context-parallel exchange"},
      {p.dp_comm_s, "gradient reduce-scatter / all-gather"}, {p.tp_comm_s, "tensor-parallel communication"},
      {p.pp_comm_s, "pipeline send/recv"}, {p.bubble_s, "pipeline bubble"}, {p.offload_s, "activation offload"},
      {p.optimizer_s, "optimizer step"}};
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const double t = p.total_s();
  return fmt::format("{} {:.0f}% and {} {:.0f}%", parts[0].second, 100 * parts[0].first / t, parts[1].second,
                     100 * parts[1].first / t);
}

// A chosen plan whose MFU (6N, against the BF16 peak) is under half the best published on its generation
// and precision (data/training/published_mfu.yaml) while computing for under half its step: the job is
// spread too thin for its global batch (each data-parallel replica gets a few sequences, so exposed
// communication and the pipeline's fill and drain make most of the step). A plan that computes for most
// of its step is not flagged: its MFU is the kernels' (an MoE's expert GEMMs run below a dense model's).
std::string mfu_warning(const Hardware& hw, Precision precision, const TrainingWorkload& w, const TrainingResult& r) {
  std::string note;
  const nlohmann::json pub = published_mfu_check(hw, precision, r, note);
  if (!pub["best_published"].is_number()) return {};
  const double best = pub["best_published"].get<double>();
  const StepBreakdown& p = r.parts;
  const double t = p.total_s();
  const double compute = t > 0 ? (p.gemm_s + p.attention_s + p.memory_bound_s + p.recompute_s) / t : 1.0;
  if (!(r.mfu_6n_bf16 < 0.5 * best) || !(compute < 0.5)) return {};
  return fmt::format(
      "MFU {:.1f}% (6N, against the BF16 peak) is under half the best published for {} {} training, {:.1f}% ({}): "
      "the GPUs compute for {:.0f}% of the step; the global batch of {} sequences gives each of the {} data-parallel "
      "replicas {:.3g} sequences ({} micro-batches per pipeline), so {} make most of the step. A larger "
      "--global-batch or fewer --gpus keeps each GPU busier",
      100 * r.mfu_6n_bf16, hw.accelerator.generation, to_string(precision), 100 * best, pub["source"].get<std::string>(),
      100 * compute, w.global_batch, r.dp, r.dp > 0 ? double(w.global_batch) / r.dp : 0.0, r.microbatches,
      idle_parts(p));
}

std::string dur(double s) {
  if (s >= 86400 * 2) return fmt::format("{:.1f} d", s / 86400);
  if (s >= 3600) return fmt::format("{:.1f} h", s / 3600);
  if (s >= 60) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} s", s);
}

nlohmann::json scenario_json(const deploy::Scenario& s) {
  return {{"restart_s", s.restart_s}, {"goodput", s.goodput}, {"effective_tokens_per_s", s.effective_tokens_per_s},
          {"wall_s", s.wall_s}, {"spare_units", s.spare_units}, {"spare_gpus", s.spare_gpus},
          {"gpu_hours", s.gpu_hours}, {"cost_usd", s.cost_usd},
          {"time_shares", {{"useful", s.shares.useful}, {"checkpoint", s.shares.checkpoint},
                           {"down", s.shares.down}, {"rework", s.shares.rework}}}};
}

nlohmann::json side_json(const Side& x) {
  const auto& g = x.good;
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& c : g.classes)
    classes.push_back({{"class", c.name}, {"failures_per_hour", c.failures_per_hour}, {"blast_gpus", c.blast_gpus},
                       {"repair_s", c.repair_s}, {"source", c.source}});
  nlohmann::json violations = nlohmann::json::array();
  for (const auto& v : g.violations) violations.push_back({{"code", v.code}, {"subject", v.subject}, {"message", v.message}});
  nlohmann::json out = {{"system", x.system}, {"plan", to_string(x.plan)}, {"usd_per_gpu_hour", x.usd_per_gpu_hour},
          {"usd_basis", x.usd_basis}, {"fits", x.train.memory.fits},
          {"memory", memory_json(x.train.memory)}, {"violations", violations}, {"step_time_s", x.train.step_time_s}, {"tokens_per_s", x.train.tokens_per_s},
          {"shape", {{"gpus_per_node", x.shape.gpus_per_node}, {"domain_gpus", x.shape.domain_gpus},
                     {"unit_gpus", x.shape.unit_gpus}, {"group_gpus", x.shape.group_gpus}}},
          {"classes", classes}, {"failures_per_hour", g.failures_per_hour}, {"mtbf_s", g.mtbf_s},
          {"checkpoint_bytes", g.checkpoint_bytes}, {"checkpoint_s", g.checkpoint_s},
          {"young_interval_s", g.young_interval_s}, {"daly_interval_s", g.daly_interval_s}, {"useful_s", g.useful_s},
          {"hardware_down_units", g.hardware_down_units}, {"spare_gpus_needed", g.spare_gpus_needed},
          {"mean_repair_s", g.mean_repair_s}, {"with_spares", scenario_json(g.with_spares)},
          {"without_spares", scenario_json(g.without_spares)}};
  if (!x.train.memory.fits) out["status"] = does_not_fit_status(x.train.memory);
  out["mfu_6n_bf16"] = x.train.mfu_6n_bf16;
  out["warnings"] = x.mfu_warning.empty() ? nlohmann::json::array() : nlohmann::json::array({x.mfu_warning});
  return out;
}

void print_side(std::ostream& os, const Side& x) {
  const auto& g = x.good;
  if (!x.train.memory.fits) os << x.system << ": " << does_not_fit_line(x.train.memory) << "\n";
  os << fmt::format("{}: plan {}, {} per GPU of {}\n", x.system, to_string(x.plan), human_bytes(x.train.memory.total_bytes),
                    human_bytes(x.train.memory.capacity_bytes));
  os << fmt::format("{}: step {:.2f} s, {} failure-free; NVLink domain {} GPUs, node {}, group {}\n",
                    x.system, x.train.step_time_s, count_text(x.train.tokens_per_s, "tokens/s"), x.shape.domain_gpus, x.shape.gpus_per_node,
                    x.shape.group_gpus);
  os << fmt::format("  {:<10} {:>12} {:>10} {:>10}\n", "class", "failures/day", "blast GPUs", "repair");
  for (const auto& c : g.classes)
    os << fmt::format("  {:<10} {:>12.2f} {:>10} {:>10}\n", c.name, c.failures_per_hour * 24, c.blast_gpus,
                      c.repair_s > 0 ? dur(c.repair_s) : "-");
  os << fmt::format("  job: {:.1f} failures/day, MTBF {}; checkpoint {} ({}), Young {} / Daly {} interval\n",
                    g.failures_per_hour * 24, dur(g.mtbf_s), human_bytes(g.checkpoint_bytes), dur(g.checkpoint_s),
                    dur(g.young_interval_s), dur(g.daly_interval_s));
  for (const auto* s : {&g.with_spares, &g.without_spares}) {
    os << fmt::format("  {:<15} goodput {:5.1f}%  restart {:>8}  finish {:>8}", s == &g.with_spares ? "with spares" : "without spares",
                      100 * s->goodput, dur(s->restart_s), s->wall_s > 0 ? dur(s->wall_s) : "-");
    if (s->spare_units > 0) os << fmt::format("  spares {} units ({} GPUs)", s->spare_units, s->spare_gpus);
    if (x.usd_per_gpu_hour > 0 && s->wall_s > 0)
      os << "  cost " << usd_text(s->cost_usd) << fmt::format(" (${:.2f}/GPU-h, {})", x.usd_per_gpu_hour, x.usd_basis);
    os << fmt::format("\n  {:<15} wall time: useful {:.1f}%, checkpoints {:.1f}%, {} {:.1f}%, rework {:.1f}%\n", "",
                      100 * s->shares.useful, 100 * s->shares.checkpoint,
                      s == &g.with_spares ? "restarts" : "restarts and repair waits", 100 * s->shares.down,
                      100 * s->shares.rework);
  }
}

// The two systems in one number each way: tokens/s after failures, and the time and cost to finish.
nlohmann::json comparison_json(const Side& a, const Side& b) {
  auto ratio = [](double x, double y) { return y > 0 ? x / y : 0.0; };
  return {{"system", a.system}, {"versus", b.system},
          {"failure_free_speedup", ratio(a.train.tokens_per_s, b.train.tokens_per_s)},
          {"with_spares_speedup", ratio(a.good.with_spares.effective_tokens_per_s, b.good.with_spares.effective_tokens_per_s)},
          {"without_spares_speedup",
           ratio(a.good.without_spares.effective_tokens_per_s, b.good.without_spares.effective_tokens_per_s)}};
}

void print_comparison(std::ostream& os, const Side& a, const Side& b, double tokens) {
  os << fmt::format("Side by side ({}; tokens/s after failures = failure-free x goodput):\n", count_text(tokens, "tokens"));
  os << fmt::format("  {:<14} {:>12}  {:>7} {:>11} {:>9} {:>9}  {:>7} {:>11} {:>9} {:>9}\n", "", "failure-free",
                    "spares:", "tokens/s", "finish", "cost", "none:", "tokens/s", "finish", "cost");
  for (const Side* x : {&a, &b}) {
    os << fmt::format("  {:<14} {:>12}", x->system, count_text(x->train.tokens_per_s, ""));
    for (const auto* s : {&x->good.with_spares, &x->good.without_spares})
      os << fmt::format("  {:>6.1f}% {:>11} {:>9} {:>9}", 100 * s->goodput, count_text(s->effective_tokens_per_s, ""),
                        s->wall_s > 0 ? dur(s->wall_s) : "-",
                        x->usd_per_gpu_hour > 0 && s->cost_usd > 0 ? usd_text(s->cost_usd) : "-");
    os << "\n";
  }
  const auto c = comparison_json(a, b);
  os << fmt::format("{} against {}: {:.2f}x the tokens/s failure-free, {:.2f}x with spares, {:.2f}x without.\n",
                    a.system, b.system, c["failure_free_speedup"].get<double>(), c["with_spares_speedup"].get<double>(),
                    c["without_spares_speedup"].get<double>());
}

bool all_fit(const std::vector<Side>& sides) {
  return std::all_of(sides.begin(), sides.end(), [](const Side& x) { return x.train.memory.fits; });
}

}  // namespace goodput_detail

void add_goodput_options(CLI::App& app, GoodputRequest& req) {
  app.description("Goodput under failures: per-class failure rates (Llama 3 paper defaults), blast radius of each "
               "failure (node, tray or NVLink domain), checkpoint cost from the state size and storage bandwidth, "
               "the Young/Daly interval, useful time over wall time, and the time and cost to finish a run with "
               "and without spares. --compare puts a second system beside the first.");
  app.add_option("--model", req.model_name, "Built-in model or Hugging Face config.json")->capture_default_str();
  app.add_option("--system", req.system, "Catalog system")->capture_default_str();
  app.add_option("--compare", req.compare, "A second system, side by side");
  app.add_option("--gpus", req.w.num_gpus, "GPUs of the job")->capture_default_str();
  app.add_option("--plan", req.plan_text,
                 "Parallel plan (tp, pp, cp, ep ...; dp derived). Default: the fastest plan that fits on each "
                 "system, as `search` finds it. A plan that does not fit is reported first and exits with code 3");
  app.add_option("--global-batch", req.w.global_batch,
                 "Sequences per step (default: follows the model, as published pre-training schedules chose it; "
                 "see `train --help`)")
      ->check(CLI::Range(1LL, 1LL << 40));
  app.add_option("--seq", req.w.seq_len, "Sequence length")->capture_default_str()->check(CLI::Range(1, 1 << 24));
  app.add_option("--precision", req.precision, "bf16, fp8, mxfp8 or nvfp4")->capture_default_str();
  app.add_option("--mtbf", req.mtbf_h, "Per-GPU MTBF in hours, all causes (default: Llama 3 rates, 16,384 x 1,296 h / 419 = 50,677 h)");
  app.add_option("--checkpoint", req.checkpoint_s, "Blocking checkpoint time in seconds (default: state / bandwidth)");
  app.add_option("--tokens", req.tokens, "Tokens to train")->capture_default_str();
  app.add_option("--usd-per-gpu-hour", req.usd,
                 "Price per GPU-hour for the cost (default: each system's TCO per GPU-hour as `gpuplan cost` "
                 "computes it from the catalog price and the cost profile; 0 with no price: no cost)");
  add_cost_options(app, req.cost_opts);
}

int goodput(const Catalog& catalog, GoodputRequest req, Output& output) {
  using namespace goodput_detail;
  if (req.w.num_gpus < 1 || req.w.num_gpus > 10000000) throw InputError("--gpus", fmt::format("must be 1 to 10000000, got {}", req.w.num_gpus));
  if (req.given("--mtbf") && !(req.mtbf_h >= 1 && req.mtbf_h <= 1e9))
    throw InputError("--mtbf", fmt::format("must be 1 to 1e9 hours, got {}", req.mtbf_h));
  if (req.given("--checkpoint") && !(req.checkpoint_s > 0 && req.checkpoint_s <= 1e6))
    throw InputError("--checkpoint", fmt::format("must be more than 0 and at most 1e6 seconds, got {}", req.checkpoint_s));
  if (!(req.tokens > 0 && req.tokens <= 1e16))
    throw InputError("--tokens", fmt::format("must be above 0 and at most 1e16, got {}", req.tokens));
  if (req.usd < 0) throw InputError("--usd-per-gpu-hour", fmt::format("must not be negative, got {}", req.usd));
  auto p = parse_precision(req.precision);
  if (!p) throw InputError("--precision", fmt::format("must be bf16, fp8, mxfp8 or nvfp4, got '{}'", req.precision));
  req.w.precision = *p;
  const ModelArch model = resolve_model(req.model_name, "--model");
  const BatchChoice batch = choose_global_batch(model, req.w.seq_len, req.given("--global-batch") ? req.w.global_batch : 0);
  req.w.global_batch = batch.sequences;
  const cost::CostProfile profile = load_cost_profile(req.cost_opts);  // checked even when a price is given
  // A price given replaces each system's TCO, the only figure the cost profile and its options price here.
  if (req.given("--usd-per-gpu-hour"))
    refuse_ignored_options(req,
                           {"--cost-profile", "--electricity-usd-per-kwh", "--pue", "--depreciation-years",
                            "--cost-of-capital", "--colocation-usd-per-kw-month", "--average-power-fraction",
                            "--maintenance-fraction"},
                           "prices each system's TCO, which --usd-per-gpu-hour replaces: give one or the other");
  deploy::FailureModel failures = deploy::builtin_failure_model();
  if (req.mtbf_h > 0) failures = failures.with_gpu_mtbf_hours(req.mtbf_h);
  std::vector<Side> sides;
  for (const std::string& name : req.compare.empty() ? std::vector<std::string>{req.system} : std::vector<std::string>{req.system, req.compare}) {
    const std::string field = name == req.system ? "--system" : "--compare";
    const System& s = catalog.system(name, field);
    if (req.w.num_gpus % s.gpus_per_node)
      throw InputError("--gpus", fmt::format("{} GPUs do not fill whole {} nodes of {} GPUs", req.w.num_gpus, s.name, s.gpus_per_node));
    const Hardware hw = resolve_hardware(catalog, s.name);
    require_training_precision(hw, req.w.precision);
    Side x;
    x.system = s.name;
    TrainingPlan plan;
    if (req.given("--plan")) {
      TrainingPlan base;
      base.dp = 0;
      plan = parse_training_plan(req.plan_text, base);
    } else {
      const SearchResult found = search_plans(model, hw, req.w);
      if (found.top.empty()) {
        const FitsFrom from = fits_from_search(found, req.w.num_gpus, s.gpus_per_node, [&](int gpus) {
          TrainingWorkload w = req.w;
          w.num_gpus = gpus;
          return search_plans(model, hw, w);
        });
        return report_no_plan_fits(output, "goodput", model, hw, req.w, found, from);
      }
      plan = found.top.front().plan;
    }
    x.plan = plan;
    x.train = evaluate_training(model, hw, plan, req.w);
    if (!x.train.valid()) throw_plan_violations(x.train.violations);
    x.plan.dp = x.train.dp;
    x.mfu_warning = mfu_warning(hw, req.w.precision, req.w, x.train);
    x.shape = {req.w.num_gpus, s.gpus_per_node, s.nvlink_domain_gpus, s.gpus_per_unit(), plan.tp * plan.cp * plan.ep};
    deploy::GoodputInputs in;
    in.shape = x.shape;
    in.params = total_params(model);
    in.checkpoint_s = req.checkpoint_s;
    in.tokens_per_s = x.train.tokens_per_s;
    in.tokens = req.tokens;
    // The same TCO `cost` computes, unless the user typed a price.
    double side_usd = req.usd;
    if (!req.given("--usd-per-gpu-hour")) {
      const cost::Tco tco = system_tco(catalog, s.name, profile);
      side_usd = tco.priced ? tco.usd_per_gpu_hour() : 0.0;
    }
    x.usd_per_gpu_hour = side_usd;
    x.usd_basis = req.given("--usd-per-gpu-hour") ? "--usd-per-gpu-hour" : "TCO (gpuplan cost)";
    in.usd_per_gpu_hour = side_usd;
    x.good = deploy::evaluate_goodput(failures, in);
    sides.push_back(std::move(x));
  }
  if (output.json()) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& x : sides) arr.push_back(side_json(x));
    nlohmann::json out = {{"model", model.name}, {"gpus", req.w.num_gpus}, {"plan", req.plan_text.empty() ? "search" : req.plan_text}, {"tokens", req.tokens},
                          {"usd_per_gpu_hour_given", req.usd}, {"failure_source", failures.source},
                          {"restart_s", failures.restart_s}, {"systems", arr},
                          {"global_batch", req.w.global_batch}, {"global_batch_basis", batch_json(batch, req.w.seq_len)}};
    if (sides.size() == 2) out["comparison"] = comparison_json(sides[0], sides[1]);
    output.emit("goodput", std::move(out));
    return all_fit(sides) ? kExitOk : kExitDoesNotFit;
  }
  output.os() << fmt::format("{} on {} GPUs, global batch {} x {} tokens, {}, plan {}, {}; failure rates: {}\n\n",
                           model.name, req.w.num_gpus, req.w.global_batch, req.w.seq_len, to_string(req.w.precision),
                           req.plan_text.empty() ? "the fastest that fits (search)" : req.plan_text,
                           count_text(req.tokens, "tokens"), failures.source);
  output.os() << batch_line(batch, req.w.seq_len) << "\n\n";
  for (const auto& x : sides) {
    print_side(output.os(), x);
    output.os() << "\n";
  }
  if (sides.size() == 2) print_comparison(output.os(), sides[0], sides[1], req.tokens);
  for (const auto& x : sides)
    for (const auto& v : x.good.violations) output.os() << "Note (" << x.system << "): " << v.message << "\n";
  for (const auto& x : sides)
    if (!x.mfu_warning.empty()) output.os() << "Warning (" << x.system << "): " << x.mfu_warning << "\n";
  return all_fit(sides) ? kExitOk : kExitDoesNotFit;
}


}  // namespace gpuplan::api
