// What calibrate's serving fits read off a case (validate/calibrate_rows.h).
#include "validate/calibrate_rows.h"

#include <algorithm>
#include <cmath>

#include "core/suggest.h"
#include "validate/validation.h"

namespace gpuplan::calibrate_rows {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double ape_pct(const InferenceCase& c) {
  const double pred = predict_inference_case(c);
  return pred > 0 ? 100.0 * std::abs(pred - c.reported) / c.reported : 500.0;
}

double abs_log(const InferenceCase& c) {
  const double pred = predict_inference_case(c);
  return pred > 0 ? std::min(2.0, std::abs(std::log(pred / c.reported))) : 2.0;
}

// The catalog entry whose front end a case's engine uses (front_end_of resolved), or null.
const ServingEngine* front_end_owner(const Catalog& catalog, const InferenceCase& c) {
  const ServingEngine* e = catalog.find_serving_engine(c.framework);
  if (!e || e->front_end_of.empty()) return e;
  for (const ServingEngine& o : catalog.serving_engines())
    if (normalize_name(o.name) == normalize_name(e->front_end_of)) return &o;
  return e;
}

// A disaggregated TTFT case whose decode slots (the recipe's batch cap x attention ranks x workers)
// are fewer than its clients: its TTFT holds a wait for a decode slot, which a front end only
// shortens (a client in the front end is one fewer in the queue) and the prefill rate does not set.
// It says nothing about either: held out of both TTFT fits. The tail (p99) waits as soon as the
// clients exceed the slots; the median only once at least half the clients are beyond them at any
// moment (clients >= 2 x slots): with fewer, fewer than half the requests meet a full worker, and the
// median request's TTFT is its prefill's (InferenceX B300 Dynamo + TensorRT-LLM 8K/1K, 4 clients on 3
// slots: median 598 ms, mean 2,038 ms; 5 on 4: 1,025 ms, mean 1,215 ms).
bool ttft_waits_for_decode_slots(const InferenceCase& c) {
  if (c.mode != InferenceMode::disaggregated) return false;
  const long long slots = decode_cap_slots(c.disagg);
  if (slots <= 0) return false;
  return c.metric == "ttft_ms" ? c.workload.concurrency >= 2 * slots : slots < c.workload.concurrency;
}

}  // namespace gpuplan::calibrate_rows
