#include "api/serving_engine.h"

#include "inference/engine.h"

namespace gpuplan::api {

double catalog_mtp_accept(const Catalog& catalog, const std::string& engine) {
  // No framework string to match: the default entry directly (matching costs a point's microseconds).
  if (engine.empty()) return catalog.default_serving_engine().mtp_accept.value_or(0.0);
  return engine_params(catalog, engine).mtp_accept;
}

std::string band_engine(const Catalog& catalog, const std::string& framework) {
  if (framework.empty()) return {};
  const ServingEngine* e = catalog.find_serving_engine(framework);
  return e ? e->name : std::string();
}

}  // namespace gpuplan::api
