// gpuplan compare: two systems side by side under each yardstick a headline might use, and vendors'
// claims replayed under their stated conditions.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <ostream>
#include <tuple>
#include <sstream>

#include "api/band_json.h"
#include "api/compare.h"
#include "api/mode_options.h"
#include "api/serving_engine.h"
#include "api/text.h"
#include "api/fabric_options.h"
#include "api/cost_options.h"
#include "compare/claims.h"
#include "compare/compare.h"
#include "core/input_file.h"
#include "core/error.h"
#include "model/model_registry.h"

namespace gpuplan::api {

namespace {

using compare::Per;

nlohmann::json num_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

std::string fmt_num(double v) {
  if (!std::isfinite(v)) return "-";
  const double a = std::fabs(v);
  if (a >= 1e5) return fmt::format("{:.3g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}
std::string fmt_ratio(double r) { return std::isfinite(r) ? fmt::format("{:.2f}x", r) : "-"; }

nlohmann::json side_json(const compare::SystemSide& s) {
  return {{"system", s.system},       {"display_name", s.display_name}, {"accelerator", s.accelerator},
          {"gpus_per_unit", s.gpus_per_unit}, {"nvlink_domain_gpus", s.hw.fabric.domain_gpus},
          {"generation", s.hw.accelerator.generation},
          {"training_efficiency_fitted_on", s.hw.efficiency.fitted_on},
          {"serving_efficiency_fitted_on", s.hw.efficiency.infer_fitted_on},
          {"tco", tco_json(s.tco)}};
}

nlohmann::json point_json(const SweepPoint& p) {
  return {{"tokens_per_s_per_user", p.result.tokens_per_s_per_user},
          {"tokens_per_s_per_gpu", p.result.tokens_per_s_per_gpu},
          {"concurrency", p.concurrency},
          {"ttft_s", p.result.ttft_s},
          {"tpot_s", p.result.tpot_s},
          {"plan", {{"tp", p.parallel.tp}, {"ep", p.parallel.ep}, {"pp", p.parallel.pp},
                    {"attention_dp", p.parallel.attention_dp}}}};
}

// The chooser's answer at the interactivity: its point, GPUs and units, or why none meets it.
nlohmann::json choice_json(const ServingChoice& ch) {
  nlohmann::json j = {{"met", ch.met}, {"gpus", ch.gpus}, {"units", ch.units}, {"ttft_limit_s", ch.ttft_limit_s}};
  if (!ch.met) {
    j["why_not"] = ch.why_not;
    return j;
  }
  j["point"] = point_json(ch.point);
  j["kind"] = ch.point.kind();
  j["plan_text"] = ch.point.plan();
  return j;
}

nlohmann::json frontier_json(const compare::ServingCurve& c) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : c.frontier) a.push_back(point_json(p));
  return a;
}

nlohmann::json pick_json(const compare::TrainingPick& p, const cost::TokenCost& c) {
  if (!p.found) return {{"found", false}, {"why_not", p.why_not}};
  return {{"found", true},
          {"plan", to_string(p.plan)},
          {"step_time_s", p.result.step_time_s},
          {"tokens_per_s_per_gpu", p.result.tokens_per_s_per_gpu},
          {"mfu_6n", p.result.mfu_6n},
          {"usd_per_million_tokens", num_or_null(c.usd_per_million_tokens > 0 ? c.usd_per_million_tokens : NAN)},
          {"joules_per_token", c.joules_per_token}};
}

// The long-context yardstick's figures of one model: each side's serving answer at the long ISL (KV per
// user, users held, TTFT, throughput) and its training plan at that sequence length.
nlohmann::json long_context_json(const compare::Comparison& c, const compare::ModelComparison& m) {
  const auto side = [&](const compare::LongContextSide& s, const cost::Tco& tco) {
    nlohmann::json j;
    if (c.spec.infer) {
      j["serving"] = choice_json(s.serving);
      if (s.serving.met) {
        const InferenceResult& r = s.serving.point.result;
        j["serving"]["kv_bytes_per_user_per_gpu"] = r.memory.kv_bytes_per_sequence;
        j["serving"]["max_concurrency"] = r.max_concurrency;
        j["serving"]["users_held_per_gpu"] = double(r.max_concurrency) / std::max(1, s.serving.gpus);
        j["serving"]["prefill_one_prompt_s"] = r.prefill_s;
      }
    }
    if (c.spec.train) {
      j["training"] = pick_json(s.training, s.training.found ? cost::token_cost(tco, 1, s.training.result.tokens_per_s_per_gpu)
                                                             : cost::TokenCost{});
      if (s.training.found) {
        j["training"]["cp"] = s.training.plan.cp;
        j["training"]["cp_kind"] = std::string(to_string(s.training.plan.cp_kind));
      }
    }
    return j;
  };
  nlohmann::json j = {{"tokens", c.spec.long_context_tokens},
                      {"isl", c.spec.long_context_tokens},
                      {"osl", c.spec.osl},
                      {"tokens_per_s_per_user", c.spec.tokens_per_s_per_user},
                      {"ttft_limit_s", m.long_context_ttft_limit_s},
                      {"ttft_basis", ttft_limit_basis(c.spec.ttft_limit_s, c.spec.long_context_tokens)},
                      {"prefix_hit", c.spec.prefix_hit},
                      {"kv_offload", c.spec.kv_offload_host ? "host" : "none"},
                      {"context_attention", c.spec.fp8_context_attention ? "fp8" : "bf16"},
                      {"a", side(m.long_context_a, c.a.tco)},
                      {"b", side(m.long_context_b, c.b.tco)}};
  if (c.spec.train && m.long_context_a.training.found)
    j["training_global_batch"] = m.long_context_a.training.workload.global_batch;
  else if (c.spec.train && m.long_context_b.training.found)
    j["training_global_batch"] = m.long_context_b.training.workload.global_batch;
  return j;
}

nlohmann::json comparison_json(const compare::Comparison& c) {
  nlohmann::json j;
  j["a"] = side_json(c.a);
  j["b"] = side_json(c.b);
  nlohmann::json ys = nlohmann::json::array();
  for (const auto& y : c.yardsticks) {
    nlohmann::json per;
    for (Per p : {Per::gpu, Per::system, Per::usd, Per::watt}) {
      if (!y.scalable && p != Per::gpu) continue;
      per[compare::to_string(p)] = {{"a", num_or_null(y.value(p, c.a, true))},
                                    {"b", num_or_null(y.value(p, c.b, false))},
                                    {"ratio", num_or_null(y.ratio(p, c.a, c.b))}};
    }
    ys.push_back({{"group", y.group}, {"key", y.key}, {"name", y.name}, {"unit", y.unit}, {"a", num_or_null(y.a)},
                  {"b", num_or_null(y.b)}, {"ratio", num_or_null(y.ratio(Per::gpu, c.a, c.b))},
                  {"scalable", y.scalable}, {"higher_is_better", y.higher_is_better}, {"headline", y.headline},
                  {"note", y.note}, {"per", per}});
  }
  j["yardsticks"] = ys;
  nlohmann::json models = nlohmann::json::array();
  for (const auto& m : c.models) {
    nlohmann::json mj = {{"model", m.model}};
    if (c.spec.train) {
      const auto& w = m.train_a.workload;
      mj["training"] = {{"gpus", w.num_gpus},
                        {"global_batch", w.global_batch},
                        {"seq_len", w.seq_len},
                        {"precision", std::string(to_string(w.precision))},
                        {"a", pick_json(m.train_a, m.train_cost_a)},
                        {"b", pick_json(m.train_b, m.train_cost_b)},
                        {"ratio", num_or_null(m.train_a.found && m.train_b.found
                                                  ? m.train_a.result.tokens_per_s_per_gpu /
                                                        m.train_b.result.tokens_per_s_per_gpu
                                                  : NAN)}};
    }
    if (c.spec.infer) {
      nlohmann::json curve = nlohmann::json::array();
      for (const auto& r : m.curve)
        curve.push_back({{"tokens_per_s_per_user", r.tokens_per_s_per_user}, {"a", num_or_null(r.a)},
                         {"b", num_or_null(r.b)}, {"ratio", num_or_null(r.ratio())},
                         {"ttft_a_s", num_or_null(r.ttft_a)}, {"ttft_b_s", num_or_null(r.ttft_b)},
                         {"kind_a", r.kind_a.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.kind_a)},
                         {"kind_b", r.kind_b.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.kind_b)},
                         {"gpus_a", r.gpus_a}, {"gpus_b", r.gpus_b}});
      mj["inference"] = {{"isl", c.spec.isl},
                         {"prefix_hit", c.spec.prefix_hit},
                         {"kv_offload", c.spec.kv_offload_host ? "host" : "none"},
                         {"context_attention", c.spec.fp8_context_attention ? "fp8" : "bf16"},
                         {"osl", c.spec.osl},
                         {"tokens_per_s_per_user", c.spec.tokens_per_s_per_user},
                         {"ttft_limit_s", m.ttft_limit_s},
                         {"ttft_basis", ttft_limit_basis(c.spec.ttft_limit_s, c.spec.isl)},
                         {"at_interactivity_a", choice_json(m.choice_a)},
                         {"at_interactivity_b", choice_json(m.choice_b)},
                         {"tpot_limit_s", c.spec.tpot_limit_s},
                         {"precision", std::string(to_string(m.infer_precision_common))},
                         {"best_precision_a", std::string(to_string(m.best_precision_a))},
                         {"best_precision_b", std::string(to_string(m.best_precision_b))},
                         {"curve", curve},
                         {"gpus_a", m.gpus_a},
                         {"gpus_b", m.gpus_b},
                         {"at_interactivity_gpus_a", m.at_a ? m.at_gpus_a : 0},
                         {"at_interactivity_gpus_b", m.at_b ? m.at_gpus_b : 0},
                         {"frontier_a", frontier_json(m.curve_a)},
                         {"frontier_b", frontier_json(m.curve_b)},
                         {"best_frontier_a", frontier_json(m.best_curve_a)},
                         {"best_frontier_b", frontier_json(m.best_curve_b)}};
    }
    if (c.spec.long_context_tokens > 0) mj["long_context"] = long_context_json(c, m);
    models.push_back(mj);
  }
  j["models"] = models;
  return j;
}

