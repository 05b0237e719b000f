// gpuplan memory: per-GPU memory of training under a plan, or of inference at a concurrency.
#include "api/memory.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

int cmd_memory(int argc, char** argv) {
  CLI::App app{"", "gpuplan memory"};
  CommonOptions common;
  add_common_options(app, common);
  MemoryRequest req;
  add_memory_options(app, req);
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] {
    const Catalog catalog = load_catalog(common);
    return present(common.json, [&](Output& out) { return api::memory(catalog, req, out); });
  });
}

}  // namespace gpuplan::cli
