#pragma once
// What calibrate's serving fits (calibrate_engines.cc, calibrate_prefill.cc) read off a case: its
// error at the current parameters, the engine whose front end it uses, whether its TTFT waits for a
// decode slot. Internal to src/validate.
#include <vector>

#include "catalog/catalog.h"
#include "validate/inference_cases.h"

namespace gpuplan::calibrate_rows {

double median_of(std::vector<double> v);
// The case's |predicted - reported| / reported in percent (500 where nothing is predicted).
double ape_pct(const InferenceCase& c);
// min(2, |log(predicted / reported)|) (2 where nothing is predicted).
double abs_log(const InferenceCase& c);
// The catalog entry whose front end a case's engine uses (front_end_of resolved), or null.
const ServingEngine* front_end_owner(const Catalog& catalog, const InferenceCase& c);
// A disaggregated TTFT case whose decode slots are fewer than its clients (held out of the TTFT fits).
bool ttft_waits_for_decode_slots(const InferenceCase& c);

}  // namespace gpuplan::calibrate_rows
