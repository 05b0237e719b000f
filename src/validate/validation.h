#pragma once
// Scores predictions against published measurements: per-row absolute percentage error, then median
// and p90 overall and per group (source, model family, accelerator, precision).
#include <map>
#include <string>
#include <vector>

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

// Predicts and scores every case.
ValidationReport validate_training(const std::vector<TrainingCase>& cases, std::vector<SkippedRow> skipped,
                                   const std::string& dataset);

}  // namespace gpuplan
