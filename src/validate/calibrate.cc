#include "validate/calibrate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "core/suggest.h"
#include "validate/validation.h"

namespace gpuplan {

namespace {

struct Param {
  const char* name;
  double Efficiency::*field;
  double lo, hi;
};

// The fitted parameters and the physically plausible range of each.
const Param kParams[] = {
    {"gemm_max", &Efficiency::gemm_max, 0.35, 0.95},
    {"gemm_half_dim", &Efficiency::gemm_half_dim, 8.0, 1024.0},
    {"gemm_fp8_scale", &Efficiency::gemm_fp8_scale, 0.40, 1.0},
    {"gemm_fp4_scale", &Efficiency::gemm_fp4_scale, 0.30, 1.0},
    {"attention_eff", &Efficiency::attention_eff, 0.20, 0.85},
    {"hbm_eff", &Efficiency::hbm_eff, 0.40, 0.95},
    {"scaleup_eff", &Efficiency::scaleup_eff, 0.30, 0.95},
    {"scaleout_eff", &Efficiency::scaleout_eff, 0.20, 0.95},
    {"overlap_eff", &Efficiency::overlap_eff, 0.0, 0.98},
    {"kernel_overhead_s", &Efficiency::kernel_overhead_s, 1e-6, 3e-5},
    {"expert_gemm_overhead_s", &Efficiency::expert_gemm_overhead_s, 1e-6, 2e-4},
};

struct Scored {
  double loss = 0;
  double median_ape = 0;
};

Scored score(std::vector<TrainingCase*>& rows, const std::vector<double>& weights, const Efficiency& e,
             const Efficiency& prior, double prior_weight) {
  double sum = 0, wsum = 0;
  std::vector<double> apes;
  apes.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i]->hardware.efficiency = e;
    const double pred = predict_case(*rows[i]);
    const double err = pred > 0 ? std::abs(std::log(pred / rows[i]->reported)) : 5.0;
    sum += weights[i] * err;
    wsum += weights[i];
    apes.push_back(pred > 0 ? 100.0 * std::abs(pred - rows[i]->reported) / rows[i]->reported : 500.0);
  }
  double reg = 0;
  for (const auto& p : kParams) {
    const double a = e.*(p.field), b = prior.*(p.field);
    if (a > 0 && b > 0) reg += std::pow(std::log(a / b), 2);
  }
  return {sum / std::max(1e-12, wsum) + prior_weight * reg, summarize(apes).median_ape_pct};
}

// The serving parameters and their plausible ranges.
const Param kInferParams[] = {
    {"infer_hbm_eff", &Efficiency::infer_hbm_eff, 0.40, 0.95},
    {"infer_step_overhead_s", &Efficiency::infer_step_overhead_s, 1e-4, 1e-2},
    {"infer_kernel_overhead_s", &Efficiency::infer_kernel_overhead_s, 5e-7, 2e-5},
};

// Weights that make each series (the rows sharing key(row)) count once, whatever its row count.
template <class Key>
std::vector<double> series_weights(const std::vector<InferenceCase*>& rows, Key key) {
  std::map<std::string, int> series;
  for (auto* c : rows) ++series[key(c)];
  std::vector<double> w;
  w.reserve(rows.size());
  for (auto* c : rows) w.push_back(1.0 / series[key(c)]);
  return w;
}

Scored score_inference(std::vector<InferenceCase*>& rows, const std::vector<double>& weights, const Efficiency& e,
                       const Efficiency& prior, double prior_weight) {
  double sum = 0, wsum = 0;
  std::vector<double> apes;
  apes.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i]->hardware.efficiency = e;
    const double pred = predict_inference_case(*rows[i]);
    const double err = pred > 0 ? std::min(2.0, std::abs(std::log(pred / rows[i]->reported))) : 2.0;
    sum += weights[i] * err;
    wsum += weights[i];
    apes.push_back(pred > 0 ? 100.0 * std::abs(pred - rows[i]->reported) / rows[i]->reported : 500.0);
  }
  double reg = 0;
  for (const auto& p : kInferParams) {
    const double a = e.*(p.field), b = prior.*(p.field);
    if (a > 0 && b > 0) reg += std::pow(std::log(a / b), 2);
  }
  return {sum / std::max(1e-12, wsum) + prior_weight * reg, summarize(apes).median_ape_pct};
}

}  // namespace

