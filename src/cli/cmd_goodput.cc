// gpuplan goodput: a training run's useful time under failures, checkpoints and restarts; with and
// without spares; side by side for two systems.
#include "api/goodput.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_goodput(int argc, char** argv) {
  CLI::App app{"", "gpuplan goodput"};
  CommonOptions common;
  add_common_options(app, common);
  GoodputRequest req;
  add_goodput_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::goodput(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
