#pragma once
// The style sheet and the script every report page inlines: web/report/page.css and web/report/charts.js
// (draws every chart from its JSON data block with chart.js and marks each canvas data-drawn="true"),
// compiled in by cmake/embed_report_page.cmake.
#include <string_view>

namespace gpuplan::report {

std::string_view page_css();     // web/report/page.css
std::string_view page_script();  // web/report/charts.js

}  // namespace gpuplan::report