std::vector<GenerationFit> calibrate_inference(std::vector<InferenceCase>& cases, const CalibrationOptions& opts) {
  std::map<std::string, std::vector<InferenceCase*>> by_gen;
  for (auto& c : cases)
    if (opts.metrics.empty() || std::find(opts.metrics.begin(), opts.metrics.end(), c.metric) != opts.metrics.end())
      by_gen[c.generation].push_back(&c);
  std::vector<GenerationFit> fits;
  for (auto& [gen, rows] : by_gen) {
    const std::vector<double> w = series_weights(
        rows, [](const InferenceCase* c) { return c->source_id + "|" + c->model_name + "|" + c->metric; });
    GenerationFit fit;
    fit.generation = gen;
    fit.rows = rows.size();
    // Training parameters stay as the catalog has them; the serving ones start from the priors.
    fit.before = rows.front()->hardware.efficiency;
    const Efficiency priors{};
    for (const auto& p : kInferParams) fit.before.*(p.field) = priors.*(p.field);
    Efficiency best = fit.before;
    Scored best_s = score_inference(rows, w, best, fit.before, opts.prior_weight);
    fit.loss_before = best_s.loss;
    fit.median_ape_before = best_s.median_ape;
    for (int round = 0; round < opts.rounds; ++round) {
      const double span = std::pow(0.5, round);
      for (const auto& p : kInferParams) {
        if (!opts.params.empty() && std::find(opts.params.begin(), opts.params.end(), p.name) == opts.params.end())
          continue;
        const double cur = best.*(p.field);
        const double lo = std::max(p.lo, cur * std::pow(p.hi / p.lo, -0.5 * span));
        const double hi = std::min(p.hi, cur * std::pow(p.hi / p.lo, 0.5 * span));
        for (int g = 0; g < opts.grid; ++g) {
          Efficiency trial = best;
          trial.*(p.field) = lo * std::pow(hi / lo, double(g) / (opts.grid - 1));
          const Scored sc = score_inference(rows, w, trial, fit.before, opts.prior_weight);
          if (sc.loss < best_s.loss - 1e-12) {
            best_s = sc;
            best = trial;
          }
        }
      }
    }
    for (auto* c : rows) c->hardware.efficiency = best;
    fit.after = best;
    fit.loss_after = best_s.loss;
    fit.median_ape_after = best_s.median_ape;
    fits.push_back(fit);
  }
  return fits;
}

std::vector<GenerationFit> calibrate_mla_decode(std::vector<InferenceCase>& cases, const CalibrationOptions& opts) {
  constexpr double kLo = 0.05, kHi = 0.95;  // plausible rates of an attention kernel against the bf16 peak
  std::map<std::string, std::vector<InferenceCase*>> by_gen;
  for (auto& c : cases)
    if (c.metric == "tpot_ms" && c.model.attention == AttentionKind::mla) by_gen[c.generation].push_back(&c);
  std::vector<GenerationFit> fits;
  for (auto& entry : by_gen) {
    const std::string& gen = entry.first;
    std::vector<InferenceCase*>& rows = entry.second;  // a named reference: the loss lambda captures it
    const std::vector<double> w = series_weights(
        rows, [](const InferenceCase* c) { return c->source_id + "|" + c->model_name + "|" + c->engine; });
    GenerationFit fit;
    fit.generation = gen;
    fit.rows = rows.size();
    fit.before = rows.front()->hardware.efficiency;
    const double prior = fit.before.attention_eff;  // the training fit's flash-attention rate
    auto loss_at = [&](double x, double* median_ape) {
      Efficiency e = fit.before;
      e.infer_mla_decode_eff = x;
      const Scored sc = score_inference(rows, w, e, fit.before, /*prior_weight=*/0.0);
      if (median_ape) *median_ape = sc.median_ape;
      return sc.loss + opts.prior_weight * std::pow(std::log(x / prior), 2);
    };
    double best = fit.before.infer_mla_decode_eff > 0 ? fit.before.infer_mla_decode_eff : prior;
    fit.loss_before = loss_at(best, &fit.median_ape_before);
    double best_loss = fit.loss_before, best_ape = fit.median_ape_before;
    for (int round = 0; round < opts.rounds; ++round) {
      const double span = std::pow(0.5, round);
      const double lo = std::max(kLo, best * std::pow(kHi / kLo, -0.5 * span));
      const double hi = std::min(kHi, best * std::pow(kHi / kLo, 0.5 * span));
      for (int g = 0; g < opts.grid; ++g) {
        const double x = lo * std::pow(hi / lo, double(g) / (opts.grid - 1));
        double ape = 0;
        const double l = loss_at(x, &ape);
        if (l < best_loss - 1e-12) best_loss = l, best_ape = ape, best = x;
      }
    }
    fit.after = fit.before;
    fit.after.infer_mla_decode_eff = best;
    fit.loss_after = best_loss;
    fit.median_ape_after = best_ape;
    for (auto* c : rows) c->hardware.efficiency = fit.after;
    fits.push_back(fit);
  }
  return fits;
}

