#pragma once
// One deployment recipe as a value: the rows of data/recipes/*.yaml (docs/recipes.md), whatever
// table they come from. A recipe states who ran what where (model, system, engine, weights, ISL/OSL),
// the deployment's pools (workers, GPUs a worker, attention-DP, EP), the engine settings the run
// passed (batch caps, prefill chunk, MTP draft tokens, receive interval, batch waiting, FP8 GEMM
// kernel), the run dates it was in force and its source. A table leaves open what its rows do not
// state: -1 (either) for a switch, 0 for a count. recipe_loader.h reads the files; recipe_catalog.h
// holds the built-in ones.
#include <string>
#include <vector>

namespace gpuplan {

// What a recipe row states, by the table it comes from.
enum class RecipeKind {
  deployment,      // a whole disaggregated deployment and its decode settings (dynamo_*_decode.yaml)
  prefill_limits,  // a prefill worker's limits for a deployment shape (dynamo_prefill.yaml, mori prefill)
  decode_limits,   // a decode worker's batch cap for a deployment shape (mori decode)
  launch,          // how a launch script turned a sweep config into server flags (mori launch)
  mtp,             // the decode worker's draft tokens for a deployment (inferencex_mori_mtp.yaml)
  script,          // what a single-node launch script passes beyond the sweep config (inferencex_scripts.yaml)
  ep_overlap,      // a training recipe's expert all-to-all overlap by container (megatron_bridge_ep_overlap.yaml)
  moe_dispatcher,  // a training recipe's MoE token dispatcher by container (megatron_bridge_moe_dispatcher.yaml)
};
const char* to_string(RecipeKind k);

// One pool's workers and settings (an aggregated script: the decode pool alone).
struct RecipePool {
  int workers = 0;          // 0: not stated
  int gpus_per_worker = 0;  // a worker's GPUs (its TP; 0: not stated)
  int attention_dp = -1;    // 1 on, 0 off, -1 either / not stated
  int ep = -1;              // expert parallelism wider than 1: 1 on, 0 off, -1 either / not stated
  long long max_batch = 0;  // sequences (decode) or requests (prefill) an attention rank holds; 0: no cap stated
  long long max_tokens = 0;  // prefill: prompt tokens a rank prefills a step (0: not stated)
  long long max_running_requests = 0;      // prefill: SGLang's flag for a worker (divided by dp with attention-DP)
  long long chunked_prefill_size = 0;      // prefill: --chunked-prefill-size of a worker (0: not stated)
  long long dispatch_tokens_per_rank = 0;  // prefill: MoRI's dispatch tokens a rank (chunk = this x TP)
  long long max_prefill_tokens = 0;        // prefill: --max-prefill-tokens a rank (0: not stated)
  int eplb_slots = 0;                      // decode: MoE load balancer slots (0: none)
  int scheduler_recv_interval = 1;         // SGLang's --scheduler-recv-interval (1: the default)
  double mem_fraction_static = 0;          // SGLang's --mem-fraction-static of a worker (0: not stated)
  bool fp8_gemm_triton = false;            // the workers' dense block-FP8 GEMMs on SGLang's Triton kernel
};

struct Recipe {
  std::string name;    // unique over the built-in recipes (recipe list / show / infer --recipe)
  RecipeKind kind = RecipeKind::deployment;
  std::string table;   // the file it comes from, relative to data/ ("recipes/dynamo_prefill.yaml")
  std::string where;   // the row in that file ("recipes/dynamo_prefill.yaml: recipes[3]")
  std::string source;  // the repository (owner/name) the figures come from
  std::string commit;  // its commit (empty where not stored)
  std::string recipe;  // the recipe path(s), files or pull request, as the source names them
  std::string valid_from, valid_to;  // run dates (YYYY-MM-DD, inclusive; empty valid_to: still in force)

  std::string model;      // catalog model name (deepseek-r1; empty: the file states none)
  std::string gpu;        // the benchmark's gpu cell or folder name (b200, H100-SXM, MI355X)
  std::string system;     // the catalog system or accelerator it runs on (b200, h100-sxm; empty: unknown)
  std::string generation;  // script rows: the catalog generation they apply to (blackwell; empty: any)
  std::string engine;     // the serving engine (catalog name: dynamo+sglang, sglang+mori, tensorrt-llm)
  std::string precision;  // the weights: fp4 or fp8 (script rows also bf16: any weights but FP8 and FP4)
  std::string weights;    // the weights as `infer --precision` takes them: fp8, nvfp4, mxfp4 (the file's fp4_weights)
  long long isl = 0, osl = 0;       // 0: not stated
  long long min_concurrency = 0;    // script rows: in force from this many clients (0: any)
  long long max_concurrency = 0;    // and up to this many (0: no bound)
  RecipePool prefill, decode;
  int mtp = -1;               // MTP on (1), off (0), either (-1)
  int mtp_draft_tokens = 0;   // the decode worker's draft tokens (0: none stated / no MTP)
  bool tp_is_worker = false, ep_is_worker = false;  // launch rows: TP / EP over the whole worker
  int batch_wait_iters = 0;             // script rows: TensorRT-LLM batch_wait_timeout_iters (0: none)
  double batch_wait_tokens_ratio = 0;   // and batch_wait_max_tokens_ratio
  std::vector<long long> concurrencies;  // the benchmark's client counts (empty: not stated)
  // ep_overlap and moe_dispatcher rows (container rows): the framework containers the row holds for
  // (YY.MM or YY.MM.NN; `container_until` not included, empty: still so in the newest container the
  // table read), whether the recipe overlaps the expert all-to-all there (ep_overlap rows: 1 on, 0 off)
  // and which MoE token dispatcher it runs (moe_dispatcher rows: 1 alltoall, 0 flex). Their `precision`
  // is a training precision (bf16, fp8, mxfp8, nvfp4); they state no run dates.
  std::string container_from, container_until;
  int ep_overlap = -1;
  int moe_alltoall = -1;
  bool container_row() const { return kind == RecipeKind::ep_overlap || kind == RecipeKind::moe_dispatcher; }

  // True when the recipe states a whole deployment `gpuplan infer --recipe` can evaluate (a deployment
  // or MTP row with a model, a system, ISL/OSL and both pools' workers and widths).
  bool evaluable() const;
  // True when `date` (YYYY-MM-DD) falls within the recipe's dates.
  bool in_force(const std::string& date) const;
};

}  // namespace gpuplan
