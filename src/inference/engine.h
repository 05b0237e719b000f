#pragma once
// Per-engine serving parameters (the few the serving model keeps per framework rather than per
// accelerator generation), read from the catalog's serving engines (data/catalog/serving_engines.yaml).
// See docs/inference-model.md ("Serving engines", "Parameters").
#include <string>

#include "catalog/catalog.h"
#include "inference/inference.h"

namespace gpuplan {

struct EngineParams {
  std::string name;                 // the engine entry matched ("sglang", "tensorrt-llm", ...); empty: none
  double request_overhead_s = 0.0;  // front end per request before prefill (see InferenceWorkload)
  double mtp_accept = 0.0;          // MTP acceptance per draft (the engine's, else the default entry's)
  double host_per_seq_step_s = 0.0; // host work per sequence per step, overlapped (see InferenceWorkload)
  double moe_gemm_eff = 1.0;        // grouped MoE GEMMs' share of the GEMM efficiency (see InferenceWorkload)
  double mtp_host_step_s = 0.0;          // MTP: speculative worker's host work per step (see InferenceWorkload)
  double mtp_host_per_seq_step_s = 0.0;  // ... and per sequence of the rank's batch
  double mtp_eager_draft_extend_s = 0.0; // ... and an eager (non-graphed) draft extend's
  bool prefill_separate = false;    // prompts in forwards of their own (see InferenceWorkload)
  bool attention_dp_dense_replicated = false;  // attention-DP: dense layers and head replicated (see InferenceWorkload)
  MoeExchange attention_dp_moe_exchange = MoeExchange::all_to_all;  // attention-DP: tokens to the experts (ditto)
  KvAdmission kv_admission = KvAdmission::reserve_full;  // the scheduler's KV admission (see InferenceWorkload)
  KvPoolRule kv_pool = KvPoolRule::free_share;           // how it sizes its KV pool (see InferenceWorkload)
  bool window_kv_whole = false;                           // windowed layers' KV pool (see InferenceWorkload)
};

// The parameters of the engine a framework string names ("SGLang", "Dynamo + TensorRT-LLM",
// "SGLang + MoRI (disaggregated)", "ATOM"; case-insensitive) in `catalog`; an unknown engine gets no
// front-end latency and the default MTP acceptance.
EngineParams engine_params(const Catalog& catalog, const std::string& framework);

// Sets the facts of the engine's scheduler and memory on `w` (not its fitted figures): prompts in
// forwards of their own, the dense layers under attention-DP, the KV admission, how the KV pool is
// sized and what a sliding window's layers hold in it. One definition for `infer --engine` and every validated row.
void apply_engine_facts(const EngineParams& e, InferenceWorkload& w);

// SGLang's speculative (EAGLE/MTP) worker on NVIDIA GPUs (docs/inference-model.md, "SGLang's speculative
// step"): on Hopper its MLA attention backend is FlashInfer, whose draft extend runs as eager kernels
// and whose planning copies the batch's lengths to the host, so the worker's host work runs in series
// with the GPU; `spec_v1` (SGLang's speculative v1, which turns the overlap scheduler off) puts it in
// series on any generation. Sets w's MTP host fields from the catalog's sglang entry and returns
// whether the work is in series. Call for SGLang-worker engines (SGLang, Dynamo + SGLang) running MTP.
bool apply_sglang_mtp_host(const Catalog& catalog, const std::string& generation, bool spec_v1, InferenceWorkload& w);

}  // namespace gpuplan
