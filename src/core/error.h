#pragma once
// The one exception type of gpuplan: malformed input at the boundary (CLI, YAML, JSON, CSV).
// Library evaluators never throw for infeasible plans; they return violations instead.
#include <stdexcept>
#include <string>

namespace gpuplan {

class InputError : public std::runtime_error {
 public:
  // field: the key path or option the user gave ("plan.tp", "--gpus", "accelerators[3].memory_gb");
  // message: what is wrong and what is allowed.
  InputError(std::string field, const std::string& message)
      : std::runtime_error(field.empty() ? message : field + ": " + message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

}  // namespace gpuplan
