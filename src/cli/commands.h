#pragma once
// The sub-commands of the gpuplan CLI, each taking the arguments after its name (argv[0] is
// "gpuplan NAME") and returning the process exit code: every API command through run_api_command(),
// the CLI's own commands one function each (their table lives in main.cc).
#include <string>

namespace gpuplan::cli {

// Any command of api::commands(), by name.
int run_api_command(const std::string& command, int argc, char** argv);

int cmd_calibrate(int argc, char** argv);
int cmd_export(int argc, char** argv);
int cmd_doctor(int argc, char** argv);
int cmd_probe(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_serve(int argc, char** argv);

}  // namespace gpuplan::cli
