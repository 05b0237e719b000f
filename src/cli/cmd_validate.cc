#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_validate(int argc, char** argv) {
  CLI::App app{"(not yet implemented)", "gpuplan validate"};
  CommonOptions common;
  add_common_options(app, common);
  if (int rc = parse_args(app, argc, argv); rc >= 0) return rc;
  return run_guarded([&] { return kExitFailure; });
}

}  // namespace gpuplan::cli
