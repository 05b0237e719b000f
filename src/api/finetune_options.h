#pragma once
// The fine-tuning method options every training command shares (train, search, memory, cost,
// recommend --task finetune): --method full|lora|qlora, --lora-rank, --lora-targets,
// --lora-optimizer-bits, --qlora-kernel, --loss-precision, and the training loop's --kernels fused|eager.
// One definition, so the same workload gives the same figure everywhere.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "api/options.h"
#include "model/model.h"
#include "plan/finetune.h"

namespace gpuplan::api {

struct FinetuneOptions {
  std::string method = "full", targets = "all-linear", qlora_kernel = "nf4-bnb", loss_precision = "fp32",
              kernels = "fused";
  int rank = 16;
  int optimizer_bits = 32;
};

void add_finetune_options(CLI::App& app, FinetuneOptions& o);

// The spec the options give; a LoRA option without --method lora|qlora, or a bad value -> InputError
// naming the option.
FinetuneSpec finetune_spec(const FinetuneOptions& o, const RequestBase& req);

// Whether the spec says more than the defaults (full fine-tuning, fused kernels, an fp32 loss): then the
// commands print it and their JSON carries finetune_json.
bool finetune_stated(const FinetuneSpec& f);

// {"method", "lora_rank", "lora_targets", "optimizer_bits", "loss_precision", "adapter_params",
// "frozen_bytes_per_param"}.
nlohmann::json finetune_json(const ModelArch& m, const FinetuneSpec& f);

}  // namespace gpuplan::api
