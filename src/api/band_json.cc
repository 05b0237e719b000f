#include "api/band_json.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/serving_engine.h"
#include "api/sorted_object.h"

namespace gpuplan::api {

// Filled field by field in sorted key order (SortedObject): nlohmann's initializer lists build a
// two-element array per field first, and a point's document carries four bands.
nlohmann::json band_json(const BandedFigure& f) {
  nlohmann::json basis = nlohmann::json::object();
  // A serving band's engine ("not stated" where the question named none); a training band has none.
  if (!f.engine.empty()) SortedObject(basis).add("engine", f.engine);
  SortedObject(basis)
      .add("families", f.families)
      .add("generation", f.generation)
      .add("kind", f.kind)
      .add("rows", f.rows)
      .add("widened_by", f.widened_by);
  nlohmann::json j = nlohmann::json::object();
  SortedObject(j)
      .add("basis", std::move(basis))
      .add("high", f.high)
      .add("low", f.low)
      .add("plus_minus_pct", f.plus_minus_pct())
      .add("value", f.value);
  return j;
}

nlohmann::json band_basis_json(const ErrorBand& b) {
  nlohmann::json j = nlohmann::json::object();
  if (!b.engine.empty()) SortedObject(j).add("engine", b.engine);
  SortedObject(j)
      .add("families", b.families)
      .add("generation", b.generation)
      .add("high_log", b.high_log)
      .add("kind", b.kind)
      .add("low_log", b.low_log)
      .add("rows", b.rows)
      .add("widened_by", b.widened_by);
  return j;
}

std::string band_text(const BandedFigure& f) {
  const std::string widened =
      f.widened_by.empty() ? "" : fmt::format("; widened: {}", fmt::join(f.widened_by, "; "));
  if (f.generation == kBandUnfitted)
    return fmt::format("+/- {:.0f}% (80% band of a generation without measurements of this kind{})", f.plus_minus_pct(),
                       widened);
  return fmt::format("+/- {:.0f}% (80% band: {} held-out rows, {} source families{})", f.plus_minus_pct(), f.rows,
                     f.families, widened);
}

BandQuestion band_question(Precision precision, const ModelArch& m, int num_gpus) {
  BandQuestion q;
  q.precision = std::string(to_string(precision));
  q.num_gpus = num_gpus;
  q.params_b = total_params(m) / 1e9;
  return q;
}

BandQuestion serving_question(const InferenceWorkload& w, const ModelArch& m, int num_gpus, const std::string& engine) {
  BandQuestion q = band_question(w.weight_precision, m, num_gpus);
  q.engine = engine;
  return q;
}

BandQuestion serving_question(const ServingScenario& s, int num_gpus) {
  return serving_question(s.workload, s.model, num_gpus, s.engine);
}

BandQuestion training_question(const ModelArch& m, const TrainingWorkload& w) {
  return band_question(w.precision, m, w.num_gpus);
}

ErrorBand serving_band(const Catalog& catalog, const Hardware& hw, bool disaggregated, ServingFigure figure,
                       const BandQuestion& q) {
  BandQuestion on_chip = q;  // the question on this hardware's accelerator
  if (on_chip.accelerator.empty()) on_chip.accelerator = hw.accelerator.name;
  if (q.engine.empty())
    return band_for(catalog.error_bands(), serving_band_kind(disaggregated, figure), hw.accelerator.generation,
                    on_chip);
  BandQuestion named = on_chip;
  named.engine = band_engine(catalog, q.engine);
  ErrorBand b =
      band_for(catalog.error_bands(), serving_band_kind(disaggregated, figure), hw.accelerator.generation, named);
  // A framework no engine entry names: the basis gives it as stated (it widened nothing).
  if (named.engine.empty()) b.engine = q.engine + " (no serving engine entry)";
  return b;
}

ErrorBand training_band(const Catalog& catalog, const ModelArch& m, const Hardware& hw, const TrainingWorkload& w) {
  BandQuestion q = training_question(m, w);
  q.accelerator = hw.accelerator.name;
  return band_for(catalog.error_bands(), training_band_kind(m.is_moe()), hw.accelerator.generation, q);
}

namespace {

struct ServingBands {
  BandedFigure tput, user, ttft, tpot;
};

ServingBands serving_bands(const Catalog& catalog, const Hardware& hw, const InferenceResult& r, bool disagg,
                           const BandQuestion& q) {
  const ErrorBand t = serving_band(catalog, hw, disagg, ServingFigure::throughput, q);
  const ErrorBand d = serving_band(catalog, hw, disagg, ServingFigure::tpot, q);
  const ErrorBand f = serving_band(catalog, hw, disagg, ServingFigure::ttft, q);
  return {with_band(r.tokens_per_s_per_gpu, t), with_band(r.tokens_per_s_per_user, d, true), with_band(r.ttft_s, f),
          with_band(r.tpot_s, d)};
}

}  // namespace

nlohmann::json serving_bands_json(const Catalog& catalog, const Hardware& hw, const InferenceResult& r,
                                  bool disaggregated, const BandQuestion& q) {
  const ServingBands b = serving_bands(catalog, hw, r, disaggregated, q);
  nlohmann::json j = nlohmann::json::object();
  SortedObject(j)
      .add("tokens_per_s_per_gpu", band_json(b.tput))
      .add("tokens_per_s_per_user", band_json(b.user))
      .add("tpot_s", band_json(b.tpot))
      .add("ttft_s", band_json(b.ttft));
  return j;
}

std::string serving_bands_text(const Catalog& catalog, const Hardware& hw, const InferenceResult& r,
                               bool disaggregated, const BandQuestion& q) {
  const ServingBands b = serving_bands(catalog, hw, r, disaggregated, q);
  return fmt::format("Error bands: tokens/s per GPU {:.1f} to {:.1f} {}; TPOT {:.2f} to {:.2f} ms {}; TTFT {:.1f} to "
                     "{:.1f} ms {}\n",
                     b.tput.low, b.tput.high, band_text(b.tput), b.tpot.low * 1e3, b.tpot.high * 1e3, band_text(b.tpot),
                     b.ttft.low * 1e3, b.ttft.high * 1e3, band_text(b.ttft));
}

}  // namespace gpuplan::api
