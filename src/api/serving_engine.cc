#include "api/serving_engine.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/text.h"
#include "inference/engine.h"

namespace gpuplan::api {

double catalog_mtp_accept(const Catalog& catalog, const std::string& engine) {
  // No framework string to match: the default entry directly (matching costs a point's microseconds).
  if (engine.empty()) return catalog.default_serving_engine().mtp_accept.value_or(0.0);
  return engine_params(catalog, engine).mtp_accept;
}

void apply_serving_engine(const Catalog& catalog, const std::string& engine, InferenceWorkload& w) {
  const EngineParams e = engine_params(catalog, engine);
  if (e.name.empty())
    throw InputError("--engine", fmt::format("must be sglang, tensorrt-llm, atom, dynamo+sglang, dynamo+tensorrt-llm, "
                                             "sglang+mori, tensorrt-llm-pytorch or vllm, got '{}'", engine));
  w.request_overhead_s = e.request_overhead_s;
  w.host_per_seq_step_s = e.host_per_seq_step_s;
  w.moe_gemm_eff = e.moe_gemm_eff;
  apply_engine_facts(e, w);
}

void apply_engine_release(const Catalog& catalog, const std::string& engine, const std::string& release,
                          InferenceWorkload& w) {
  const ServingEngine* e = catalog.find_serving_engine(engine);
  if (!e) throw InputError("--engine-release", "applies with --engine naming a serving engine");
  if (e->newest_release.empty())
    throw InputError("--engine-release", fmt::format("{} tells no releases apart (serving_engines.yaml: no "
                                                     "newest_release), got '{}'", e->name, release));
  if (to_lower(release) == to_lower(e->newest_release)) {
    w.moe_kernel_share = 1.0;
    return;
  }
  const EngineRelease* r = find_engine_release(*e, release);
  if (!r) {
    std::vector<std::string> names{e->newest_release};
    for (const auto& x : e->releases) names.push_back(x.release);
    throw InputError("--engine-release", fmt::format("must be a release {} lists: {} (the newest first), got '{}'",
                                                     e->name, fmt::join(names, ", "), release));
  }
  w.moe_kernel_share = r->moe_kernel_share;
}

std::string engine_refusal(const Catalog& catalog, const std::string& engine, const Hardware& hw) {
  if (engine.empty()) return {};
  const ServingEngine* e = catalog.find_serving_engine(engine);
  if (!e || e->vendors.empty()) return {};
  const std::string vendor = to_lower(hw.accelerator.vendor);
  for (const auto& v : e->vendors)
    if (to_lower(v) == vendor) return {};
  const std::string& maker = hw.accelerator.vendor;
  return fmt::format("{} runs on {} accelerators (serving_engines.yaml `vendors`), not on {}'s {}", e->name,
                     fmt::join(e->vendors, " or "), maker.empty() ? "an unnamed vendor" : maker, hw.accelerator.name);
}

std::string band_engine(const Catalog& catalog, const std::string& framework) {
  if (framework.empty()) return {};
  const ServingEngine* e = catalog.find_serving_engine(framework);
  return e ? e->name : std::string();
}

}  // namespace gpuplan::api
