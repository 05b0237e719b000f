// gpuplan memory end to end: text and JSON, training and inference, bad input -> exit 2.
#include <gtest/gtest.h>

#include "run_cli.h"

namespace {

TEST(CliMemory, QuickStartInferenceH200) {
  const auto r = run_gpuplan("memory --model llama3-70b --system hgx-h200 --inference --precision bf16 --context 8192");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "weights")) << r.out;
  EXPECT_TRUE(has(r.out, "KV cache")) << r.out;
  EXPECT_TRUE(has(r.out, "% of capacity")) << r.out;
  EXPECT_TRUE(has(r.out, "FITS")) << r.out;
  EXPECT_TRUE(has(r.out, "concurrent sequences")) << r.out;
}

TEST(CliMemory, QuickStartInferenceGb300) {
  const auto r = run_gpuplan("memory --model llama3-70b --system gb300-nvl72 --inference --precision bf16 --context 8192");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "FITS")) << r.out;
}

TEST(CliMemory, InferenceJson) {
  const auto r = run_gpuplan(
      "memory --model llama3-70b --gpu h200-sxm --inference --tp 8 --context 8192 --concurrency 16 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.memory/v1");
  EXPECT_EQ(j["mode"], "inference");
  EXPECT_EQ(j["inference"]["tp"], 8);
  EXPECT_EQ(j["inference"]["concurrency"], 16);
  EXPECT_DOUBLE_EQ(j["inference"]["kv_bytes_per_token"].get<double>(), 327680.0 / 8);
  const auto& p = j["parts"];
  const double sum = p["weights_bytes"].get<double>() + p["kv_cache_bytes"].get<double>() +
                     p["activations_bytes"].get<double>() + p["reserve_bytes"].get<double>();
  EXPECT_NEAR(sum, j["total_bytes"].get<double>(), 1.0);
  EXPECT_NEAR(p["weights_bytes"].get<double>() / 1e9, 141.1 / 8, 0.3);
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_GE(j["inference"]["max_concurrency"].get<long long>(), 16);
}

TEST(CliMemory, DoesNotFitExits3WithTheDocument) {
  // As train's for a plan that does not fit: the answer printed, exit 3.
  const auto r = run_gpuplan("memory --model llama3-70b --gpu h100-sxm --inference --tp 1 --concurrency 1 --json");
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const auto j = r.json();
  EXPECT_FALSE(j["fits"].get<bool>());
  ASSERT_EQ(j["violations"].size(), 1u);
  EXPECT_EQ(j["violations"][0]["code"], "memory.exceeds_capacity");
}

TEST(CliMemory, TrainingText) {
  const auto r = run_gpuplan(
      "memory --model llama3-70b --system hgx-h100 --gpus 64 --seq 4096 --global-batch 128 "
      "--plan tp=8,pp=4,vp=5,recompute=selective");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* part : {"weights", "gradients", "optimizer", "activations", "reserve", "total", "capacity"})
    EXPECT_TRUE(has(r.out, part)) << part << "\n" << r.out;
  EXPECT_TRUE(has(r.out, "FIT")) << r.out;
  EXPECT_TRUE(has(r.out, "stage 0 (first)")) << r.out;
}

