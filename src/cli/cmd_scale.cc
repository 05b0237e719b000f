// gpuplan scale: the best (or a fixed) plan at each GPU count, weak or strong scaling; MFU and
// tokens/s per GPU against N.
#include "api/scale.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_scale(int argc, char** argv) {
  CLI::App app{"", "gpuplan scale"};
  CommonOptions common;
  add_common_options(app, common);
  ScaleRequest req;
  add_scale_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::scale(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