std::vector<GenerationFit> calibrate(std::vector<TrainingCase>& cases, const CalibrationOptions& opts) {
  std::map<std::string, std::vector<TrainingCase*>> by_gen;
  for (auto& c : cases) by_gen[c.generation].push_back(&c);
  std::vector<GenerationFit> fits;
  for (auto& [gen, rows] : by_gen) {
    // Each (source, model) series weighs the same: weak-scaling series do not dominate.
    std::map<std::string, int> series;
    for (auto* c : rows) ++series[c->source_id + "|" + c->model_name];
    std::vector<double> w;
    for (auto* c : rows) w.push_back(1.0 / series[c->source_id + "|" + c->model_name]);

    GenerationFit fit;
    fit.generation = gen;
    fit.rows = rows.size();
    // Start from the documented priors (src/catalog/efficiency.h), not from an earlier fit, so that
    // the result depends on the data alone.
    // Fields this fit does not own (e.g. inference parameters) keep their catalog values.
    fit.before = rows.front()->hardware.efficiency;
    const Efficiency priors{};
    for (const auto& p : kParams) fit.before.*(p.field) = priors.*(p.field);
    fit.before.generation = gen;
    Efficiency best = fit.before;
    Scored best_s = score(rows, w, best, fit.before, opts.prior_weight);
    fit.loss_before = best_s.loss;
    fit.median_ape_before = best_s.median_ape;
    for (int round = 0; round < opts.rounds; ++round) {
      // Shrink the search window each round around the current value (log-spaced trial points).
      const double span = std::pow(0.5, round);
      for (const auto& p : kParams) {
        const double cur = best.*(p.field);
        const double lo = std::max(p.lo, cur * std::pow(p.hi / p.lo, -0.5 * span));
        const double hi = std::min(p.hi, cur * std::pow(p.hi / p.lo, 0.5 * span));
        for (int g = 0; g < opts.grid; ++g) {
          const double x = lo * std::pow(hi / lo, double(g) / (opts.grid - 1));
          if (p.lo <= 0 && g == 0 && p.field == &Efficiency::overlap_eff) continue;
          Efficiency trial = best;
          trial.*(p.field) = x;
          const Scored s = score(rows, w, trial, fit.before, opts.prior_weight);
          if (s.loss < best_s.loss - 1e-12) {
            best_s = s;
            best = trial;
          }
        }
      }
    }
    best.generation = gen;
    for (auto* c : rows) c->hardware.efficiency = best;
    fit.after = best;
    fit.loss_after = best_s.loss;
    fit.median_ape_after = best_s.median_ape;
    fits.push_back(fit);
  }
  return fits;
}

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double ape_pct(const InferenceCase& c) {
  const double pred = predict_inference_case(c);
  return pred > 0 ? 100.0 * std::abs(pred - c.reported) / c.reported : 500.0;
}

double abs_log(const InferenceCase& c) {
  const double pred = predict_inference_case(c);
  return pred > 0 ? std::min(2.0, std::abs(std::log(pred / c.reported))) : 2.0;
}

}  // namespace

namespace {

// The catalog entry whose front end a case's engine uses (front_end_of resolved), or null.
const ServingEngine* front_end_owner(const Catalog& catalog, const InferenceCase& c) {
  const ServingEngine* e = catalog.find_serving_engine(c.framework);
  if (!e || e->front_end_of.empty()) return e;
  for (const ServingEngine& o : catalog.serving_engines())
    if (normalize_name(o.name) == normalize_name(e->front_end_of)) return &o;
  return e;
}

// A disaggregated TTFT case whose decode slots (the recipe's batch cap x attention ranks x workers)
// are fewer than its clients: its TTFT holds a wait for a decode slot, which a front end only
// shortens (a client in the front end is one fewer in the queue) and the prefill rate does not set.
// It says nothing about either: held out of both TTFT fits. The tail (p99) waits as soon as the
// clients exceed the slots; the median only once at least half the clients are beyond them at any
// moment (clients >= 2 x slots): with fewer, fewer than half the requests meet a full worker, and the
// median request's TTFT is its prefill's (InferenceX B300 Dynamo + TensorRT-LLM 8K/1K, 4 clients on 3
// slots: median 598 ms, mean 2,038 ms; 5 on 4: 1,025 ms, mean 1,215 ms).
bool ttft_waits_for_decode_slots(const InferenceCase& c) {
  if (c.mode != InferenceMode::disaggregated) return false;
  const long long slots = decode_cap_slots(c.disagg);
  if (slots <= 0) return false;
  return c.metric == "ttft_ms" ? c.workload.concurrency >= 2 * slots : slots < c.workload.concurrency;
}

}  // namespace

bool ttft_beyond_steady_state(double reported_s, double predicted_bare_s, long long clients) {
  return reported_s > double(std::max(1LL, clients)) * std::max(0.0, predicted_bare_s) + kFrontEndBoundS;
}

