#pragma once
// Recorded tool outputs: a directory holding what the doctor's commands printed, so a machine can be
// diagnosed elsewhere (`gpuplan doctor --replay DIR`) and tests run on fixtures (src/doctor/fixtures/).
// Files: nvidia-smi-query.txt, nvidia-smi-topo.txt, nvcc-version.txt, torch.txt; an optional NAME.exit
// beside one holds a non-zero exit code. An absent file means the tool was missing.
#include <string>

#include "doctor/doctor.h"

namespace gpuplan::doctor {

// Throws InputError when dir is not a directory.
Environment load_recorded(const std::string& dir);

}  // namespace gpuplan::doctor
