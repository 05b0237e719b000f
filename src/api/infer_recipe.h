#pragma once
// `gpuplan infer --recipe NAME [--as-of DATE]`: a built-in deployment recipe (gpuplan recipe list
// --kind deployment) as infer's options, evaluated by infer itself. Options the user also gives
// override the recipe's value (listed in the output); options that contradict a fixed deployment
// (--sweep, a target speed, aggregated --tp/--ep/--gpus) are an error naming them.
#include <string>
#include <vector>

#include "api/infer.h"
#include "recipe/recipe.h"

namespace gpuplan::api {

struct AppliedRecipe {
  const Recipe* recipe = nullptr;
  std::string as_of;                   // the date the recipe's settings are read at
  std::vector<std::string> from_recipe;  // "--decode-tp 8", the options the recipe set
  std::vector<std::string> overridden;   // "--concurrency 64 (recipe: 1214)", the user's that won
  std::vector<std::string> notes;        // what the recipe leaves open, the prefill limits' source
};

// Fills `req` from req.recipe (the user's explicit options kept); InputError (--recipe, --as-of or the
// conflicting option) where the recipe is unknown, not a whole deployment, outside its dates, or
// contradicted.
AppliedRecipe apply_infer_recipe(InferRequest& req);

// infer() of a request with --recipe: the recipe applied, the evaluation infer's own, the document with
// a `recipe` object (name, source, as_of, the options it set, those overridden, notes) and the text
// headed by the same.
int infer_recipe(const Catalog& catalog, InferRequest req, Output& output, const Session* session);

}  // namespace gpuplan::api
