# What `cmake --install` puts where, the CMake package for embedding (find_package(ptxvm)),
# and the Debian package (cpack -G DEB). Included last by the top-level CMakeLists.txt.
#
#   bin/ptxvm
#   lib/ptxvm/libcudart.so.13           ptxvm exec finds it relative to bin/ (tools/Exec.cpp)
#   lib/ptxvm/cuda-shim/libcuda.so.1    the CUDA shim of --device gpu
#   lib/ptxvm/lib*.a                    the public libraries, for find_package(ptxvm)
#   lib/cmake/ptxvm/                    ptxvmConfig.cmake, ptxvmTargets.cmake, the version file
#   include/ptxvm/{ptx,analysis,regalloc,emulator}/
#   share/man/man1/ptxvm.1, share/bash-completion/completions/ptxvm
#   share/doc/ptxvm/                    README, cuda-runtime.md, cpu-device.md, examples/ (sources)
#   share/ptxvm/examples/vector_add     a CUDA program to try `ptxvm exec` on (when nvcc was found)
include(CMakePackageConfigHelpers)

set(PTXVM_INSTALL_LIBDIR lib/ptxvm)
set(PTXVM_INSTALL_CMAKEDIR lib/cmake/ptxvm)

# The libraries other programs build on: the IR and front ends, the analyses, the register
# allocator, the emulator (with what they link privately, which static libraries must carry).
set(_ptxvm_exported ptx_table ptx ptx_version analysis regalloc emulator)
if(TARGET ptx_antlr_generated)
  list(APPEND _ptxvm_exported ptx_antlr_generated)
endif()
install(TARGETS ${_ptxvm_exported} EXPORT ptxvmTargets
        ARCHIVE DESTINATION ${PTXVM_INSTALL_LIBDIR} COMPONENT development)
foreach(_folder ptx analysis regalloc emulator)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_folder}/ DESTINATION ${PTXVM_INSTALL_INCLUDEDIR}/${_folder}
          COMPONENT development FILES_MATCHING PATTERN "*.h" PATTERN "*.def" PATTERN "grammar" EXCLUDE)
endforeach()
install(EXPORT ptxvmTargets NAMESPACE ptxvm:: DESTINATION ${PTXVM_INSTALL_CMAKEDIR} COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ptxvmConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/ptxvmConfig.cmake INSTALL_DESTINATION ${PTXVM_INSTALL_CMAKEDIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/ptxvmConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/ptxvmConfig.cmake ${CMAKE_BINARY_DIR}/cmake/ptxvmConfigVersion.cmake
        DESTINATION ${PTXVM_INSTALL_CMAKEDIR} COMPONENT development)

install(TARGETS ptxvm RUNTIME DESTINATION bin COMPONENT runtime)
if(TARGET cuda_shim)
  install(TARGETS cuda_shim LIBRARY DESTINATION ${PTXVM_INSTALL_LIBDIR}/cuda-shim COMPONENT runtime)
endif()
install(FILES ${CMAKE_BINARY_DIR}/share/man/man1/ptxvm.1 DESTINATION share/man/man1 COMPONENT runtime)
install(FILES ${CMAKE_BINARY_DIR}/share/bash-completion/completions/ptxvm
        DESTINATION share/bash-completion/completions COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/ptxvm COMPONENT runtime)
# What the CUDA runtime serves, and what the CPU device compiles.
install(FILES ${PROJECT_SOURCE_DIR}/runtime/cudart/README.md DESTINATION share/doc/ptxvm
        RENAME cuda-runtime.md COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/translator/README.md DESTINATION share/doc/ptxvm
        RENAME cpu-device.md COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION share/doc/ptxvm/examples COMPONENT development)
if(TARGET apps)
  get_property(_apps_dir GLOBAL PROPERTY PTXVM_APPS_DIR)
  install(PROGRAMS ${_apps_dir}/vector_add DESTINATION share/ptxvm/examples COMPONENT runtime)
  install(FILES ${PROJECT_SOURCE_DIR}/kernels/apps/vector_add.cu ${PROJECT_SOURCE_DIR}/kernels/apps/app_check.h
          DESTINATION share/ptxvm/examples COMPONENT runtime)
endif()

# ---- the Debian package: ptxvm_<version>_<arch>.deb ----
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ptxvm)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "ptxvm developers <ptxvm@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "PTX virtual machine: runs, checks and re-optimizes CUDA PTX without a GPU")
set(CPACK_PACKAGE_DESCRIPTION
    "ptxvm reads PTX, analyses it (gated SSA, divergence and affine analysis), re-optimizes it and runs it on a SIMT emulator that models warps and the 16 named barriers of a CTA, on CPUs through LLVM, or on a real GPU. It runs unmodified CUDA programs (nvcc -cudart shared) without a GPU and finds barrier deadlocks, races and divergence.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libcudart.so.13 is the package's own (the bundled example program needs it).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PTXVM_INSTALL_LIBDIR})
# Embedding (find_package(ptxvm)) compiles against these headers.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libboost-dev (>= 1.81), libfmt-dev, libantlr4-runtime-dev, uuid-dev")
set(CPACK_STRIP_FILES ON)
set(CPACK_THREADS 0)
include(CPack)
