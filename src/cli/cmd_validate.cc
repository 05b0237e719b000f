// gpuplan validate: score the performance models against published measurements.
#include "api/validate.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_validate(int argc, char** argv) {
  CLI::App app{"", "gpuplan validate"};
  CommonOptions common;
  add_common_options(app, common);
  ValidateRequest req;
  add_validate_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::validate(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
