#pragma once
// Maps rows of a published-training-measurement CSV (schema of shared/data/benchmarks/training.csv)
// to the evaluations a user would run: model, hardware, plan, workload, and the metric to compare.
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "model/model.h"
#include "model/model_dims.h"
#include "physics/hardware.h"
#include "plan/plan.h"
#include "training/flop_convention.h"
#include "training/framework_release.h"
#include "training/training_step.h"

namespace gpuplan {

struct TrainingCase {
  size_t row = 0;             // 0-based data row index in the CSV
  std::string source_id;
  std::string model_name;     // as the row writes it
  std::string gpu_name;       // as the row writes it
  std::string accelerator;    // catalog accelerator it mapped to
  std::string system;         // catalog system it runs on
  std::string generation;
  std::string family;
  std::string precision_name;
  std::string metric;         // step_time_s, tokens_per_sec_per_gpu, tflops_per_gpu, mfu
  std::string mfu_basis;      // mfu rows: precision_peak or bf16_peak ("" = BF16 peak)
  FlopConvention flop_convention = FlopConvention::model;  // tflops rows: how the source counts FLOPs
  double reported = 0;
  ModelArch model;
  // What `train` is told to build the same model: the built-in model's name (`model_lookup`, empty when
  // none matches) and the dimensions the row states (`train --arch`).
  std::string model_lookup;
  ModelDims dims;
  // The framework release the row ran (`train --framework-release`): from its date, 0 when it states none
  // (the newest). The plan below already carries what that release lacks.
  int framework_release = 0;
  // The container that release was stated as (`train --framework-release 25.11`): from the source id's
  // tag (MBRIDGE-25.11, NEMO-24.07, DGXC-v25.05.04); empty where the row states a year or nothing.
  std::string framework_container;
  // Whether the expert all-to-all is overlapped (`train --ep-overlap`): the recipe of the row's NeMo
  // container, else the release (training/expert_overlap.h): 1 on, 0 off, -1 not a MoE plan with EP > 1
  // (the option is not stated).
  int ep_overlap = -1;
  // The attention kernel the notes name (`train --attention-kernel`; validate/attention_kernel_text.h):
  // release where they name none.
  AttentionKernel attention_kernel = AttentionKernel::release;
  Hardware hardware;
  TrainingPlan plan;
  TrainingWorkload workload;
  std::vector<std::string> assumptions;  // each blank filled or convention applied, in words
};

struct SkippedRow {
  SkippedRow() = default;
  SkippedRow(size_t row_index, std::string why, std::string flag_text = {})
      : row(row_index), reason(std::move(why)), flag(std::move(flag_text)) {}
  size_t row = 0;
  std::string reason;
  std::string flag;  // "contradiction": the row contradicts itself (flagged, not a gap of the model); else empty
};

// True when the CSV has the training schema (reported_metric, tp, pp, gbs ...).
bool is_training_schema(const CsvTable& t);

// Maps every row; rows that cannot be modelled go to `skipped` with the reason.
std::vector<TrainingCase> map_training_cases(const CsvTable& t, const Catalog& catalog,
                                             std::vector<SkippedRow>& skipped);

// The row's metric predicted from an evaluation, in the row's own unit and FLOP convention.
double metric_from_result(const TrainingCase& c, const TrainingResult& r);

// Evaluates the case with its hardware (whose efficiencies calibrate may have replaced).
double predict_case(const TrainingCase& c);

}  // namespace gpuplan
