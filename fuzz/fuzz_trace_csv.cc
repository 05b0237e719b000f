// Job traces (Philly and gpuplan formats); what parses must round-trip through write_trace_csv.
#include <cstdlib>

#include "fuzz_common.h"
#include "schedule/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpuplan::fuzz::expect_clean([&] {
    const auto jobs = gpuplan::schedule::parse_trace_csv(gpuplan::fuzz::text_of(data, size), "fuzz.csv");
    const auto again = gpuplan::schedule::parse_trace_csv(gpuplan::schedule::write_trace_csv(jobs), "written.csv");
    if (again.size() != jobs.size()) std::abort();  // what the writer writes, the reader reads
  });
  return 0;
}
