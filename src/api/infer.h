#pragma once
// gpuplan infer: serving performance of a model on a system: throughput per GPU and per user, TTFT,
// TPOT; or, with --sweep, the Pareto frontier over TP/EP/attention-DP and concurrency.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "api/options.h"
#include "api/output.h"
#include "catalog/catalog.h"
#include "api/fabric_options.h"
#include "api/long_context_options.h"
#include "api/open_loop_lengths.h"

namespace gpuplan::api {

class Session;

// `infer --requests-per-s R` on a stated deployment (api/infer_open_loop_point.h): the open-loop question
// that infer_open_loop() takes out of the options before infer() resolves the deployment from the rest.
struct StatedOpenLoop {
  double requests_per_s = 0, peak_factor = 1;  // evaluated at their product
  OpenLoopLengths lengths;
  OpenLoopLimits limits;  // p99 TTFT (--ttft-ms), p50 TPOT (1 / --tokens-per-user-per-s), p99 TPOT (--tpot-ms)
  int draws = 1000;       // Monte Carlo draws of the model's error
  long long seed = 1;
};

// The options of `gpuplan infer` (the CLI, run() and the faces over it share them).
struct InferRequest : RequestBase {
  std::string model_name = "llama3.1-70b", system = "hgx-h200", precision = "fp8", kv_precision, arrival = "staggered";
  int gpus = 0, tp = 0, ep = 0, pp = 1, max_pp = 1, requests_per_client = 0;
  double length_low = 1.0;  // closed loop: lengths uniform in [length_low, 1] x the longest
  int scheduler_recv_interval = 1, adp_balance_timeout_iters = 0;  // engine scheduler settings (SGLang, TensorRT-LLM)
  int batch_wait_iters = 0;                                          // TensorRT-LLM batch waiting, with the ratio
  double batch_wait_tokens_ratio = 0;
  double mem_fraction_static = 0;  // SGLang's --mem-fraction-static (0: the engine's rule)
  double kv_mem_fraction = 0.9;    // the free_share / whole_share rules' share (TensorRT-LLM's, vLLM's)
  long long isl = 1024, osl = 1024, concurrency = 0, max_num_tokens = 8192, max_batch = 2048;
  double tpot_ms = 0, tokens_per_user = 0, ttft_ms = 0;
  bool attention_dp = false, sweep = false;
  // Disaggregated pools, MTP and the wide-EP knobs.
  bool disagg = false, prefill_attn_dp = false, decode_attn_dp = false, tbo = false, aggregated_only = false;
  bool prefill_tbo = false, decode_tbo = false;  // --disagg: two-batch overlap in one pool only
  int prefill_gpus = 0, prefill_tp = 8, prefill_ep = 0, decode_gpus = 0, decode_tp = 8, decode_ep = 0, mtp = 0;
  long long decode_max_batch = 0;  // --disagg: sequences per decode attention rank at most (0: no cap)
  long long prefill_max_batch = 0;   // --disagg: requests per prefill attention rank, held through the KV hand-off (0: no cap)
  long long prefill_max_tokens = 0;  // --disagg: prompt tokens per prefill attention rank and step (0: --max-num-tokens)
  double mtp_accept = 0, expert_skew = 1.0;
  std::optional<double> request_overhead_ms;  // unset: the engine's figure
  std::optional<int> fp8_weight_block;        // unset: the model's checkpoint (ModelArch::fp8_weight_block)
  std::string fp8_gemm_backend = "auto";      // auto or triton (InferenceWorkload::fp8_block_gemm_triton)
  std::string prefill_fp8_gemm_backend;       // --disagg: the prefill pool's (empty: fp8_gemm_backend)
  std::string engine;
  LongContextOptions long_context;    // --prefix-hit, --kv-offload (api/long_context_options.h)
  // Engine settings and load that a validated row states (infer_options.cc, "replaying a row").
  std::string request_rate;                       // requests/s ("inf": all at once); empty: none
  long long requests_in_run = 0;                  // with --request-rate: the run's requests (0: unbounded)
  std::optional<double> host_per_seq_step_us;     // unset: the engine's
  std::optional<double> moe_gemm_share;           // unset: the engine's
  std::string engine_release;                     // the --engine's release; empty: its newest
  std::string prefill_separate;                   // on / off; empty: the engine's
  std::string kv_admission;                       // reserve_full / current_length; empty: the engine's
  std::string kv_pool;                            // free_share / whole_share / sglang; empty: the engine's
  std::string attention_dp_dense;                 // replicated / tensor_parallel; empty: the engine's
  std::string attention_dp_moe_exchange;          // all_to_all / all_gather / all_gather_unless_mnnvl; empty: ditto
  std::string window_kv;                          // whole_context / window; empty: the engine's
  bool sglang_spec_v1 = false;                    // SGLang's speculative worker without the overlap scheduler
  std::optional<int> fp8_moe_weight_block;        // unset: --fp8-weight-block
  bool full_attention_window = false;             // attend over the whole sequence, not the model's window
  FabricOptions fabric_opts;
  std::string recipe, as_of;  // --recipe NAME: a built-in deployment recipe (api/infer_recipe.h), read as of a date
  // Set by infer_open_loop() for --requests-per-s with a stated deployment: infer() resolves the deployment
  // from the other options and answers the open loop on it (infer_open_loop_point) in place of the closed loop.
  std::optional<StatedOpenLoop> open_loop;
};

// Defines the options (names, ranges, help) on `app`, bound to `req`.
void add_infer_options(CLI::App& app, InferRequest& req);

// Evaluates the request: the document, or the terminal text, into `out`. Returns 0, or 3 when
// what was asked for does not fit; InputError on bad input.
// `session`, when given, is the one whose catalog `catalog` is: its resolved hardware is used.
int infer(const Catalog& catalog, InferRequest req, Output& output, const Session* session = nullptr);

}  // namespace gpuplan::api