// A claim's ratio with its error band, and the chance that the true ratio reaches the claimed one.
struct ClaimOdds {
  BandedFigure ratio;
  double p_at_least_claimed = 0;
};

// The product of two banded figures whose errors are independent: centres add, half-widths in quadrature.
BandedFigure band_product(const BandedFigure& x, const BandedFigure& y) {
  BandedFigure r = x;
  if (!(x.value > 0) || !(y.value > 0) || !(x.low > 0) || !(y.low > 0)) return r;
  auto centre = [](const BandedFigure& f) { return 0.5 * (std::log(f.high / f.value) + std::log(f.low / f.value)); };
  auto half = [](const BandedFigure& f) { return 0.5 * std::log(f.high / f.low); };
  const double c = centre(x) + centre(y), h = std::hypot(half(x), half(y));
  r.value = x.value * y.value;
  r.low = r.value * std::exp(c - h);
  r.high = r.value * std::exp(c + h);
  return r;
}

// Each side's figure with its band (training: the plan's; serving: the point's kind on its generation,
// widened for the question; factory output: the throughput's and the per-user rate's together), the
// ratio's band with the two sides' errors correlated as the bands' pairs measured (BandCorrelation),
// and P(true ratio >= claimed) under that band.
ClaimOdds claim_odds(const Catalog& catalog, const compare::ClaimResult& r, const ModelArch& m, const Hardware& ha,
                     const Hardware& hb) {
  const auto& k = r.claim;
  auto side = [&](const Hardware& hw, double value, Precision p, int gpus, bool disaggregated) {
    if (k.metric == compare::ClaimMetric::training_throughput) {
      TrainingWorkload w;
      w.num_gpus = gpus;
      w.seq_len = k.seq_len;
      w.global_batch = gpus;
      w.precision = p;
      return with_band(value, training_band(catalog, m, hw, w));
    }
    const BandQuestion q = band_question(p, m, gpus);
    const BandedFigure rate = with_band(value, serving_band(catalog, hw, disaggregated, ServingFigure::throughput, q));
    if (k.metric != compare::ClaimMetric::factory_output) return rate;
    return band_product(rate, with_band(1.0, serving_band(catalog, hw, disaggregated, ServingFigure::tpot, q), true));
  };
  ClaimOdds o;
  if (!r.evaluated) return o;
  o.ratio = ratio_band(side(ha, r.a, k.precision_a, r.gpus_a, r.disaggregated_a),
                       side(hb, r.b, k.precision_b, r.gpus_b, r.disaggregated_b), catalog.band_correlation());
  o.p_at_least_claimed = probability_at_least(o.ratio, k.claimed_ratio);
  return o;
}

