#pragma once
// Test support shared by the serving-row tests (inference_validate_test.cc, serving_rows_test.cc): rows
// of the inference schema (shared/data/benchmarks/inference.csv) written inline, and what a mapped
// case records about them. Header-only; no library code includes it.
#include <string>

#include "core/csv.h"
#include "validate/inference_cases.h"

namespace gpuplan::inference_rows_testing {

// The inference schema's header.
inline const std::string kInferenceHeader =
    "source_id,source_url_or_path,model,params_B,active_params_B,gpu,num_gpus,tp,ep,pp,precision_weights,"
    "precision_kv,framework,isl,osl,concurrency_or_batch,scenario,metric,value,notes\n";

// The table of `rows` (CSV lines, each ending in a newline) under that header.
inline CsvTable inference_rows(const std::string& rows) { return parse_csv(kInferenceHeader + rows, "inline"); }

// Whether one of the case's recorded assumptions contains `what`.
inline bool row_says(const InferenceCase& c, const std::string& what) {
  for (const auto& a : c.assumptions)
    if (a.find(what) != std::string::npos) return true;
  return false;
}

}  // namespace gpuplan::inference_rows_testing
