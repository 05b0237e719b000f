#pragma once
// Scores predictions against published measurements: per-row absolute percentage error, then median
// and p90 overall and per group (source, model family, accelerator, precision).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/error_band.h"
#include "core/error.h"
#include "validate/system_text.h"
#include "validate/training_cases.h"

namespace gpuplan {

struct InferenceCase;
// The error-band kind of a case (src/catalog/error_band.h) and whether the row's metric is the
// reciprocal of what that kind's band measures (a training step time; serving tokens/s per user).
std::string band_kind_of(const TrainingCase& c);
std::string band_kind_of(const InferenceCase& c);
bool band_reciprocal_of(const TrainingCase& c);
bool band_reciprocal_of(const InferenceCase& c);
// The question a case's row asks of its band (src/catalog/error_band.h, BandQuestion): its source
// (band_source_key: the source id, with the framework for a serving row), precision, GPUs, model size,
// framework as written (the serving engine entry it names once a catalog is at hand: api::band_engine)
// and accelerator.
BandQuestion band_question_of(const TrainingCase& c);
BandQuestion band_question_of(const InferenceCase& c);

struct ScoredRow {
  size_t row = 0;
  std::string source_id, model, gpu, accelerator, system, family, precision, metric;
  int num_gpus = 0;
  double reported = 0, predicted = 0, ape_pct = 0;
  std::string plan;
  // The command that replays the row (`gpuplan infer ...` / `gpuplan train ...`), and the field of its
  // --json document holding `predicted` (times `command_scale`); empty where none is built.
  std::string command, command_field;
  double command_scale = 1.0;
  std::vector<std::string> assumptions;
  // Error band (apply_bands): its kind and generation, the row's metric's reciprocity, the band around
  // the prediction and whether the reported value lies inside it.
  std::string generation, band_kind;
  bool band_reciprocal = false;
  BandQuestion band_question;  // band_question_of the case: a row off the band's ground gets it widened
  BandedFigure band;
  bool in_band = false;
};

// The scored row of a mapped case (training or inference: the fields they share) and its prediction;
// the caller fills `plan` in its own words.
template <typename Case>
ScoredRow scored_row(const Case& c, double predicted) {
  ScoredRow r;
  r.row = c.row;
  r.source_id = c.source_id;
  r.model = c.model_name;
  r.gpu = c.gpu_name;
  r.accelerator = c.accelerator;
  r.system = c.system;
  r.family = c.family;
  r.precision = c.precision_name;
  r.metric = c.metric;
  r.num_gpus = c.workload.num_gpus;
  r.reported = c.reported;
  r.predicted = predicted;
  r.ape_pct = 100.0 * (predicted > c.reported ? predicted - c.reported : c.reported - predicted) / c.reported;
  r.assumptions = c.assumptions;
  r.generation = c.generation;
  r.band_kind = band_kind_of(c);
  r.band_reciprocal = band_reciprocal_of(c);
  r.band_question = band_question_of(c);
  return r;
}

// Resolves a row's GPU name to its catalog accelerator and hardware (accelerator, generation, hardware,
// system of the case); the reason to skip the row when it cannot. `row_text` (the row's notes and source):
// a server it names that the catalog builds from the accelerator (validate/system_text.h) is the system.
template <typename Case>
std::optional<std::string> resolve_row_hardware(const Catalog& catalog, Case& c, const std::string& row_text = {}) {
  const Accelerator* acc = catalog.find_accelerator(c.gpu_name);
  // Tables also name the system ("GB200 NVL72", "DGX H100"): its accelerator, on that system.
  const System* sys = acc ? nullptr : catalog.find_system(c.gpu_name);
  if (sys) acc = catalog.find_accelerator(sys->accelerator);
  if (!acc) return "GPU '" + c.gpu_name + "' has no catalog entry";
  if (!sys && !row_text.empty()) {
    // The row's text may name the variant the GPU column drops (MLPerf's "GH200-144GB" system of a
    // "GH200" row), and the server it ran on: read as written.
    const AcceleratorReading variant = read_accelerator_variant(catalog, c.gpu_name, *acc, row_text);
    if (variant.accelerator) {
      acc = variant.accelerator;
      c.assumptions.push_back("accelerator: " + acc->name + " (the row names the variant: '" + variant.spelling + "')");
    }
    const SystemReading named = read_system(catalog, acc->name, row_text);
    if (named.system && named.system != catalog.first_system_of(acc->name)) {
      sys = named.system;
      c.assumptions.push_back("system: " + sys->name + " (the row names the server: '" + named.spelling + "')");
    }
  }
  c.accelerator = acc->name;
  c.generation = acc->generation;
  try {
    c.hardware = resolve_hardware(catalog, sys ? sys->name : acc->name);
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  c.system = c.hardware.system_name;
  return std::nullopt;
}

struct ErrorSummary {
  size_t rows = 0;
  double median_ape_pct = 0;
  double p90_ape_pct = 0;
};

// How many rows lie inside their band.
struct Coverage {
  size_t rows = 0, inside = 0;
  double share() const { return rows ? double(inside) / double(rows) : 0.0; }
};

struct ValidationReport {
  std::string dataset;
  std::vector<ScoredRow> rows;
  std::vector<SkippedRow> skipped;
  ErrorSummary overall;
  // group kind ("source", "family", "accelerator", "precision") -> group value -> summary
  std::map<std::string, std::map<std::string, ErrorSummary>> groups;
  // apply_bands: share of rows inside their band, "all" and per band kind.
  std::map<std::string, Coverage> coverage;
};

// Puts each scored row's band around its prediction, marks whether the reported value lies inside, and
// counts the coverage. The band is the one its question gets (band_for of its kind, generation and
// band_question): the known-ground band for a row of a source family, precision, scale, model size,
// engine and accelerator the band was fitted on, widened along each dimension where the row lies off
// that ground (a new source, a new round of a known one, a new release), as a planner's question would be.
void apply_bands(ValidationReport& rep, const std::vector<ErrorBand>& bands);

// Skip reasons counted by their pattern: quoted names and numbers replaced ("GPU '*' has no catalog
// entry"), so that the same cause counts once.
std::map<std::string, size_t> skip_reason_counts(const std::vector<SkippedRow>& skipped);

// Summary of a list of errors; p90 as shared/tools/score.py computes it (nearest rank).
ErrorSummary summarize(std::vector<double> ape_pct);

// Finishes a report: skipped rows in row order, the overall summary and one per group (kind -> value -> errors).
using ErrorGroups = std::map<std::string, std::map<std::string, std::vector<double>>>;
void finish_report(ValidationReport& rep, const std::vector<double>& all, const ErrorGroups& groups);

// Predicts and scores every case.
ValidationReport validate_training(const std::vector<TrainingCase>& cases, std::vector<SkippedRow> skipped,
                                   const std::string& dataset);

}  // namespace gpuplan
