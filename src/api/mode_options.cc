#include "api/mode_options.h"

#include <algorithm>

#include "core/error.h"

namespace gpuplan::api {

namespace {

bool listed(std::initializer_list<std::string_view> names, std::string_view option) {
  return std::find(names.begin(), names.end(), option) != names.end();
}

// InputError naming the first of `refused`, the others listed after its reason.
void refuse(const std::vector<std::string>& refused, const NotReadReason& why) {
  if (refused.empty()) return;
  std::string message = why(refused.front());
  for (std::size_t i = 1; i < refused.size(); ++i) message += (i == 1 ? "; also given: " : ", ") + refused[i];
  throw InputError(refused.front(), message);
}

}  // namespace

std::vector<std::string> options_not_read(const RequestBase& req, std::initializer_list<std::string_view> reads) {
  std::vector<std::string> out;
  for (const auto& o : req.given_options)
    if (!listed(reads, o) && std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  return out;
}

void refuse_options_not_read(const RequestBase& req, std::initializer_list<std::string_view> reads,
                             const NotReadReason& why) {
  refuse(options_not_read(req, reads), why);
}

void refuse_ignored_options(const RequestBase& req, std::initializer_list<std::string_view> ignored,
                            const NotReadReason& why) {
  std::vector<std::string> refused;
  for (const auto& o : req.given_options)
    if (listed(ignored, o) && std::find(refused.begin(), refused.end(), o) == refused.end()) refused.push_back(o);
  refuse(refused, why);
}

void refuse_ignored_options(const RequestBase& req, std::initializer_list<std::string_view> ignored,
                            std::string_view why) {
  refuse_ignored_options(req, ignored, [&](std::string_view) { return std::string(why); });
}

}  // namespace gpuplan::api
