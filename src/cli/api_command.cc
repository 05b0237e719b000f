// The CLI's face of every API command (api::commands()): the command's options over a CLI11 app with
// --catalog, --calibration and --json, parsed from argv, evaluated by the API (api::bind_command), and
// presented: text on stdout, or the document with --json.
#include <string>
#include <string_view>

#include "api/command_line.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "core/suggest.h"

namespace gpuplan::cli {

namespace {

// The commands whose first argument is a sub-command (list or show): an unknown one gets a suggestion
// instead of CLI11's "not expected".
bool takes_list_or_show(std::string_view command) { return command == "catalog" || command == "model" || command == "recipe"; }

}  // namespace

int run_api_command(const std::string& command, int argc, char** argv) {
  CLI::App app{"", "gpuplan " + command};
  CommonOptions common;
  add_common_options(app, common, /*csv=*/true);
  if (takes_list_or_show(command) && argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != "list" &&
      std::string(argv[1]) != "show") {
    print_error("unknown " + command + " command '" + argv[1] + "'" + did_you_mean(argv[1], {"list", "show"}) +
                    "; use list or show (see --help)",
                "command", kExitBadInput);
    return kExitBadInput;
  }
  const auto bound = bind_command(command, app);
  if (int rc = parse_args(app, argc, argv, bound->request()); rc >= 0) return rc;
  return run_guarded([&] {
    if (!bound->reads_catalog())
      return present(common, [&](Output& out) { return bound->evaluate(nullptr, out); });
    const Catalog catalog = load_catalog(common);
    return present(common, [&](Output& out) { return bound->evaluate(&catalog, out); });
  });
}

}  // namespace gpuplan::cli
