#pragma once
// One accelerator (GPU or other chip) as the catalog describes it. All figures per device, in SI units.
#include <array>
#include <cstddef>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/precision.h"

namespace gpuplan {

// The table below is indexed by the enum's value: kAllMathFormats lists every format in that order.
static_assert([] {
  for (std::size_t i = 0; i < kAllMathFormats.size(); ++i)
    if (static_cast<std::size_t>(kAllMathFormats[i]) != i) return false;
  return true;
}());

// Dense peak rates by math format, in FLOP/s (int8: OP/s): a flat table indexed by the format, so a
// lookup is one array read. Reads like a std::map<MathFormat, double>: operator[] adds a format,
// count/contains test it, and iteration visits the present formats in enum order with const keys.
class PeakRates {
 public:
  using key_type = MathFormat;
  using mapped_type = double;
  using value_type = std::pair<const MathFormat, double>;
  static constexpr std::size_t kFormats = kAllMathFormats.size();

  PeakRates() = default;
  PeakRates(const PeakRates&) = default;
  PeakRates& operator=(const PeakRates& o) {
    for (std::size_t i = 0; i < kFormats; ++i) entries_[i].second = o.entries_[i].second;
    present_ = o.present_;
    return *this;
  }

  // The rate for a format, added (at 0) when absent, as std::map::operator[].
  double& operator[](MathFormat f) {
    present_[index(f)] = true;
    return entries_[index(f)].second;
  }
  std::size_t count(MathFormat f) const { return present_[index(f)] ? 1 : 0; }
  bool contains(MathFormat f) const { return present_[index(f)]; }
  // The rate for a format; 0 when absent.
  double rate(MathFormat f) const { return entries_[index(f)].second; }
  std::size_t size() const {
    std::size_t n = 0;
    for (bool p : present_) n += p ? 1 : 0;
    return n;
  }
  bool empty() const { return size() == 0; }
  bool operator==(const PeakRates& o) const {
    for (std::size_t i = 0; i < kFormats; ++i)
      if (present_[i] != o.present_[i] || entries_[i].second != o.entries_[i].second) return false;
    return true;
  }

  template <class Owner, class Value>
  class Iter {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = PeakRates::value_type;
    using difference_type = std::ptrdiff_t;
    using pointer = Value*;
    using reference = Value&;
    Iter() = default;
    Iter(Owner* owner, std::size_t i) : owner_(owner), i_(i) { skip(); }
    reference operator*() const { return owner_->entries_[i_]; }
    pointer operator->() const { return &owner_->entries_[i_]; }
    Iter& operator++() {
      ++i_;
      skip();
      return *this;
    }
    Iter operator++(int) {
      Iter t = *this;
      ++*this;
      return t;
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }

   private:
    void skip() {
      while (i_ < kFormats && !owner_->present_[i_]) ++i_;
    }
    Owner* owner_ = nullptr;
    std::size_t i_ = kFormats;
  };
  using iterator = Iter<PeakRates, value_type>;
  using const_iterator = Iter<const PeakRates, const value_type>;
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, kFormats}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, kFormats}; }

 private:
  static constexpr std::size_t index(MathFormat f) { return static_cast<std::size_t>(f); }
  template <std::size_t... I>
  static constexpr std::array<value_type, kFormats> make_entries(std::index_sequence<I...>) {
    return {value_type{kAllMathFormats[I], 0.0}...};
  }

  std::array<value_type, kFormats> entries_ = make_entries(std::make_index_sequence<kFormats>{});
  std::array<bool, kFormats> present_{};
};

struct Accelerator {
  std::string name;          // catalog key, e.g. "H200-SXM"
  std::string display_name;  // as the vendor writes it, e.g. "H200 SXM"
  std::vector<std::string> aliases;  // other names sources use ("H200-SXM-141GB", "H200")
  std::string vendor;        // NVIDIA, AMD, Intel, Google
  std::string architecture;  // "Hopper (GH100)"
  std::string generation;    // efficiency group: ampere, ada, hopper, blackwell, blackwell_ultra, cdna3, ...
  int launch_year = 0;
  std::string form_factor;   // SXM5, PCIe, OAM, ...

  // Dense (non-sparse) tensor peak rates in FLOP/s (int8: OP/s). A format the chip lacks is absent.
  PeakRates peak_flops;

  double memory_bytes = 0;                  // HBM/GDDR capacity in bytes (see memory_basis)
  // How memory_bytes was given: "driver" (memory_mib: the total nvidia-smi/rocm-smi reports, binary
  // MiB, what frameworks allocate from) or "datasheet" (memory_gb: the vendor's decimal GB).
  std::string memory_basis = "datasheet";
  double memory_bandwidth_bytes_per_s = 0;  // peak HBM bandwidth
  std::string memory_type;

  std::string scaleup_link;                         // "NVLink 4", "PCIe Gen5", "Infinity Fabric"
  double scaleup_bandwidth_bytes_per_s = 0;         // per GPU, one direction
  int max_scaleup_domain = 1;                       // GPUs reachable at scale-up bandwidth
  // GPU <-> host (CPU) memory, per GPU, one direction: PCIe to an x86 host, NVLink-C2C to Grace. What
  // activation offload moves over; 0: not published (offload is not modelled).
  double host_link_bytes_per_s = 0;
  double tdp_w = 0;

  std::string arch_target;      // "sm_90", "gfx942"
  int compute_capability = 0;   // NVIDIA only: 80, 86, 89, 90, 100, 103, 120; 0 elsewhere
  std::string min_cuda;         // "12.0" (or ROCm version for AMD)
  std::string min_driver;       // "525.60.13"
  std::string first_pytorch;    // "2.0"
  std::optional<double> price_usd;

  // Provenance: field name -> source (URL or citation). Key "*" is the entry's primary source.
  std::map<std::string, std::string> sources;
  std::string origin;  // "built-in" or the user file the entry came from

  // Peak dense rate for a format; 0 when the chip has no such tensor path.
  double peak(MathFormat f) const { return peak_flops.rate(f); }
};

}  // namespace gpuplan
