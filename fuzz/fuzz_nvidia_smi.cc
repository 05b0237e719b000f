// What `gpuplan doctor` reads from other programs: nvidia-smi query CSV and topology matrix, nvcc
// --version, the PyTorch probe's output; and version comparison on what they report.
#include "doctor/nvidia_smi.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = gpuplan::fuzz::text_of(data, size);
  gpuplan::fuzz::expect_clean([&] { gpuplan::doctor::parse_smi_query(text); });
  gpuplan::fuzz::expect_clean([&] { gpuplan::doctor::parse_topo(text); });
  gpuplan::fuzz::expect_clean([&] { gpuplan::doctor::parse_nvcc_version(text); });
  gpuplan::fuzz::expect_clean([&] {
    const auto t = gpuplan::doctor::parse_torch_probe(text);
    (void)t;
  });
  gpuplan::fuzz::expect_clean([&] {
    const auto nl = text.find('\n');
    gpuplan::doctor::compare_versions(text.substr(0, nl), nl == std::string::npos ? "" : text.substr(nl + 1));
    gpuplan::doctor::cuda_for_driver(text);
  });
  return 0;
}