nlohmann::json claim_json(const compare::ClaimResult& r, const ClaimOdds& odds) {
  const auto& k = r.claim;
  nlohmann::json j = {{"id", k.id},
                      {"system_a", k.system_a},
                      {"system_b", k.system_b},
                      {"statement", k.statement},
                      {"conditions", k.conditions},
                      {"source", k.source},
                      {"model", k.model},
                      {"metric", compare::to_string(k.metric)},
                      {"claimed_ratio", k.claimed_ratio},
                      {"evaluated", r.evaluated}};
  if (!r.evaluated) {
    j["why_not"] = r.why_not;
    return j;
  }
  j["unit"] = r.unit;
  j["a"] = r.a;
  j["b"] = r.b;
  j["ratio"] = r.ratio;
  j["ratio_band"] = band_json(odds.ratio);
  j["p_at_least_claimed"] = odds.p_at_least_claimed;
  j["plan_a"] = r.plan_a;
  j["stated_a"] = num_or_null(r.claim.stated_a > 0 ? r.claim.stated_a : NAN);
  j["stated_b"] = num_or_null(r.claim.stated_b > 0 ? r.claim.stated_b : NAN);
  j["off_a"] = r.off_a;
  j["off_b"] = r.off_b;
  j["plan_b"] = r.plan_b;
  j["ratio_same_precision"] = num_or_null(r.ratio_same_precision > 0 ? r.ratio_same_precision : NAN);
  j["ratio_per_usd"] = num_or_null(r.ratio_per_usd > 0 ? r.ratio_per_usd : NAN);
  j["ratio_per_watt"] = num_or_null(r.ratio_per_watt > 0 ? r.ratio_per_watt : NAN);
  return j;
}

