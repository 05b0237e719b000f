// gpuplan cost: total cost of ownership per GPU-hour by part, and with a model: $ per million tokens,
// joules per token, and the cost, energy and time of a whole training run.
#include "api/cost.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_cost(int argc, char** argv) {
  CLI::App app{"", "gpuplan cost"};
  CommonOptions common;
  add_common_options(app, common);
  CostRequest req;
  add_cost_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::cost(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
