#pragma once
// Cluster shapes for the schedule tests, written out so the tests need no catalog.
#include "schedule/cluster.h"

namespace gpuplan::schedule::testing {

inline SystemGroup nvl72(int racks) { return {"gb300-nvl72", 4, 18, 72, racks, "", 0}; }
inline SystemGroup hgx(int nodes) { return {"hgx-h200", 8, 1, 8, nodes, "", 0}; }
inline ClusterSpec spec(std::initializer_list<SystemGroup> groups) {
  ClusterSpec s;
  s.name = "test";
  s.groups = groups;
  return s;
}

}  // namespace gpuplan::schedule::testing
