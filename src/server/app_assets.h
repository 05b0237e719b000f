#pragma once
// The web app's pages, scripts and styles (web/app/*), compiled into the binary at build time by
// cmake/app_assets.cmake, so `gpuplan serve` needs no files and no network.
#include <string_view>

namespace gpuplan::server {

struct AppAsset {
  std::string_view name;          // file name under web/app ("app.js")
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view body;
};

// The asset of that file name, or nullptr.
const AppAsset* find_app_asset(std::string_view name);

}  // namespace gpuplan::server
