#include "validate/calibrate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "core/suggest.h"
#include "validate/fit_grid.h"
#include "validate/validation.h"

namespace gpuplan {

namespace {

// The fitted parameters and the physically plausible range of each.
const GridParam kParams[] = {
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

FitScore score(std::vector<TrainingCase*>& rows, const std::vector<double>& weights, const Efficiency& e,
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
const GridParam kInferParams[] = {
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

FitScore score_inference(std::vector<InferenceCase*>& rows, const std::vector<double>& weights, const Efficiency& e,
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
    FitScore best_s = score_inference(rows, w, best, fit.before, opts.prior_weight);
    fit.loss_before = best_s.loss;
    fit.median_ape_before = best_s.median_ape;
    fit_grid(
        best, best_s, kInferParams, opts.rounds, opts.grid,
        [&](std::size_t k) {
          return opts.params.empty() ||
                 std::find(opts.params.begin(), opts.params.end(), kInferParams[k].name) != opts.params.end();
        },
        [&, &gen_rows = rows](const Efficiency& trial) {  // a named capture: clang 14 cannot capture a binding
          return score_inference(gen_rows, w, trial, fit.before, opts.prior_weight);
        });
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
    auto score_at = [&](const Efficiency& e) {
      FitScore sc = score_inference(rows, w, e, fit.before, /*prior_weight=*/0.0);
      sc.loss += opts.prior_weight * std::pow(std::log(e.infer_mla_decode_eff / prior), 2);
      return sc;
    };
    Efficiency best = fit.before;
    best.infer_mla_decode_eff = fit.before.infer_mla_decode_eff > 0 ? fit.before.infer_mla_decode_eff : prior;
    FitScore best_s = score_at(best);
    fit.loss_before = best_s.loss;
    fit.median_ape_before = best_s.median_ape;
    const GridParam rate[] = {{"infer_mla_decode_eff", &Efficiency::infer_mla_decode_eff, kLo, kHi}};
    fit_grid(best, best_s, rate, opts.rounds, opts.grid, [](std::size_t) { return true; }, score_at);
    fit.after = best;
    fit.loss_after = best_s.loss;
    fit.median_ape_after = best_s.median_ape;
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
    FitScore best_s = score(rows, w, best, fit.before, opts.prior_weight);
    fit.loss_before = best_s.loss;
    fit.median_ape_before = best_s.median_ape;
    fit_grid(best, best_s, kParams, opts.rounds, opts.grid, [](std::size_t) { return true; },
             [&, &gen_rows = rows](const Efficiency& trial) {  // a named capture: clang 14 cannot capture a binding
               return score(gen_rows, w, trial, fit.before, opts.prior_weight);
             });
    best.generation = gen;
    for (auto* c : rows) c->hardware.efficiency = best;
    fit.after = best;
    fit.loss_after = best_s.loss;
    fit.median_ape_after = best_s.median_ape;
    fits.push_back(fit);
  }
  return fits;
}

}  // namespace gpuplan
