// LoRA / QLoRA memory: adapter counts, the frozen base's bytes, and the published fine-tuning memory
// measurements in tests/data/finetune_memory.csv (sources in its rows).
#include "memory/lora_memory.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "memory/training_memory.h"
#include "model/model_registry.h"

namespace gpuplan {
namespace lora_memory_test {

FinetuneSpec qlora(int rank) {
  FinetuneSpec f;
  f.method = FinetuneMethod::qlora;
  f.rank = rank;
  return f;
}

// One GPU, one sequence, gradient checkpointing (Hugging Face's gradient_checkpointing, which
// prepare_model_for_kbit_training turns on): the single-GPU fine-tuning the published rows measure.
TrainingMemory one_gpu(const ModelArch& m, const FinetuneSpec& f, int seq, double capacity_bytes) {
  TrainingWorkload w;
  w.num_gpus = 1;
  w.global_batch = 1;
  w.seq_len = seq;
  w.finetune = f;
  MemoryOptions o;
  o.capacity_bytes = capacity_bytes;
  return training_memory(m, parse_training_plan("tp=1,pp=1,mbs=1,recompute=full"), w, o);
}

TEST(LoraMemory, AdapterCountsLlama70b) {
  const ModelArch m = resolve_model("llama3.1-70b");
  // Per layer, r = 16: q 16*(8192+8192), k and v 16*(8192+1024), o 16*(8192+8192), gate and up
  // 16*(8192+28672), down 16*(28672+8192) = 2,588,672; 80 layers.
  EXPECT_DOUBLE_EQ(lora_adapter_params(m, qlora(16)), 80.0 * 2588672);
  FinetuneSpec attn = qlora(16);
  attn.targets = parse_lora_targets("attention");
  EXPECT_DOUBLE_EQ(lora_adapter_params(m, attn), 80.0 * 16 * (2 * 16384 + 2 * 9216));
  FinetuneSpec qv = qlora(8);
  qv.targets = parse_lora_targets("q_proj,v_proj");
  EXPECT_DOUBLE_EQ(lora_adapter_params(m, qv), 80.0 * 8 * (16384 + 9216));
  EXPECT_DOUBLE_EQ(lora_forward_flops_per_token(m, qlora(16)), 2.0 * 80 * 2588672);
  FinetuneSpec full;
  EXPECT_EQ(lora_adapter_params(m, full), 0);
}

TEST(LoraMemory, MoeAdaptersPerExpert) {
  const ModelArch m = resolve_model("mixtral-8x7b");
  const LoraLayerAdapters a = lora_layer_adapters(m, qlora(8), true);
  EXPECT_DOUBLE_EQ(a.experts, 8.0 * 8 * 3 * (4096 + 14336));
  EXPECT_DOUBLE_EQ(a.active_experts, 2.0 * 8 * 3 * (4096 + 14336));
}

TEST(LoraMemory, FrozenBaseBytes) {
  EXPECT_NEAR(kDoubleQuantBitsPerParam, 0.127, 0.0005);  // QLoRA paper, sec. 3
  EXPECT_DOUBLE_EQ(frozen_bytes_per_param(qlora(16)), 0.5 + kDoubleQuantBitsPerParam / 8);
  FinetuneSpec lora = qlora(16);
  lora.method = FinetuneMethod::lora;
  EXPECT_DOUBLE_EQ(frozen_bytes_per_param(lora), 2.0);
}

// The target: Llama 3.1 70B QLoRA (rank 16, all linear layers, 4K context) fits on one 80 GB GPU;
// LoRA on a bf16 base and full fine-tuning do not.
TEST(LoraMemory, Llama70bQloraFitsOneGpuFullDoesNot) {
  const ModelArch m = resolve_model("llama3.1-70b");
  const double h100 = 80.0 * (1 << 30);
  const TrainingMemory q = one_gpu(m, qlora(16), 4096, h100);
  EXPECT_TRUE(q.fits) << q.total_bytes / 1e9;
  // Frozen weights: 68.5B layer parameters in NF4 (35.3 GB) and the bf16 embedding and head (4.2 GB).
  EXPECT_NEAR(q.weights_bytes / 1e9, 35.3 + 4.2 + 4 * 0.207, 0.3);
  EXPECT_NEAR(q.gradients_bytes / 1e9, 4 * 0.207, 0.01);
  EXPECT_NEAR(q.optimizer_bytes / 1e9, 8 * 0.207, 0.01);
  FinetuneSpec lora = qlora(16);
  lora.method = FinetuneMethod::lora;
  EXPECT_FALSE(one_gpu(m, lora, 4096, h100).fits);
  EXPECT_FALSE(one_gpu(m, FinetuneSpec{}, 4096, h100).fits);
  // More rank, more memory; 8-bit moments, less.
  EXPECT_GT(one_gpu(m, qlora(64), 4096, h100).total_bytes, q.total_bytes);
  FinetuneSpec eight = qlora(16);
  eight.optimizer_bits = 8;
  EXPECT_LT(one_gpu(m, eight, 4096, h100).optimizer_bytes, q.optimizer_bytes);
}

TEST(LoraMemory, FullMethodLeavesTrainingMemoryUnchanged) {
  const ModelArch m = resolve_model("llama3.1-70b");
  TrainingWorkload w;
  w.num_gpus = 64;
  w.global_batch = 128;
  w.seq_len = 8192;
  const TrainingPlan p = parse_training_plan("tp=4,pp=4,vp=5,mbs=1,recompute=selective");
  const TrainingMemory a = training_memory(m, p, w), b = training_memory(m, p, TrainingWorkload(w));
  EXPECT_EQ(a.total_bytes, b.total_bytes);
  // With adapters the same plan holds less: no full gradients or optimizer state.
  w.finetune = qlora(16);
  w.finetune.method = FinetuneMethod::lora;
  EXPECT_LT(training_memory(m, p, w).total_bytes, a.total_bytes);
}

// The loss's buffers by its dtype (lora_memory.h): fp32, an eager cross-entropy on upcast logits, the
// H200-measured 14 B (the 16-bit logits, the saved fp32 log-softmax, its incoming and written gradients)
// that full training's eager loop charges too; bf16 / fp16, the loss on lm_head's output as it is (Qwen 1
// under DeepSpeed fp16): the three 2-byte tensors, nothing cast.
TEST(LoraMemory, LossBuffersByPrecision) {
  EXPECT_DOUBLE_EQ(hf_loss_bytes_per_logit(LossPrecision::fp32), 14.0);
  FinetuneSpec eager;
  eager.kernels = LoopKernels::eager;
  EXPECT_DOUBLE_EQ(hf_loss_bytes_per_logit(LossPrecision::fp32), loss_bytes_per_logit(eager));
  EXPECT_DOUBLE_EQ(hf_loss_bytes_per_logit(LossPrecision::bf16), 6.0);
  EXPECT_DOUBLE_EQ(hf_loss_bytes_per_logit(LossPrecision::fp16), 6.0);
  EXPECT_EQ(parse_loss_precision("bf16"), LossPrecision::bf16);
  EXPECT_EQ(to_string(LossPrecision::fp16), "fp16");
  try {
    parse_loss_precision("fp8");
    ADD_FAILURE() << "fp8 accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--loss-precision");
  }
  // Llama 3.1 8B QLoRA, one 8K sequence: only the last stage's loss buffers move, by 8 B per vocabulary
  // entry and token; the fused (full fine-tuning) loss keeps its logits in 4 or 2 B.
  const ModelArch m = resolve_model("llama3.1-8b");
  FinetuneSpec bf16 = qlora(16);
  bf16.loss_precision = LossPrecision::bf16;
  const TrainingMemory a = one_gpu(m, qlora(16), 8192, 0), b = one_gpu(m, bf16, 8192, 0);
  EXPECT_DOUBLE_EQ(a.stages[0].logits_bytes, 8192.0 * 128256 * 14);
  EXPECT_DOUBLE_EQ(b.stages[0].logits_bytes, 8192.0 * 128256 * 6);
  EXPECT_NEAR(a.total_bytes - b.total_bytes, 8192.0 * 128256 * 8, 1.0);
  EXPECT_DOUBLE_EQ(a.weights_bytes, b.weights_bytes);
  FinetuneSpec full, full16;
  full16.loss_precision = LossPrecision::bf16;
  EXPECT_DOUBLE_EQ(one_gpu(m, full, 8192, 0).stages[0].logits_bytes, 8192.0 * 128256 * 4);
  EXPECT_DOUBLE_EQ(one_gpu(m, full16, 8192, 0).stages[0].logits_bytes, 8192.0 * 128256 * 2);
}

TEST(LoraMemory, BadSpecsNameTheOption) {
  const ModelArch m = resolve_model("llama3.1-8b");
  TrainingWorkload w;
  w.num_gpus = 1;
  w.global_batch = 1;
  w.finetune = qlora(0);
  const TrainingPlan p = parse_training_plan("tp=1");
  for (int rank : {0, 4097}) {
    w.finetune = qlora(rank);
    try {
      training_memory(m, p, w);
      ADD_FAILURE() << rank;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "--lora-rank");
    }
  }
  w.finetune = qlora(16);
  w.precision = Precision::fp8;
  try {
    training_memory(m, p, w);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--precision");
  }
  EXPECT_THROW(parse_lora_targets("qkvo"), InputError);
  EXPECT_THROW(parse_lora_targets(""), InputError);
  EXPECT_THROW(parse_finetune_method("dora"), InputError);
  EXPECT_EQ(to_string(parse_lora_targets("q_proj, k_proj, v_proj, o_proj")), "attention");
  EXPECT_EQ(to_string(parse_lora_targets("qkv")), "q,k,v");
}

