# Tests of the CUDA runtime replacement (runtime/cudart, libcudart.so.13) and `ptxvm exec`.
# Included from tests/CMakeLists.txt.
#
#   cudart_tests       unit tests: printf formatting, compute-sanitizer rendering, settings, the
#                      PTX linker, host functions in the emulator, adopted host memory, the report,
#                      the stream work queues; CUDA arrays, texture and surface objects through the
#                      library's exported API (linked with libcudart.so.13)
#   cudart_abi_tests   the runtime's types and values against CUDA's own headers (when present)
#   cudart_programs    small CUDA programs (tests/runtime/programs/*.cu), built with
#                      `nvcc -cudart shared` when nvcc is found, run by lit under `ptxvm exec`
if(NOT TARGET cudart)
  return()
endif()

add_executable(cudart_tests
  runtime/CudartConfigTest.cpp
  runtime/CudartPrintfTest.cpp
  runtime/CudartSanitizerTest.cpp
  runtime/CudartTexturesTest.cpp
  runtime/DriverEntriesTest.cpp
  runtime/HostFunctionsTest.cpp
  runtime/LaunchReportTest.cpp
  runtime/PtxLinkTest.cpp
  runtime/WorkQueuesTest.cpp
)
target_link_libraries(cudart_tests PRIVATE cudart cudart_core launch_report ptx_version GTest::gtest_main)
target_compile_definitions(cudart_tests PRIVATE ${PTXVM_TEST_DEFINES})
ptxvm_gtest_batches(cudart_tests DISCOVERY_TIMEOUT 60)

set(PTXVM_CUDA_INCLUDE /usr/local/cuda/include CACHE PATH "CUDA headers for the runtime's ABI test")
if(EXISTS ${PTXVM_CUDA_INCLUDE}/cuda_runtime_api.h)
  add_executable(cudart_abi_tests runtime/CudartAbiTest.cpp runtime/DriverAbiTest.cpp)
  target_include_directories(cudart_abi_tests SYSTEM PRIVATE ${PTXVM_CUDA_INCLUDE})
  target_link_libraries(cudart_abi_tests PRIVATE ptx GTest::gtest_main)
  ptxvm_gtest_batches(cudart_abi_tests DISCOVERY_TIMEOUT 60)
else()
  message(STATUS "CUDA headers not found: the runtime's ABI test is skipped")
endif()

# ---- CUDA programs run under `ptxvm exec` --------------------------------------------------------
find_program(PTXVM_NVCC nvcc HINTS /usr/local/cuda/bin DOC "nvcc used to build the PTX corpus")
find_program(PTXVM_CUDART_PYTHON python3)
set(_cudart_lit /usr/lib/llvm-19/build/utils/lit/lit.py)
set(PTXVM_FILECHECK /usr/lib/llvm-19/bin/FileCheck)
if(NOT PTXVM_NVCC OR NOT PTXVM_CUDART_PYTHON OR NOT EXISTS ${_cudart_lit} OR NOT EXISTS ${PTXVM_FILECHECK})
  message(STATUS "nvcc, python3, lit or FileCheck missing: the runtime's CUDA program tests are skipped")
  return()
endif()

set(_cudart_src ${CMAKE_CURRENT_SOURCE_DIR}/runtime/programs)
set(_cudart_programs_dir ${CMAKE_CURRENT_BINARY_DIR}/runtime-programs/bin)
get_target_property(_cudart_lib_dir cudart LIBRARY_OUTPUT_DIRECTORY)
file(MAKE_DIRECTORY ${_cudart_programs_dir})
# Each programs/<name>.cu becomes <name>; extra nvcc flags (and sources) of one program:
# PTXVM_CUDART_FLAGS_<name>. Variants of a program built another way: "name|source|flags".
set(PTXVM_CUDART_FLAGS_rdc -rdc=true ${_cudart_src}/Inputs/rdc_library.cu)
# Driver API programs link NVIDIA's libcuda stub; ptxvm's libcuda.so.1 serves them.
set(PTXVM_CUDART_FLAGS_driver -lcuda)
set(PTXVM_CUDART_FLAGS_driver_static -lcuda)
set(PTXVM_CUDART_FLAGS_driver_mixed -lcuda)
set(PTXVM_CUDART_FLAGS_cdp -rdc=true -lcudadevrt)
# Programs for another architecture than sm_80: PTXVM_CUDART_ARCH_<name>.
set(PTXVM_CUDART_ARCH_cluster sm_90)
set(_cudart_variants
  "status_ptds|status.cu|-cudart shared --default-stream per-thread"
  "async_ptds|async.cu|-cudart shared --default-stream per-thread"
  "status_static|status.cu|-cudart static"
  "driver_static|driver.cu|-cudart static")
