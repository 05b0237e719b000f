// The options of `gpuplan infer`: names, ranges and help.
#include <fmt/format.h>

#include "api/infer.h"
#include "inference/speculative.h"
#include "model/model_registry.h"

namespace gpuplan::api {

void add_infer_options(CLI::App& app, InferRequest& req) {
  app.description("Predict serving performance: prefill (GEMMs + causal attention), decode steps (weights and KV "
               "cache read against the FLOPs, TP/EP/PP communication on their link tiers), continuous batching "
               "limited by the KV cache. Prints tokens/s per GPU and total, tokens/s per user, TTFT, TPOT and "
               "end-to-end latency; --sweep prints the Pareto frontier of throughput per GPU against tokens/s "
               "per user over TP/EP/attention-DP and concurrency.");
  app.add_option("--model", req.model_name, kModelOptionHelp)
      ->capture_default_str();
  app.add_option("--system", req.system, "Catalog system (hgx-h200, gb200-nvl72, ...) or accelerator")
      ->capture_default_str();
  app.add_option("--gpus", req.gpus, "GPUs of the deployment (default: tp x pp, one instance; with --sweep the "
                                     "system's unit, one node or NVL72 rack, or the fewest units the model fits)");
  app.add_option("--isl", req.isl, "Input tokens per request")->capture_default_str();
  app.add_option("--osl", req.osl, "Output tokens per request")->capture_default_str();
  app.add_option("--precision", req.precision, "Weights and GEMMs: bf16, fp8, fp4 (nvfp4, mxfp4) or w4a16 "
                                                           "(4-bit weight-only INT4 with BF16 math; also int4_wo, awq, gptq)")->capture_default_str();
  app.add_option("--kv-precision", req.kv_precision, "KV cache: bf16 or fp8 (default fp8 with fp8/fp4 weights, bf16 with bf16/w4a16)");
  app.add_option("--tp", req.tp,
                 "Tensor parallel (default: smallest that fits, over whole nodes when one node holds no KV cache; "
                 "or --gpus)");
  app.add_option("--ep", req.ep,
                 "Expert parallel (MoE; default tp, or the widest width dividing both tp and the experts). Wider "
                 "than --tp: the worker spans ep GPUs with attention data-parallel over them (up to the NVLink "
                 "domain, or across nodes)");
  app.add_option("--pp", req.pp, "Pipeline stages")->capture_default_str();
  app.add_flag("--attention-dp,--attn-dp", req.attention_dp, "Attention data-parallel over the TP ranks (MoE)");
  app.add_flag("--two-batch-overlap", req.tbo,
               "MoE: overlap EP dispatch/combine with a second micro-batch's compute where it pays (SGLang TBO)");
  app.add_option("--mtp", req.mtp, fmt::format("Multi-token prediction / speculative decoding: draft tokens per step "
                                           "(0 = off; engines' DeepSeek recipes use {})", kMtpDraftTokensDefault))
      ->capture_default_str();
  app.add_option("--mtp-accept", req.mtp_accept,
                 fmt::format("Acceptance of each draft given the previous one was accepted (default {})",
                             mtp_accept_default()));
  app.add_option("--expert-skew", req.expert_skew,
                 "MoE: the busiest EP rank's load over uniform routing's (1 = uniform/balanced placement)")
      ->capture_default_str();
  app.add_option("--fp8-weight-block", req.fp8_weight_block,
                 "FP8 weights' scaling block: 128 for block-scaled weights (DeepSeek-V3/R1 and Kimi K2 checkpoints: "
                 "their FP8 GEMMs run at the generation's fitted block-scaled rate), 0 for per-tensor scales "
                 "(default: the model's checkpoint)");
  app.add_option("--fp8-gemm-backend", req.fp8_gemm_backend,
                 "Kernel of the dense block-scaled FP8 GEMMs (attention, dense MLP, shared experts): auto (the "
                 "generation's fitted block-scaled rate: DeepGEMM, FlashInfer / TensorRT-LLM, CUTLASS) or triton "
                 "(SGLang's Triton fallback, which Blackwell runs take with JIT DeepGEMM disabled and FlashInfer's "
                 "FP8 GEMM not enabled: the generation's fitted infer_fp8_block_triton_share); with --disagg, both "
                 "pools unless --prefill-fp8-gemm-backend")
      ->capture_default_str();
  app.add_option("--engine", req.engine,
                 "Serving engine whose parameters apply (data/catalog/serving_engines.yaml: front-end latency "
                 "per request, host work per sequence, MoE GEMM share, MTP acceptance, prompts in forwards of "
                 "their own): sglang, tensorrt-llm, atom, dynamo+sglang, dynamo+tensorrt-llm, sglang+mori, "
                 "tensorrt-llm-pytorch or vllm");
  app.add_option("--engine-release", req.engine_release,
                 "Release of the --engine (serving_engines.yaml `releases`: tensorrt-llm-pytorch 1.x, the newest and "
                 "the default, 1.0 or 0.20): an older release's MoE kernels run at its fitted share of the newest's "
                 "rate");
  app.add_option("--scheduler-recv-interval", req.scheduler_recv_interval,
                 "SGLang's --scheduler-recv-interval (vLLM V0's --num-scheduler-steps alike): new requests are "
                 "received every N decode steps, and the prompts gathered prefill together (InferenceX's B200/B300 "
                 "SGLang scripts: 30 at 16+ clients; AMD's MLPerf Server harness: 9); "
                 "with --disagg the decode workers', whose requests wait (N - 1) / 2 steps more for their KV "
                 "preallocation (Dynamo low-latency recipes: 10); 1 to 1000")
      ->capture_default_str();
  app.add_option("--adp-balance-timeout-iters", req.adp_balance_timeout_iters,
                 "TensorRT-LLM's attention-DP balancer (attention_dp_config enable_balance, timeout_iters; "
                 "InferenceX's attention-DP scripts: 60): context requests held until every attention-DP rank "
                 "has one, at most N steps, then prefilled together; 0: off")
      ->capture_default_str();
  app.add_option("--batch-wait-iters", req.batch_wait_iters,
                 "TensorRT-LLM batch waiting (batch_wait_timeout_iters; InferenceX's B200 FP8 script at 1K/1K "
                 "and 64+ clients: 40): while decodes run, context requests are held until the step's tokens "
                 "reach --batch-wait-tokens-ratio x --max-num-tokens or N iterations have passed, then "
                 "prefilled together; with the ratio, not with attention-DP or --disagg; 0: off")
      ->capture_default_str();
  app.add_option("--batch-wait-tokens-ratio", req.batch_wait_tokens_ratio,
                 "TensorRT-LLM batch waiting's token threshold (batch_wait_max_tokens_ratio, a share of "
                 "--max-num-tokens; InferenceX: 0.8), with --batch-wait-iters; 0: off")
      ->capture_default_str();
  app.add_option("--request-overhead-ms", req.request_overhead_ms,
                 "Front-end latency per request before prefill, ms (default: the --engine's, else 0)");
  app.add_flag("--disagg", req.disagg, "Disaggregated serving: a prefill pool and a decode pool (--prefill-*, --decode-*)");
  app.add_option("--prefill-gpus", req.prefill_gpus, "--disagg: GPUs of the prefill pool (default one worker)");
  app.add_option("--prefill-tp", req.prefill_tp, "--disagg: TP of a prefill worker")->capture_default_str();
  app.add_option("--prefill-ep", req.prefill_ep, "--disagg: EP of a prefill worker (default its width)");
  app.add_flag("--prefill-attn-dp", req.prefill_attn_dp, "--disagg: attention data-parallel in prefill workers");
  app.add_option("--decode-gpus", req.decode_gpus, "--disagg: GPUs of the decode pool (default one worker)");
  app.add_option("--decode-tp", req.decode_tp, "--disagg: TP of a decode worker")->capture_default_str();
  app.add_option("--decode-ep", req.decode_ep, "--disagg: EP of a decode worker (default its width)");
  app.add_flag("--decode-attn-dp", req.decode_attn_dp, "--disagg: attention data-parallel in decode workers");
  app.add_flag("--prefill-two-batch-overlap", req.prefill_tbo,
               "--disagg: two-batch overlap in the prefill workers only (--two-batch-overlap: both pools)");
  app.add_flag("--decode-two-batch-overlap", req.decode_tbo,
               "--disagg: two-batch overlap in the decode workers only (what the chooser's disaggregated picks run)");
  app.add_option("--decode-max-batch", req.decode_max_batch,
                 "--disagg: sequences each decode attention rank holds at most (the recipe's max batch; clients "
                 "beyond the pool's slots wait before decode); 0: only the KV cache limits it")
      ->capture_default_str();
  app.add_option("--prefill-max-batch", req.prefill_max_batch,
                 "--disagg: requests each prefill attention rank holds at once, from the start of their prefill "
                 "until their KV cache has reached decode (SGLang's --max-running-requests / dp); 0: no cap")
      ->capture_default_str();
  app.add_option("--prefill-max-tokens", req.prefill_max_tokens,
                 "--disagg: prompt tokens each prefill attention rank prefills per step (SGLang's chunked-prefill "
                 "size / dp, TensorRT-LLM's context max_num_tokens); 0: --max-num-tokens")
      ->capture_default_str();
  app.add_option("--prefill-fp8-gemm-backend", req.prefill_fp8_gemm_backend,
                 "--disagg: the prefill pool's --fp8-gemm-backend (auto or triton), where its workers' environment "
                 "differs from the decode workers' (default: --fp8-gemm-backend)");
  app.add_option("--concurrency", req.concurrency, "Sequences in flight, whole deployment (default: as many as fit)");
  app.add_option("--tpot-ms", req.tpot_ms, "Highest load whose mean TPOT stays at or under this (ms)");
  app.add_option("--tokens-per-user-per-s,--tokens-per-user", req.tokens_per_user, "Highest load giving each user at least this speed");
  app.add_option("--ttft-ms", req.ttft_ms, "Limit on the mean TTFT (ms), with the above or --sweep");
  app.add_option("--arrival", req.arrival, "staggered (continuous batching), closed_loop (clients resending) or synchronized (static batches)")
      ->capture_default_str();
  app.add_option("--requests-per-client", req.requests_per_client,
                 "closed_loop: requests each client sends in the measured run (the first round arrives as one "
                 "wave); 0: steady state only")
      ->capture_default_str();
  app.add_option("--length-low", req.length_low,
                 "closed_loop: the clients' lengths are uniform in [this, 1] x the longest, --isl/--osl their means "
                 "(InferenceX's client: 0.8); a disaggregated run with more clients than decode slots is "
                 "replayed request by request for its median TTFT; with --requests-per-s, the open loop's "
                 "lengths the same way")
      ->capture_default_str();
  app.add_option("--max-num-tokens", req.max_num_tokens, "Tokens per forward step (prefill chunk budget)")
      ->capture_default_str();
  add_long_context_options(app, req.long_context);  // --prefix-hit, --kv-offload, --context-attention
  app.add_option("--max-batch-size", req.max_batch, "Sequences per instance the scheduler admits")->capture_default_str();
  app.add_option("--kv-mem-fraction", req.kv_mem_fraction,
                 "The KV pool's share under the engine's rule: of the memory the weights and activations leave "
                 "(TensorRT-LLM's kv_cache_free_gpu_mem_fraction; InferenceX's scripts 0.75-0.8), or of the whole "
                 "memory (vLLM's gpu_memory_utilization); 0.05 to 1")
      ->capture_default_str();
  app.add_option("--mem-fraction-static", req.mem_fraction_static,
                 "SGLang's --mem-fraction-static: the share of each GPU's memory the weights and the KV pool take "
                 "together (InferenceX's DeepSeek scripts: 0.82-0.95), so the pool is this share of the capacity "
                 "less the weights, whatever the --kv-pool rule; 0.05 to 1, or 0 (default): not stated, the "
                 "engine's rule (--kv-pool)")
      ->capture_default_str();
  app.add_flag("--sweep", req.sweep, "Sweep TP/EP/attention-DP and concurrency; print the Pareto frontier");
  app.add_option("--max-pp", req.max_pp, "Pipeline stages tried, 1, 2, 4 .. up to this, by the sweep and by the point mode's choice (default: 1 on one unit or "
                 "--gpus, up to 8 on more units)")->capture_default_str();
  // A built-in deployment recipe as the options (api/infer_recipe.h).
  app.add_option("--recipe", req.recipe,
                 "Evaluate a built-in deployment recipe (gpuplan recipe list --kind deployment): its model, system, "
                 "engine, pools, MTP, batch caps and concurrency; options given too override its values");
  app.add_option("--as-of", req.as_of,
                 "With --recipe: the run date (YYYY-MM-DD, within the recipe's dates) whose prefill limits apply "
                 "(default: the recipe's first day)");
  add_fabric_options(app, req.fabric_opts);
  // The settings a measured run states that the options above leave to the engine or the model: every
  // row `gpuplan validate` scores replays as an infer line with them (its `command`).
  app.add_option("--request-rate", req.request_rate,
                 "Benchmark run (what validation rows state): a client's --request-rate on the stated deployment "
                 "(--tp/--gpus), Poisson or inf (every request at once), over --requests-in-run requests; mean "
                 "TTFT/TPOT and the run's throughput, the queue it builds beyond capacity. For a steady demand "
                 "with p50/p99, --requests-per-s (docs/sizing.md); not with --concurrency or latency targets; "
                 "0.001 to 1e6 or inf");
  app.add_option("--requests-in-run", req.requests_in_run,
                 "With --request-rate: requests the benchmark sends (its throughput is over the run's "
                 "makespan); 0: unbounded; 0 to 10000000")
      ->capture_default_str();
  app.add_option("--host-per-seq-step-us", req.host_per_seq_step_us,
                 "Host work per sequence per decode step, us, overlapped with the GPU step (default: the "
                 "--engine's); 0 to 100000");
  app.add_option("--moe-gemm-share", req.moe_gemm_share,
                 "MoE: the grouped expert GEMMs' share of the generation's GEMM efficiency (default: the --engine's); "
                 "above 0 to 1");
  app.add_option("--prefill-separate", req.prefill_separate,
                 "on: prompts prefill in forwards of their own that the decodes wait for; off: chunked into "
                 "the decode steps (default: the --engine's scheduler)");
  app.add_option("--kv-admission", req.kv_admission,
                 "reserve_full: each sequence reserves its whole ISL + OSL of KV on admission (TensorRT-LLM's "
                 "GUARANTEED_NO_EVICT); current_length: admitted by current length, preempting when the pool "
                 "fills (vLLM, SGLang, TensorRT-LLM's MAX_UTILIZATION) (default: the --engine's scheduler)");
  app.add_option("--window-kv", req.window_kv,
                 "Sliding-window models: what the KV pool charges a windowed layer: whole_context, the whole "
                 "sequence as any layer (TensorRT-LLM), or window, at most the window (vLLM) (default: the "
                 "--engine's; without one, window)");
  app.add_option("--attention-dp-dense", req.attention_dp_dense,
                 "MoE with attention-DP: replicated, each rank holds the dense MLPs, shared experts and output head "
                 "whole and runs its own tokens (TensorRT-LLM's PyTorch backend, vLLM's data-parallel ranks); "
                 "tensor_parallel, split over the ranks with the tokens gathered (default: the --engine's; "
                 "built-in engines: tensor_parallel)");
  app.add_option("--attention-dp-moe-exchange", req.attention_dp_moe_exchange,
                 "MoE with attention-DP: how the ranks' tokens reach the experts: all_to_all (top-k copies: DeepEP, "
                 "MoRI), all_gather (every rank's tokens to every rank, reduce-scattered after: vLLM's default "
                 "backend) or all_gather_unless_mnnvl (TensorRT-LLM: all-to-all only over multi-node NVLink with EP "
                 "above the top-k) (default: the --engine's; built-in engines: all_to_all)");
  app.add_option("--kv-pool", req.kv_pool,
                 "How the engine sizes its KV pool: free_share, 0.9 of the memory the weights and activations "
                 "leave (TensorRT-LLM); whole_share, 0.9 of the whole memory less the weights and activations "
                 "(vLLM's gpu_memory_utilization); sglang, SGLang's mem_fraction_static of the whole memory less "
                 "the weights, its default computed from the GPU and the plan unless --mem-fraction-static "
                 "(default: the --engine's; free_share without one)");
  app.add_flag("--sglang-spec-v1", req.sglang_spec_v1,
               "With --mtp and an SGLang engine: the speculative worker's host work in series with the GPU "
               "(spec v1, overlap scheduler off), as on Hopper's FlashInfer MLA");
  app.add_option("--fp8-moe-weight-block", req.fp8_moe_weight_block,
                 "The routed experts' FP8 scaling block where it differs from --fp8-weight-block's (128 "
                 "block-scaled, 0 per-tensor); 0 to 4096");
  app.add_flag("--full-attention-window", req.full_attention_window,
               "Attend over the whole sequence where the model has a sliding or chunked window (TensorRT-LLM's "
               "engine flow without max_attention_window_size)");
  app.add_flag("--aggregated-only", req.aggregated_only,
               "With --sweep, or --tpot-ms/--tokens-per-user-per-s with the deployment left open: aggregated "
               "engines without MTP only (MoE searches otherwise add disaggregated pools, wide EP and MTP on/off)");
}

}  // namespace gpuplan::api
