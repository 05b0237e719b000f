#pragma once
// Serving engines: the few serving parameters kept per engine (framework) rather than per accelerator
// generation. Data: data/catalog/serving_engines.yaml; fitted by calibrate_engines()
// (src/validate/calibrate.h); documented in docs/inference-model.md ("Serving engines", "Parameters").
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

class YamlMap;

// The name of the entry that serves engines the catalog does not know (and carries the defaults).
inline constexpr const char* kDefaultServingEngine = "default";

// An engine release whose figures differ from the newest's (the release the entry's other figures were
// fitted on), each a share of the newest's: fitted by calibrate_engine_releases() on the release's rows.
struct EngineRelease {
  std::string release;  // as the engine numbers it: "1.0", "0.20"
  // The MoE layers' kernels (grouped expert GEMMs with their routing and permutation) run at this share of
  // the newest release's rate: an expert GEMM takes 1 / share of the time. 1: as the newest.
  double moe_kernel_share = 1.0;
  std::string fitted_on, fitted_date, method;
};

struct ServingEngine {
  std::string name;  // "sglang", "dynamo+tensorrt-llm", ... or "default"
  // Framework strings this engine answers to: each alternative is space-separated words that must all
  // occur in the lower-cased framework ("dynamo tensorrt" matches "Dynamo + TensorRT-LLM"). Entries
  // are tried in catalog order, so a more specific engine is listed before a generic one.
  std::vector<std::string> match;
  // The accelerator vendors the engine runs on (Accelerator::vendor: "NVIDIA", "AMD", "Intel"); empty:
  // any. A fact of the engine's releases, not fitted (sources in serving_engines.yaml).
  std::vector<std::string> vendors;
  // The front end's latency per request before prefill (HTTP, tokenization, scheduler hand-off;
  // disaggregated: the router and the prefill/decode handshake), seconds. With front_end_of set, the
  // named engine's figure (resolve_serving_front_ends), not a figure of this entry's own.
  double request_overhead_s = 0.0;
  // The engine whose front end this one shares (`front_end_of: tensorrt-llm`: TensorRT-LLM's PyTorch
  // backend behind the same trtllm-serve front end), so one figure, fitted on that engine's rows,
  // serves both; empty: the entry states its own request_overhead_s.
  std::string front_end_of;
  // Whether the YAML entry gave request_overhead_s (an overlay restating other figures keeps the
  // built-in entry's front end).
  bool states_request_overhead = false;
  // MTP: acceptance of each draft token given the previous one was accepted; unset: the default entry's.
  std::optional<double> mtp_accept;
  // The engine's host work per sequence per decode step on each rank's process (scheduling, sampling,
  // per-request bookkeeping), seconds, run during the previous step's GPU work (overlap scheduler):
  // a step takes the longer of the two. 0: negligible (C++ runtimes).
  double host_per_seq_step_s = 0.0;
  // The share of the generation's GEMM efficiency the engine's grouped MoE expert GEMMs reach (1: the
  // dense GEMM's, as TensorRT-LLM's CUTLASS MoE kernels; vLLM's Triton fused_moe less), fitted by
  // calibrate_engine_moe_gemm() on the engine's MoE TTFT rows at few clients.
  double moe_gemm_eff = 1.0;
  // MTP: the speculative worker's host work per decode step (scheduling, draft/verify metadata, the
  // accept/reject device-to-host syncs), seconds, and per sequence of the rank's batch (bookkeeping of
  // the accepted tokens), which a step waits for where the worker runs it in series with the GPU
  // (InferenceWorkload::mtp_host_in_series); fitted by calibrate_engines() on those points. 0: none.
  double mtp_host_step_s = 0.0;
  double mtp_host_per_seq_step_s = 0.0;
  // ... and, where its draft extend runs as eager kernels (no CUDA graph), that forward's host time a step.
  double mtp_eager_draft_extend_s = 0.0;
  // The engine runs prompts in forwards of their own that the running decodes wait for (SGLang's
  // scheduler alternates prefill and decode batches unless --enable-mixed-chunk; ATOM likewise), instead
  // of riding them in the decodes' forward (inflight batching: TensorRT-LLM, vLLM). A fact of the
  // engine's scheduler, not fitted (InferenceWorkload::prefill_separate).
  bool prefill_separate = false;
  // How the scheduler admits a sequence against the paged KV pool: "reserve_full" (its whole isl + osl
  // on admission: TensorRT-LLM's default GUARANTEED_NO_EVICT) or "current_length" (while the pool holds
  // the running sequences' current lengths, preempting when it fills: vLLM, SGLang, TensorRT-LLM's
  // MAX_UTILIZATION). A fact of the engine's scheduler, not fitted (InferenceWorkload::kv_admission).
  // Empty: unstated (reserve_full; an overlay entry keeps the built-in's).
  std::string kv_admission;
  // How the engine sizes its KV pool from a GPU's memory (inference/kv_pool.h): "free_share" (a share of
  // the memory the weights and activations leave: TensorRT-LLM), "whole_share" (a share of the whole
  // memory for the weights, activations and pool: vLLM's gpu_memory_utilization) or "sglang" (SGLang's
  // mem_fraction_static, its default computed from the GPU and the plan). A fact of the engine, not
  // fitted. Empty: unstated (free_share; an overlay entry keeps the built-in's).
  std::string kv_pool;
  // What the engine does with the dense MLPs, the shared experts and the output head under attention-DP:
  // "replicated" (each attention rank holds them whole and runs its own tokens through them:
  // TensorRT-LLM's PyTorch backend, vLLM's data-parallel ranks) or "tensor_parallel" (split over the
  // ranks, the tokens gathered: SGLang's default). A fact of the engine, not fitted
  // (InferenceWorkload::attention_dp_dense_replicated). Empty: unstated (tensor_parallel; an overlay
  // entry keeps the built-in's).
  std::string attention_dp_dense;
  // How the engine moves the attention ranks' tokens to the routed experts under attention-DP:
  // "all_to_all", "all_gather" or "all_gather_unless_mnnvl" (InferenceWorkload::attention_dp_moe_exchange).
  // A fact of the engine, not fitted. Empty: unstated (all_to_all; an overlay entry keeps the built-in's).
  std::string attention_dp_moe_exchange;
  // What the engine's KV pool charges a sliding-window layer: "whole_context" (the whole sequence, as any
  // layer: TensorRT-LLM, whose KV cache manager counts its blocks as if every layer attended everything)
  // or "window" (at most the window). A fact of the engine, not fitted (InferenceWorkload::window_kv_whole).
  // Empty: unstated (window; an overlay entry keeps the built-in's).
  std::string window_kv;
  // The release the entry's fitted figures describe ("1.x": every 1.x release after 1.0), the default of
  // every question; empty: the entry does not tell releases apart. `releases`: older ones measured
  // otherwise (EngineRelease).
  std::string newest_release;
  std::vector<EngineRelease> releases;
  std::string fitted_on, fitted_date, method, origin;
};

