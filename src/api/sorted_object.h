#pragma once
// Filling a document's object key by key in sorted order: nlohmann's objects are std::maps, and an
// insertion at the end (the map's end as the hint) takes one key comparison instead of a descent
// through the tree. A key out of order is still inserted where it belongs, at the usual cost.
#include <nlohmann/json.hpp>

#include <utility>

namespace gpuplan::api {

class SortedObject {
 public:
  explicit SortedObject(nlohmann::json& object) : o_(object.get_ref<nlohmann::json::object_t&>()) {}
  template <typename Value>
  SortedObject& add(const char* key, Value&& value) {
    o_.emplace_hint(o_.end(), key, std::forward<Value>(value));
    return *this;
  }

 private:
  nlohmann::json::object_t& o_;
};

}  // namespace gpuplan::api
