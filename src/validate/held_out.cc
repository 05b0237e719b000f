#include "validate/held_out.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

namespace gpuplan {

namespace {

Precision precision_of(const TrainingCase& c) { return c.workload.precision; }
Precision precision_of(const InferenceCase& c) { return c.workload.weight_precision; }
std::string engine_of(const TrainingCase&) { return {}; }
std::string engine_of(const InferenceCase& c) { return c.framework; }
std::string release_of(const TrainingCase& c) {
  if (!c.framework_container.empty()) return c.framework_container;
  return c.framework_release > 0 ? std::to_string(c.framework_release) : std::string();
}
std::string release_of(const InferenceCase& c) { return c.framework; }
std::string pair_key_of(const TrainingCase& c) {
  return fmt::format("{}|{}|{}|{}|seq {}", c.source_id, c.model_name, c.metric, c.precision_name, c.workload.seq_len);
}
std::string pair_key_of(const InferenceCase& c) {
  const InferenceWorkload& w = c.workload;
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}/{}|{} clients|{} GPUs|{}|{}", c.source_id, c.model_name, c.metric,
                     c.precision_name, c.framework, c.scenario, static_cast<int>(c.mode), w.isl, w.osl, w.concurrency,
                     w.num_gpus, c.deployment, c.spec_decode);
}

template <typename Case>
BandQuestion question_of_case(const Case& c) {
  BandQuestion q;
  q.source = band_source_key(c.source_id, engine_of(c));
  q.precision = std::string(to_string(precision_of(c)));
  q.num_gpus = c.workload.num_gpus;
  q.params_b = total_params(c.model) / 1e9;
  q.engine = engine_of(c);
  q.accelerator = c.accelerator;
  return q;
}

template <typename Case>
void push(std::vector<HeldOutResidual>& out, const Case& c, double pred) {
  if (!(pred > 0) || !std::isfinite(pred)) return;
  HeldOutResidual h(band_kind_of(c), c.generation, band_family_of(c),
                    band_log_ratio(c.reported, pred, band_reciprocal_of(c)));
  const BandQuestion q = question_of_case(c);
  h.precision = q.precision;
  h.num_gpus = q.num_gpus;
  h.params_b = q.params_b;
  h.engine = q.engine;
  h.source_id = c.source_id;
  h.release = release_of(c);
  h.pair_key = pair_key_of(c);
  h.accelerator = q.accelerator;
  out.push_back(std::move(h));
}

Efficiency prior_for(const std::string& generation) {
  Efficiency e;
  e.generation = generation;
  return e;
}

}  // namespace

BandQuestion band_question_of(const TrainingCase& c) { return question_of_case(c); }
BandQuestion band_question_of(const InferenceCase& c) { return question_of_case(c); }

std::vector<HeldOutResidual> training_held_out_residuals(const std::vector<TrainingCase>& cases,
                                                         const CalibrationOptions& opts,
                                                         std::vector<HeldOutResidual>& unfitted) {
  std::set<std::string> families;
  for (const auto& c : cases) families.insert(band_family_of(c));
  std::vector<HeldOutResidual> out;
  for (const auto& f : families) {
    std::vector<TrainingCase> train, test;
    for (const auto& c : cases) (band_family_of(c) == f ? test : train).push_back(c);
    const auto fits = calibrate(train, opts);
    std::map<std::string, Efficiency> fitted;
    for (const auto& g : fits) fitted[g.generation] = g.after;
    for (auto& c : test) {
      auto it = fitted.find(c.generation);
      c.hardware.efficiency = it != fitted.end() ? it->second : prior_for(c.generation);
      push(it != fitted.end() ? out : unfitted, c, predict_case(c));
    }
  }
  return out;
}

std::vector<HeldOutResidual> training_residuals(const std::vector<TrainingCase>& cases) {
  std::vector<HeldOutResidual> out;
  for (const auto& c : cases) push(out, c, predict_case(c));
  return out;
}

std::vector<HeldOutResidual> training_prior_residuals(const std::vector<TrainingCase>& cases) {
  std::vector<HeldOutResidual> out;
  for (auto c : cases) {
    c.hardware.efficiency = prior_for(c.generation);
    push(out, c, predict_case(c));
  }
  return out;
}

std::vector<HeldOutResidual> serving_residuals(const std::vector<InferenceCase>& cases) {
  std::vector<HeldOutResidual> out;
  for (const auto& c : cases) push(out, c, predict_inference_case(c));
  return out;
}

std::vector<HeldOutResidual> serving_prior_residuals(const std::vector<InferenceCase>& cases) {
  std::vector<HeldOutResidual> out;
  for (auto c : cases) {
    c.hardware.efficiency = prior_for(c.generation);
    push(out, c, predict_inference_case(c));
  }
  return out;
}

}  // namespace gpuplan
