// The attention kernel as a row's notes name it: Hopper-native kernels, FlashAttention-2 (a version or
// none, the flash-attn package, PyTorch SDPA), or nothing (the release decides).
#include "validate/attention_kernel_text.h"

#include <gtest/gtest.h>

namespace gpuplan {
namespace {

TEST(AttentionKernelText, NamesReadAsTheKernel) {
  for (const char* t : {"MHA, no biases, GELU MLP, LayerNorm, flash attention", "FlashAttention-2 (2.3.3)",
                        "attn_impl flash (flash-attn 2.4)", "FA2", "torch SDPA", "F.scaled_dot_product_attention",
                        "flash_attn_func"}) {
    const auto r = read_attention_kernel(t);
    EXPECT_EQ(r.kernel, AttentionKernel::flash_attention_2) << t;
    EXPECT_FALSE(r.spelling.empty()) << t;
  }
  for (const char* t : {"FlashAttention-3", "flash attention 3 (hopper)", "FA3 kernels", "cuDNN fused attention",
                        "TE fused attention (cuDNN)", "flash_attn_interface from the hopper build"})
    EXPECT_EQ(read_attention_kernel(t).kernel, AttentionKernel::native) << t;
}

TEST(AttentionKernelText, NoKernelNamedLeavesTheRelease) {
  for (const char* t : {"", "MoE with DeepEP all-to-all", "selective recompute of the attention core",
                        "attention heads 64, GQA 8", "fast attention-free layers"})
    EXPECT_EQ(read_attention_kernel(t).kernel, AttentionKernel::release) << t;
}

}  // namespace
}  // namespace gpuplan