void print_comparison(std::ostream& os, const compare::Comparison& c, Per per) {
  os << fmt::format("{} ({}, {} GPUs per unit)  vs  {} ({}, {} GPUs per unit)\n", c.a.display_name,
                    c.a.accelerator, c.a.gpus_per_unit, c.b.display_name, c.b.accelerator, c.b.gpus_per_unit);
  const auto& sp = c.spec;
  os << fmt::format("Workload: {}{}{}\n",
                    sp.train ? fmt::format("training {}, seq {}", to_string(sp.train_precision), sp.seq_len) : "",
                    sp.train && sp.infer ? "; " : "",
                    sp.infer ? fmt::format("serving {}, ISL/OSL {}/{}, {:g} tokens/s per user{}{}",
                                           to_string(sp.infer_precision), sp.isl, sp.osl,
                                           sp.tokens_per_s_per_user,
                                           sp.prefix_hit > 0 ? fmt::format(", prefix-cache hits {:g}%", sp.prefix_hit * 100) : "",
                                           sp.kv_offload_host ? ", cached prefixes in host memory" : "")
                             : "");
  if (sp.long_context_tokens > 0)
    os << fmt::format("Long context: {} tokens, {} (the [long context] rows)\n", sp.long_context_tokens,
                      sp.infer && sp.train ? "serving prompts of that length and training at that sequence length"
                      : sp.infer           ? "serving prompts of that length"
                                           : "training at that sequence length");
  os << fmt::format("Values {}; ratios A/B per GPU, per system unit, per $ of TCO per hour and per kW of IT "
                    "power. '-': not defined (no such format, no price, not reached).\n\n",
                    compare::per_unit_suffix(per));
  for (const auto* side : {&c.a, &c.b}) {
    const Efficiency& e = side->hw.efficiency;
    if (e.fitted_on.empty() || e.infer_fitted_on.empty())
      os << fmt::format("Note: the {} generation ({}) has no {} efficiencies fitted on measurements: its "
                        "predicted speeds are rough estimates.\n",
                        side->hw.accelerator.generation, side->system,
                        e.fitted_on.empty() && e.infer_fitted_on.empty() ? "training or serving"
                        : e.fitted_on.empty()                            ? "training"
                                                                         : "serving");
  }
  // The short answer first: the per-GPU ratio under each kind of yardstick, smallest to largest.
  std::vector<std::pair<double, std::string>> gist;
  for (const auto& y : c.yardsticks) {
    const bool wanted = y.key == "peak_best_format" || y.key == "peak_fp8" || y.key == "hbm_bandwidth" ||
                        y.key.rfind("train_tokens_per_s:", 0) == 0 || y.key.rfind("infer_at_interactivity:", 0) == 0 ||
                        y.key.rfind("infer_best_format:", 0) == 0 || y.key.rfind("long_context_infer:", 0) == 0 ||
                        y.key.rfind("long_context_users_held:", 0) == 0 || y.key.rfind("long_context_train:", 0) == 0;
    const double r = y.ratio(Per::gpu, c.a, c.b);
    if (wanted && std::isfinite(r)) gist.emplace_back(r, y.name);
  }
  std::sort(gist.begin(), gist.end());
  if (!gist.empty()) {
    os << "A against B per GPU, by yardstick:\n";
    for (const auto& [r, name] : gist) os << fmt::format("  {:>7.2f}x  {}\n", r, name);
    os << "Per system unit multiply by " << fmt::format("{:.2f}", double(c.a.gpus_per_unit) / c.b.gpus_per_unit)
       << "; per $ and per watt: the table's last columns.\n\n";
  }
  std::string group;
  int marker = 0;
  std::vector<std::string> headlines;
  for (const auto& y : c.yardsticks) {
    if (y.group != group) {
      group = y.group;
      os << fmt::format("{:<74} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8}\n", "[" + group + "]", "A", "B",
                        "/GPU", "/system", "/$", "/kW");
    }
    std::string name = fmt::format("{} ({})", y.name, y.unit);
    if (!y.headline.empty()) {
      headlines.push_back(fmt::format("[{}] {}: {}", ++marker, y.name, y.headline));
      name += fmt::format(" [{}]", marker);
    }
    if (!y.higher_is_better) name += " [lower is better]";
    const Per shown = y.scalable ? per : Per::gpu;
    const auto r = [&](Per p) { return y.scalable || p == Per::gpu ? fmt_ratio(y.ratio(p, c.a, c.b)) : ""; };
    os << fmt::format("  {:<72} {:>10} {:>10} {:>8} {:>8} {:>8} {:>8}\n", name.substr(0, 72),
                      fmt_num(y.value(shown, c.a, true)), fmt_num(y.value(shown, c.b, false)), r(Per::gpu),
                      r(Per::system), r(Per::usd), r(Per::watt));
    if (!y.note.empty()) os << fmt::format("      {}\n", y.note);
  }
  if (!headlines.empty()) {
    os << "\nWhich headline uses which yardstick:\n";
    for (const auto& h : headlines) os << "  " << h << "\n";
  }
  for (const auto& m : c.models) {
    if (!c.spec.infer) break;
    os << fmt::format("\n{}: serving tokens/s per GPU along the throughput/interactivity curve, the chooser's answer at each ({} both, "
                      "ISL/OSL {}/{}, {})\n",
                      m.model, to_string(m.infer_precision_common), c.spec.isl, c.spec.osl,
                      m.ttft_limit_s > 0 ? fmt::format("mean TTFT within {:.3g} s", m.ttft_limit_s) : "no TTFT limit");
    for (const auto& [side, ch] : {std::pair{"A", &m.choice_a}, std::pair{"B", &m.choice_b}})
      if (ch->met)
        os << fmt::format("  {} at {:g} tokens/s/user: {:.1f} tokens/s per GPU, TTFT {:.3g} s, {} on {} GPUs ({})\n", side,
                          c.spec.tokens_per_s_per_user, ch->point.result.tokens_per_s_per_gpu, ch->point.result.ttft_s,
                          ch->point.kind(), ch->gpus, ch->point.plan());
      else
        os << fmt::format("  {} at {:g} tokens/s/user: none ({})\n", side, c.spec.tokens_per_s_per_user, ch->why_not);
    // Which kind of deployment serves each side there (aggregated / disaggregated, + MTP).
    os << fmt::format("  {:>16} {:>12} {:>10} {:>12} {:>10} {:>8}  {:<32} {}\n", "tokens/s/user", "A", "A TTFT s", "B",
                      "B TTFT s", "A/B", "A deployment", "B deployment");
    const auto dep = [](const std::string& kind, int gpus) {
      return kind.empty() ? std::string("-") : fmt::format("{} on {} GPUs", kind, gpus);
    };
    double lo = INFINITY, hi = 0, lo_x = 0, hi_x = 0;
    for (const auto& r : m.curve) {
      os << fmt::format("  {:>16g} {:>12} {:>10} {:>12} {:>10} {:>8}  {:<32} {}\n", r.tokens_per_s_per_user,
                        fmt_num(r.a), fmt_num(r.ttft_a), fmt_num(r.b), fmt_num(r.ttft_b),
                        std::isfinite(r.a) && std::isnan(r.b) ? "A only" : fmt_ratio(r.ratio()),
                        dep(r.kind_a, r.gpus_a), dep(r.kind_b, r.gpus_b));
      if (std::isfinite(r.ratio())) {
        if (r.ratio() < lo) lo = r.ratio(), lo_x = r.tokens_per_s_per_user;
        if (r.ratio() > hi) hi = r.ratio(), hi_x = r.tokens_per_s_per_user;
      }
    }
    if (hi > 0)
      os << fmt::format("  The ratio runs from {:.2f}x (at {:g} tokens/s/user) to {:.2f}x (at {:g}): quote it "
                        "with its interactivity.\n",
                        lo, lo_x, hi, hi_x);
  }
  if (c.spec.long_context_tokens == 0)
    os << "\nLong context (serving 128K-token prompts, training at 128K): gpuplan compare --long-context 131072\n";
  os << "\nVendors' claims under their stated conditions: gpuplan compare --claim builtin\n";
}

