#pragma once
// Why a plan or configuration is infeasible: returned as data by the evaluators, never thrown.
#include <string>

namespace gpuplan {

struct Violation {
  std::string code;     // stable machine key, e.g. "memory.exceeds_capacity"
  std::string subject;  // what it concerns, e.g. "gpu", "stage 0"
  std::string message;  // one human sentence with the numbers
};

}  // namespace gpuplan
