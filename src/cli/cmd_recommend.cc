// gpuplan recommend: every system (and bare accelerator) in the catalog ranked for one workload, with
// how many GPUs, time to result, cost, energy, and the reasons the models give.
#include "api/recommend.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_recommend(int argc, char** argv) {
  CLI::App app{"", "gpuplan recommend"};
  CommonOptions common;
  add_common_options(app, common);
  RecommendRequest req;
  add_recommend_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::recommend(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
