#pragma once
// What InferenceX's single-node SGLang and TensorRT-LLM scripts pass to the server beyond the sweep's config, shared by
// every validation file whose rows are InferenceX runs: the InferenceX file itself and
// AIConfigurator's silicon sample (a dump of the same runs' benchmark database). One run, one
// deployment, whichever file it is read from. See docs/inference-model.md ("SGLang's receive
// interval").
#include <string>

#include "core/precision.h"

namespace gpuplan {

struct SglangScriptRecvInterval {
  int interval = 1;    // --scheduler-recv-interval; 1: SGLang's default (the script passes none)
  std::string script;  // the script (and branch) that sets it; empty where none does
  // The row's assumption, one wording for every mapping that applies it.
  std::string assumption(long long clients) const;
};

// The receive interval InferenceX's SGLang script for `model` (catalog name: deepseek-r1,
// deepseek-v3, qwen3.5-397b-a17b, glm-5, ...) passes on a `generation` GPU (blackwell: B200,
// blackwell_ultra: B300) with `tp` and `attention_dp` at `clients` concurrency: the script rows of
// data/recipes/inferencex_scripts.yaml that state scheduler_recv_interval
// (benchmarks/single_node/<model>_<precision>_<gpu>(_mtp).sh; a row stating the TP wins over one that
// does not). None matching: SGLang's default, 1 (attention-DP runs, Hopper, CDNA, other models).
SglangScriptRecvInterval inferencex_sglang_recv_interval(const std::string& model, const std::string& generation,
                                                         Precision weights, int tp, bool attention_dp,
                                                         long long clients);

// SGLang's --mem-fraction-static (InferenceWorkload::mem_fraction_static) an InferenceX single-node script
// passed.
struct SglangScriptMemFraction {
  double fraction = 0;  // 0: no script row states one (the model's default pool applies)
  std::string script;   // the script (and branch) that passes it
  std::string assumption() const;
};

// The --mem-fraction-static InferenceX's aggregated SGLang script for `model` on `accelerator` (the catalog
// name the row's GPU resolves to: b200, b300, h200) passes at `weights` and `tp`, with MTP (`mtp` 1), without
// (0) or either (-1: the row does not say; the script in force, or where both are, a fraction only if they
// agree),
// on `date` (YYYY-MM-DD; empty: unknown, none applied): the script rows of
// data/recipes/inferencex_scripts.yaml that state mem_fraction_static (a row stating the TP wins over
// one that does not).
SglangScriptMemFraction inferencex_sglang_mem_fraction(const std::string& model, const std::string& accelerator,
                                                       Precision weights, int tp, int mtp, const std::string& date);

// TensorRT-LLM batch waiting (InferenceWorkload::batch_wait_iters) an InferenceX single-node script set.
struct TrtllmScriptBatchWait {
  int iters = 0;             // batch_wait_timeout_iters; 0: none set
  double tokens_ratio = 0;   // batch_wait_max_tokens_ratio
  std::string script;        // the script and branch that set it; empty where none does
  std::string assumption(long long clients) const;
};

// What InferenceX's TensorRT-LLM script for `model` on `accelerator` (the catalog's name the row's GPU
// resolves to: b200, ...) set at `isl` / `osl` and `clients` on `date` (YYYY-MM-DD; empty: unknown,
// none applied): the script rows of data/recipes/inferencex_scripts.yaml that set batch waiting
// (dsr1_fp8_b200_trt.sh's 1K/1K branch at 64+ clients from 2026-01-29: 40 iterations, 0.8).
TrtllmScriptBatchWait inferencex_trtllm_batch_wait(const std::string& model, const std::string& accelerator,
                                                   Precision weights,
                                                   long long isl, long long osl, long long clients, bool attention_dp,
                                                   const std::string& date);

// The MTP draft tokens InferenceX's single-node script for `model` on `engine` (catalog name: atom, ...)
// passes at `weights` on `date` (YYYY-MM-DD): the script rows of data/recipes/inferencex_scripts.yaml
// that state mtp_draft_tokens (dsr1_fp8_mi355x_atom_mtp.sh from 2026-04-02: 3); 0 where none does (the
// engine's default applies) or the date is unknown. `script` receives the row's recipe.
int inferencex_script_mtp_draft_tokens(const std::string& model, const std::string& engine, Precision weights,
                                       const std::string& date, std::string* script = nullptr);

}  // namespace gpuplan
