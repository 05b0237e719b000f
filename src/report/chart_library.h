#pragma once
// The charting library inlined into every report page: chart.js's minified UMD build, installed by
// `npm ci` from web/package-lock.json and compiled in by cmake/report_assets.cmake.
#include <string_view>

namespace gpuplan::report {

std::string_view chart_library_js();       // the minified JavaScript
std::string_view chart_library_version();  // "chart.js 4.6.1"

}  // namespace gpuplan::report
