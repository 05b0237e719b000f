#pragma once
// Every sub-command of the gpuplan CLI: one function each, taking the arguments after its name
// (argv[0] is "gpuplan NAME"). Returns the process exit code. The table lives in main.cc.

namespace gpuplan::cli {

int cmd_catalog(int argc, char** argv);
int cmd_model(int argc, char** argv);
int cmd_memory(int argc, char** argv);
int cmd_train(int argc, char** argv);
int cmd_infer(int argc, char** argv);
int cmd_search(int argc, char** argv);
int cmd_scale(int argc, char** argv);
int cmd_validate(int argc, char** argv);
int cmd_calibrate(int argc, char** argv);
int cmd_schedule(int argc, char** argv);
int cmd_export(int argc, char** argv);
int cmd_site(int argc, char** argv);
int cmd_fabric(int argc, char** argv);
int cmd_cost(int argc, char** argv);
int cmd_compare(int argc, char** argv);
int cmd_recommend(int argc, char** argv);
int cmd_goodput(int argc, char** argv);
int cmd_doctor(int argc, char** argv);
int cmd_probe(int argc, char** argv);
int cmd_report(int argc, char** argv);
int cmd_serve(int argc, char** argv);

}  // namespace gpuplan::cli
