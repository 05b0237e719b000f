#pragma once
// How a training job is parallelised and configured: the "mapping" of the model onto GPUs.
#include <string>

#include "core/precision.h"

namespace gpuplan {

enum class Recompute { none, selective, full };
std::string_view to_string(Recompute r);

struct TrainingPlan {
  int tp = 1;    // tensor parallel
  int pp = 1;    // pipeline parallel stages
  int vp = 1;    // virtual stages per pipeline rank (interleaved 1F1B); 1 = plain 1F1B
  int cp = 1;    // context parallel
  int ep = 1;    // expert parallel (folds inside DP, as in Megatron)
  int etp = 1;   // tensor parallel inside experts (Megatron's expert-tensor-parallel)
  int dp = 1;    // data parallel; derived as gpus / (tp*pp*cp) when 0 is given
  int mbs = 1;   // micro-batch size, sequences
  Recompute recompute = Recompute::none;
  int recompute_layers = 0;      // full recompute: layers per stage recomputed (0 = all)
  int zero = 1;                  // 0: none, 1: optimizer state, 2: + gradients, 3: + weights (FSDP)
  bool sequence_parallel = true; // Megatron SP with TP > 1
  bool tp_comm_overlap = true;   // TP collectives overlapped with GEMMs (userbuffers)
  bool dp_overlap = true;        // gradient reduce-scatter / param all-gather overlapped
  bool ep_overlap = false;       // MoE dispatch/combine overlapped with compute
  bool distributed_optimizer = true;  // ZeRO-1 style sharding of optimizer state over DP
};

// Parses "tp=8,pp=4,vp=2,cp=1,ep=1,mbs=1,recompute=selective,zero=1,sp=1". Every key is checked;
// an unknown key or bad value -> InputError naming "--plan.KEY" and the allowed values.
TrainingPlan parse_training_plan(const std::string& text, TrainingPlan base = {});
std::string to_string(const TrainingPlan& p);

// What the job trains on.
struct TrainingWorkload {
  int num_gpus = 8;
  long long global_batch = 1024;  // sequences per optimizer step
  int seq_len = 4096;
  Precision precision = Precision::bf16;
};

}  // namespace gpuplan
