// gpuplan catalog list [accelerators|systems|networks] | gpuplan catalog show NAME
// Lists the catalog (built-in plus --catalog overlays) or shows one entry with each figure's unit and
// source and where the entry came from.
#include "api/catalog.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/suggest.h"

namespace gpuplan::cli {

int cmd_catalog(int argc, char** argv) {
  CLI::App app{"", "gpuplan catalog"};
  CommonOptions common;
  add_common_options(app, common);
  CatalogRequest req;
  add_catalog_options(app, req);
  // An unknown sub-command gets a suggestion instead of CLI11's "not expected".
  if (argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != "list" && std::string(argv[1]) != "show") {
    print_error(std::string("unknown catalog command '") + argv[1] + "'" + did_you_mean(argv[1], {"list", "show"}) +
                    "; use list or show (see --help)",
                "command", kExitBadInput);
    return kExitBadInput;
  }
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::catalog(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