namespace {

// The SGLang worker's mtp_host_step_s and mtp_host_per_seq_step_s: a grid of 0-10 ms (0.25 ms) by
// 0-200 us (5 us) minimising the mean min(2, |log(pred/reported)|) of the TPOT and tokens/s per user
// of the MTP cases whose speculative worker runs in series with the GPU; every other case is held out.
// The entry is the one the front-end fit returned, if any, so that both land in the written catalog.
void fit_mtp_host(std::vector<InferenceCase>& cases, const Catalog& catalog, std::vector<EngineFit>& fits) {
  const ServingEngine* sg = catalog.find_serving_engine("sglang");
  if (!sg) return;
  std::vector<InferenceCase*> rows;
  size_t held = 0;
  for (auto& c : cases) {
    if (c.workload.mtp_draft_tokens > 0 && c.workload.mtp_host_in_series &&
        (c.metric == "tpot_ms" || c.metric == "tokens_per_sec_per_user"))
      rows.push_back(&c);
    else if (c.metric != "p99_ttft_ms")  // the opening waves' p99s are a fit signal, not a figure held out
      ++held;
  }
  if (rows.empty()) return;
  EngineFit* base = nullptr;
  for (auto& f : fits)
    if (f.after.name == sg->name) base = &f;
  EngineFit fit;
  fit.before = fit.after = base ? base->after : *sg;
  fit.fit_rows = rows.size();
  fit.held_out_rows = held;
  fit.mtp_host_fit = true;
  // x = {step, per sequence, eager draft extend}, seconds.
  auto loss = [&](const std::array<double, 3>& x, std::vector<double>* apes) {
    double sum = 0;
    for (auto* c : rows) {
      c->workload.mtp_host_step_s = x[0];
      c->workload.mtp_host_per_seq_step_s = x[1];
      c->workload.mtp_eager_draft_extend_s = x[2];
      sum += abs_log(*c);
      if (apes) apes->push_back(ape_pct(*c));
    }
    return sum / double(rows.size());
  };
  std::array<double, 3> x = {fit.before.mtp_host_step_s, fit.before.mtp_host_per_seq_step_s,
                             fit.before.mtp_eager_draft_extend_s};
  std::vector<double> apes;
  double best = loss(x, &apes);
  fit.median_ape_before = median_of(apes);
  // Coordinate descent over grids of 0-10 ms (0.1 ms), 0-200 us (1 us) and 0-20 ms (0.1 ms), from the
  // catalog's values, until a round changes nothing.
  const std::array<double, 3> unit = {1e-4, 1e-6, 1e-4};
  const std::array<int, 3> steps = {100, 200, 200};
  for (int round = 0; round < 20; ++round) {
    bool moved = false;
    for (size_t k = 0; k < 3; ++k) {
      for (int g = 0; g <= steps[k]; ++g) {
        std::array<double, 3> t = x;
        t[k] = g * unit[k];
        const double l = loss(t, nullptr);
        if (l < best - 1e-12) {
          best = l;
          x = t;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  apes.clear();
  loss(x, &apes);
  fit.after.mtp_host_step_s = x[0];
  fit.after.mtp_host_per_seq_step_s = x[1];
  fit.after.mtp_eager_draft_extend_s = x[2];
  fit.median_ape_after = median_of(apes);
  // Every SGLang-worker MTP case (held-out ones included) carries the fitted figures.
  for (auto& c : cases)
    if (c.workload.mtp_draft_tokens > 0 && c.workload.mtp_host_in_series) {
      c.workload.mtp_host_step_s = x[0];
      c.workload.mtp_host_per_seq_step_s = x[1];
      c.workload.mtp_eager_draft_extend_s = x[2];
    }
  fits.push_back(fit);  // after the front-end fit of the same entry, whose figures it carries
}

}  // namespace

std::vector<EngineFit> calibrate_engines(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                         long long max_fit_concurrency) {
  std::vector<EngineFit> fits;
  // Front ends, one engine at a time.
  for (const ServingEngine& e : catalog.serving_engines()) {
    // An engine sharing another's front end (front_end_of) has no figure of its own: its rows count
    // towards that engine's.
    if (!e.front_end_of.empty()) continue;
    std::vector<InferenceCase*> mine;
    for (auto& c : cases) {
      if (front_end_owner(catalog, c) == &e) mine.push_back(&c);
    }
    if (mine.empty()) continue;
    EngineFit fit;
    fit.before = fit.after = e;
    std::vector<double> residual_s, apes_before;
    std::vector<InferenceCase*> fitted;
    for (auto* c : mine) {
      if (c->metric != "ttft_ms") continue;
      if (c->workload.concurrency > max_fit_concurrency || ttft_waits_for_decode_slots(*c)) {
        ++fit.held_out_rows;
        continue;
      }
      InferenceCase bare = *c;
      bare.workload.request_overhead_s = 0;
      const double bare_s = predict_inference_case(bare) * 1e-3;
      if (ttft_beyond_steady_state(c->reported * 1e-3, bare_s, c->workload.concurrency)) {
        ++fit.not_steady_rows;
        continue;
      }
      ++fit.fit_rows;
      fitted.push_back(c);
      apes_before.push_back(ape_pct(*c));
      residual_s.push_back(c->reported * 1e-3 - bare_s);
    }
    if (residual_s.empty()) continue;
    fit.after.request_overhead_s = std::max(0.0, median_of(residual_s));
    std::vector<double> apes_after;
    for (auto* c : mine) c->workload.request_overhead_s = fit.after.request_overhead_s;
    for (auto* c : fitted) apes_after.push_back(ape_pct(*c));
    fit.median_ape_before = median_of(apes_before);
    fit.median_ape_after = median_of(apes_after);
    fits.push_back(fit);
  }
  // MTP acceptance (the default entry), on the MTP cases' TPOT and tokens/s per user.
  std::vector<InferenceCase*> mtp;
  size_t held = 0;
  for (auto& c : cases) {
    if (c.workload.mtp_draft_tokens > 0 && (c.metric == "tpot_ms" || c.metric == "tokens_per_sec_per_user"))
      mtp.push_back(&c);
    else if (c.metric != "p99_ttft_ms")  // the opening waves' p99s are a fit signal, not a figure held out
      ++held;
  }
  if (!mtp.empty()) {
    EngineFit fit;
    fit.before = fit.after = catalog.default_serving_engine();
    fit.fit_rows = mtp.size();
    fit.held_out_rows = held;
    auto loss = [&](double a, std::vector<double>* apes) {
      std::vector<double> errs;
      for (auto* c : mtp) {
        c->workload.mtp_accept = a;
        errs.push_back(abs_log(*c));
        if (apes) apes->push_back(ape_pct(*c));
      }
      return median_of(errs);
    };
    std::vector<double> apes;
    loss(*fit.before.mtp_accept, &apes);
    fit.median_ape_before = median_of(apes);
    double best_a = *fit.before.mtp_accept, best = loss(best_a, nullptr);
    // Steps of 0.005: at 0.01 the median's flat steps left the serving chain (scripts/refit-serving.sh)
    // alternating between 0.63 and 0.64 with blackwell_ultra's prefill fit following.
    for (int i = 60; i <= 180; ++i) {
      const double a = i / 200.0, l = loss(a, nullptr);
      if (l < best - 1e-12) {
        best = l;
        best_a = a;
      }
    }
    apes.clear();
    loss(best_a, &apes);
    fit.after.mtp_accept = best_a;
    fit.median_ape_after = median_of(apes);
    fits.push_back(fit);
  }
  // SGLang's speculative worker's host work per step where it runs in series with the GPU
  // (InferenceWorkload::mtp_host_in_series), on those MTP cases' TPOT and tokens/s per user.
  fit_mtp_host(cases, catalog, fits);
  return fits;
}

std::vector<EngineFit> calibrate_engine_host(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                             const std::vector<std::string>& fit_sources) {
  std::vector<EngineFit> fits;
  const auto is_fit_source = [&](const std::string& s) {
    return fit_sources.empty() || std::find(fit_sources.begin(), fit_sources.end(), s) != fit_sources.end();
  };
  for (const ServingEngine& e : catalog.serving_engines()) {
    std::vector<InferenceCase*> fit_cases, held;
    for (auto& c : cases) {
      const bool throughput = c.metric.rfind("tokens_per_sec", 0) == 0 && c.metric != "tokens_per_sec_per_user";
      if (!throughput || c.mode != InferenceMode::fixed || c.workload.concurrency != 0) continue;
      if (catalog.find_serving_engine(c.engine) != &e) continue;
      (is_fit_source(c.source_id) ? fit_cases : held).push_back(&c);
    }
    if (fit_cases.empty()) continue;
    EngineFit fit;
    fit.before = fit.after = e;
    fit.fit_rows = fit_cases.size();
    fit.held_out_rows = held.size();
    auto loss = [&](double host_s, std::vector<double>* apes) {
      double sum = 0;
      for (auto* c : fit_cases) {
        c->workload.host_per_seq_step_s = host_s;
        sum += abs_log(*c);
        if (apes) apes->push_back(ape_pct(*c));
      }
      return sum / double(fit_cases.size());
    };
    std::vector<double> apes;
    loss(e.host_per_seq_step_s, &apes);
    fit.median_ape_before = median_of(apes);
    double best_s = 0, best = loss(0, nullptr);
    for (int us = 1; us <= 100; ++us) {
      const double l = loss(us * 1e-6, nullptr);
      if (l < best - 1e-12) {
        best = l;
        best_s = us * 1e-6;
      }
    }
    apes.clear();
    loss(best_s, &apes);
    fit.after.host_per_seq_step_s = best_s;
    fit.median_ape_after = median_of(apes);
    for (auto* c : held) c->workload.host_per_seq_step_s = best_s;
    fits.push_back(fit);
  }
  return fits;
}

namespace {

// An engine's MoE GEMM share on the grid 1.00, 0.99, ..., 0.10 minimising `loss(share, apes)` (`apes`,
// when given, receives each fit row's error at that share); sets the fit's share and its fit rows'
// median errors before (at the catalog's share) and after. Returns the share.
template <class Loss>
double fit_moe_gemm_share(EngineFit& fit, Loss&& loss) {
  std::vector<double> apes;
  loss(fit.before.moe_gemm_eff, &apes);
  fit.median_ape_before = median_of(apes);
  double best_eff = 1.0, best = loss(1.0, nullptr);
  for (int i = 99; i >= 10; --i) {
    const double l = loss(i / 100.0, nullptr);
    if (l < best - 1e-12) {
      best = l;
      best_eff = i / 100.0;
    }
  }
  apes.clear();
  loss(best_eff, &apes);
  fit.after.moe_gemm_eff = best_eff;
  fit.median_ape_after = median_of(apes);
  return best_eff;
}

}  // namespace

std::vector<EngineFit> calibrate_engine_moe_gemm(std::vector<InferenceCase>& cases, const Catalog& catalog,
                                                 long long max_fit_concurrency) {
  std::vector<EngineFit> fits;
  for (const ServingEngine& e : catalog.serving_engines()) {
    std::vector<InferenceCase*> fit_cases, held;
    for (auto& c : cases) {
      if ((c.metric != "ttft_ms" && c.metric != "tpot_ms") || !c.model.is_moe() || c.workload.concurrency < 1) continue;
      if (catalog.find_serving_engine(c.engine) != &e) continue;
      (c.workload.concurrency <= max_fit_concurrency ? fit_cases : held).push_back(&c);
    }
    if (fit_cases.empty()) continue;
    EngineFit fit;
    fit.before = fit.after = e;
    fit.fit_rows = fit_cases.size();
    fit.held_out_rows = held.size();
    auto loss = [&](double eff, std::vector<double>* apes) {
      std::vector<double> errs;
      for (auto* c : fit_cases) {
        c->workload.moe_gemm_eff = eff;
        errs.push_back(abs_log(*c));
        if (apes) apes->push_back(ape_pct(*c));
      }
      return median_of(errs);
    };
    const double best_eff = fit_moe_gemm_share(fit, loss);
    for (auto* c : held) c->workload.moe_gemm_eff = best_eff;
    fits.push_back(fit);
  }
  return fits;
}

namespace {

// The prefill-side serving parameters, their plausible ranges and the training field each replaces
// (its value is the starting point and the prior).
struct PrefillParam {
  const char* name;
  double Efficiency::*field;
  double Efficiency::*training;  // nullptr: the prior is `prior`
  double lo, hi;
  double prior = 0;
  double start(const Efficiency& e) const { return training ? e.*training : prior; }
};
const PrefillParam kPrefillParams[] = {
    {"infer_gemm_max", &Efficiency::infer_gemm_max, &Efficiency::gemm_max, 0.20, 0.95},
    {"infer_mla_prefill_eff", &Efficiency::infer_mla_prefill_eff, &Efficiency::attention_eff, 0.10, 0.85},
    // Block-scaled FP8 GEMMs' share of the FP8 rate: prior 1 (as fast as per-tensor FP8).
    {"infer_fp8_block_share", &Efficiency::infer_fp8_block_share, nullptr, 0.20, 1.0, 1.0},
    // The same share on SGLang's Triton kernel: starts at, and is pulled towards, the generation's
    // block-scaled share (a kernel as fast as the others).
    {"infer_fp8_block_triton_share", &Efficiency::infer_fp8_block_triton_share, &Efficiency::infer_fp8_block_share,
     0.02, 1.0},
};

// Whether a case's dense block-FP8 GEMMs run SGLang's Triton kernel in either pool.
bool runs_triton_fp8(const InferenceCase& c) {
  return c.workload.fp8_block_gemm_triton || c.disagg.prefill_fp8_block_gemm_triton;
}

// Whether a disaggregated run's p99 TTFT measures its prefill pool: the opening wave's tail waits at
// least kWaveDepth of its own prefill-and-hand-off times for the pool (the wave is several steps deep,
// so the pool's throughput, not one prompt's latency, sets it) and no request waits for a decode slot.
constexpr double kWaveDepth = 3.0;

}  // namespace

bool wave_measures_pool(const InferenceCase& c) {
  if (c.metric != "p99_ttft_ms" || c.mode != InferenceMode::disaggregated || ttft_waits_for_decode_slots(c)) return false;
  try {
    const InferenceResult r = evaluate_case(c);
    const double one_s =
        r.prefill_s + r.kv_transfer_s + c.workload.request_overhead_s + r.receive_wait_s + r.decode_step.total_s;
    return r.ttft_p99_s > kWaveDepth * one_s;
  } catch (const InputError&) {
    return false;
  }
}

bool moe_gemm_reference_engine(const std::string& name) {
  return name.find("tensorrt-llm") != std::string::npos;
}

const ServingEngine* moe_kernels_owner(const Catalog& catalog, const ServingEngine* e) {
  if (!e) return e;
  const std::string prefix = "dynamo+";
  if (e->name.rfind(prefix, 0) != 0) return e;
  for (const ServingEngine& o : catalog.serving_engines())
    if (o.name == e->name.substr(prefix.size())) return &o;
  return e;
}

std::vector<EngineFit> calibrate_engine_moe_gemm_waves(std::vector<InferenceCase>& cases, const Catalog& catalog) {
  std::vector<EngineFit> fits;
  for (const ServingEngine& e : catalog.serving_engines()) {
    if (moe_gemm_reference_engine(e.name) || moe_kernels_owner(catalog, &e) != &e) continue;
    std::vector<InferenceCase*> mine, rows;
    for (auto& c : cases) {
      if (moe_kernels_owner(catalog, catalog.find_serving_engine(c.framework)) != &e) continue;
      mine.push_back(&c);
      if (c.model.is_moe() && wave_measures_pool(c)) rows.push_back(&c);
    }
    if (rows.empty()) continue;
    EngineFit fit;
    fit.before = fit.after = e;
    fit.fit_rows = rows.size();
    fit.held_out_rows = mine.size() - rows.size();
    // Every (model, GPU, precision, ISL) series weighs the same, whatever its count of points.
    std::map<std::string, int> series;
    auto key = [](const InferenceCase* c) {
      return c->model_name + "|" + c->gpu_name + "|" + c->precision_name + "|" + std::to_string(c->workload.isl);
    };
    for (auto* c : rows) ++series[key(c)];
    auto loss = [&](double eff, std::vector<double>* apes) {
      double sum = 0, wsum = 0;
      for (auto* c : rows) {
        c->workload.moe_gemm_eff = eff;
        const double w = 1.0 / series[key(c)];
        sum += w * abs_log(*c);
        wsum += w;
        if (apes) apes->push_back(ape_pct(*c));
      }
      return sum / wsum;
    };
    const double best_eff = fit_moe_gemm_share(fit, loss);
    for (auto* c : mine) c->workload.moe_gemm_eff = best_eff;
    fits.push_back(fit);
  }
  return fits;
}

bool prefill_param_fitted(const CalibrationOptions& opts, const std::string& name) {
  if (opts.params.empty()) return name == "infer_mla_prefill_eff";
  return std::find(opts.params.begin(), opts.params.end(), name) != opts.params.end();
}

PrefillFit calibrate_prefill(std::vector<InferenceCase>& cases, const Catalog& catalog, const CalibrationOptions& opts,
                             long long max_fit_concurrency, int iterations,
                             const std::vector<std::string>& fit_generations) {
  PrefillFit out;
  // By default the MLA prefill rate alone: a serving GEMM rate fitted on these rows is rejected by
  // the held-out files (docs/inference-model.md, "Prefill rate per generation").
  auto fitted_param = [&](const PrefillParam& p) { return prefill_param_fitted(opts, p.name); };
  auto fitted_generation = [&](const std::string& g) {
    return fit_generations.empty() || std::find(fit_generations.begin(), fit_generations.end(), g) != fit_generations.end();
  };
  // Starting values of the fitted parameters: a generation's own prefill fit where it has one, else
  // its training values (the others keep theirs, 0: not used).
  for (auto& c : cases)
    for (const auto& p : kPrefillParams)
      if (fitted_generation(c.generation) && fitted_param(p) && !(c.hardware.efficiency.*(p.field) > 0))
        c.hardware.efficiency.*(p.field) = p.start(c.hardware.efficiency);
  std::vector<InferenceCase*> fit_rows, wave_rows;
  std::map<const ServingEngine*, std::vector<InferenceCase*>> by_owner;  // every case, for the front ends
  for (auto& c : cases) {
    const ServingEngine* owner = front_end_owner(catalog, c);
    if (owner) by_owner[owner].push_back(&c);
    if (c.metric == "p99_ttft_ms") {
      if (owner && wave_measures_pool(c)) wave_rows.push_back(&c);
      else ++out.held_out_rows;
      continue;
    }
    if (c.metric != "ttft_ms") continue;
    if (!owner || c.workload.concurrency < 1 || c.workload.concurrency > max_fit_concurrency ||
        ttft_waits_for_decode_slots(c)) {
      ++out.held_out_rows;
      continue;
    }
    InferenceCase bare = c;
    bare.workload.request_overhead_s = 0;
    if (ttft_beyond_steady_state(c.reported * 1e-3, predict_inference_case(bare) * 1e-3, c.workload.concurrency)) {
      ++out.not_steady_rows;
      continue;
    }
    fit_rows.push_back(&c);
  }
  out.fit_rows = fit_rows.size();
  out.wave_rows = wave_rows.size();
  if (fit_rows.empty()) return out;

  std::map<const ServingEngine*, EngineFit> engines;
  auto fit_front_ends = [&] {
    std::map<const ServingEngine*, std::vector<double>> residual_s;
    for (auto* c : fit_rows) {
      InferenceCase bare = *c;
      bare.workload.request_overhead_s = 0;
      residual_s[front_end_owner(catalog, *c)].push_back(c->reported * 1e-3 - predict_inference_case(bare) * 1e-3);
    }
    for (auto& [owner, r] : residual_s) {
      const double o = std::max(0.0, median_of(r));
      for (auto* c : by_owner[owner]) c->workload.request_overhead_s = o;
      EngineFit& f = engines[owner];
      if (f.before.name.empty()) f.before = *owner;
      f.after = *owner;
      f.after.request_overhead_s = o;
      f.fit_rows = r.size();
    }
  };

  std::map<std::string, std::vector<InferenceCase*>> by_gen, all_by_gen;
  for (auto* c : fit_rows)
    if (fitted_generation(c->generation)) by_gen[c->generation].push_back(c);
  for (auto* c : wave_rows)
    if (fitted_generation(c->generation) && by_gen.count(c->generation)) by_gen[c->generation].push_back(c);
  for (auto& c : cases) all_by_gen[c.generation].push_back(&c);
  std::map<std::string, GenerationFit> gens;
  for (auto& [gen, rows] : by_gen) {
    GenerationFit& g = gens[gen];
    g.generation = gen;
    g.rows = rows.size();
    g.wave_rows = std::count_if(rows.begin(), rows.end(), [](const InferenceCase* c) { return c->metric == "p99_ttft_ms"; });
    g.triton_rows = std::count_if(rows.begin(), rows.end(), [](const InferenceCase* c) { return runs_triton_fp8(*c); });
    g.before = g.after = rows.front()->hardware.efficiency;
  }
  auto series_weights = [](const std::vector<InferenceCase*>& rows) {
    std::map<std::string, int> series;
    auto key = [](const InferenceCase* c) {
      return c->metric + "|" + c->model_name + "|" + c->framework + "|" + std::to_string(c->workload.isl);
    };
    for (auto* c : rows) ++series[key(c)];
    std::vector<double> w;
    for (auto* c : rows) w.push_back(1.0 / series[key(c)]);
    return w;
  };
  auto loss = [&](const std::vector<InferenceCase*>& rows, const std::vector<double>& w, const Efficiency& e,
                  const Efficiency& prior, double* median_ape) {
    double sum = 0, wsum = 0;
    std::vector<double> apes;
    for (size_t i = 0; i < rows.size(); ++i) {
      rows[i]->hardware.efficiency = e;
      sum += w[i] * abs_log(*rows[i]);
      wsum += w[i];
      if (median_ape) apes.push_back(ape_pct(*rows[i]));
    }
    double reg = 0;
    for (const auto& p : kPrefillParams) {
      const double a = e.*(p.field), b = p.start(prior);
      if (a > 0 && b > 0) reg += std::pow(std::log(a / b), 2);
    }
    if (median_ape) *median_ape = median_of(apes);
    return sum / std::max(1e-12, wsum) + opts.prior_weight * reg;
  };

  // Each engine's error on its fit rows before: the catalog's front end at the training rates.
  auto engine_apes = [&] {
    std::map<const ServingEngine*, std::vector<double>> apes;
    for (auto* c : fit_rows) apes[front_end_owner(catalog, *c)].push_back(ape_pct(*c));
    return apes;
  };
  const auto apes_before = engine_apes();
  fit_front_ends();
  for (auto& [gen, rows] : by_gen) {
    GenerationFit& g = gens[gen];
    g.loss_before = loss(rows, series_weights(rows), g.before, g.before, &g.median_ape_before);
  }
  for (int it = 0; it < iterations; ++it) {
    for (auto& [gen, rows] : by_gen) {
      GenerationFit& g = gens[gen];
      const std::vector<double> w = series_weights(rows);
      Efficiency best = g.after;
      double best_l = loss(rows, w, best, g.before, nullptr);
      for (int round = 0; round < opts.rounds; ++round) {
        const double span = std::pow(0.5, round);
        for (const auto& p : kPrefillParams) {
          if (!fitted_param(p)) continue;
          // The block-scaled FP8 share shows at the prefill pools' throughput: fitted where opening
          // waves measure it (jointly with the rates, on the low-load TTFTs and the waves), else left.
          if (p.field == &Efficiency::infer_fp8_block_share && g.wave_rows == 0) continue;
          // The Triton kernel's share: fitted where rows run it.
          if (p.field == &Efficiency::infer_fp8_block_triton_share && g.triton_rows == 0) continue;
          const double cur = best.*(p.field);
          const double lo = std::max(p.lo, cur * std::pow(p.hi / p.lo, -0.5 * span));
          const double hi = std::min(p.hi, cur * std::pow(p.hi / p.lo, 0.5 * span));
          for (int k = 0; k < opts.grid; ++k) {
            Efficiency trial = best;
            trial.*(p.field) = lo * std::pow(hi / lo, double(k) / (opts.grid - 1));
            const double l = loss(rows, w, trial, g.before, nullptr);
            if (l < best_l - 1e-12) {
              best_l = l;
              best = trial;
            }
          }
        }
      }
      g.after = best;
      for (auto* c : all_by_gen[gen])
        for (const auto& p : kPrefillParams)
          if (fitted_param(p)) c->hardware.efficiency.*(p.field) = best.*(p.field);
    }
    fit_front_ends();
  }
  for (auto& [gen, rows] : by_gen) {
    GenerationFit& g = gens[gen];
    g.loss_after = loss(rows, series_weights(rows), g.after, g.before, &g.median_ape_after);
    out.generations.push_back(g);
  }
  const auto apes_after = engine_apes();
  for (auto& [owner, f] : engines) {
    f.median_ape_before = apes_before.count(owner) ? median_of(apes_before.at(owner)) : 0.0;
    f.median_ape_after = apes_after.count(owner) ? median_of(apes_after.at(owner)) : 0.0;
    out.engines.push_back(f);
  }
  return out;
}

}  // namespace gpuplan
