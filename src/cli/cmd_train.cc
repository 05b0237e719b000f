// gpuplan train: predict one optimizer step of a training job under a plan.
#include "api/train.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_train(int argc, char** argv) {
  CLI::App app{"", "gpuplan train"};
  CommonOptions common;
  add_common_options(app, common);
  TrainRequest req;
  add_train_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::train(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
