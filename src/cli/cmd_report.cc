// gpuplan report KIND ...: one self-contained HTML page of a command's results, built by the API
// (src/api/report.cc) from the same commands' documents; this writes the file and says so.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "api/report.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace gpuplan::cli {

namespace report_detail {  // named, not anonymous: the CLI may be built as one unit

using Args = std::vector<std::string>;

bool has_flag(const Args& args, const std::string& name) {
  return std::any_of(args.begin(), args.end(), [&](const std::string& a) { return a == name || a.rfind(name + "=", 0) == 0; });
}

// The session of the report's commands: the --catalog and --calibration options of args.
api::Session session_of(const Args& args) {
  std::vector<std::string> dirs, files;
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (const std::string name : {"--catalog", "--calibration"}) {
      std::vector<std::string>& to = name == "--catalog" ? dirs : files;
      if (args[i] == name && i + 1 < args.size()) to.push_back(args[i + 1]);
      else if (args[i].rfind(name + "=", 0) == 0) to.push_back(args[i].substr(name.size() + 1));
    }
  }
  return api::Session(dirs, files);
}

void print_report_usage() {
  std::cout << "Write one self-contained HTML report (charts, tables, inputs and sources) that opens offline.\n\n"
               "Usage: gpuplan report KIND [options of that command] --out FILE.html\n\nKinds:\n";
  for (const auto& k : api::report_kinds()) std::cout << fmt::format("  {:<10} {}\n", k.name, k.help);
  std::cout << "\nReport options:\n"
               "  --out FILE          the HTML file to write (required)\n"
               "  --top N             train: how many of the search's best plans to show (default 5, 1 to 20)\n"
               "  --scale-gpus LIST   train: GPU counts of the scaling sweep (default: N/4,N/2,N,2N,4N)\n"
               "\nEvery number in the page equals that of the command's --json output; the page lists those commands.\n"
               "`gpuplan report KIND --help` shows that command's options.\n";
}

}  // namespace report_detail

int cmd_report(int argc, char** argv) {
  using namespace report_detail;
  Args all(argv + 1, argv + argc);
  if (all.empty() || all[0] == "--help" || all[0] == "-h") {
    print_report_usage();
    return all.empty() ? kExitBadInput : kExitOk;
  }
  return run_guarded([&]() -> int {
    const std::string kind_name = all[0];
    api::check_report_kind(kind_name);
    Args rest(all.begin() + 1, all.end());
    if (has_flag(rest, "--help") || has_flag(rest, "-h")) {
      print_report_usage();
      std::cout << "\nOptions of `gpuplan " << kind_name << "`:\n";
      std::string label = "gpuplan " + kind_name, help = "--help";
      char* help_argv[] = {label.data(), help.data()};
      return run_api_command(kind_name, 2, help_argv);  // each kind is the command of that name
    }
    Args args;
    const api::ReportOptions o = api::take_report_options(kind_name, rest, args);
    api::Report r;
    try {
      r = api::build_report(session_of(args), kind_name, args, o, rest, GPUPLAN_VERSION);
    } catch (const api::ReportDoesNotFit&) {
      return kExitDoesNotFit;
    }
    check_output_file(o.out, "--out", rest);
    std::ofstream f(o.out, std::ios::binary);
    if (!f || !(f << r.html) || !f.flush()) throw InputError("--out", "cannot write '" + o.out + "'");
    std::cout << fmt::format("Wrote {} ({} charts, {} sources, {:.0f} KB); it opens offline in any browser.\n", o.out,
                             r.charts, r.sources, static_cast<double>(r.html.size()) / 1e3);
    return kExitOk;
  });
}

}  // namespace gpuplan::cli