void print_claims(std::ostream& os, const std::vector<compare::ClaimResult>& rs, const std::vector<ClaimOdds>& odds) {
  for (size_t i = 0; i < rs.size(); ++i) {
    const auto& r = rs[i];
    const auto& k = r.claim;
    os << fmt::format("{}: {} vs {} on {}\n  claim: \"{}\"\n  conditions: {}\n  source: {}\n", k.id, k.system_a,
                      k.system_b, k.model, k.statement, k.conditions, k.source);
    if (!r.evaluated) {
      os << fmt::format("  not reproduced: {}\n\n", r.why_not);
      continue;
    }
    os << fmt::format("  claimed {:g}x; model {:.2f}x ({} {} vs {})\n", k.claimed_ratio, r.ratio, r.unit,
                      fmt_num(r.a), fmt_num(r.b));
    const ClaimOdds& o = odds[i];
    os << fmt::format("  P(ratio >= {:g}x claimed) = {}; the model's ratio {:.2f}x to {:.2f}x, {}\n", k.claimed_ratio,
                      probability_text(o.p_at_least_claimed), o.ratio.low, o.ratio.high, band_text(o.ratio));
    os << fmt::format("  plans: A {} | B {}\n", r.plan_a, r.plan_b);
    for (const auto& [side, model_v, stated, off] : {std::tuple{"A", r.a, r.claim.stated_a, r.off_a},
                                                    std::tuple{"B", r.b, r.claim.stated_b, r.off_b}})
      if (stated > 0)
        os << fmt::format("  {} absolute: model {:.3g} against the vendor's stated {:.3g} {}{}\n", side, model_v,
                          stated, r.unit, off ? "  <- off by more than 2x" : "");
    os << "  under the other yardsticks:";
    if (r.ratio_same_precision > 0)
      os << fmt::format(" same precision ({}) {:.2f}x;", to_string(k.precision_b), r.ratio_same_precision);
    os << fmt::format(" per $ {}; per watt {}\n\n", r.ratio_per_usd > 0 ? fmt_ratio(r.ratio_per_usd) : "-",
                      fmt_ratio(r.ratio_per_watt));
  }
}

Precision precision_option(const std::string& text, const char* option) {
  if (auto p = parse_precision(text)) return *p;
  throw InputError(option, fmt::format("unknown precision '{}'; allowed: {}", text, precision_names()));
}

}  // namespace

