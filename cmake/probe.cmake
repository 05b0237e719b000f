# The CUDA probe behind `gpuplan probe` (src/probe/*.cu): optional, so the project configures, builds and
# tests without CUDA. GPUPLAN_BUILD_PROBE: AUTO (default) builds it when check_language(CUDA) finds nvcc
# and the toolkit has cuBLASLt; ON requires them; OFF never builds it. Without the probe `gpuplan probe`
# says so and exits 1. The probe needs no GPU to build; only to run.
set(GPUPLAN_BUILD_PROBE AUTO CACHE STRING "Build the CUDA probe: AUTO (when nvcc is found), ON or OFF")
set_property(CACHE GPUPLAN_BUILD_PROBE PROPERTY STRINGS AUTO ON OFF)
set(GPUPLAN_PROBE_GENCODE "" CACHE STRING
    "nvcc -gencode flags for the probe; empty: sm_90 (+ sm_100 when nvcc is 12.8+) and compute_90 PTX")

string(TOUPPER "${GPUPLAN_BUILD_PROBE}" _gpuplan_probe_mode)
set(_gpuplan_probe_ok OFF)
if(NOT _gpuplan_probe_mode MATCHES "^(OFF|FALSE|NO|0)$")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit)
    if(TARGET CUDA::cublasLt AND TARGET CUDA::cudart)
      set(_gpuplan_probe_ok ON)
    endif()
  endif()
  if(NOT _gpuplan_probe_ok)
    if(_gpuplan_probe_mode MATCHES "^(ON|TRUE|YES|1)$")
      message(FATAL_ERROR "GPUPLAN_BUILD_PROBE=ON but nvcc or cuBLASLt was not found (set CMAKE_CUDA_COMPILER)")
    endif()
    message(STATUS "gpuplan probe: not built (no nvcc/cuBLASLt); `gpuplan probe` will say so")
  endif()
endif()

if(_gpuplan_probe_ok)
  set(_gencode "${GPUPLAN_PROBE_GENCODE}")
  if(NOT _gencode)
    # The probe's own kernels are plain CUDA (no wgmma/tcgen05), so portable sm_90/sm_100 code runs as fast
    # as the arch-specific 90a/100a; cuBLASLt brings its own kernels. PTX serves newer chips.
    set(_gencode "-gencode=arch=compute_90,code=sm_90")
    if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.8)
      string(APPEND _gencode " -gencode=arch=compute_100,code=sm_100")
    endif()
    string(APPEND _gencode " -gencode=arch=compute_90,code=compute_90")
  endif()
  separate_arguments(_gencode_list UNIX_COMMAND "${_gencode}")
  file(GLOB _probe_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/probe/*.cu)
  # A module that `gpuplan probe` loads with dlopen, so that every other command starts without mapping
  # cuBLASLt (about 1 s per process start when linked in).
  add_library(gpuplan_probe MODULE ${_probe_srcs})
  # The directory's -Wall -Wpedantic ... are host-compiler flags nvcc does not take.
  set_property(TARGET gpuplan_probe PROPERTY COMPILE_OPTIONS "")
  set_target_properties(gpuplan_probe PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON
                                                 CUDA_ARCHITECTURES OFF POSITION_INDEPENDENT_CODE ON CUDA_RUNTIME_LIBRARY Shared
                                                 PREFIX "lib" SUFFIX ".so" OUTPUT_NAME gpuplan_probe
                                                 LIBRARY_OUTPUT_DIRECTORY $<TARGET_FILE_DIR:gpuplan>)
  target_compile_options(gpuplan_probe PRIVATE ${_gencode_list} -Xcompiler=-Wall)
  target_include_directories(gpuplan_probe PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(gpuplan_probe PRIVATE CUDA::cublasLt CUDA::cudart ${CMAKE_DL_LIBS})
  add_dependencies(gpuplan gpuplan_probe)
  target_link_libraries(gpuplan PRIVATE ${CMAKE_DL_LIBS})
  # cmd_probe.cc loads libgpuplan_probe.so. Its definition alone (the file then builds outside the unity
  # batches), so turning the probe on in a built tree (scripts/test.sh after scripts/quickstart.sh)
  # recompiles that file only.
  set_source_files_properties(${PROJECT_SOURCE_DIR}/src/cli/cmd_probe.cc PROPERTIES COMPILE_DEFINITIONS GPUPLAN_HAVE_PROBE=1)
  message(STATUS "gpuplan probe: built with nvcc ${CMAKE_CUDA_COMPILER_VERSION}, ${_gencode}")
endif()
