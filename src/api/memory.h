#pragma once
// gpuplan memory: per-GPU memory of training under a plan, or of inference at a concurrency.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/finetune_options.h"
#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"

namespace gpuplan::api {

// The options of `gpuplan memory` (the CLI, run() and the faces over it share them).
struct MemoryRequest : RequestBase {
  std::string model, system, gpu, precision = "bf16", plan, kv_precision;
  int gpus = 0, seq = 8192, tp = 1, ep = 1, pp = 1;
  long long global_batch = 1024, context = 8192, concurrency = 0;
  double reserve_gb = 5.0;
  bool inference = false;
  FinetuneOptions finetune;  // training: --method full|lora|qlora and the adapters
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_memory_options(CLI::App& app, MemoryRequest& o);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
int memory(const Catalog& catalog, MemoryRequest o, Output& output);

}  // namespace gpuplan::api
