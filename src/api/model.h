#pragma once
// gpuplan model list | gpuplan model show NAME: the built-in transformer architectures, or one with
// its parameter counts (against the published ones), FLOPs per token and KV-cache bytes per token.
#include <CLI/CLI.hpp>

#include <string>

#include "api/options.h"
#include "api/output.h"

namespace gpuplan::api {

// The options of `gpuplan model` (the CLI, run() and the faces over it share them).
struct ModelRequest : RequestBase {
  bool list = false;  // the `list` sub-command ran; else `show`
  std::string name;   // show: a built-in name or alias, or a config.json path
  int seq = 4096;     // show: tokens for attention FLOPs and KV-cache totals
};

// Defines the sub-commands and their arguments on `app`, bound to `req`.
void add_model_options(CLI::App& app, ModelRequest& req);

// The table or the model: the document, or the terminal text, into `output`.
int model(ModelRequest req, Output& output);

}  // namespace gpuplan::api
