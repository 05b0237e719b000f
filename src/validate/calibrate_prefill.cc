// calibrate --inference --prefill (validate/calibrate.h): each generation's prefill-side serving
// parameters on low-load TTFTs and opening waves, jointly with each engine's front end.
#include <algorithm>
#include <cmath>
#include <map>

#include "validate/calibrate.h"
#include "validate/calibrate_rows.h"
#include "validate/fit_grid.h"
#include "validate/validation.h"

namespace gpuplan {

using calibrate_rows::abs_log;
using calibrate_rows::ape_pct;
using calibrate_rows::front_end_owner;
using calibrate_rows::median_of;
using calibrate_rows::ttft_waits_for_decode_slots;

namespace {

// The prefill-side serving parameters, their plausible ranges and the training field each replaces
// (its value is the starting point and the prior).
struct PrefillParam {
  const char* name;
  double Efficiency::*field;
  double Efficiency::*training;  // nullptr: the prior is `prior`
  double lo, hi;
  double prior = 0;
  bool pulled = true;  // false: the fit starts at the prior but is not pulled towards it
  double start(const Efficiency& e) const { return training ? e.*training : prior; }
};
const PrefillParam kPrefillParams[] = {
    {"infer_gemm_max", &Efficiency::infer_gemm_max, &Efficiency::gemm_max, 0.20, 0.95},
    {"infer_mla_prefill_eff", &Efficiency::infer_mla_prefill_eff, &Efficiency::attention_eff, 0.10, 0.85},
    // Block-scaled FP8 GEMMs' share of the FP8 rate: prior 1 (as fast as per-tensor FP8).
    {"infer_fp8_block_share", &Efficiency::infer_fp8_block_share, nullptr, 0.20, 1.0, 1.0},
    // The same share on SGLang's Triton kernel: starts at the generation's block-scaled share but is
    // not pulled towards it. A fallback kernel has no reason to run near the native ones: pulled, the
    // fit stays near 0.22 where its rows (the low-load TTFTs and the opening waves of the Blackwell runs
    // whose recipes disable JIT DeepGEMM) measure 0.06, and the same runs' held-out throughputs agree
    // with 0.06 (docs/inference-model.md, "SGLang's Triton block-FP8 kernel").
    {"infer_fp8_block_triton_share", &Efficiency::infer_fp8_block_triton_share, &Efficiency::infer_fp8_block_share,
     0.02, 1.0, 0, false},
};

// Whether a case's dense block-FP8 GEMMs run SGLang's Triton kernel in either pool.
bool runs_triton_fp8(const InferenceCase& c) {
  return c.workload.fp8_block_gemm_triton || c.disagg.prefill_fp8_block_gemm_triton;
}

}  // namespace

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
      if (p.pulled && a > 0 && b > 0) reg += std::pow(std::log(a / b), 2);
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
  std::vector<GridParam> prefill_grid;  // kPrefillParams' fields and ranges, in their order
  for (const auto& p : kPrefillParams) prefill_grid.push_back({p.name, p.field, p.lo, p.hi});
  for (int it = 0; it < iterations; ++it) {
    for (auto& [gen, rows] : by_gen) {
      GenerationFit& g = gens[gen];
      const std::vector<double> w = series_weights(rows);
      Efficiency best = g.after;
      FitScore best_s{loss(rows, w, best, g.before, nullptr)};
      fit_grid(
          best, best_s, prefill_grid, opts.rounds, opts.grid,
          [&](std::size_t k) {
            const PrefillParam& p = kPrefillParams[k];
            if (!fitted_param(p)) return false;
            // The block-scaled FP8 share shows at the prefill pools' throughput: fitted where opening
            // waves measure it (jointly with the rates, on the low-load TTFTs and the waves), else left.
            if (p.field == &Efficiency::infer_fp8_block_share && g.wave_rows == 0) return false;
            // The Triton kernel's share: fitted where rows run it.
            if (p.field == &Efficiency::infer_fp8_block_triton_share && g.triton_rows == 0) return false;
            return true;
          },
          [&, &gen_rows = rows](const Efficiency& trial) {  // a named capture: clang 14 cannot capture a binding
            return FitScore{loss(gen_rows, w, trial, g.before, nullptr)};
          });
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
