// The open-loop model scored on Poisson-arrival rows (see open_loop_cases.h).
#include "validate/open_loop_cases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <ostream>

#include "core/error.h"
#include "core/text.h"
#include "inference/open_loop.h"
#include "sizing/odds.h"
#include "validate/held_out.h"
#include "validate/row_command.h"
#include "validate/row_scenario.h"
#include "validate/scenario_rules.h"

namespace gpuplan {

namespace {

// The number after `key` (spaces skipped), or 0.
double number_after(const std::string& text, const std::string& key) {
  const auto p = text.find(key);
  if (p == std::string::npos) return 0;
  std::size_t i = p + key.size();
  while (i < text.size() && text[i] == ' ') ++i;
  double v = 0;
  return parse_cell_number(text.substr(i, 24), v) && v > 0 ? v : 0;
}

double ape_pct(double predicted, double reported) { return 100.0 * std::abs(predicted - reported) / reported; }

// The cells that name one deployment and traffic (not the metric, value or notes).
std::string deployment_key(const CsvTable& t, size_t i) {
  std::string k;
  for (const char* col : {"source_url_or_path", "model", "gpu", "num_gpus", "tp", "ep", "pp", "precision_weights",
                          "precision_kv", "framework", "isl", "osl", "concurrency_or_batch", "scenario"})
    k += t.cell(i, col) + "|";
  return k;
}

}  // namespace

MlperfNotes read_mlperf_notes(const std::string& notes) {
  MlperfNotes n;
  n.ttft_limit_ms = number_after(notes, "TTFT<=");
  n.tpot_limit_ms = number_after(notes, "TPOT<=");
  n.p99_ms = number_after(notes, "p99 ");
  n.samples_per_s = number_after(notes, "samples/s ");
  return n;
}

OpenLoopValidation validate_open_loop(const CsvTable& t, const std::vector<InferenceCase>& cases,
                                      const std::vector<SkippedRow>& skipped, const OpenLoopOddsInputs& odds_in,
                                      const Catalog* catalog) {
  OpenLoopValidation v;
  v.odds_draws = odds_in.bands ? odds_in.draws : 0;
  // The odds of one run (its deployment, rate and limits), shared by its throughput, TTFT and TPOT rows.
  std::map<std::string, sizing::OpenLoopOdds> odds_by_run;
  const auto run_odds = [&](const std::string& key, const InferenceCase& c, const OpenLoopCurve& curve, double rate,
                            const MlperfNotes& mn) -> const sizing::OpenLoopOdds& {
    const std::string k = fmt::format("{}|{}|{}|{}", key, rate, mn.ttft_limit_ms, mn.tpot_limit_ms);
    if (const auto it = odds_by_run.find(k); it != odds_by_run.end()) return it->second;
    sizing::Candidate cand;
    cand.generation = c.generation;
    cand.curve = curve;
    BandQuestion q = band_question_of(c);
    if (odds_in.band_engine) q.engine = odds_in.band_engine(q.engine);
    const auto band = [&](ServingFigure f) {
      return band_for(*odds_in.bands, std::string(serving_band_kind(false, f)), c.generation, q);
    };
    cand.tpot_band = band(ServingFigure::tpot);
    cand.ttft_band = band(ServingFigure::ttft);
    sizing::SizingOptions so;
    so.requests_per_s = rate;
    so.sla.ttft_p99_s = mn.ttft_limit_ms / 1e3;
    so.sla.tpot_p99_s = mn.tpot_limit_ms / 1e3;
    so.draws = odds_in.draws;
    sizing::apply_band_correlation(odds_in.correlation, so);
    return odds_by_run.emplace(k, sizing::open_loop_odds(cand, rate, so)).first->second;
  };
  std::map<size_t, const InferenceCase*> by_row;
  for (const auto& c : cases) by_row[c.row] = &c;
  std::map<size_t, std::string> skip_reason;
  for (const auto& s : skipped) skip_reason[s.row] = s.reason;
  std::map<std::string, OpenLoopCurve> curves;
  std::map<std::string, std::vector<double>> errors;
  std::vector<double> rate_errors;
  std::map<std::string, std::vector<double>> given_errors, tuned_errors;
  // MLPerf runs' mean TPOT (their tpot_ms rows), by deployment.
  std::map<std::string, double> run_tpot_mean_ms;
  for (const auto& c : cases)
    if (c.metric == "tpot_ms" && c.reported > 0 && t.cell(c.row, "source_id").rfind("MLPerf", 0) == 0)
      run_tpot_mean_ms[deployment_key(t, c.row)] = c.reported;
  std::vector<double> scales;
  // The largest rate a deployment holds within a run's p99 limits, once per run (its throughput, TTFT and
  // TPOT rows share it).
  std::map<std::string, double> largest_within_limits;
  const auto limits_of = [](const MlperfNotes& mn) {
    OpenLoopLimits l;
    l.ttft_p99_s = mn.ttft_limit_ms / 1e3;
    l.tpot_p99_s = mn.tpot_limit_ms / 1e3;
    return l;
  };
  const auto largest_within = [&](const std::string& key, const OpenLoopCurve& curve, double from,
                                  const MlperfNotes& mn) {
    const std::string k = fmt::format("{}{}|{}", key, mn.ttft_limit_ms, mn.tpot_limit_ms);
    if (const auto it = largest_within_limits.find(k); it != largest_within_limits.end()) return it->second;
    const double x = open_loop_max_rate_within(curve, limits_of(mn), from);
    return largest_within_limits.emplace(k, x).first->second;
  };

  for (size_t i = 0; i < t.rows.size(); ++i) {
    const std::string scenario = to_lower(t.cell(i, "scenario"));
    const std::string notes = t.cell(i, "notes");
    const bool mlperf = t.cell(i, "source_id").rfind("MLPerf", 0) == 0 &&
                        (scenario == "server" || scenario == "interactive");
    const bool rate_row = notes.find("request_rate_qps=") != std::string::npos;
    if (!mlperf && !rate_row) continue;
    const auto hold = [&](const std::string& why) { v.held_out.push_back({i, why}); };
    const auto it = by_row.find(i);
    if (it == by_row.end()) {
      const auto s = skip_reason.find(i);
      hold("not mapped: " + (s == skip_reason.end() ? std::string("no case") : s->second));
      continue;
    }
    const InferenceCase& c = *it->second;
    if (c.mode == InferenceMode::disaggregated) {
      hold("a disaggregated deployment under a request rate is not modelled open loop");
      continue;
    }
    double rate = 0;
    MlperfNotes mn;
    if (rate_row) {
      rate = c.request_rate_qps;
      if (!std::isfinite(rate)) {
        hold("request_rate_qps=INF sends every request at once: a burst, not Poisson arrivals");
        continue;
      }
    } else {
      mn = read_mlperf_notes(notes);
      rate = mn.samples_per_s;
      if (!(rate > 0) && c.metric == "tokens_per_sec_total")
        rate = c.reported / c.total_over_output / double(std::max(1LL, c.workload.osl));
      if (!(rate > 0)) {
        hold("the notes state no samples/s (the rate the run sustained)");
        continue;
      }
      if (!(mn.ttft_limit_ms > 0 && mn.tpot_limit_ms > 0)) {
        hold("the notes state no p99 TTFT/TPOT limits");
        continue;
      }
    }
    if (!(rate > 0)) {
      hold("no request rate");
      continue;
    }
    const std::string key = deployment_key(t, i);
    auto cv = curves.find(key);
    if (cv == curves.end()) {
      const RowScenario rs = row_scenario(c);
      OpenLoopCurve curve;
      try {
        curve = tabulate_open_loop(rs.scenario, rs.deployment);
        // MLPerf's prompts are its dataset's: varying about the mean up to the dataset's longest.
        if (mlperf)
          if (const MlperfBenchmark* b = find_mlperf_benchmark(true, t.cell(i, "source_url_or_path"), notes,
                                                               c.model_name, scenario))
            curve.prompt_isl_max = b->isl_max;
      } catch (const InputError& e) {
        hold(std::string("the model refuses this row's deployment: ") + e.what());
        continue;
      }
      cv = curves.emplace(key, std::move(curve)).first;
    }
    const OpenLoopCurve& curve = cv->second;
    if (curve.batch.empty()) {
      hold("the deployment holds no sequence");
      continue;
    }
    const OpenLoopResult r = open_loop(curve, rate);
    // The command asking this row's question of the deployment (the p99 limits where the run states them).
    const auto command = [&] {
      return catalog ? open_loop_row_command(*catalog, c, rate, curve.prompt_isl_max, mn.ttft_limit_ms / 1e3,
                                             mn.tpot_limit_ms / 1e3)
                     : std::string();
    };
    OpenLoopScoredRow s;
    s.row = i;
    s.source_id = c.source_id;
    s.model = c.model_name;
    s.gpu = c.gpu_name;
    s.num_gpus = c.workload.num_gpus;
    s.plan = curve.deployment.plan();
    s.requests_per_s = rate;
    s.reported = c.reported;
    // MLPerf p99 rows at the model's tuned operating point: the largest rate within the row's limits.
    if (mlperf && (c.metric == "ttft_ms" || c.metric == "tpot_ms") && mn.p99_ms > 0) {
      const double ttft_limit_s = mn.ttft_limit_ms / 1e3, tpot_limit_s = mn.tpot_limit_ms / 1e3;
      const double tuned = largest_within(key, curve, rate, mn);
      if (tuned > 0) {
        const OpenLoopResult x = open_loop(curve, tuned);
        const bool ttft = c.metric == "ttft_ms";
        s.tuned_rate_per_s = tuned;
        s.predicted_tuned = 1e3 * (ttft ? x.ttft_p99_s : x.tpot_p99_s);
        s.ape_tuned_pct = ape_pct(s.predicted_tuned, mn.p99_ms);
        // The limit that stops the rate: the p99 within 1% of its limit, else the deployment's capacity.
        s.tuned_binding = x.ttft_p99_s >= 0.99 * ttft_limit_s   ? "ttft"
                          : x.tpot_p99_s >= 0.99 * tpot_limit_s ? "tpot"
                                                                : "stability";
        tuned_errors[ttft ? "ttft_p99_ms" : "tpot_p99_ms"].push_back(s.ape_tuned_pct);
        ++v.tuned_binding[s.tuned_binding];
        if (!r.stable) ++v.tuned_unstable_rows;
      }
    }
    // The odds at the measured rate, the run's p99s against their bands (rows unstable at the model's
    // central figures too: their band's upper edge is then unbounded).
    const sizing::OpenLoopOdds* run_od = nullptr;
    // A stated rate's mean TTFT and the median request's TPOT against their bands at that rate (no SLA).
    if (rate_row && odds_in.bands && (c.metric == "ttft_ms" || c.metric == "tpot_ms") && c.reported > 0) {
      const sizing::OpenLoopOdds& od = run_odds(key, c, curve, rate, MlperfNotes{});
      const bool ttft = c.metric == "ttft_ms";
      const sizing::FigureBand& b = ttft ? od.ttft_mean_s : od.tpot_p50_s;
      const double x_s = c.reported / 1e3;
      OpenLoopOddsCoverage& cov = v.odds_coverage[ttft ? "ttft_mean_ms" : "tpot_mean_ms"];
      ++cov.rows;
      cov.unbounded += b.high ? 0 : 1;
      cov.inside += b.low && x_s >= *b.low && (!b.high || x_s <= *b.high) ? 1 : 0;
      s.odds_low = b.low ? 1e3 * *b.low : std::numeric_limits<double>::infinity();
      s.odds_high = b.high ? 1e3 * *b.high : std::numeric_limits<double>::infinity();
    }
    if (mlperf && odds_in.bands) {
      const sizing::OpenLoopOdds& od = run_odds(key, c, curve, rate, mn);
      run_od = &od;
      if (c.metric == "tokens_per_sec_total") {
        v.odds_p_meets.push_back(od.p_meets_sla);
      } else if ((c.metric == "ttft_ms" || c.metric == "tpot_ms") && mn.p99_ms > 0) {
        const sizing::FigureBand& b = c.metric == "ttft_ms" ? od.ttft_p99_s : od.tpot_p99_s;
        const double p99_s = mn.p99_ms / 1e3;
        OpenLoopOddsCoverage& cov = v.odds_coverage[c.metric == "ttft_ms" ? "ttft_p99_ms" : "tpot_p99_ms"];
        ++cov.rows;
        cov.unbounded += b.high ? 0 : 1;
        // No band at all (nine tenths of the draws cannot keep up): the run's p99 is outside it.
        cov.inside += b.low && p99_s >= *b.low && (!b.high || p99_s <= *b.high) ? 1 : 0;
        s.odds_low = b.low ? 1e3 * *b.low : std::numeric_limits<double>::infinity();
        s.odds_high = b.high ? 1e3 * *b.high : std::numeric_limits<double>::infinity();
      }
    }
    const auto unstable = [&] {
      v.unstable.push_back({i, fmt::format("{} at {:.4g} requests/s: {}", c.metric, rate, r.why_not)});
    };
    if (mlperf && c.metric == "tokens_per_sec_total") {
      OpenLoopLimitCheck l;
      l.row = i;
      l.source_id = c.source_id;
      l.model = c.model_name;
      l.gpu = c.gpu_name;
      l.measured_rate_per_s = rate;
      l.ttft_limit_s = mn.ttft_limit_ms / 1e3;
      l.tpot_limit_s = mn.tpot_limit_ms / 1e3;
      l.stable = r.stable;
      l.ttft_p99_s = r.ttft_p99_s;
      l.tpot_p99_s = r.tpot_p99_s;
      l.meets = open_loop_within(r, limits_of(mn));
      l.max_rate_per_s = largest_within(key, curve, rate, mn);
      l.max_rate_ape_pct = ape_pct(l.max_rate_per_s, rate);
      if (run_od) l.p_meets_sla = run_od->p_meets_sla;
      l.command = command();
      v.limits_met += l.meets ? 1 : 0;
      rate_errors.push_back(l.max_rate_ape_pct);
      v.limits.push_back(l);
      continue;
    }
    if (c.metric == "tokens_per_sec_total") {
      // A stated rate: the deployment serves it when it keeps up, else its capacity.
      const double served = r.stable ? rate : open_loop_capacity_per_s(curve, rate);
      s.metric = "tokens_per_s";
      s.predicted = served * double(c.workload.osl) * c.total_over_output;
      s.command_field = "tokens_per_s";
      s.command_scale = c.total_over_output;
    } else if (!r.stable) {
      unstable();
      continue;
    } else if (c.metric == "ttft_ms") {
      if (mlperf && !(mn.p99_ms > 0)) {
        hold("the notes state no p99 TTFT");
        continue;
      }
      s.metric = mlperf ? "ttft_p99_ms" : "ttft_mean_ms";
      s.reported = mlperf ? mn.p99_ms : c.reported;
      s.predicted = 1e3 * (mlperf ? r.ttft_p99_s : r.ttft_mean_s);
      s.command_field = mlperf ? "ttft_p99_s" : "ttft_mean_s";
      s.command_scale = 1e3;
      if (mlperf) s.reported_mean = c.reported, s.predicted_mean = 1e3 * r.ttft_mean_s;
    } else if (c.metric == "tpot_ms") {
      if (mlperf && !(mn.p99_ms > 0)) {
        hold("the notes state no p99 TPOT");
        continue;
      }
      s.metric = mlperf ? "tpot_p99_ms" : "tpot_mean_ms";
      s.reported = mlperf ? mn.p99_ms : c.reported;
      s.predicted = 1e3 * (mlperf ? r.tpot_p99_s : r.tpot_p50_s);
      s.command_field = mlperf ? "tpot_p99_s" : "tpot_p50_s";
      s.command_scale = 1e3;
      if (mlperf) s.reported_mean = c.reported, s.predicted_mean = 1e3 * r.tpot_mean_s;
    } else {
      hold("metric '" + c.metric + "' has no open-loop counterpart");
      continue;
    }
    if (!(s.reported > 0)) {
      hold("no reported value");
      continue;
    }
    s.ape_pct = ape_pct(s.predicted, s.reported);
    s.command = command();
    if (s.command.empty()) s.command_field.clear();
    if (mlperf) {
      s.load = rate / open_loop_capacity_per_s(curve, rate);
      const bool ttft = s.metric == "ttft_p99_ms";
      const auto at = [&](double k) { return open_loop(curve, rate, OpenLoopScale{k, k}); };
      const auto tpot_mean_ms = [&](double k) {
        const OpenLoopResult x = at(k);
        return x.stable ? 1e3 * x.tpot_mean_s : std::numeric_limits<double>::infinity();
      };
      // The scale is the one whose mean TPOT is the run's (the TPOT row of the same run, for a TTFT row):
      // the mean rises with the scale (to the rate's capacity), bisection on log(scale) over [1/4, 4].
      const auto tm = run_tpot_mean_ms.find(key);
      const double target = tm == run_tpot_mean_ms.end() ? 0.0 : tm->second;
      double lo = 0.25, hi = 4.0;
      if (target > 0 && tpot_mean_ms(lo) <= target && tpot_mean_ms(hi) >= target) {
        for (int step = 0; step < 40; ++step) {
          const double m = std::sqrt(lo * hi);
          (tpot_mean_ms(m) < target ? lo : hi) = m;
        }
        const OpenLoopResult x = at(lo);
        s.implied_scale = lo;
        s.predicted_given_mean = 1e3 * (ttft ? x.ttft_p99_s : x.tpot_p99_s);
        s.ape_given_mean_pct = ape_pct(s.predicted_given_mean, s.reported);
        // At the run's step time the model's batch can reach its decode slots (the KV cache) for more
        // than 1% of the arrivals: then its p99 TTFT carries the slot queue's wait, which the run
        // (holding more sequences) did not; counted, not scored (TPOT has no slot wait).
        const int inst = std::max(1, curve.decode_instances);
        s.given_slot_bound = ttft && x.decode_batch_p99 >= double(curve.decode_slots / inst * inst);
        if (s.given_slot_bound) ++v.given_slot_bound;
        else given_errors[s.metric].push_back(s.ape_given_mean_pct);
        scales.push_back(lo);
      }
    }
    errors[s.metric].push_back(s.ape_pct);
    v.rows.push_back(std::move(s));
  }
  for (const auto& [m, e] : errors) v.by_metric[m] = summarize(e);
  for (const auto& [m, e] : given_errors) v.given_mean[m] = summarize(e);
  for (const auto& [m, e] : tuned_errors) v.at_tuned_rate[m] = summarize(e);
  if (!scales.empty()) {
    std::sort(scales.begin(), scales.end());
    const auto q = [&](double f) { return scales[std::size_t(std::lround(f * double(scales.size() - 1)))]; };
    v.implied_scale_p10 = q(0.1), v.implied_scale_p50 = q(0.5), v.implied_scale_p90 = q(0.9);
  }
  v.max_rate = summarize(rate_errors);
  return v;
}

OpenLoopOddsRuns odds_runs(const OpenLoopValidation& v) {
  OpenLoopOddsRuns r;
  std::vector<double> p = v.odds_p_meets;
  r.rows = p.size();
  if (p.empty()) return r;
  std::sort(p.begin(), p.end());
  r.p_median = p[p.size() / 2];
  const auto share = [&](auto pred) { return double(std::count_if(p.begin(), p.end(), pred)) / double(p.size()); };
  r.share_at_least_0_1 = share([](double x) { return x >= 0.1; });
  r.share_0_1_to_0_9 = share([](double x) { return x >= 0.1 && x <= 0.9; });
  r.share_above_0_9 = share([](double x) { return x > 0.9; });
  return r;
}

nlohmann::json open_loop_json(const OpenLoopValidation& v) {
  const auto summary = [](const ErrorSummary& s) {
    return nlohmann::json{{"rows", s.rows}, {"median_ape_pct", s.median_ape_pct}, {"p90_ape_pct", s.p90_ape_pct}};
  };
  nlohmann::json by_metric = nlohmann::json::object(), rows = nlohmann::json::array(),
                 checks = nlohmann::json::array(), held = nlohmann::json::array(), unstable = nlohmann::json::array(),
                 reasons = nlohmann::json::object();
  for (const auto& [m, s] : v.by_metric) by_metric[m] = summary(s);
  nlohmann::json given = nlohmann::json::object();
  for (const auto& [m, s] : v.given_mean) given[m] = summary(s);
  if (!v.given_mean.empty())
    given["implied_scale"] = {{"p10", v.implied_scale_p10}, {"p50", v.implied_scale_p50}, {"p90", v.implied_scale_p90}};
  if (!v.given_mean.empty()) given["slot_bound_rows"] = v.given_slot_bound;
  nlohmann::json tuned = nlohmann::json::object();
  for (const auto& [m, s] : v.at_tuned_rate) tuned[m] = summary(s);
  if (!v.at_tuned_rate.empty()) {
    tuned["binding"] = v.tuned_binding;
    tuned["unstable_at_measured_rate"] = v.tuned_unstable_rows;
  }
  for (const auto& r : v.rows) {
    rows.push_back({{"row", r.row}, {"source_id", r.source_id}, {"model", r.model}, {"gpu", r.gpu},
                    {"num_gpus", r.num_gpus}, {"plan", r.plan}, {"metric", r.metric},
                    {"requests_per_s", r.requests_per_s}, {"reported", r.reported}, {"predicted", r.predicted},
                    {"ape_pct", r.ape_pct}});
    if (!r.command.empty()) {
      rows.back()["command"] = r.command;
      rows.back()["command_field"] = r.command_field;
      rows.back()["command_scale"] = r.command_scale;
    }
    if (r.reported_mean > 0) {
      rows.back()["reported_mean"] = r.reported_mean;
      rows.back()["predicted_mean"] = r.predicted_mean;
      rows.back()["load"] = r.load;
      if (r.tuned_rate_per_s > 0) {
        rows.back()["tuned_rate_per_s"] = r.tuned_rate_per_s;
        rows.back()["predicted_tuned"] = r.predicted_tuned;
        rows.back()["ape_tuned_pct"] = r.ape_tuned_pct;
        rows.back()["tuned_binding"] = r.tuned_binding;
      }
      if (r.implied_scale > 0) {
        rows.back()["implied_scale"] = r.implied_scale;
        rows.back()["predicted_given_mean"] = r.predicted_given_mean;
        rows.back()["ape_given_mean_pct"] = r.ape_given_mean_pct;
        rows.back()["given_slot_bound"] = r.given_slot_bound;
      }
    }
    if (r.odds_high > 0) {
      rows.back()["odds_low"] = std::isfinite(r.odds_low) ? nlohmann::json(r.odds_low) : nlohmann::json(nullptr);
      rows.back()["odds_high"] = std::isfinite(r.odds_high) ? nlohmann::json(r.odds_high) : nlohmann::json(nullptr);
    }
  }
  for (const auto& l : v.limits) {
    nlohmann::json j = {{"row", l.row}, {"source_id", l.source_id}, {"model", l.model}, {"gpu", l.gpu},
                        {"measured_rate_per_s", l.measured_rate_per_s}, {"ttft_p99_limit_s", l.ttft_limit_s},
                        {"tpot_p99_limit_s", l.tpot_limit_s}, {"stable", l.stable}, {"meets_limits", l.meets},
                        {"max_rate_per_s", l.max_rate_per_s}, {"max_rate_ape_pct", l.max_rate_ape_pct}};
    if (l.p_meets_sla >= 0) j["p_meets_sla"] = l.p_meets_sla;
    if (!l.command.empty()) j["command"] = l.command;
    if (l.stable) {
      j["ttft_p99_s"] = l.ttft_p99_s;
      j["tpot_p99_s"] = l.tpot_p99_s;
    }
    checks.push_back(std::move(j));
  }
  for (const auto& s : v.held_out) held.push_back({{"row", s.row}, {"reason", s.reason}});
  for (const auto& s : v.unstable) unstable.push_back({{"row", s.row}, {"reason", s.reason}});
  for (const auto& [why, n] : skip_reason_counts(v.held_out)) reasons[why] = n;
  nlohmann::json odds = nlohmann::json::object();
  if (v.odds_draws > 0) {
    nlohmann::json p99 = nlohmann::json::object();
    for (const auto& [m, c] : v.odds_coverage)
      p99[m] = {{"rows", c.rows}, {"inside", c.inside}, {"share", c.share()}, {"unbounded", c.unbounded}};
    const OpenLoopOddsRuns runs = odds_runs(v);
    odds = {{"draws", v.odds_draws},
            {"p99_band", p99},
            {"runs", {{"rows", runs.rows},
                      {"p_meets_median", runs.p_median},
                      {"share_at_least_0_1", runs.share_at_least_0_1},
                      {"share_0_1_to_0_9", runs.share_0_1_to_0_9},
                      {"share_above_0_9", runs.share_above_0_9}}}};
  }
  return {{"model", "open loop: Poisson arrivals at the measured rate on the row's deployment (docs/sizing.md)"},
          {"rows_scored", v.rows.size()},
          {"by_metric", by_metric},
          {"given_mean", given},
          {"at_tuned_rate", tuned},
          {"odds", odds},
          {"limits", {{"rows", v.limits.size()}, {"met", v.limits_met}, {"share_met", v.share_met()},
                      {"max_rate", summary(v.max_rate)}, {"checks", checks}}},
          {"rows", rows},
          {"unstable", unstable},
          {"held_out", held},
          {"held_out_reasons", reasons}};
}

void print_open_loop_text(std::ostream& os, const OpenLoopValidation& v) {
  if (v.rows.empty() && v.limits.empty() && v.held_out.empty() && v.unstable.empty()) return;
  os << fmt::format("Open loop (Poisson arrivals at the measured rate, the row's deployment; docs/sizing.md): {} rows "
                    "scored, {} throughput rows checked against their p99 limits, {} unstable, {} held out\n",
                    v.rows.size(), v.limits.size(), v.unstable.size(), v.held_out.size());
  for (const auto& [m, s] : v.by_metric)
    os << fmt::format("  {:<28} {:>4} rows  median {:>5.1f}%  p90 {:>5.1f}%\n", m, s.rows, s.median_ape_pct,
                      s.p90_ape_pct);
  for (const auto& [m, s] : v.given_mean)
    os << fmt::format("  {:<28} {:>4} rows  median {:>5.1f}%  p90 {:>5.1f}%  (given the run's mean TPOT)\n", m, s.rows,
                      s.median_ape_pct, s.p90_ape_pct);
  for (const auto& [m, s] : v.at_tuned_rate)
    os << fmt::format("  {:<28} {:>4} rows  median {:>5.1f}%  p90 {:>5.1f}%  (at the model's tuned rate)\n", m, s.rows,
                      s.median_ape_pct, s.p90_ape_pct);
  if (!v.at_tuned_rate.empty()) {
    std::string by;
    for (const auto& [b, n] : v.tuned_binding) by += fmt::format("{}{} {}", by.empty() ? "" : ", ", n, b);
    os << fmt::format("  tuned rate: the largest the model holds within the row's p99 limits ({} of them unstable at "
                      "the measured rate); bound by {}\n",
                      v.tuned_unstable_rows, by);
  }
  if (!v.given_mean.empty())
    os << fmt::format("  step-time scale that gives the run's mean TPOT at its rate: median {:.2f} (p10 {:.2f}, p90 {:.2f})\n",
                      v.implied_scale_p50, v.implied_scale_p10, v.implied_scale_p90);
  if (v.given_slot_bound > 0)
    os << fmt::format("  at that step time {} TTFT rows reach the model's decode slots (their p99 then carries the slot "
                      "queue: not scored given the mean)\n",
                      v.given_slot_bound);
  if (!v.limits.empty()) {
    os << fmt::format("  within the p99 limits at the measured rate: {} of {} ({:.0f}%)\n", v.limits_met,
                      v.limits.size(), 100 * v.share_met());
    os << fmt::format("  {:<28} {:>4} rows  median {:>5.1f}%  p90 {:>5.1f}%  (largest rate within the limits vs the "
                      "rate measured)\n",
                      "max_rate_per_s", v.max_rate.rows, v.max_rate.median_ape_pct, v.max_rate.p90_ape_pct);
  }
  if (v.odds_draws > 0) {
    for (const auto& [m, c] : v.odds_coverage)
      os << fmt::format("  {:<28} {:>4} rows  inside the 80% band under the model's error: {} ({:.0f}%; {} with no "
                        "upper edge)\n",
                        m, c.rows, c.inside, 100 * c.share(), c.unbounded);
    if (const OpenLoopOddsRuns r = odds_runs(v); r.rows > 0)
      os << fmt::format("  the odds of the {} runs within their limits at their rate ({} draws): median {:.2f}; "
                        "{:.0f}% at 0.1 or more, {:.0f}% within 0.1-0.9, {:.0f}% above 0.9\n",
                        r.rows, v.odds_draws, r.p_median, 100 * r.share_at_least_0_1, 100 * r.share_0_1_to_0_9,
                        100 * r.share_above_0_9);
  }
  if (!v.unstable.empty()) {
    os << "  unstable at the measured rate (not scored):\n";
    for (const auto& s : v.unstable) os << fmt::format("    row {}: {}\n", s.row, s.reason);
  }
  if (!v.held_out.empty()) {
    os << "  held out:\n";
    for (const auto& [why, n] : skip_reason_counts(v.held_out)) os << fmt::format("    {:>4}  {}\n", n, why);
  }
  os << "\n";
}

}  // namespace gpuplan
