// The open-loop model scored on Poisson-arrival rows (see open_loop_cases.h).
#include "validate/open_loop_cases.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <ostream>

#include "core/error.h"
#include "core/text.h"
#include "inference/open_loop.h"
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

// The largest rate at which `ok` holds (0 when not even a vanishing rate), by doubling from `from` then
// bisection.
template <typename Ok>
double largest_rate(double from, Ok ok) {
  const double tiny = 1e-6 * std::max(from, 1e-6);
  if (!ok(tiny)) return 0;
  double lo = tiny, hi = std::max(from, 2 * tiny);
  while (ok(hi) && hi < 1e9) {
    lo = hi;
    hi *= 2;
  }
  for (int it = 0; it < 50; ++it) {
    const double m = 0.5 * (lo + hi);
    (ok(m) ? lo : hi) = m;
  }
  return lo;
}

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
                                      const std::vector<SkippedRow>& skipped) {
  OpenLoopValidation v;
  std::map<size_t, const InferenceCase*> by_row;
  for (const auto& c : cases) by_row[c.row] = &c;
  std::map<size_t, std::string> skip_reason;
  for (const auto& s : skipped) skip_reason[s.row] = s.reason;
  std::map<std::string, OpenLoopCurve> curves;
  std::map<std::string, std::vector<double>> errors;
  std::vector<double> rate_errors;

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
    OpenLoopScoredRow s;
    s.row = i;
    s.source_id = c.source_id;
    s.model = c.model_name;
    s.gpu = c.gpu_name;
    s.num_gpus = c.workload.num_gpus;
    s.plan = curve.deployment.plan();
    s.requests_per_s = rate;
    s.reported = c.reported;
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
      const auto within = [&](const OpenLoopResult& x) {
        return x.stable && x.ttft_p99_s <= l.ttft_limit_s && x.tpot_p99_s <= l.tpot_limit_s;
      };
      l.stable = r.stable;
      l.ttft_p99_s = r.ttft_p99_s;
      l.tpot_p99_s = r.tpot_p99_s;
      l.meets = within(r);
      l.max_rate_per_s = largest_rate(rate, [&](double x) { return within(open_loop(curve, x)); });
      l.max_rate_ape_pct = ape_pct(l.max_rate_per_s, rate);
      v.limits_met += l.meets ? 1 : 0;
      rate_errors.push_back(l.max_rate_ape_pct);
      v.limits.push_back(l);
      continue;
    }
    if (c.metric == "tokens_per_sec_total") {
      // A stated rate: the deployment serves it when it keeps up, else its capacity.
      const double served = r.stable ? rate : largest_rate(rate, [&](double x) { return open_loop(curve, x).stable; });
      s.metric = "tokens_per_s";
      s.predicted = served * double(c.workload.osl) * c.total_over_output;
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
    } else if (c.metric == "tpot_ms") {
      if (mlperf && !(mn.p99_ms > 0)) {
        hold("the notes state no p99 TPOT");
        continue;
      }
      s.metric = mlperf ? "tpot_p99_ms" : "tpot_mean_ms";
      s.reported = mlperf ? mn.p99_ms : c.reported;
      s.predicted = 1e3 * (mlperf ? r.tpot_p99_s : r.tpot_p50_s);
    } else {
      hold("metric '" + c.metric + "' has no open-loop counterpart");
      continue;
    }
    if (!(s.reported > 0)) {
      hold("no reported value");
      continue;
    }
    s.ape_pct = ape_pct(s.predicted, s.reported);
    errors[s.metric].push_back(s.ape_pct);
    v.rows.push_back(std::move(s));
  }
  for (const auto& [m, e] : errors) v.by_metric[m] = summarize(e);
  v.max_rate = summarize(rate_errors);
  return v;
}

nlohmann::json open_loop_json(const OpenLoopValidation& v) {
  const auto summary = [](const ErrorSummary& s) {
    return nlohmann::json{{"rows", s.rows}, {"median_ape_pct", s.median_ape_pct}, {"p90_ape_pct", s.p90_ape_pct}};
  };
  nlohmann::json by_metric = nlohmann::json::object(), rows = nlohmann::json::array(),
                 checks = nlohmann::json::array(), held = nlohmann::json::array(), unstable = nlohmann::json::array(),
                 reasons = nlohmann::json::object();
  for (const auto& [m, s] : v.by_metric) by_metric[m] = summary(s);
  for (const auto& r : v.rows)
    rows.push_back({{"row", r.row}, {"source_id", r.source_id}, {"model", r.model}, {"gpu", r.gpu},
                    {"num_gpus", r.num_gpus}, {"plan", r.plan}, {"metric", r.metric},
                    {"requests_per_s", r.requests_per_s}, {"reported", r.reported}, {"predicted", r.predicted},
                    {"ape_pct", r.ape_pct}});
  for (const auto& l : v.limits) {
    nlohmann::json j = {{"row", l.row}, {"source_id", l.source_id}, {"model", l.model}, {"gpu", l.gpu},
                        {"measured_rate_per_s", l.measured_rate_per_s}, {"ttft_p99_limit_s", l.ttft_limit_s},
                        {"tpot_p99_limit_s", l.tpot_limit_s}, {"stable", l.stable}, {"meets_limits", l.meets},
                        {"max_rate_per_s", l.max_rate_per_s}, {"max_rate_ape_pct", l.max_rate_ape_pct}};
    if (l.stable) {
      j["ttft_p99_s"] = l.ttft_p99_s;
      j["tpot_p99_s"] = l.tpot_p99_s;
    }
    checks.push_back(std::move(j));
  }
  for (const auto& s : v.held_out) held.push_back({{"row", s.row}, {"reason", s.reason}});
  for (const auto& s : v.unstable) unstable.push_back({{"row", s.row}, {"reason", s.reason}});
  for (const auto& [why, n] : skip_reason_counts(v.held_out)) reasons[why] = n;
  return {{"model", "open loop: Poisson arrivals at the measured rate on the row's deployment (docs/sizing.md)"},
          {"rows_scored", v.rows.size()},
          {"by_metric", by_metric},
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
  if (!v.limits.empty()) {
    os << fmt::format("  within the p99 limits at the measured rate: {} of {} ({:.0f}%)\n", v.limits_met,
                      v.limits.size(), 100 * v.share_met());
    os << fmt::format("  {:<28} {:>4} rows  median {:>5.1f}%  p90 {:>5.1f}%  (largest rate within the limits vs the "
                      "rate measured)\n",
                      "max_rate_per_s", v.max_rate.rows, v.max_rate.median_ape_pct, v.max_rate.p90_ape_pct);
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
