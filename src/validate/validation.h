#pragma once
// Scores predictions against published measurements: per-row absolute percentage error, then median
// and p90 overall and per group (source, model family, accelerator, precision).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "validate/training_cases.h"

namespace gpuplan {

struct ScoredRow {
  size_t row = 0;
  std::string source_id, model, gpu, accelerator, system, family, precision, metric;
  int num_gpus = 0;
  double reported = 0, predicted = 0, ape_pct = 0;
  std::string plan;
  std::vector<std::string> assumptions;
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
  return r;
}

// Resolves a row's GPU name to its catalog accelerator and hardware (accelerator, generation, hardware,
// system of the case); the reason to skip the row when it cannot.
template <typename Case>
std::optional<std::string> resolve_row_hardware(const Catalog& catalog, Case& c) {
  const Accelerator* acc = catalog.find_accelerator(c.gpu_name);
  if (!acc) return "GPU '" + c.gpu_name + "' has no catalog entry";
  c.accelerator = acc->name;
  c.generation = acc->generation;
  try {
    c.hardware = resolve_hardware(catalog, acc->name);
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

struct ValidationReport {
  std::string dataset;
  std::vector<ScoredRow> rows;
  std::vector<SkippedRow> skipped;
  ErrorSummary overall;
  // group kind ("source", "family", "accelerator", "precision") -> group value -> summary
  std::map<std::string, std::map<std::string, ErrorSummary>> groups;
};

// Summary of a list of errors; p90 as shared/tools/score.py computes it (nearest rank).
ErrorSummary summarize(std::vector<double> ape_pct);

// Finishes a report: skipped rows in row order, the overall summary and one per group (kind -> value -> errors).
using ErrorGroups = std::map<std::string, std::map<std::string, std::vector<double>>>;
void finish_report(ValidationReport& rep, const std::vector<double>& all, const ErrorGroups& groups);

// Predicts and scores every case.
ValidationReport validate_training(const std::vector<TrainingCase>& cases, std::vector<SkippedRow> skipped,
                                   const std::string& dataset);

}  // namespace gpuplan