// Published single-GPU QLoRA memory (tests/data/finetune_memory.csv): at the longest context a GPU
// ran, the predicted memory is within 15% of the GPU's memory; where it ran out of memory at any
// length, the prediction at 512 tokens does not fit; where it fit, the prediction is within 15%.
TEST(LoraMemory, PublishedFineTuningMemory) {
  std::ifstream in(std::string(GPUPLAN_SOURCE_DIR) + "/tests/data/finetune_memory.csv");
  ASSERT_TRUE(in) << "tests/data/finetune_memory.csv";
  std::string line;
  std::getline(in, line);  // header
  int rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::string cell;
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;
      else if (ch == ',' && !quoted) c.push_back(cell), cell.clear();
      else cell += ch;
    }
    c.push_back(cell);
    ASSERT_GE(c.size(), 13u) << line;
    std::string model = c[2];
    if (model.rfind("src/", 0) == 0) model = std::string(GPUPLAN_SOURCE_DIR) + "/" + model;
    const ModelArch m = resolve_model(model);
    FinetuneSpec f = qlora(std::stoi(c[4]));
    f.method = parse_finetune_method(c[3]);
    f.targets = parse_lora_targets(c[5]);
    const double capacity = std::stod(c[6]) * (1 << 30);  // the card's GiB
    const std::string metric = c[11], value = c[12];
    const int seq = c[7].empty() ? 512 : std::stoi(c[7]);
    const TrainingMemory r = one_gpu(m, f, seq, capacity);
    if (value == "OOM") {
      EXPECT_FALSE(r.fits) << line;
    } else {
      EXPECT_NEAR(r.total_bytes / capacity, 1.0, 0.15) << line << "\n predicted " << r.total_bytes / 1e9 << " GB";
    }
    ++rows;
  }
  EXPECT_EQ(rows, 9);
}

}  // namespace lora_memory_test
}  // namespace gpuplan
