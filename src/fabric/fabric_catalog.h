#pragma once
// The scale-out fabric components (switches, NICs, link media, fabric kinds) and the named assumptions
// that stand in for unpublished figures: data/catalog/fabric.yaml, embedded in the binary.
#include <map>
#include <set>
#include <string>
#include <vector>

namespace YAML {
class Node;
}

namespace gpuplan::fabric {

// A figure from a source, or the name of an assumption that supplies it.
struct Figure {
  double value = 0;        // used when `assumption` is empty
  std::string assumption;  // FabricCatalog::assumptions() key
};

struct SwitchModel {
  std::string name, display_name;
  int ports = 0;                     // at port_gbps
  double port_gbps = 0;
  std::vector<double> breakout_gbps; // lower speeds a port splits into
  int ports_per_cage = 1;            // 2: twin-port OSFP cages (one module serves two ports)
  Figure power_w;                    // typical, without optics (optics are counted per module)
  Figure price_usd;
  int rack_units = 1;
  std::map<std::string, std::string> sources;
  // Ports at `gbps` (ports x port_gbps / gbps for a supported speed), 0 if unsupported.
  int radix_at(double gbps) const;
};

struct NicModel {
  std::string name, display_name;
  double gbps = 0;
  Figure power_w, price_usd;
  std::map<std::string, std::string> sources;
};

// A link medium: a pluggable optic (one module per link end; `ports` link ends per module on a
// twin-port cage) or a copper cable (replaces both ends).
struct Medium {
  std::string name, display_name;
  std::string generation;  // "g400" (100G-PAM4 lanes) or "g800" (200G-PAM4)
  bool copper = false;
  Figure reach_m;
  int ports = 1;
  Figure power_w;              // per module (optics) or per cable (copper)
  Figure single_port_power_w;  // NIC-side single-port module (optics)
  Figure price_usd;            // per link end (optics) or per cable (copper)
  std::map<std::string, std::string> sources;
};

struct FabricKind {
  std::string name, display_name;
  std::string network;     // catalog Network::name (per-hop latency)
  std::string switch_name; // SwitchModel::name
  std::string nic;         // NicModel::name
  std::string generation;  // Medium::generation the links use
  double port_gbps = 0;    // fabric port speed
  int ports_per_nic = 1;   // fabric ports per GPU NIC (planes)
  int management_links = 0;
  bool frontend = false;   // a north-south (front-end/storage) network, never a system's compute fabric
  Figure switch_latency_ns;
  std::map<std::string, std::string> sources;
};

struct Assumption {
  std::string name;
  double value = 0;
  std::string basis;
  bool overridden = false;  // set by --assume
};

class FabricCatalog {
 public:
  // The embedded data/catalog/fabric.yaml (parsed once; copy it to extend it).
  static const FabricCatalog& builtin();
  // Parses a document holding a top-level `fabric` map; throws InputError naming the key path.
  static FabricCatalog parse(const std::string& text, const std::string& origin);
  static FabricCatalog parse(const YAML::Node& root, const std::string& origin);

  // Replaces an assumption's value; unknown names and negative or non-finite values -> InputError.
  void set_assumption(const std::string& name, double value);
  // "NAME=VALUE" (the --assume option).
  void set_assumption(const std::string& name_eq_value);

  const std::vector<SwitchModel>& switches() const { return switches_; }
  const std::vector<NicModel>& nics() const { return nics_; }
  const std::vector<Medium>& media() const { return media_; }
  const std::vector<FabricKind>& kinds() const { return kinds_; }
  const std::vector<Assumption>& assumptions() const { return assumptions_; }

  // Lookups; unknown -> InputError naming `field` and the known names.
  const FabricKind& kind(const std::string& name, const std::string& field = "--kind") const;
  const SwitchModel& switch_model(const std::string& name) const;
  const NicModel& nic(const std::string& name) const;
  const Assumption& assumption(const std::string& name) const;
  // The compute (non-front-end) kind whose `network` is `network_name`, or nullptr.
  const FabricKind* kind_for_network(const std::string& network_name) const;

  // A figure's value; an assumption's name is added to `used` when given.
  double value(const Figure& f, std::set<std::string>* used = nullptr) const;

 private:
  void check() const;
  std::vector<SwitchModel> switches_;
  std::vector<NicModel> nics_;
  std::vector<Medium> media_;
  std::vector<FabricKind> kinds_;
  std::vector<Assumption> assumptions_;
};

}  // namespace gpuplan::fabric
