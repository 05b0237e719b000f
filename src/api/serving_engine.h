#pragma once
// The serving engine's parameters a command's workloads take from the session's catalog (overlays and
// calibration files apply), so every command that builds a serving workload reads the same figures.
#include <string>

#include "catalog/catalog.h"
#include "catalog/error_band.h"
#include "inference/inference.h"
#include "physics/hardware.h"

namespace gpuplan::api {

// The MTP acceptance per draft of `engine` in `catalog` (the framework string --engine takes), or of
// the catalog's default engine when `engine` is empty or names none. Every command that builds a
// serving workload (infer point, sweep and disaggregated, compare, recommend, cost, site) fills its
// workload's mtp_accept with it when the request states none; 0 where the catalog states none (the
// evaluator then falls back to the built-in catalog's default, src/inference/speculative.h).
double catalog_mtp_accept(const Catalog& catalog, const std::string& engine = {});

// Sets the workload's figures of the serving engine `engine` names (--engine: sglang, tensorrt-llm, vllm,
// ...): its front end's latency per request, host work per sequence step, MoE GEMM share, prompts in
// forwards of their own, KV admission and pool rule; InputError naming --engine with the allowed names
// when it names no engine. Every command that takes --engine reads it here (infer, its open loop, size).
void apply_serving_engine(const Catalog& catalog, const std::string& engine, InferenceWorkload& w);

// Sets the workload's figures of release `release` of the engine `engine` names (--engine-release): its MoE
// kernels' share of the newest release's rate (serving_engines.yaml `releases`); the newest release leaves
// the entry's figures. InputError naming --engine-release, with the releases the engine lists, when it lists
// no such release or tells none apart.
void apply_engine_release(const Catalog& catalog, const std::string& engine, const std::string& release,
                          InferenceWorkload& w);

// Why `engine` cannot serve on `hw` ("" when it can, or when `engine` is empty): its catalog entry's
// vendors leave out the accelerator's (TensorRT-LLM on an AMD GPU).
std::string engine_refusal(const Catalog& catalog, const std::string& engine, const Hardware& hw);

// The serving engine a framework string ("vllm 0.18.0", "Dynamo + SGLang", "trtllm") or an entry name
// names, as the error bands record it: the catalog's serving engine entry it matches ("vllm", "sglang",
// "dynamo+sglang", ...); blank where no entry matches (the engine is then not known to the bands).
std::string band_engine(const Catalog& catalog, const std::string& framework);

// The band basis's "engine" where a command states no engine (compare and recommend, which take no
// --engine; size and infer's open loop without one): no engine widens their bands.
inline constexpr const char* kNoEngineStated = kBandEngineNotStated.data();

}  // namespace gpuplan::api
