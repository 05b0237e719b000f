#pragma once
// How published tables spell the sharding of data-parallel state, read as a ZeRO stage (Rajbhandari
// et al. 2020: stage 1 shards the optimizer state, 2 also the gradients, 3 also the weights). One table
// of spellings (docs/training-model.md, "ZeRO spellings"), not a rule per row.
#include <string>

namespace gpuplan {

struct ZeroReading {
  int stage = -1;         // -1: the text states no sharding
  std::string spelling;   // the spelling that decided, as the table names it
  std::string note;       // "'FSDP/ZeRO-3' read as ZeRO-3 (a stage stated)"
};

// The stage the text (a row's notes) states for its own run. Clauses (split at ';') that compare
// with another run ("compared against ZeRO-3", "versus", "vs.") state nothing of this one. The first
// rule of the table that matches any clause decides:
//  1. a stage stated: "ZeRO-1/2/3", "ZeRO stage 2", "zero3" -> that stage;
//  2. PyTorch FSDP's sharding strategies: "FULL_SHARD" -> 3, "SHARD_GRAD_OP" -> 2, "NO_SHARD" -> 0;
//  3. Megatron-FSDP ("Megatron-FSDP", "FSDP=N" sharding group): its default strategy
//     optim_grads_params -> 3;
//  4. "ZeRO" without a stage (the capitalised name) -> 1: the stage every ZeRO-family framework runs
//     by that name (Megatron's distributed optimizer); a further stage is stated when run. This also
//     decides "FSDP-style (ZeRO)": a run like FSDP whose sharding is named ZeRO without a stage;
//  5. "distributed optimizer" -> 1;
//  6. "FSDP" alone -> 3 (PyTorch FSDP's default strategy, FULL_SHARD).
ZeroReading read_zero_spelling(const std::string& text);

}  // namespace gpuplan
