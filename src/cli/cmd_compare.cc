// gpuplan compare: two systems side by side under each yardstick a headline might use, and vendors'
// claims replayed under their stated conditions.
#include "api/compare.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_compare(int argc, char** argv) {
  CLI::App app{"", "gpuplan compare"};
  CommonOptions common;
  add_common_options(app, common);
  CompareRequest req;
  add_compare_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::compare(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