void add_compare_options(CLI::App& app, CompareRequest& req) {
  app.description("Two systems side by side under each yardstick: peak per precision (and FP4 against FP8), memory, "
               "scale-up and scale-out bandwidth, training throughput of the best plan on each, serving throughput "
               "at a stated interactivity and along the whole curve, cost and energy per token; per GPU, per system, "
               "per $ and per watt. --claim replays vendors' headline claims under their stated conditions.");
  add_fabric_options(app, req.fabric_opts);
  add_cost_options(app, req.cost_opts);
  app.add_option("systems", req.systems, "System A and system B (default: gb300-nvl72 hgx-h200)")->expected(0, 2);
  app.add_option("--model", req.models, "Model(s) to compare on (repeatable; default: llama3.1-70b and deepseek-r1)");
  app.add_option("--task", req.task, "train, infer or both")->capture_default_str();
  app.add_option("--per", req.per, "Values shown per gpu, system, usd or watt (ratios are shown under all four)")
      ->capture_default_str();
  app.add_option("--gpus", req.spec.train_gpus, "Training: GPUs for both (default: smallest multiple of both units >= 512)");
  app.add_option("--seq", req.spec.seq_len, "Training sequence length")->capture_default_str();
  app.add_option("--global-batch", req.global_batch, "Training global batch, sequences (default: follows the model, as published pre-training schedules chose it; see `train --help`)");
  app.add_option("--train-precision", req.train_precision, "Training precision for both")->capture_default_str();
  app.add_option("--isl", req.spec.isl, "Serving input tokens")->capture_default_str();
  app.add_option("--osl", req.spec.osl, "Serving output tokens")->capture_default_str();
  app.add_option("--tokens-per-user-per-s,--tokens-per-user", req.spec.tokens_per_s_per_user,
                 "Interactivity for the serving yardstick, tokens/s per user (as in infer, cost and recommend)")
      ->capture_default_str();
  app.add_option("--ttft-ms", req.ttft_ms,
                 "Serving: limit on the mean TTFT, ms, at the interactivity and along the curve (default: MLPerf's "
                 "Server limits scaled with the ISL, 2 s up to 2K input tokens; 0: none)");
  app.add_option("--tpot-ms", req.tpot_ms, "Serving TPOT limit on the curve (0: none)");
  app.add_option("--precision", req.infer_precision, "Common serving precision (each side's best is shown too)")
      ->capture_default_str();
  app.add_option("--long-context", req.spec.long_context_tokens,
                 "The long-context yardstick: serving with prompts of this many tokens (KV per user, users held, "
                 "TTFT with chunked prefill, tokens/s per GPU at the interactivity) and training at this sequence "
                 "length (the best plan, context parallelism where needed); 0: none")
      ->capture_default_str();
  add_long_context_options(app, req.long_context);
  app.add_option("--claim", req.claims, "Replay claims: 'builtin' (all built-in), a built-in claim id, or a claims YAML "
                                    "file (gpuplan.claims/v1); repeatable");
}