TEST(CliMemory, TrainingJson) {
  const auto r = run_gpuplan(
      "memory --model llama3-70b --gpu h100-sxm --gpus 64 --plan tp=8,pp=4 --global-batch 128 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["schema"], "gpuplan.memory/v1");
  EXPECT_EQ(j["mode"], "training");
  EXPECT_EQ(j["training"]["dp"], 2);
  EXPECT_EQ(j["training"]["stages"].size(), 4u);
  const auto& p = j["parts"];
  const double sum = p["weights_bytes"].get<double>() + p["gradients_bytes"].get<double>() +
                     p["optimizer_bytes"].get<double>() + p["activations_bytes"].get<double>() +
                     p["reserve_bytes"].get<double>();
  EXPECT_NEAR(sum, j["total_bytes"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(p["reserve_bytes"].get<double>(), 5e9);
}

TEST(CliMemory, ReserveOption) {
  const auto r = run_gpuplan("memory --model llama3-70b --gpu h100-sxm --gpus 8 --plan tp=8 --reserve-gb 2 --json");
  ASSERT_EQ(r.exit_code, 3) << r.err;  // 70B training on 8 GPUs does not fit: the document says so
  EXPECT_DOUBLE_EQ(r.json()["parts"]["reserve_bytes"].get<double>(), 2e9);
}

struct BadCase {
  const char* args;
  const char* names;  // what the message must name
};

TEST(CliMemory, BadInputExitsTwoNamingTheOption) {
  const BadCase cases[] = {
      {"memory --model llama3-70b --gpu h100-sxm --gpus 0", "--gpus"},
      {"memory --model llama3-70b --gpu h100-sxm --gpus -8", "--gpus"},
      {"memory --model llama3-70b --gpu h100-sxm --gpus 24 --plan tp=3", "--plan.tp"},
      {"memory --model llama3-70b --gpu h100-sxm --seq 0", "--seq"},
      {"memory --model llama3-70b --gpu h100-sxm --global-batch 0", "--global-batch"},
      {"memory --model llama3-70b --gpu h100-sxm --reserve-gb -1", "--reserve-gb"},
      {"memory --model no-such-model --gpu h100-sxm", "--model"},
      {"memory --model llama3-70b --gpu no-such-gpu", "--gpu"},
      {"memory --model llama3-70b --system no-such-system", "--system"},
      {"memory --model llama3-70b --gpu h100-sxm --precision fp7", "--precision"},
      {"memory --model llama3-70b --gpu h100-sxm --inference --tp 3", "--tp"},
      {"memory --model llama3-70b --gpu h100-sxm --inference --tp 0", "--tp"},
      {"memory --model llama3-70b --gpu h100-sxm --inference --context 0", "--context"},
      {"memory --model llama3-70b --gpu h100-sxm --inference --concurrency 0", "--concurrency"},
      {"memory --model llama3-70b --gpu h100-sxm --inference --pp 0", "--pp"},
      {"memory --model llama3-70b --gpu h100-sxm --inference --ep 2", "--ep"},
      {"memory --model llama3-70b --gpu h100-sxm --inference --kv-precision int3", "--kv-precision"},
      {"memory --model llama3-70b --gpu h100-sxm --tp 8", "--tp"},
      {"memory --model llama3-70b --gpu h100-sxm --inference --gpus 8", "--gpus"},
  };
  for (const auto& c : cases) {
    const auto r = run_gpuplan(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, c.names)) << c.args << "\n" << r.err;
  }
}

TEST(CliMemory, TpErrorListsAllowedValues) {
  const auto r = run_gpuplan("memory --model llama3-70b --gpu h100-sxm --gpus 24 --plan tp=3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "allowed: 1, 2, 4, 8")) << r.err;
}

}  // namespace

// LoRA / QLoRA fine-tuning end to end (memory, train) and the generic config reader (model show).
namespace cli_finetune {

const std::string kMem70b =
    "memory --model llama3.1-70b --gpu h100-sxm --gpus 1 --seq 4096 --global-batch 1 "
    "--plan tp=1,pp=1,mbs=1,recompute=full";

TEST(CliFinetune, Llama70bQloraFitsOneGpuFullDoesNot) {
  const auto q = run_gpuplan(kMem70b + " --method qlora --lora-rank 16 --lora-targets all-linear");
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_TRUE(has(q.out, "fine-tuning qlora r=16 all-linear")) << q.out;
  EXPECT_TRUE(has(q.out, "FITS")) << q.out;
  const auto f = run_gpuplan(kMem70b);
  ASSERT_EQ(f.exit_code, 3) << f.err;
  EXPECT_TRUE(has(f.out, "DOES NOT FIT")) << f.out;
  const auto j = run_gpuplan(kMem70b + " --method qlora --json").json();
  EXPECT_EQ(j["training"]["finetune"]["method"], "qlora");
  EXPECT_DOUBLE_EQ(j["training"]["finetune"]["adapter_params"].get<double>(), 80.0 * 2588672);
  EXPECT_TRUE(j["fits"].get<bool>());
}

// One question, one answer: the same fine-tuning job through memory and train.
TEST(CliFinetune, MemoryAndTrainAgree) {
  const auto m = run_gpuplan(
      "memory --model llama3.1-8b --system hgx-h100 --gpus 8 --seq 4096 --global-batch 64 "
      "--plan tp=1,pp=1,mbs=1,recompute=full --method lora --lora-rank 32 --lora-targets q,v --json");
  const auto t = run_gpuplan(
      "train --model llama3.1-8b --system hgx-h100 --gpus 8 --seq 4096 --global-batch 64 "
      "--plan tp=1,pp=1,mbs=1,recompute=full --method lora --lora-rank 32 --lora-targets q,v --json");
  ASSERT_EQ(m.exit_code, 0) << m.err;
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_DOUBLE_EQ(m.json()["total_bytes"].get<double>(), t.json()["memory"]["total_bytes"].get<double>());
  EXPECT_EQ(t.json()["finetune"]["lora_targets"], "q,v");
}

TEST(CliFinetune, BadOptionsNameTheOption) {
  const std::pair<std::string, std::string> cases[] = {
      {" --lora-rank 8", "--lora-rank"},
      {" --method dora", "--method"},
      {" --method lora --lora-targets qkvo", "--lora-targets"},
      {" --method qlora --precision fp8", "--precision"},
      {" --method lora --lora-rank 0", "--lora-rank"},
      {" --method qlora --loss-precision fp8", "--loss-precision"},
      {" --loss-precision float", "--loss-precision"},
  };
  for (const auto& [tail, option] : cases) {
    const auto r = run_gpuplan(kMem70b + tail);
    EXPECT_EQ(r.exit_code, 2) << tail << "\n" << r.out;
    EXPECT_TRUE(has(r.err, option)) << tail << "\n" << r.err;
  }
}

// The loss in the compute dtype (--loss-precision bf16): Hugging Face's loss buffers fall from 14 B to 6 B
// per vocabulary entry and token (lora_memory.h), the rest of the job is the same.
TEST(CliFinetune, LossPrecisionChangesTheLossBuffersOnly) {
  const auto fp32 = run_gpuplan(kMem70b + " --method qlora --json");
  const auto bf16 = run_gpuplan(kMem70b + " --method qlora --loss-precision bf16 --json");
  ASSERT_EQ(fp32.exit_code, 0) << fp32.err;
  ASSERT_EQ(bf16.exit_code, 0) << bf16.err;
  EXPECT_EQ(bf16.json()["training"]["finetune"]["loss_precision"], "bf16");
  EXPECT_EQ(fp32.json()["training"]["finetune"]["loss_precision"], "fp32");
  const double tokens = 4096, vocab = 128256;
  EXPECT_NEAR(fp32.json()["total_bytes"].get<double>() - bf16.json()["total_bytes"].get<double>(),
              tokens * vocab * (14.0 - 6.0), 1e3);
  EXPECT_DOUBLE_EQ(fp32.json()["parts"]["weights_bytes"].get<double>(),
                   bf16.json()["parts"]["weights_bytes"].get<double>());
  const auto text = run_gpuplan(kMem70b + " --method qlora --loss-precision bf16");
  EXPECT_TRUE(has(text.out, "fine-tuning qlora r=16 all-linear, bf16 loss")) << text.out;
  // recommend serves nothing with it under --task infer: refused, naming it.
  const auto r = run_gpuplan("recommend --model llama3.1-8b --task infer --loss-precision bf16");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "--loss-precision")) << r.err;
}

// The training loop's options (--kernels, --qlora-kernel) in a question that trains nothing are refused,
// naming them, as --loss-precision and --lora-targets are.
TEST(CliFinetune, TrainingLoopOptionsRefusedWhereNothingTrains) {
  const std::pair<std::string, std::string> cases[] = {
      {"memory --model llama3.1-70b --inference --kernels eager --qlora-kernel gptq",
       "--qlora-kernel: is a training option (leave out --inference); also given: --kernels"},
      {"memory --model llama3.1-70b --inference --kernels eager", "--kernels: is a training option"},
      {"cost --model llama3.1-70b --system hgx-h100 --task infer --kernels eager",
       "--kernels: applies to --task train (the training loop's kernels)"},
      {"recommend --model llama3.1-70b --kernels eager",
       "--kernels: applies to --task train and finetune (the training loop's kernels)"},
  };
  for (const auto& [command, message] : cases) {
    const auto r = run_gpuplan(command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.out;
    EXPECT_TRUE(has(r.err, message)) << command << "\n" << r.err;
  }
}

TEST(CliFinetune, GenericConfigNamesWhatItCannotMap) {
  const auto r = run_gpuplan(std::string("model show ") + GPUPLAN_SOURCE_DIR +
                             "/src/model/fixtures/google--gemma-3-27b-it.json --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = r.json();
  EXPECT_EQ(j["model"]["sliding_window_layers"], 52);
  bool vision = false;
  for (const auto& n : j["model"]["unmapped_fields"]) vision = vision || n["field"] == "vision_config";
  EXPECT_TRUE(vision);
}

// An accelerator name given as --system resolves as train and infer resolve it: the system built from it.
TEST(CliFinetune, MemorySystemTakesAnAcceleratorAsTrainDoes) {
  const std::string tail = " --gpus 1 --seq 4096 --global-batch 4 --plan tp=1,pp=1,mbs=4,recompute=none --json";
  const auto a = run_gpuplan("memory --model llama3.1-8b --system h200-sxm" + tail);
  const auto b = run_gpuplan("memory --model llama3.1-8b --system hgx-h200" + tail);
  ASSERT_NE(a.exit_code, 2) << a.err;
  ASSERT_EQ(a.exit_code, b.exit_code) << b.err;
  EXPECT_EQ(a.json(), b.json());
  EXPECT_EQ(a.json()["system"], "hgx-h200");
  const auto bad = run_gpuplan("memory --model llama3.1-8b --system no-such-thing" + tail);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(has(bad.err, "--system")) << bad.err;
}

}  // namespace cli_finetune
