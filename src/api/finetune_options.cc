#include "api/finetune_options.h"

#include <fmt/format.h>

#include "api/mode_options.h"
#include "core/error.h"
#include "memory/lora_memory.h"

namespace gpuplan::api {

void add_finetune_options(CLI::App& app, FinetuneOptions& o) {
  app.add_option("--method", o.method,
                 "Fine-tuning method: full (every weight trained), lora (frozen bf16 base, low-rank adapters) or "
                 "qlora (frozen NF4 base with double quantization, bf16 compute, adapters)")
      ->capture_default_str();
  app.add_option("--lora-rank", o.rank, "LoRA/QLoRA: adapter rank r (1 to the hidden size)")->capture_default_str();
  app.add_option("--lora-targets", o.targets,
                 "LoRA/QLoRA: linear layers with adapters: all-linear, attention, mlp, qkv, or a comma list of q, k, "
                 "v, o, gate, up, down")
      ->capture_default_str();
  app.add_option("--lora-optimizer-bits", o.optimizer_bits,
                 "LoRA/QLoRA: the adapters' Adam moments, 32 or 8 bits (bitsandbytes paged AdamW)")
      ->capture_default_str();
  app.add_option("--qlora-kernel", o.qlora_kernel,
                 "QLoRA: the 4-bit base's format and kernels: nf4-bnb (bitsandbytes NF4) or gptq (AutoGPTQ int4)")
      ->capture_default_str();
  app.add_option("--loss-precision", o.loss_precision,
                 "The dtype the loss (cross-entropy over the vocabulary) runs in: fp32 (logits upcast: Transformers, any "
                 "loss under torch.autocast, Megatron) or bf16 / fp16 (the compute dtype, no autocast: Qwen 1's "
                 "modelling code under DeepSpeed fp16)")
      ->capture_default_str();
  app.add_option("--kernels", o.kernels,
                 "The training loop's kernels, which set the activation memory: fused (Megatron-Core / Transformer "
                 "Engine, or torch.compile'd layers) or eager (PyTorch modules under autocast with fp32 parameters, "
                 "F.cross_entropy on fp32 logits)")
      ->capture_default_str();
}

FinetuneSpec finetune_spec(const FinetuneOptions& o, const RequestBase& req) {
  FinetuneSpec f;
  f.method = parse_finetune_method(o.method);
  f.loss_precision = parse_loss_precision(o.loss_precision);
  f.kernels = parse_loop_kernels(o.kernels);
  if (f.is_full()) {
    refuse_ignored_options(req, {"--lora-rank", "--lora-targets", "--lora-optimizer-bits", "--qlora-kernel"},
                           "applies to --method lora or qlora, not full fine-tuning");
    return f;
  }
  if (o.rank < 1 || o.rank > 65536) throw InputError("--lora-rank", fmt::format("must be 1 to 65536, got {}", o.rank));
  f.rank = o.rank;
  f.targets = parse_lora_targets(o.targets);
  if (o.optimizer_bits != 8 && o.optimizer_bits != 32)
    throw InputError("--lora-optimizer-bits", fmt::format("must be 8 or 32, got {}", o.optimizer_bits));
  f.optimizer_bits = o.optimizer_bits;
  f.quant_kernel = parse_quant_kernel(o.qlora_kernel);
  if (!f.quantized_base() && req.given("--qlora-kernel"))
    throw InputError("--qlora-kernel", "applies to --method qlora only");
  return f;
}

bool finetune_stated(const FinetuneSpec& f) {
  return !f.is_full() || f.kernels != LoopKernels::fused || f.loss_precision != LossPrecision::fp32;
}

nlohmann::json finetune_json(const ModelArch& m, const FinetuneSpec& f) {
  nlohmann::json j = {{"method", to_string(f.method)},
                      {"kernels", to_string(f.kernels)},
                      {"loss_precision", to_string(f.loss_precision)}};
  if (f.is_full()) return j;
  j["lora_rank"] = f.rank;
  j["lora_targets"] = to_string(f.targets);
  j["optimizer_bits"] = f.optimizer_bits;
  if (f.quantized_base()) j["qlora_kernel"] = to_string(f.quant_kernel);
  j["adapter_params"] = lora_adapter_params(m, f);
  j["frozen_bytes_per_param"] = frozen_bytes_per_param(f);
  return j;
}

}  // namespace gpuplan::api
