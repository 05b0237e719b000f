// gpuplan site: will the site hold the cluster (power, cooling, positions), and what a power budget buys.
#include "api/site.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_site(int argc, char** argv) {
  CLI::App app{"", "gpuplan site"};
  CommonOptions common;
  add_common_options(app, common);
  SiteRequest req;
  add_site_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::site(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
