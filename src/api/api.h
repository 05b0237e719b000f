#pragma once
// gpuplan's one API: every command as a library call. The CLI (src/cli), the Python module (python/)
// and the local web server (src/server) are thin faces over these calls, so they cannot drift: the
// same options give the same document, built by one code path.
//
// Contract (issue 15). Implemented in src/api/*.cc; each command's request struct, its options and
// its document builder live in src/api/<command>.{h,cc}; this header is the generic entry point.
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"

namespace gpuplan {
struct Hardware;
}

namespace gpuplan::api {

// The catalog calls run against, loaded once: the built-in catalog overlaid by catalog folders and
// calibration files (the CLI's --catalog DIR and --calibration FILE, then $GPUPLAN_CATALOG).
// Immutable once built; one Session may be shared by any number of threads.
class Session {
 public:
  // Throws InputError naming the folder or file when one cannot be read.
  explicit Session(std::vector<std::string> catalog_dirs = {}, std::vector<std::string> calibration_files = {});
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  const Catalog& catalog() const;
  // The hardware of a system or accelerator of the catalog named as the catalog spells it, resolved
  // (resolve_hardware(), src/physics/hardware.h) once when the Session was made; null for any other
  // name or spelling, which resolve_hardware() resolves (or refuses) as it would have.
  const Hardware* hardware(const std::string& name) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// One command the API answers, with its one-line help (the CLI's `gpuplan --help` table).
struct CommandInfo {
  std::string name;
  std::string help;
};
// Every command run() answers, in the CLI's order.
const std::vector<CommandInfo>& commands();

// Runs `command` with `options` named as its CLI long options ("model", "isl", "plan.tp", "sweep";
// leading dashes optional, '_' may stand for '-' as in Python keywords): values are strings, numbers,
// booleans (flags: true gives the flag, false leaves it out) or arrays (repeatable options); null
// leaves an option out; positional arguments (e.g. `catalog show NAME`, `compare A B`) go under
// "positional" as an array of strings. "json" is ignored (the answer is the document); "catalog" and
// "calibration" are the Session's, not a call's (InputError).
// Returns the versioned document `gpuplan COMMAND ... --json` prints ({"schema": "gpuplan.KIND/v1", ...}).
// Bad input (an unknown option, a value out of range, an unknown name) throws InputError whose
// field() is the option as the CLI's error document names it, with its dashes ("--isl"; "command"
// for an unknown command): the CLI's exit code 2. A plan or deployment that does not fit is a
// result, not an error: its document says so and does_not_fit(document) is true (the CLI's exit 3).
// Pure with respect to the session: thread-safe, no output on stdout/stderr, no files written
// unless an option names one.
nlohmann::json run(const Session& session, std::string_view command, const nlohmann::json& options);

// True when the document reports that the plan asked for, or the one looked for, does not fit (the CLI's
// exit 3): train or memory with "fits": false, goodput with a system whose plan does not fit, infer at a
// target that no deployment meets, search with no plan that fits, scale with none at any GPU count.
bool does_not_fit(const nlohmann::json& document);

// The self-contained HTML report (`gpuplan report KIND ...`) of kind train, infer, schedule, compare
// or site, for the same options as run(KIND, ...). Throws InputError like run().
std::string report_html(const Session& session, std::string_view kind, const nlohmann::json& options);

}  // namespace gpuplan::api
