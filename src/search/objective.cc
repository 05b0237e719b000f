#include "search/objective.h"

namespace gpuplan {

std::string_view to_string(Objective o) {
  switch (o) {
    case Objective::tokens_per_s: return "tokens_per_s";
  }
  return "tokens_per_s";
}

double objective_score(const TrainingResult& r, Objective o) {
  switch (o) {
    case Objective::tokens_per_s: return r.tokens_per_s;
  }
  return r.tokens_per_s;
}

}  // namespace gpuplan
