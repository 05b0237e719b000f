// LoRA / QLoRA step time: the frozen base's backward without weight gradients, the adapters' GEMMs,
// QLoRA's dequantize passes, the data-parallel traffic of the adapters alone.
#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "model/model_registry.h"
#include "physics/hardware.h"
#include "training/lora_step.h"
#include "training/training_step.h"

namespace gpuplan {
namespace lora_step_test {

struct Job {
  ModelArch m;
  Hardware hw;
  TrainingPlan p;
  TrainingWorkload w;
};

Job job(const std::string& model, const std::string& plan, int gpus, FinetuneMethod method) {
  static const Catalog catalog = Catalog::builtin();
  Job j{resolve_model(model), resolve_hardware(catalog, "hgx-h100"), parse_training_plan(plan), {}};
  j.p.dp = 0;
  j.w.num_gpus = gpus;
  j.w.global_batch = 64;
  j.w.seq_len = 4096;
  j.w.finetune.method = method;
  return j;
}

TrainingResult eval(const Job& j) { return evaluate_training(j.m, j.hw, j.p, j.w); }

TEST(LoraStep, FrozenBaseSkipsWeightGradients) {
  const TrainingResult full = eval(job("llama3.1-8b", "tp=1,mbs=1,recompute=full", 8, FinetuneMethod::full));
  const TrainingResult lora = eval(job("llama3.1-8b", "tp=1,mbs=1,recompute=full", 8, FinetuneMethod::lora));
  ASSERT_TRUE(full.valid() && lora.valid());
  // GEMM time: forward + data gradients (2 of the 3 passes) plus the adapters, which run at HBM speed
  // (reading each adapted layer's input again): above 2/3 of full training's, well below all of it.
  EXPECT_GT(lora.parts.gemm_s / full.parts.gemm_s, 2.0 / 3.0);
  EXPECT_LT(lora.parts.gemm_s / full.parts.gemm_s, 0.8);
  EXPECT_LT(lora.step_time_s, full.step_time_s);
  // The adapters alone are all-reduced and stepped.
  EXPECT_LE(lora.parts.dp_comm_s, full.parts.dp_comm_s);
  EXPECT_LT(lora.parts.optimizer_s, 0.05 * full.parts.optimizer_s);
  // Model FLOPs per token: 4N of the base plus the adapters' 6 per adapter parameter.
  EXPECT_NEAR(lora.model_flops_per_token_6n / full.model_flops_per_token_6n, 2.0 / 3.0, 0.01);
}

TEST(LoraStep, QloraPaysTheDequantize) {
  const Job q = job("llama3.1-70b", "tp=1,mbs=1,recompute=full", 1, FinetuneMethod::qlora);
  const TrainingResult lora = eval(job("llama3.1-70b", "tp=1,mbs=1,recompute=full", 1, FinetuneMethod::lora));
  const TrainingResult qlora = eval(q);
  ASSERT_TRUE(qlora.valid());
  EXPECT_GT(qlora.step_time_s, lora.step_time_s);
  // One pass reads the 68.5B NF4 layer weights (0.516 B) and writes them in bf16 (2 B): ~172 GB of HBM
  // traffic, three passes a micro-batch under full recompute (forward, recomputed forward, backward).
  const LoraStepCost c = lora_step_cost(q.m, q.hw, q.p, q.w, 4096.0, q.m.layers);
  EXPECT_GT(c.dequantize_pass_s, 68.4e9 * 2.516 / q.hw.accelerator.memory_bandwidth_bytes_per_s);
  EXPECT_NEAR(qlora.parts.memory_bound_s + qlora.parts.recompute_s - lora.parts.memory_bound_s - lora.parts.recompute_s,
              64.0 * 3.0 * c.dequantize_pass_s, 1e-6 * qlora.step_time_s);
  EXPECT_TRUE(qlora.memory.fits);
  EXPECT_FALSE(lora.memory.fits);
}

TEST(LoraStep, DequantizeBytesByKernelFamily) {
  FinetuneSpec f;
  f.method = FinetuneMethod::lora;
  EXPECT_EQ(qlora_dequantize(f).bytes_per_param, 0.0);  // a bf16 base is read by its GEMMs as it is
  f.method = FinetuneMethod::full;
  EXPECT_EQ(qlora_dequantize(f).bytes_per_param, 0.0);
  f.method = FinetuneMethod::qlora;
  // bitsandbytes: read NF4 and its double-quantized constants, write bf16; again in the backward.
  EXPECT_NEAR(qlora_dequantize(f).bytes_per_param, 0.5 + 0.127 / 8 + 2.0, 1e-3);
  EXPECT_TRUE(qlora_dequantize(f).backward_repeats);
  // AutoGPTQ's PyTorch unpack: shift to int32, cast to int8, mask, zero points, scales to fp16.
  f.quant_kernel = QuantKernel::gptq;
  EXPECT_DOUBLE_EQ(qlora_dequantize(f).bytes_per_param, 16.5);
  EXPECT_FALSE(qlora_dequantize(f).backward_repeats);
}

TEST(LoraStep, DequantizeScalesWithWeightBytesAndPasses) {
  Job q = job("llama3.1-8b", "tp=1,mbs=1,recompute=full", 1, FinetuneMethod::qlora);
  const Job lora = job("llama3.1-8b", "tp=1,mbs=1,recompute=full", 1, FinetuneMethod::lora);
  const LoraStepCost none = lora_step_cost(lora.m, lora.hw, lora.p, lora.w, 4096.0, lora.m.layers);
  EXPECT_EQ(none.dequantize_pass_s, 0.0);
  EXPECT_EQ(none.backward_dequantize_s, 0.0);
  // One pass moves the layers' weights times the kernel's bytes per parameter; half the layers, half the time.
  const LoraStepCost all = lora_step_cost(q.m, q.hw, q.p, q.w, 4096.0, q.m.layers);
  const LoraStepCost half = lora_step_cost(q.m, q.hw, q.p, q.w, 4096.0, q.m.layers / 2.0);
  EXPECT_NEAR(half.dequantize_pass_s / all.dequantize_pass_s, 0.5, 1e-9);
  EXPECT_EQ(all.backward_dequantize_s, all.dequantize_pass_s);
  // The time is the bytes at HBM speed, independent of the tokens a micro-batch carries.
  EXPECT_EQ(lora_step_cost(q.m, q.hw, q.p, q.w, 256.0, q.m.layers).dequantize_pass_s, all.dequantize_pass_s);
  Job g = q;
  g.w.finetune.quant_kernel = QuantKernel::gptq;
  const LoraStepCost gptq = lora_step_cost(g.m, g.hw, g.p, g.w, 4096.0, g.m.layers);
  EXPECT_NEAR(gptq.dequantize_pass_s / all.dequantize_pass_s, 16.5 / qlora_dequantize(q.w.finetune).bytes_per_param,
              1e-6);
  EXPECT_EQ(gptq.backward_dequantize_s, 0.0);
  // Per micro-batch under full recompute: forward + recomputed forward (+ backward for bitsandbytes).
  const TrainingResult rl = eval(lora), rq = eval(q), rg = eval(g);
  ASSERT_TRUE(rl.valid() && rq.valid() && rg.valid());
  const double k = 64.0;  // micro-batches a step (global batch 64, one GPU, mbs 1)
  auto extra = [&](const TrainingResult& r) {
    return r.parts.memory_bound_s + r.parts.recompute_s - rl.parts.memory_bound_s - rl.parts.recompute_s;
  };
  EXPECT_NEAR(extra(rq), k * 3.0 * all.dequantize_pass_s, 1e-6 * rq.step_time_s);
  EXPECT_NEAR(extra(rg), k * 2.0 * gptq.dequantize_pass_s, 1e-6 * rg.step_time_s);
}

TEST(LoraStep, FullMethodIsTheDefault) {
  const Job a = job("llama3.1-70b", "tp=4,pp=4,vp=5,mbs=1,recompute=selective", 64, FinetuneMethod::full);
  Job b = a;
  b.w.finetune = FinetuneSpec{};
  EXPECT_EQ(eval(a).step_time_s, eval(b).step_time_s);
}

TEST(LoraStep, BadSpecIsAViolation) {
  Job j = job("llama3.1-8b", "tp=1,mbs=1", 8, FinetuneMethod::qlora);
  j.w.precision = Precision::fp8;
  const TrainingResult r = eval(j);
  ASSERT_FALSE(r.valid());
  EXPECT_EQ(r.violations.back().code, "finetune.invalid");
}

}  // namespace lora_step_test
}  // namespace gpuplan
