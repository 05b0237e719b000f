#pragma once
// How a training job updates the model: full fine-tuning (every weight trained, the default), LoRA
// (frozen base weights in bf16, low-rank adapters A (r x in) and B (out x r) on the targeted linear
// layers trained; Hu et al. 2021, arXiv:2106.09685) or QLoRA (the frozen base in 4-bit NormalFloat
// with double-quantized constants, bf16 compute, paged optimizer for the adapters; Dettmers et al.
// 2023, arXiv:2305.14314). The method, the adapters' rank and which linear layers carry adapters.
#include <string>

namespace gpuplan {

enum class FinetuneMethod { full, lora, qlora };

// The 4-bit format and kernels a QLoRA base runs through: bitsandbytes NF4 with double quantization
// (the QLoRA paper's, PEFT's default) or a GPTQ int4 checkpoint run by AutoGPTQ (group size 128, fp16
// scales, packed 4-bit zeros).
enum class QuantKernel { nf4_bnb, gptq };

// The linear layers of a transformer block an adapter may sit on (PEFT target_modules by the
// Llama names; MLA, linear-attention and expert layers map onto them: see lora_memory.h).
struct LoraTargets {
  bool q = true, k = true, v = true, o = true;   // attention projections
  bool gate = true, up = true, down = true;      // MLP (dense, shared and routed experts)
  bool any() const { return q || k || v || o || gate || up || down; }
  bool operator==(const LoraTargets&) const = default;
};

// The dtype the causal-LM loss runs in: the logits cross-entropy reads and the log-softmax, gradient
// buffers it makes. fp32: lm_head's 16-bit logits upcast first (Transformers' ForCausalLMLoss,
// Megatron's default fused cross-entropy). bf16 / fp16: the loss in the compute dtype, no upcast (Qwen 1's
// remote modeling_qwen.py; Megatron's --fp16-lm-cross-entropy).
enum class LossPrecision { fp32, bf16, fp16 };
double loss_element_bytes(LossPrecision p);  // 4 (fp32) or 2
// The kernels the training loop runs, which set what its layers keep for the backward: fused
// (Megatron-Core / Transformer Engine, or layers compiled with torch.compile: norms and SwiGLU fused, the
// vocab-parallel cross-entropy in place on fp32 logits) or eager (PyTorch modules under autocast with
// fp32 parameters: the fp32 residual stream's norm inputs, SiLU's output beside its inputs, the
// attention output's contiguous copy, and F.cross_entropy on logits upcast to fp32). See
// docs/training-model.md ("Eager kernels").
enum class LoopKernels { fused, eager };

struct FinetuneSpec {
  FinetuneMethod method = FinetuneMethod::full;
  int rank = 16;            // LoRA rank r
  LoraTargets targets;      // all-linear by default (QLoRA paper: adapters on every linear layer)
  int optimizer_bits = 32;  // the adapters' Adam moments: 32-bit or 8-bit (bitsandbytes paged AdamW)
  QuantKernel quant_kernel = QuantKernel::nf4_bnb;  // QLoRA's base format and kernels
  LossPrecision loss_precision = LossPrecision::fp32;  // every method: the loss's dtype
  LoopKernels kernels = LoopKernels::fused;         // the training loop's kernels (every method)
  bool is_full() const { return method == FinetuneMethod::full; }
  bool quantized_base() const { return method == FinetuneMethod::qlora; }
};

// Parsers for the options; bad values -> InputError naming the option and the allowed values.
FinetuneMethod parse_finetune_method(const std::string& text);  // "--method": full | lora | qlora
QuantKernel parse_quant_kernel(const std::string& text);        // "--qlora-kernel": nf4-bnb | gptq
LossPrecision parse_loss_precision(const std::string& text);    // "--loss-precision": fp32 | bf16 | fp16
LoopKernels parse_loop_kernels(const std::string& text);        // "--kernels": fused | eager
// "--lora-targets": all-linear | attention | mlp | qkv | a comma list of q, k, v, o, gate, up, down
// (PEFT's names q_proj, ..., down_proj are accepted too).
LoraTargets parse_lora_targets(const std::string& text);

std::string to_string(FinetuneMethod m);
std::string to_string(QuantKernel k);  // "nf4-bnb" or "gptq"
std::string to_string(LossPrecision p);  // "fp32", "bf16" or "fp16"
std::string to_string(LoopKernels k);  // "fused" or "eager"
std::string to_string(const LoraTargets& t);  // "all-linear", "attention", "mlp" or "q,v"
// "full", or "qlora r=16 all-linear" (with "8-bit optimizer" when so).
std::string describe(const FinetuneSpec& f);

}  // namespace gpuplan
