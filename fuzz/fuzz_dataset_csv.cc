// Dataset CSVs: training.csv and the inference schemas (inference.csv, MLPerf, AIConfigurator,
// InferenceX), mapped to cases and scored as `gpuplan validate` does.
#include "catalog/catalog.h"
#include "core/csv.h"
#include "fuzz_common.h"
#include "validate/inference_cases.h"
#include "validate/training_cases.h"
#include "validate/validation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gpuplan::Catalog catalog = gpuplan::Catalog::load({});
  gpuplan::fuzz::expect_clean([&] {
    const gpuplan::CsvTable t = gpuplan::parse_csv(gpuplan::fuzz::text_of(data, size), "fuzz.csv");
    std::vector<gpuplan::SkippedRow> skipped;
    if (gpuplan::is_inferencex_schema(t)) {
      auto cases = gpuplan::map_inferencex_cases(t, catalog, skipped);
      gpuplan::validate_inference(cases, skipped, "fuzz.csv");
    } else if (gpuplan::is_training_schema(t)) {
      auto cases = gpuplan::map_training_cases(t, catalog, skipped);
      gpuplan::validate_training(cases, skipped, "fuzz.csv");
    } else if (gpuplan::is_inference_schema(t)) {
      auto cases = gpuplan::map_inference_cases(t, catalog, skipped);
      gpuplan::validate_inference(cases, skipped, "fuzz.csv");
    }
  });
  return 0;
}
