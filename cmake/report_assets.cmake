# The charting library of `gpuplan report`, from the npm registry, pinned by web/package-lock.json:
# `npm ci` installs it into the build folder (from the npm cache when offline) and its minified dist
# file is compiled into the binary (gpuplan_report_assets), so a report opens with no network.
find_program(GPUPLAN_NPM npm)
if(NOT GPUPLAN_NPM)
  message(FATAL_ERROR "npm not found: gpuplan report embeds a charting library installed with `npm ci` "
                      "from web/package-lock.json. Run scripts/install-deps.sh (it installs nodejs and npm).")
endif()
set(GPUPLAN_WEB_DIR ${PROJECT_BINARY_DIR}/web)
configure_file(${PROJECT_SOURCE_DIR}/web/package.json ${GPUPLAN_WEB_DIR}/package.json COPYONLY)
configure_file(${PROJECT_SOURCE_DIR}/web/package-lock.json ${GPUPLAN_WEB_DIR}/package-lock.json COPYONLY)
file(READ ${PROJECT_SOURCE_DIR}/web/package.json GPUPLAN_WEB_PACKAGE)
string(JSON GPUPLAN_CHARTJS_VERSION GET "${GPUPLAN_WEB_PACKAGE}" dependencies chart.js)
set(GPUPLAN_CHARTJS ${GPUPLAN_WEB_DIR}/node_modules/chart.js/dist/chart.umd.min.js)
set(GPUPLAN_WEB_STAMP ${GPUPLAN_WEB_DIR}/node_modules/.npm-ci.stamp)
add_custom_command(
  OUTPUT ${GPUPLAN_WEB_STAMP} ${GPUPLAN_CHARTJS}
  COMMAND ${GPUPLAN_NPM} ci --prefer-offline --no-audit --no-fund --ignore-scripts --loglevel=error
  COMMAND ${CMAKE_COMMAND} -E touch ${GPUPLAN_WEB_STAMP}
  WORKING_DIRECTORY ${GPUPLAN_WEB_DIR}
  DEPENDS ${GPUPLAN_WEB_DIR}/package.json ${GPUPLAN_WEB_DIR}/package-lock.json
  COMMENT "npm ci (web/package-lock.json): the charting library and the browser-test driver")
add_custom_target(gpuplan_web_modules DEPENDS ${GPUPLAN_WEB_STAMP})
add_custom_command(
  OUTPUT ${PROJECT_BINARY_DIR}/generated/chart_library.cc
  COMMAND ${CMAKE_COMMAND} -DINPUT=${GPUPLAN_CHARTJS} -DNAME=chart.js -DVERSION=${GPUPLAN_CHARTJS_VERSION}
          -DOUTPUT=${PROJECT_BINARY_DIR}/generated/chart_library.cc -P ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
  DEPENDS ${GPUPLAN_WEB_STAMP} ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake ${PROJECT_SOURCE_DIR}/cmake/embed_common.cmake
  COMMENT "Embedding chart.js ${GPUPLAN_CHARTJS_VERSION} for report pages")
# The report page's own style sheet and script (web/report), embedded the same way.
set(GPUPLAN_REPORT_PAGE_CSS ${PROJECT_SOURCE_DIR}/web/report/page.css)
set(GPUPLAN_REPORT_PAGE_JS ${PROJECT_SOURCE_DIR}/web/report/charts.js)
add_custom_command(
  OUTPUT ${PROJECT_BINARY_DIR}/generated/report_page_assets.cc
  COMMAND ${CMAKE_COMMAND} -DCSS=${GPUPLAN_REPORT_PAGE_CSS} -DSCRIPT=${GPUPLAN_REPORT_PAGE_JS}
          -DOUTPUT=${PROJECT_BINARY_DIR}/generated/report_page_assets.cc
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_report_page.cmake
  DEPENDS ${GPUPLAN_REPORT_PAGE_CSS} ${GPUPLAN_REPORT_PAGE_JS} ${PROJECT_SOURCE_DIR}/cmake/embed_report_page.cmake
          ${PROJECT_SOURCE_DIR}/cmake/embed_common.cmake
  COMMENT "Embedding the report page's style sheet and script (web/report)")
add_library(gpuplan_report_assets STATIC ${PROJECT_BINARY_DIR}/generated/chart_library.cc
            ${PROJECT_BINARY_DIR}/generated/report_page_assets.cc)
gpuplan_pic_library(gpuplan_report_assets)
target_include_directories(gpuplan_report_assets PUBLIC ${PROJECT_SOURCE_DIR}/src)
