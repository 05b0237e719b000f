// Dataset CSVs: training.csv and the inference schemas (inference.csv, MLPerf, AIConfigurator,
// InferenceX), mapped to cases and scored as `gpuplan validate` does.
#include <utility>

#include "catalog/catalog.h"
#include "core/csv.h"
#include "fuzz_common.h"
#include "validate/inference_cases.h"
#include "validate/training_cases.h"
#include "validate/validation.h"

namespace {
// Every row is parsed and mapped; only the first few cases are evaluated (a training row with blank plan
// fields runs a plan search): evaluation is covered by its own tests, and a capped cost per input keeps
// the harness at hundreds of inputs a second instead of tens.
constexpr size_t kCasesEvaluated = 4;

template <typename Cases>
Cases first_cases(Cases cases) {
  if (cases.size() > kCasesEvaluated) cases.resize(kCasesEvaluated);
  return cases;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gpuplan::Catalog catalog = gpuplan::Catalog::load({});
  gpuplan::fuzz::expect_clean([&] {
    const gpuplan::CsvTable t = gpuplan::parse_csv(gpuplan::fuzz::text_of(data, size), "fuzz.csv");
    std::vector<gpuplan::SkippedRow> skipped;
    if (gpuplan::is_inferencex_schema(t)) {
      auto cases = gpuplan::map_inferencex_cases(t, catalog, skipped);
      gpuplan::validate_inference(first_cases(std::move(cases)), skipped, "fuzz.csv");
    } else if (gpuplan::is_training_schema(t)) {
      auto cases = gpuplan::map_training_cases(t, catalog, skipped);
      gpuplan::validate_training(first_cases(std::move(cases)), skipped, "fuzz.csv");
    } else if (gpuplan::is_inference_schema(t)) {
      auto cases = gpuplan::map_inference_cases(t, catalog, skipped);
      gpuplan::validate_inference(first_cases(std::move(cases)), skipped, "fuzz.csv");
    }
  });
  return 0;
}
