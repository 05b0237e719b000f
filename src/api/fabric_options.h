#pragma once
// The scale-out fabric as an input of train, infer and search: --fabric-oversubscription and
// --fabric-topology plan the system's fabric (src/fabric) and give the collective model its shape.
#include <CLI/CLI.hpp>

#include <string>

#include "catalog/catalog.h"
#include "fabric/topology.h"
#include "physics/hardware.h"

namespace gpuplan::api {

// "3", "3:1" or "1:3" -> 3 (downlink per uplink); not a ratio in [1, 64] -> InputError on `field`.
double parse_oversubscription(const std::string& text, const std::string& field = "--oversubscription");

struct FabricOptions {
  std::string oversubscription = "1";
  std::string topology = "rail-optimized";
};

void add_fabric_options(CLI::App& app, FabricOptions& opts);
// "rail-optimized" or "rail-only"; else InputError on --fabric-topology.
fabric::Topology parse_fabric_topology(const std::string& text);

// Plans the fabric of `gpus` GPUs of hw's system and sets hw.fabric's scale-out shape (the bandwidth
// share past the leaf, the GPUs under one scalable unit's leaves, rail-only forwarding). A default
// (1:1 rail-optimized) fabric leaves hw unchanged.
void apply_fabric_options(const Catalog& catalog, Hardware& hw, long long gpus, const FabricOptions& opts);

}  // namespace gpuplan::api
