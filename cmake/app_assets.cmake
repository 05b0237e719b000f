# The web app of `gpuplan serve` (web/app/*.html, *.js, *.css), compiled into gpuplan_server_assets
# by cmake/embed_app.cmake: the server reads no files at run time. The charting library is the
# report's (gpuplan_report_assets).
file(GLOB GPUPLAN_APP_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/web/app/*.html
     ${PROJECT_SOURCE_DIR}/web/app/*.js ${PROJECT_SOURCE_DIR}/web/app/*.css)
add_custom_command(
  OUTPUT ${PROJECT_BINARY_DIR}/generated/app_assets.cc
  COMMAND ${CMAKE_COMMAND} -DAPP_DIR=${PROJECT_SOURCE_DIR}/web/app
          -DOUTPUT=${PROJECT_BINARY_DIR}/generated/app_assets.cc -P ${PROJECT_SOURCE_DIR}/cmake/embed_app.cmake
  DEPENDS ${GPUPLAN_APP_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_app.cmake ${PROJECT_SOURCE_DIR}/cmake/embed_common.cmake
  COMMENT "Embedding the web app (web/app)")
add_library(gpuplan_server_assets STATIC ${PROJECT_BINARY_DIR}/generated/app_assets.cc)
gpuplan_pic_library(gpuplan_server_assets)
target_include_directories(gpuplan_server_assets PUBLIC ${PROJECT_SOURCE_DIR}/src)
