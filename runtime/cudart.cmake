# libcudart.so.13: the CUDA runtime API served on a ptxvm device (runtime/cudart/), and the
# launch report that it and `ptxvm run` share. Included from runtime/CMakeLists.txt.

# The JSON report of launches and diagnostics (`ptxvm run --report`, PTXVM_REPORT).
add_library(launch_report STATIC cudart/LaunchReport.cpp)
target_link_libraries(launch_report PUBLIC device ptx PRIVATE ptx_version)
# The PTXVM_* settings, which `ptxvm exec` checks as the library will read them.
add_library(cudart_config STATIC cudart/Config.cpp)
target_link_libraries(cudart_config PUBLIC device)


# The parts with no exported API, as a static library the unit tests link.
add_library(cudart_core STATIC
  cudart/DeviceLaunches.cpp
  cudart/DeviceServices.cpp
  cudart/Printf.cpp
  cudart/PtxLink.cpp
  cudart/Sanitizer.cpp
  cudart/WorkQueues.cpp
)
target_link_libraries(cudart_core PUBLIC cudart_config device ptx regalloc)
set_target_properties(cudart_core PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)

add_library(cudart SHARED
  cudart/Arrays.cpp
  cudart/Copy.cpp
  cudart/Device.cpp
  cudart/DeviceLaunch.cpp
  cudart/DriverContext.cpp
  cudart/DriverEntries.cpp
  cudart/DriverMemory.cpp
  cudart/DriverModules.cpp
  cudart/DriverStreams.cpp
  cudart/Errors.cpp
  cudart/Functions.cpp
  cudart/GraphEdits.cpp
  cudart/GraphMemory.cpp
  cudart/Graphs.cpp
  cudart/GraphNodes.cpp
  cudart/Launch.cpp
  cudart/Memory.cpp
  cudart/Registration.cpp
  cudart/Runtime.cpp
  cudart/Streams.cpp
  cudart/Textures.cpp
  cudart/Unsupported.cpp
)
target_link_libraries(cudart PRIVATE cudart_core launch_report fatbin device ptx ${CMAKE_DL_LIBS})
set(_cudart_exports ${CMAKE_CURRENT_SOURCE_DIR}/cudart/exports.map)
set_target_properties(cudart PROPERTIES
  OUTPUT_NAME cudart
  SOVERSION 13
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  LINK_DEPENDS ${_cudart_exports})
target_link_options(cudart PRIVATE -Wl,--version-script=${_cudart_exports})
if(NOT PTXVM_SANITIZE AND NOT PTXVM_FUZZ)
  # Every symbol the library needs is in it or in a system library.
  target_link_options(cudart PRIVATE -Wl,--no-undefined)
endif()
install(TARGETS cudart LIBRARY DESTINATION lib/ptxvm COMPONENT runtime)

include(cudart/libcuda/libcuda.cmake)

# `ptxvm exec` can run programs (tests/runtime/apps.cmake waits for this).
set(PTXVM_EXEC_READY ON CACHE INTERNAL "libcudart.so.13 is built")
