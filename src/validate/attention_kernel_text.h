#pragma once
// How published tables name the attention kernel a training run used, read as `train --attention-kernel`
// (training/framework_release.h): one table of spellings, not a rule per row.
#include <optional>
#include <string>

#include "training/framework_release.h"

namespace gpuplan {

struct AttentionKernelReading {
  AttentionKernel kernel = AttentionKernel::release;  // release: the text names no kernel
  std::string spelling;                               // the words that decided, as the text writes them
};

// The kernel the text (a row's notes) names. The first rule that matches decides:
//  1. a Hopper-native kernel: "FlashAttention-3", "FA3", "flash_attn_interface", "cuDNN (fused) attention",
//     "fused attention" -> native;
//  2. FlashAttention without a version or with version 2 ("flash attention", "FlashAttention-2", "FA2",
//     "flash-attn", "flash_attn"), or PyTorch's SDPA ("SDPA", "scaled_dot_product_attention") ->
//     flash-attention-2: the flash-attn package's flash_attn_func and SDPA's flash backend are
//     FlashAttention-2 whatever the year (FlashAttention-3 is a separate interface, named when used);
//  3. otherwise the release decides.
AttentionKernelReading read_attention_kernel(const std::string& text);

}  // namespace gpuplan
