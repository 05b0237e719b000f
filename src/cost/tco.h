#pragma once
// Total cost of ownership of one system unit (an 8-GPU node or a 72-GPU rack), per year and per
// GPU-hour, and what a workload's throughput makes of it: $ per million tokens, joules per token, the
// cost and energy of a whole run. Pure functions; the catalog is flattened into UnitCostInput.
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "cost/cost_profile.h"

namespace gpuplan::cost {

// What the cost model needs to know about one system unit.
struct UnitCostInput {
  std::string system;
  int gpus = 8;                       // per unit
  double it_w = 0;                    // full-load IT power of the unit plus its switch and storage share
  Cooling cooling = Cooling::air;
  std::optional<double> price_usd;    // the catalog's system price
  std::string price_source;
  // The scale-out fabric's share of one unit, from the fabric planner's bill of materials (switches,
  // optics, cables; the NICs are inside the system's price and power) at kFabricReferenceGpus GPUs.
  // Absent when the system's network has no fabric kind: the flat share then covers the network.
  std::optional<double> network_capex_usd;
  double network_w = 0;               // switches and optics, inside it_w (replaces the site's flat share)
  std::string network_basis;          // e.g. "ib-ndr fabric of 2048 GPUs"
};

// Cluster size the per-unit network share is taken at (assumption: a full 2-tier NDR fabric, the
// size of the SemiAnalysis and tech-talk-cto 2-tier examples; docs/cost-compare.md).
inline constexpr long long kFabricReferenceGpus = 2048;

// The catalog's system as the cost model sees it: power from the deployment model (unit power plus
// scale-out switch and storage shares, data/deploy/site.yaml), price from the catalog.
UnitCostInput unit_cost_input(const Catalog& catalog, const System& system);

struct Tco {
  std::string system;
  int gpus_per_unit = 0;
  bool priced = false;            // false: no price known (catalog or profile); all $ figures 0
  std::string price_basis;        // published | estimate | user (where the figure comes from)
  std::string price_kind;         // server (a server/rack price, grossed up alike) | all-in (as given)
  std::string price_source;

  // capital per unit
  double system_price_usd = 0;
  double network_storage_usd = 0;   // with installation when only an all-in figure is known
  double network_fabric_usd = 0;    // the part of network_storage_usd from the fabric's bill of materials
  // Where network_storage_usd comes from: "fabric" (bill of materials + storage_other_fraction of the
  // price), "share" (network_storage_fraction of the price), "all-in" (inside a published all-in).
  std::string network_basis;
  std::string network_detail;       // the fabric the bill of materials is of
  double installation_usd = 0;
  double liquid_facility_usd = 0;
  double capex_usd() const { return system_price_usd + network_storage_usd + installation_usd + liquid_facility_usd; }
  double capital_recovery_factor = 0;  // per year: r / (1 - (1+r)^-n)

  // power per unit
  double it_w_full = 0;             // provisioned (colocation is paid on it)
  double it_w_average = 0;          // drawn on average
  double facility_w_average = 0;    // x PUE

  // per unit per year
  double capital_usd_per_year = 0;
  double maintenance_usd_per_year = 0;
  double electricity_usd_per_year = 0;
  double colocation_usd_per_year = 0;
  double total_usd_per_year() const {
    return capital_usd_per_year + maintenance_usd_per_year + electricity_usd_per_year + colocation_usd_per_year;
  }

  double usd_per_unit_hour() const;
  double usd_per_gpu_hour() const;
  double capex_per_gpu_usd() const { return gpus_per_unit ? capex_usd() / gpus_per_unit : 0; }
  double facility_w_per_gpu() const { return gpus_per_unit ? facility_w_average / gpus_per_unit : 0; }
  double it_w_full_per_gpu() const { return gpus_per_unit ? it_w_full / gpus_per_unit : 0; }
};

inline constexpr double kHoursPerYear = 8766.0;  // 365.25 days

Tco compute_tco(const UnitCostInput& unit, const CostProfile& profile);

// Cost and energy of tokens produced at a rate on a number of GPUs (bought in whole units).
struct TokenCost {
  double usd_per_million_tokens = 0;   // 0 when the system has no price
  double joules_per_token = 0;         // facility energy (average draw x PUE)
  double it_joules_per_token = 0;      // IT energy only
  double tokens_per_usd = 0;
};
TokenCost token_cost(const Tco& tco, double gpus, double tokens_per_s);

// A whole run: `tokens` at `tokens_per_s` on `gpus` GPUs.
struct RunCost {
  double tokens = 0;
  int gpus = 0;
  double wall_s = 0;
  double gpu_hours = 0;
  double usd = 0;                 // 0 when unpriced
  double facility_energy_j = 0;
  TokenCost per_token;
};
RunCost run_cost(const Tco& tco, int gpus, double tokens_per_s, double tokens);

}  // namespace gpuplan::cost
