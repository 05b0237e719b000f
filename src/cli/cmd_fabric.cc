// gpuplan fabric: the scale-out network of N GPUs — topology, bill of materials, power, capex, and what
// each GPU gets. The planner is src/fabric; this file parses options and prints.
#include "api/fabric.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_fabric(int argc, char** argv) {
  CLI::App app{"", "gpuplan fabric"};
  CommonOptions common;
  add_common_options(app, common);
  FabricRequest req;
  add_fabric_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::fabric(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