// The release a framework string states, as engines number theirs: the first version-like word, without
// a leading 'v' ("TensorRT-LLM v1.0 (PyTorch backend)" -> "1.0", "TensorRT-LLM 1.x" -> "1.x", "vllm
// 0.19.0" -> "0.19.0"); empty when it states none.
std::string framework_release(const std::string& framework);

// The entry of `e`'s releases named `release` (exactly, any case); nullptr for the newest or an unknown one.
const EngineRelease* find_engine_release(const ServingEngine& e, const std::string& release);

ServingEngine parse_serving_engine(YamlMap& m, const std::string& origin);

// Resolves each entry's `front_end_of`: its request_overhead_s becomes the named entry's. The named
// entry must exist (by name, any case), differ from the entry and state a front end of its own (no
// chains); otherwise an InputError naming `<where>.<entry>.front_end_of`.
void resolve_serving_front_ends(std::vector<ServingEngine>& entries, const std::string& where);

// True when `framework` (any case) contains every word of one of `e.match`'s alternatives.
bool serving_engine_matches(const ServingEngine& e, const std::string& framework);

// The YAML of data/catalog/serving_engines.yaml for `entries` (calibrate's --write of the engine fit).
std::string serving_engines_to_yaml(const std::vector<ServingEngine>& entries, const std::string& header_comment);

}  // namespace gpuplan
