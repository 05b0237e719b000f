// infer --requests-per-s on a stated deployment (see infer_open_loop_point.h).
#include "api/infer_open_loop_point.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>

#include "api/band_json.h"
#include "api/infer_json.h"
#include "api/open_loop_json.h"
#include "core/error.h"
#include "inference/open_loop.h"
#include "sizing/odds.h"

namespace gpuplan::api {

namespace {

bool any_limit(const OpenLoopLimits& l) { return l.ttft_p99_s > 0 || l.tpot_p50_s > 0 || l.tpot_p99_s > 0; }

}  // namespace

int infer_open_loop_point(const Catalog& catalog, const StatedOpenLoop& q, const StatedDeployment& d, Output& output) {
  const ServingScenario& sc = d.scenario;
  const ServingDeployment& dep = d.deployment;
  sizing::Candidate cand;
  cand.system = sc.system;
  cand.generation = sc.hw.accelerator.generation;
  cand.unit_gpus = std::max(1, sc.unit_gpus);
  cand.replica_units = std::max(1, (dep.gpus + cand.unit_gpus - 1) / cand.unit_gpus);
  cand.curve = tabulate_open_loop(sc, dep);
  apply_open_loop_lengths(q.lengths, cand.curve);
  const OpenLoopCurve& curve = cand.curve;
  if (curve.batch.empty())
    throw InputError(d.option, fmt::format("the deployment ({} on {} GPUs) holds no sequence: its weights leave no room "
                                           "for the KV cache; raise {} or lower --precision",
                                           dep.plan(), dep.gpus, d.option));
  const double rate = q.requests_per_s * q.peak_factor;
  const OpenLoopResult r = open_loop(curve, rate);
  const double capacity = open_loop_capacity_per_s(curve, rate);
  const double served = r.stable ? rate : capacity;
  const bool limited = any_limit(q.limits);
  const bool met = open_loop_within(r, q.limits);
  // The draws, as size draws them: the generation's serving bands widened for this question.
  const BandQuestion bq = serving_question(sc, dep.gpus);
  cand.tpot_band = serving_band(catalog, sc.hw, dep.disaggregated, ServingFigure::tpot, bq);
  cand.ttft_band = serving_band(catalog, sc.hw, dep.disaggregated, ServingFigure::ttft, bq);
  sizing::SizingOptions so;
  so.requests_per_s = rate;
  so.sla.ttft_p99_s = q.limits.ttft_p99_s;
  so.sla.tokens_per_s_per_user = q.limits.tpot_p50_s > 0 ? 1.0 / q.limits.tpot_p50_s : 0.0;
  so.sla.tpot_p99_s = q.limits.tpot_p99_s;
  so.draws = q.draws;
  so.seed = std::uint64_t(q.seed);
  sizing::apply_band_correlation(catalog.band_correlation(), so);
  const sizing::OpenLoopOdds odds = sizing::open_loop_odds(cand, rate, so);
  const double osl = double(std::max(1LL, curve.osl));

  nlohmann::json j = {{"mode", "open_loop_point"},
                      {"model", sc.model.name},
                      {"system", sc.hw.system_name},
                      {"accelerator", sc.hw.accelerator.name},
                      {"gpus", dep.gpus},
                      {"deployment", dep.plan()},
                      {"parallel", infer_parallel_json(dep.parallel)},
                      {"parallel_chosen", d.chosen},
                      {"mtp_draft_tokens", dep.mtp_draft_tokens},
                      {"isl", sc.traffic.isl},
                      {"osl", sc.traffic.osl},
                      {"lengths", open_loop_lengths_json(q.lengths)},
                      {"precision", std::string(to_string(sc.workload.weight_precision))},
                      {"precision_note", d.precision_note},
                      {"engine", sc.engine},
                      {"requests_per_s", q.requests_per_s},
                      {"peak_factor", q.peak_factor},
                      {"rate_evaluated_per_s", rate},
                      {"capacity_per_s", capacity},
                      {"load", capacity > 0 ? nlohmann::json(rate / capacity) : nlohmann::json(nullptr)},
                      {"stable", r.stable},
                      {"served_per_s", served},
                      {"tokens_per_s", served * osl},
                      {"tokens_per_s_per_gpu", served * osl / double(std::max(1, dep.gpus))},
                      {"decode_slots", curve.decode_slots},
                      {"prefill_utilization", r.prefill_utilization},
                      {"slot_utilization", r.slot_utilization}};
  if (!r.why_not.empty()) j["why_not"] = r.why_not;
  if (r.stable) {
    j["decode_batch"] = r.decode_batch;
    j["decode_batch_p99"] = r.decode_batch_p99;
    add_open_loop_latencies(j, r);
  }
  const auto limit = [](double x) { return x > 0 ? nlohmann::json(x) : nlohmann::json(nullptr); };
  j["limits"] = {{"ttft_p99_s", limit(q.limits.ttft_p99_s)},
                 {"tpot_p50_s", limit(q.limits.tpot_p50_s)},
                 {"tpot_p99_s", limit(q.limits.tpot_p99_s)}};
  const double max_rate = limited ? open_loop_max_rate_within(curve, q.limits, rate) : 0.0;
  if (limited) {
    j["met"] = met;
    j["max_rate_within_limits_per_s"] = max_rate;
  }
  j["odds"] = open_loop_odds_json(odds, cand, q.seed);
  j["odds"]["p_meets_limits"] = limited ? nlohmann::json(odds.p_meets_sla) : nlohmann::json(nullptr);
  const int code = limited && !met ? 3 : 0;
  if (output.json()) {
    output.emit("infer", std::move(j));
    return code;
  }
  std::ostream& os = output.os();
  os << fmt::format("{} on {} x {} ({}), {}, {:.4g} requests/s Poisson, ISL/OSL {}/{} ({}){}\n",
                    sc.model.display_name.empty() ? sc.model.name : sc.model.display_name, dep.gpus,
                    sc.hw.accelerator.name, sc.hw.system_name, dep.plan(), rate, sc.traffic.isl, sc.traffic.osl,
                    open_loop_lengths_text(q.lengths), sc.engine.empty() ? std::string() : ", engine " + sc.engine);
  if (!d.precision_note.empty()) os << "Note: " << d.precision_note << "\n";
  if (!d.chosen.empty()) os << "  " << d.chosen << "\n";
  os << fmt::format("  capacity {:.4g} requests/s (the largest rate it keeps up with); load {:.0f}%\n", capacity,
                    capacity > 0 ? 100 * rate / capacity : std::numeric_limits<double>::infinity());
  if (!r.stable) {
    os << fmt::format("  unstable: {}; it serves {:.4g} requests/s ({:.0f} tokens/s), the queue growing\n", r.why_not,
                      served, served * osl);
  } else {
    os << fmt::format("  TTFT mean {:.3f} s, p50 {:.3f} s, p99 {:.3f} s\n", r.ttft_mean_s, r.ttft_p50_s, r.ttft_p99_s);
    os << fmt::format("  TPOT mean {:.2f} ms, p50 {:.2f} ms, p99 {:.2f} ms ({:.1f} tokens/s/user)\n",
                      1e3 * r.tpot_mean_s, 1e3 * r.tpot_p50_s, 1e3 * r.tpot_p99_s, r.tokens_per_s_per_user_p50);
    os << fmt::format("  decode batch {:.1f} (p99 {:.0f} of {} slots); prefill {:.0f}% busy; {:.0f} tokens/s ({:.0f} "
                      "per GPU)\n",
                      r.decode_batch, r.decode_batch_p99, curve.decode_slots, 100 * r.prefill_utilization, served * osl,
                      served * osl / double(std::max(1, dep.gpus)));
  }
  if (limited) {
    std::string said;
    const auto add = [&](const std::string& s) { said += (said.empty() ? "" : ", ") + s; };
    if (q.limits.ttft_p99_s > 0) add(fmt::format("TTFT p99 <= {:.4g} s", q.limits.ttft_p99_s));
    if (q.limits.tpot_p50_s > 0) add(fmt::format("TPOT p50 <= {:.4g} ms", 1e3 * q.limits.tpot_p50_s));
    if (q.limits.tpot_p99_s > 0) add(fmt::format("TPOT p99 <= {:.4g} ms", 1e3 * q.limits.tpot_p99_s));
    os << fmt::format("  limits ({}): {}; the largest rate within them {:.4g} requests/s\n", said,
                      met ? "met" : "not met", max_rate);
  }
  os << open_loop_bands_text(odds, limited ? fmt::format(", P(meets the limits) {:.2f}", odds.p_meets_sla)
                                           : std::string());
  return code;
}

}  // namespace gpuplan::api
