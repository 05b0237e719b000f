// gpuplan infer: serving performance of a model on a system: throughput per GPU and per user, TTFT,
// TPOT; or, with --sweep, the Pareto frontier over TP/EP/attention-DP and concurrency.
#include "api/infer.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_infer(int argc, char** argv) {
  CLI::App app{"", "gpuplan infer"};
  CommonOptions common;
  add_common_options(app, common);
  InferRequest req;
  add_infer_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::infer(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
