#pragma once
// Parameter-efficient fine-tuning (LoRA, QLoRA): the adapters a FinetuneSpec adds to a model, the bytes
// of the frozen base, and the buffers of the Hugging Face Transformers + PEFT (+ bitsandbytes) stack
// these methods run on. training_memory and evaluate_training call in here for --method lora|qlora.
//
// Adapters: each targeted linear layer W (in x out) gains A (in x r) and B (r x out): r * (in + out)
// trainable parameters (Hu et al. 2021). Targets by the Llama names: q, k, v, o, gate, up, down. MoE
// layers: every routed and shared expert's gate/up/down carries its own adapter (PEFT on nn.Linear
// experts, as Mixtral's). MLA (DeepSeek): q -> q_a and q_b (or q_proj), k or v -> kv_a_proj_with_mqa
// and kv_b_proj, o -> o_proj. Linear-attention layers (Gated DeltaNet): q, k or v -> in_proj_qkvz, o ->
// out_proj. A 2-matrix MLP (GPT): up -> fc1, down -> fc2.
#include "memory/training_memory.h"
#include "model/model.h"
#include "plan/finetune.h"

namespace gpuplan {

// QLoRA's frozen base (Dettmers et al. 2023, sec. 3): 4-bit NormalFloat weights (0.5 byte each), one
// absmax constant per 64 weights double-quantized to 8 bits with one fp32 constant per 256 of those:
// 8/64 + 32/(64*256) = 0.127 bits per parameter (paper: "from 0.5 bits to 0.127 bits per parameter").
inline constexpr double kNf4BytesPerParam = 0.5;
inline constexpr double kDoubleQuantBitsPerParam = 8.0 / 64.0 + 32.0 / (64.0 * 256.0);
// GPTQ int4 (AutoGPTQ's QuantLinear, group size 128 as the Qwen / TheBloke Int4 checkpoints): 4-bit
// weights packed in int32, one fp16 scale and one packed 4-bit zero point per group of 128 inputs.
inline constexpr double kGptqGroupSize = 128.0;
inline constexpr double kGptqConstantBitsPerParam = (16.0 + 4.0) / kGptqGroupSize;
// Adapter weights, their gradients and Adam moments are fp32 (PEFT upcasts adapters of a bf16 / 4-bit
// base: autocast_adapter_dtype); the adapter's fp32 weight is its own master copy.
inline constexpr double kAdapterBytes = 4.0;
inline constexpr double kAdapterGradBytes = 4.0;
// Hugging Face's causal-LM loss at its peak, per vocabulary entry and token, by the dtype it runs in
// (LossPrecision; lm_head's logits are bf16/fp16, kLogitsComputeBytes). With an fp32 loss it is the eager
// F.cross_entropy on logits upcast to fp32 that a plain PyTorch loop runs, whichever code does the upcast
// (Transformers' ForCausalLMLoss calls logits.float(); under the Trainer's torch.autocast, cross_entropy
// is on autocast's fp32 list and upcasts 16-bit logits itself): kEagerLossBytesPerLogit, 14 B measured
// on an H200 (the 16-bit logits, the saved fp32 log-softmax, its incoming and its written gradient).
// With the loss in the compute dtype (bf16 / fp16, no autocast: DeepSpeed's fp16 engine halves the
// model and runs Qwen 1's modeling_qwen.py loss on its fp16 logits as they are) there is no upcast: the
// saved log-softmax, the nll gradient and the log-softmax input gradient, 3 x 2 B = 6 B. Megatron's
// fused vocab-parallel cross-entropy keeps the logits alone (training_memory's logits_bytes: 4 B, or
// 2 B with --fp16-lm-cross-entropy).
inline constexpr double kLogitsComputeBytes = 2.0;
double hf_loss_bytes_per_logit(LossPrecision p);

// Bytes a frozen parameter of the transformer layers occupies: bf16 (lora), NF4 or GPTQ int4 + their
// constants (qlora).
// Embeddings and the output head stay bf16 under QLoRA (bitsandbytes quantizes nn.Linear layers and
// skips lm_head); norms and biases are bf16 too (under 0.01% of a layer, counted at the layer's rate).
double frozen_bytes_per_param(const FinetuneSpec& f);
inline constexpr double kFrozenEmbeddingBytes = 2.0;

// Adapter parameters of one transformer layer, split as the base layer shards: `dense` (attention,
// dense MLP, shared experts: split by TP) and `experts` (all routed experts: split by EP x ETP).
// `active_*` count the top_k routed experts a token passes (for FLOPs). `pairs_r` = sum over the
// layer's adapters of r (the r-wide intermediate X*A each keeps for its backward, per token).
struct LoraLayerAdapters {
  double dense = 0, experts = 0;
  double active_dense = 0, active_experts = 0;
  double intermediate_elems_per_token = 0;
};
// moe_layer: a layer with routed experts; the mean over full- and linear-attention layers for hybrids.
LoraLayerAdapters lora_layer_adapters(const ModelArch& m, const FinetuneSpec& f, bool moe_layer);

// Trainable adapter parameters of the whole model.
double lora_adapter_params(const ModelArch& m, const FinetuneSpec& f);

// Forward FLOPs per token of the adapters (2 per multiply-add of X*A and (XA)*B, top_k experts);
// the backward costs twice this (the input gradient and the adapters' weight gradients).
double lora_forward_flops_per_token(const ModelArch& m, const FinetuneSpec& f);

// A fine-tuning spec against the model and workload: rank 1 to hidden, at least one target, QLoRA
// computing in bf16 (bitsandbytes dequantizes NF4 to bf16 for its GEMMs), optimizer 8 or 32 bits.
// Bad -> InputError naming --lora-rank, --lora-targets, --precision or --lora-optimizer-bits.
void check_finetune(const ModelArch& m, const TrainingWorkload& w);

// One pipeline stage's memory under LoRA / QLoRA, from what training_memory counted for it: the frozen
// weights in their format (sharded under ZeRO-3 / FSDP, the current and next layer gathered), fp32
// adapters with fp32 gradients and Adam moments (32- or 8-bit, sharded by the distributed optimizer)
// in place of the full model's, and on top of the base model's activations the adapters' r-wide
// intermediates and Hugging Face's loss buffers (hf_loss_bytes_per_logit instead of the fused loss's logits).
struct LoraStageInputs {
  double adapter_params = 0;       // this GPU's share of the stage's adapters (TP / EP split)
  double embedding_params = 0;     // of s.params: input embedding / output head (kept bf16)
  double largest_layer_params = 0; // one layer's share (ZeRO-3 gathers it whole)
  double intermediate_elems_per_token = 0;  // summed over the stage's layers, per GPU
  double layer_intermediate_elems_per_token = 0;  // one layer's
  double tokens = 0;               // tokens of one micro-batch on this GPU (before TP)
  double dense_shard = 1;          // ranks the distributed optimizer / ZeRO shards over
  double reserve_bytes = 0;        // MemoryOptions::reserve_bytes
};
void apply_lora_to_stage(const ModelArch& m, const TrainingPlan& p, const FinetuneSpec& f, const LoraStageInputs& in,
                         StageMemory& s);

}  // namespace gpuplan
