// gpuplan model list | gpuplan model show NAME|PATH.json [--seq L]
// Lists the built-in transformer architectures, or shows one (built-in or a Hugging Face
// config.json) with its parameter counts against the published ones, FLOPs and KV-cache per token.
#include "api/model.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/suggest.h"

namespace gpuplan::cli {

int cmd_model(int argc, char** argv) {
  CLI::App app{"", "gpuplan model"};
  CommonOptions common;
  add_common_options(app, common);
  ModelRequest req;
  add_model_options(app, req);
  if (argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != "list" && std::string(argv[1]) != "show") {
    print_error(std::string("unknown model command '") + argv[1] + "'" + did_you_mean(argv[1], {"list", "show"}) +
                    "; use list or show (see --help)",
                "command", kExitBadInput);
    return kExitBadInput;
  }
  if (int rc = parse_args(app, argc, argv, req); rc >= 0) return rc;
  return run_guarded([&] { return present(common.json, [&](Output& out) { return api::model(req, out); }); });
}

}  // namespace gpuplan::cli
