#pragma once
// gpuplan report KIND: one self-contained HTML page of a command's results (src/report builds the
// pages from the commands' documents; this runs the commands through the API).
#include <cstddef>
#include <string>
#include <vector>

#include "api/api.h"
#include "core/error.h"

namespace gpuplan::api {

struct ReportKind {
  std::string name, help;
};
// compare, train, infer, schedule, site: the kinds with their one-line help.
const std::vector<ReportKind>& report_kinds();
// InputError("KIND", ...) naming the kinds when `kind` is not one.
void check_report_kind(const std::string& kind);

// Options of the report itself, taken out of the arguments before they go to the commands.
struct ReportOptions {
  std::string out;  // the HTML file
  int top = 5;      // train: how many of the search's plans
  std::string scale_gpus;  // train: GPU counts of the scaling sweep
};

// Splits the report's own options (--out, --top, --scale-gpus) off `rest` (the arguments after the
// kind) into `args`, checking them; --json is refused. --out is required for the CLI.
ReportOptions take_report_options(const std::string& kind, const std::vector<std::string>& rest,
                                  std::vector<std::string>& args, bool out_required = true);

// A command of the report found that the plan asked for does not fit (the CLI's exit 3).
class ReportDoesNotFit : public InputError {
 public:
  explicit ReportDoesNotFit(const std::string& message) : InputError("--plan", message.empty() ? "does not fit" : message) {}
};

struct Report {
  std::string html;
  std::size_t charts = 0, sources = 0;
};
// Runs the kind's commands on `args` (a command line without the report's options; --catalog and
// --calibration are the session's) and renders the page; `rest` is what the page shows as the
// command that reproduces it.
Report build_report(const Session& session, const std::string& kind, const std::vector<std::string>& args,
                    const ReportOptions& o, const std::vector<std::string>& rest, const std::string& version);

}  // namespace gpuplan::api
