#include "api/serving_engine.h"

#include "inference/engine.h"

namespace gpuplan::api {

double catalog_mtp_accept(const Catalog& catalog, const std::string& engine) {
  return engine_params(catalog, engine).mtp_accept;
}

}  // namespace gpuplan::api
