// gpuplan schedule: replay a trace on a cluster under placement policies, side by side.
#include "api/schedule.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_schedule(int argc, char** argv) {
  CLI::App app{"", "gpuplan schedule"};
  CommonOptions common;
  add_common_options(app, common);
  ScheduleRequest req;
  add_schedule_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::schedule(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
