// gpuplan search: enumerate training plans, drop those that do not divide or fit, rank the rest.
#include "api/search.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_search(int argc, char** argv) {
  CLI::App app{"", "gpuplan search"};
  CommonOptions common;
  add_common_options(app, common);
  SearchRequest req;
  add_search_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::search(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