int compare(const Catalog& catalog, CompareRequest req, Output& output) {

  const cost::CostProfile profile = load_cost_profile(req.cost_opts);
  if (!req.claims.empty()) {
    // A claim states its systems, model, precisions and workload: only the cost inputs (its per-$ ratio)
    // and the catalog are read besides it.
    refuse_options_not_read(req,
                            {"--claim", "--cost-profile", "--electricity-usd-per-kwh", "--pue", "--depreciation-years",
                             "--cost-of-capital", "--colocation-usd-per-kw-month", "--average-power-fraction",
                             "--maintenance-fraction", "--catalog", "--calibration", "--json", "--csv"},
                            [](std::string_view o) {
                              return fmt::format("{} not apply with --claim: a claim states its own systems, model "
                                                 "and conditions (leave out --claim for the side-by-side comparison)",
                                                 o == "systems" ? "do" : "does");
                            });
    std::vector<compare::Claim> todo;
    for (const auto& c : req.claims) {
      if (c == "builtin") {
        todo.insert(todo.end(), compare::builtin_claims().begin(), compare::builtin_claims().end());
        continue;
      }
      bool found = false;
      for (const auto& k : compare::builtin_claims())
        if (k.id == c) todo.push_back(k), found = true;
      if (found) continue;
      if (!find_input_file(c)) {
        std::string ids;
        for (const auto& k : compare::builtin_claims()) ids += (ids.empty() ? "" : ", ") + k.id;
        throw InputError("--claim", fmt::format("'{}' is neither 'builtin', a built-in claim ({}) nor a readable "
                                                "file", c, ids));
      }
      auto file = compare::parse_claims(read_input_file(*find_input_file(c), "--claim"), c);
      todo.insert(todo.end(), file.begin(), file.end());
    }
    std::vector<compare::ClaimResult> results;
    std::vector<ClaimOdds> odds;
    for (const auto& k : todo) {
      const ModelArch m = resolve_model(k.model, "--claim: " + k.id + ".model");
      const auto a = compare::make_side(catalog, k.system_a, profile);
      const auto b = compare::make_side(catalog, k.system_b, profile);
      results.push_back(compare::evaluate_claim(k, m, a, b, catalog_mtp_accept(catalog)));
      odds.push_back(claim_odds(catalog, results.back(), m, a.hw, b.hw));
    }
    if (output.json()) {
      nlohmann::json arr = nlohmann::json::array();
      for (size_t i = 0; i < results.size(); ++i) arr.push_back(claim_json(results[i], odds[i]));
      output.emit("claims", {{"claims", arr}, {"cost_profile", cost_profile_json(profile)}});
    } else {
      print_claims(output.os(), results, odds);
    }
    return kExitOk;
  }
  if (req.systems.empty()) req.systems = {"gb300-nvl72", "hgx-h200"};
  if (req.systems.size() != 2) throw InputError("systems", "give two systems (A and B), or none for the defaults");
  if (req.task != "train" && req.task != "infer" && req.task != "both")
    throw InputError("--task", fmt::format("must be train, infer or both, got '{}'", req.task));
  if (req.task == "train") {
    refuse_ignored_options(req, {"--prefix-hit", "--kv-offload", "--context-attention"},
                           "applies to --task infer or both (serving long prompts)");
    refuse_ignored_options(req,
                           {"--isl", "--osl", "--precision", "--tokens-per-user-per-s", "--ttft-ms", "--tpot-ms"},
                           "applies to --task infer or both (serving)");
  } else if (req.task == "infer") {
    refuse_ignored_options(req, {"--gpus", "--seq", "--global-batch", "--train-precision"},
                           "applies to --task train or both (a training run)");
  }
  Per per_v = Per::gpu;
  if (req.per == "gpu") per_v = Per::gpu;
  else if (req.per == "system") per_v = Per::system;
  else if (req.per == "usd") per_v = Per::usd;
  else if (req.per == "watt") per_v = Per::watt;
  else throw InputError("--per", fmt::format("must be gpu, system, usd or watt, got '{}'", req.per));
  if (req.spec.train_gpus < 0 || req.spec.train_gpus > (1 << 20) || (req.spec.train_gpus == 0 && req.given("--gpus")))
    throw InputError("--gpus", fmt::format("must be 1 to {}, got {}", 1 << 20, req.spec.train_gpus));
  if (req.spec.seq_len < 1 || req.spec.seq_len > 10'000'000)
    throw InputError("--seq", fmt::format("must be 1 to 10000000, got {}", req.spec.seq_len));
  req.check_global_batch(req.global_batch);
  if (req.spec.isl < 1 || req.spec.isl > 10'000'000) throw InputError("--isl", "must be 1 to 10000000");
  if (req.spec.osl < 1 || req.spec.osl > 10'000'000) throw InputError("--osl", "must be 1 to 10000000");
  if (!(req.spec.tokens_per_s_per_user > 0 && req.spec.tokens_per_s_per_user <= 1e5))
    throw InputError("--tokens-per-user", fmt::format("must be above 0 and at most 100000, got {}",
                                                      req.spec.tokens_per_s_per_user));
  if (req.ttft_ms < 0) throw InputError("--ttft-ms", "must be 0 (none) or positive");
  if (req.tpot_ms < 0) throw InputError("--tpot-ms", "must be 0 (none) or positive");
  if (req.spec.long_context_tokens != 0 &&
      (req.spec.long_context_tokens < 1024 || req.spec.long_context_tokens > 10'000'000))
    throw InputError("--long-context", fmt::format("must be 0 (none) or 1024 to 10000000 tokens, got {}",
                                                   req.spec.long_context_tokens));
  {
    InferenceWorkload w;  // the same reading as infer's (api/long_context_options.h)
    apply_long_context(req.long_context, w);
    req.spec.prefix_hit = w.prefix_hit_fraction;
    req.spec.kv_offload_host = w.kv_offload_host;
    req.spec.fp8_context_attention = w.fp8_context_attention;
  }
  req.spec.global_batch = req.global_batch;
  req.spec.ttft_limit_s = req.given("--ttft-ms") ? req.ttft_ms / 1e3 : -1;  // not given: the default by ISL
  req.spec.tpot_limit_s = req.tpot_ms / 1e3;
  req.spec.train = req.task != "infer";
  req.spec.infer = req.task != "train";
  req.spec.train_precision = precision_option(req.train_precision, "--train-precision");
  if (const std::string why = training_refusal(req.spec.train_precision); !why.empty())
    throw InputError("--train-precision", why);
  req.spec.infer_precision = precision_option(req.infer_precision, "--precision");
  if (req.models.empty()) req.models = {"llama3.1-70b", "deepseek-r1"};
  std::vector<ModelArch> archs;
  for (const auto& m : req.models) archs.push_back(resolve_model(m, "--model"));
  if (req.spec.infer)
    for (const auto& m : archs) check_long_context_model(req.long_context, m);
  auto a = compare::make_side(catalog, req.systems[0], profile);
  auto b = compare::make_side(catalog, req.systems[1], profile);
  apply_fabric_options(catalog, a.hw, 0, req.fabric_opts);  // both sides on the same kind of fabric
  apply_fabric_options(catalog, b.hw, 0, req.fabric_opts);
  if (req.spec.infer)
    for (const auto* side : {&a, &b})
      if (const LongContextRefusal why = long_context_refusal(req.long_context, side->hw); !why.empty())
        throw InputError(why.option, fmt::format("{} ({}): {}", side->system, side->accelerator, why.message));
  req.spec.mtp_accept = catalog_mtp_accept(catalog);
  const compare::Comparison c = compare::compare_systems(a, b, archs, req.spec);
  // Error bands of the ratios: each side's held-out band for its generation, widened for that side's
  // question off the bands' ground (band_for), combined (ratio_band). compare takes no --engine: its
  // serving questions state no engine, so no engine widens them, and the serving bands' basis says so.
  const auto& bands = catalog.error_bands();
  const std::string &gen_a = c.a.hw.accelerator.generation, &gen_b = c.b.hw.accelerator.generation;
  auto ratio_of = [&](std::string_view kind, double va, BandQuestion qa, double vb, BandQuestion qb) {
    qa.accelerator = c.a.hw.accelerator.name;
    qb.accelerator = c.b.hw.accelerator.name;
    return ratio_band(with_band(va, band_for(bands, kind, gen_a, qa)), with_band(vb, band_for(bands, kind, gen_b, qb)),
                      catalog.band_correlation());
  };
  std::vector<nlohmann::json> model_bands;
  std::string band_lines;
  for (size_t i = 0; i < c.models.size() && i < archs.size(); ++i) {
    const auto& m = c.models[i];
    nlohmann::json mb;
    if (req.spec.train && m.train_a.found && m.train_b.found) {
      const BandedFigure r = ratio_of(training_band_kind(archs[i].is_moe()), m.train_a.result.tokens_per_s_per_gpu,
                                      training_question(archs[i], m.train_a.workload),
                                      m.train_b.result.tokens_per_s_per_gpu,
                                      training_question(archs[i], m.train_b.workload));
      mb["training_ratio"] = band_json(r);
      mb["training_ratio"]["p_a_ahead"] = probability_at_least(r, 1.0);
      band_lines += fmt::format("  {} training A/B {:.2f}x: {:.2f}x to {:.2f}x ({}); P(A ahead) = {}\n", m.model, r.value,
                                r.low, r.high, band_text(r), probability_text(probability_at_least(r, 1.0)));
    }
    if (req.spec.infer) {
      // The same relative band holds at every aggregated point of the curve (one kind, one generation
      // per side); at the interactivity, each side's band is its point's kind (a disaggregated
      // deployment carries the disaggregated band).
      const Precision common = m.infer_precision_common;
      const BandedFigure r = ratio_of(serving_band_kind(false, ServingFigure::throughput), 1.0,
                                      band_question(common, archs[i], m.gpus_a), 1.0,
                                      band_question(common, archs[i], m.gpus_b));
      mb["serving_ratio_relative"] = band_json(r);
      mb["serving_ratio_relative"]["basis"]["engine"] = kNoEngineStated;
      band_lines += fmt::format("  {} serving A/B at any aggregated point of the curve: x{:.2f} to x{:.2f} of the ratio "
                                "shown ({})\n", m.model, r.low, r.high, band_text(r));
      if (m.at_a && m.at_b) {
        const BandedFigure at = ratio_band(
            with_band(m.at_a->result.tokens_per_s_per_gpu,
                      serving_band(catalog, c.a.hw, m.at_a->disaggregated, ServingFigure::throughput,
                                   band_question(common, archs[i], m.at_gpus_a))),
            with_band(m.at_b->result.tokens_per_s_per_gpu,
                      serving_band(catalog, c.b.hw, m.at_b->disaggregated, ServingFigure::throughput,
                                   band_question(common, archs[i], m.at_gpus_b))),
            catalog.band_correlation());
        mb["serving_ratio_at_interactivity"] = band_json(at);
        mb["serving_ratio_at_interactivity"]["basis"]["engine"] = kNoEngineStated;
        mb["serving_ratio_at_interactivity"]["p_a_ahead"] = probability_at_least(at, 1.0);
        band_lines += fmt::format("  {} serving A/B at {:g} tok/s/user ({} vs {}) {:.2f}x: {:.2f}x to {:.2f}x ({}); P(A "
                                  "ahead) = {}\n",
                                  m.model, req.spec.tokens_per_s_per_user, m.at_a->kind(), m.at_b->kind(), at.value,
                                  at.low, at.high, band_text(at), probability_text(probability_at_least(at, 1.0)));
      }
    }
    model_bands.push_back(mb);
  }
  if (output.json()) {
    nlohmann::json j = comparison_json(c);
    for (size_t i = 0; i < model_bands.size() && i < j["models"].size(); ++i) j["models"][i]["band"] = model_bands[i];
    j["task"] = req.task;
    j["per"] = req.per;
    j["cost_profile"] = cost_profile_json(profile);
    output.emit("compare", std::move(j));
  } else {
    print_comparison(output.os(), c, per_v);
    if (!band_lines.empty())
      output.os() << "\nError of the ratios (each side's 80% held-out band, combined"
                  << (req.spec.infer ? "; no serving engine stated, none widens the serving bands" : "") << "):\n"
                  << band_lines;
  }
  return kExitOk;
}


}  // namespace gpuplan::api