file(GLOB _cudart_sources CONFIGURE_DEPENDS ${_cudart_src}/*.cu)
file(GLOB _cudart_inputs CONFIGURE_DEPENDS ${_cudart_src}/Inputs/*)
foreach(_cu IN LISTS _cudart_sources)
  get_filename_component(_name ${_cu} NAME_WE)
  list(APPEND _cudart_variants "${_name}|${_name}.cu|-cudart shared")
endforeach()
set(_cudart_programs)
foreach(_spec IN LISTS _cudart_variants)
  string(REPLACE "|" ";" _parts "${_spec}")
  list(GET _parts 0 _name)
  list(GET _parts 1 _source)
  list(GET _parts 2 _flags)
  separate_arguments(_flags UNIX_COMMAND "${_flags}")
  set(_arch sm_80)
  if(DEFINED PTXVM_CUDART_ARCH_${_name})
    set(_arch ${PTXVM_CUDART_ARCH_${_name}})
  endif()
  add_custom_command(
    OUTPUT ${_cudart_programs_dir}/${_name}
    COMMAND ${PTXVM_NVCC} ${_flags} -arch=${_arch} -lineinfo -std=c++17 ${PTXVM_CUDART_FLAGS_${_name}}
            ${_cudart_src}/${_source} -o ${_cudart_programs_dir}/${_name}
    DEPENDS ${_cudart_src}/${_source} ${_cudart_inputs}
    WORKING_DIRECTORY ${_cudart_programs_dir}
    COMMENT "nvcc runtime/programs/${_source} -> ${_name}"
    VERBATIM)
  list(APPEND _cudart_programs ${_cudart_programs_dir}/${_name})
endforeach()
# What driver.cu loads: a fatbin (PTX and SASS) and a cubin (SASS only, refused).
foreach(_form fatbin cubin)
  add_custom_command(
    OUTPUT ${_cudart_programs_dir}/driver_kernels.${_form}
    COMMAND ${PTXVM_NVCC} -${_form} -arch=sm_80 ${_cudart_src}/Inputs/driver_kernels.cu
            -o ${_cudart_programs_dir}/driver_kernels.${_form}
    DEPENDS ${_cudart_src}/Inputs/driver_kernels.cu
    COMMENT "nvcc -${_form} runtime/programs/Inputs/driver_kernels.cu"
    VERBATIM)
  list(APPEND _cudart_programs ${_cudart_programs_dir}/driver_kernels.${_form})
endforeach()
add_custom_target(cudart_programs ALL DEPENDS ${_cudart_programs})

set(_cudart_asan_runtime "")
if(PTXVM_SANITIZE OR PTXVM_FUZZ)
  # nvcc's programs are not instrumented: the sanitizer runtime the
  # instrumented libcudart.so.13 needs is preloaded.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(_asan_so libclang_rt.asan-x86_64.so)
  else()
    set(_asan_so libasan.so)
  endif()
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_asan_so}
                  OUTPUT_VARIABLE _cudart_asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
configure_file(runtime/programs/lit.site.cfg.py.in ${CMAKE_CURRENT_BINARY_DIR}/runtime-programs/lit.site.cfg.py
               @ONLY)
add_test(NAME cudart_programs
         COMMAND ${PTXVM_CUDART_PYTHON} ${_cudart_lit} -sv ${CMAKE_CURRENT_BINARY_DIR}/runtime-programs)
set_tests_properties(cudart_programs PROPERTIES LABELS "cudart" TIMEOUT 900)
