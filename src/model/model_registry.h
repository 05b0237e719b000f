#pragma once
// The built-in model list (data/models/*.yaml, embedded) and Hugging Face config.json import.
#include <string>
#include <vector>

#include "model/model.h"

namespace gpuplan {

// Every built-in model, parsed once.
const std::vector<ModelArch>& builtin_models();

// A model by built-in name or alias, or by path to a Hugging Face config.json. A name ending in ".json"
// or holding a '/' is a path; any other name is a built-in name or alias first and a file only if it is
// none (so a file named like a built-in model needs "./" before it). Then, for a name that is none of
// those: trailing variant tokens stripped ("-FP8", "-Instruct", a release stamp "-0528"), a proxy
// "NAME (proxy NL)", and a Hugging Face repository id "ORG/NAME" that is no file here read as NAME.
// Unknown -> InputError naming `field` with a suggestion.
ModelArch resolve_model(const std::string& name_or_path, const std::string& field = "--model");

// The --model option's help, one text for every command that takes a model.
inline constexpr const char* kModelOptionHelp =
    "Built-in model name (also as a Hugging Face repository id, e.g. deepseek-ai/DeepSeek-R1) or path to a "
    "Hugging Face config.json";

// Imports a Hugging Face config.json text: dedicated readers for llama, mistral, mixtral, the Qwen,
// DeepSeek, Kimi, gpt-oss, Llama 4, GPT-J and GLM types; the generic decoder reader (hf_generic.cc)
// for any other decoder (Gemma 2/3, Phi-3/4, Cohere, Granite, ...). Keys it cannot map are listed in
// ModelArch::unmapped; one that changes the counts and cannot be mapped, or an encoder model_type ->
// InputError naming it.
ModelArch import_hf_config(const std::string& json_text, const std::string& origin);

}  // namespace gpuplan
