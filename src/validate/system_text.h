#pragma once
// Which catalog system a published row ran on, where its notes or source name the server: a row's GPU
// column names the accelerator ("H100-SXM"), which resolves to the first system built from it (the 8-GPU
// HGX board), but the same accelerator also ships on other boards (HGX H100 4-GPU: no NVSwitch) whose
// links differ. The server's name in the row (its product or board, a catalog alias) says which.
#include <string>

#include "catalog/catalog.h"

namespace gpuplan {

struct SystemReading {
  const System* system = nullptr;  // null: the text names no system of the accelerator
  std::string spelling;            // the name as the catalog spells it (the alias or display name found)
};

// The catalog system built from `accelerator` whose display name or an alias the text names (case
// insensitive; '-', '_' and spaces alike; the name neither preceded nor followed by a letter or digit);
// the longest name found decides ("HGX H100 4-GPU" over "HGX H100").
SystemReading read_system(const Catalog& catalog, const std::string& accelerator, const std::string& text);

struct AcceleratorReading {
  const Accelerator* accelerator = nullptr;  // null: the text names no variant
  std::string spelling;                      // the name as the catalog spells it
};

// The variant of a row's GPU column that its text names: another catalog accelerator of the same
// generation whose display name or an alias stands in the text as a whole name (as read_system reads
// names) and refines the column's name, the column's name followed by more of it ("GH200" ->
// "GH200-144GB": MLPerf's system names carry the memory variant the GPU column drops). The longest name
// found decides. A name that does not begin with the column's (an "H100-SXM" row whose notes mention
// "GH200") is no variant of it.
AcceleratorReading read_accelerator_variant(const Catalog& catalog, const std::string& gpu_column,
                                            const Accelerator& column_accelerator, const std::string& text);

}  // namespace gpuplan
