# Tests of the fatbin reader (runtime/Fatbin, runtime/Elf).
#
# The committed fixtures in runtime/fatbin/ (made by make-fixtures.sh) run everywhere. When nvcc
# is found, small programs are also built here with it (executables, a shared object, an object
# file; whole-program and -rdc=true; every compression mode) and their paths reach the tests
# through PTXVM_FATBIN_PROGRAMS; without nvcc those tests skip.
if(NOT TARGET fatbin)
  return()
endif()

find_program(PTXVM_NVCC nvcc HINTS /usr/local/cuda/bin DOC "nvcc used to build the PTX corpus")

set(_fatbin_src ${CMAKE_CURRENT_SOURCE_DIR}/runtime/fatbin)
set(_fatbin_out ${CMAKE_CURRENT_BINARY_DIR}/fatbin-programs)
set(_fatbin_programs)
if(PTXVM_NVCC)
  file(MAKE_DIRECTORY ${_fatbin_out})
  # name|nvcc flags (separated by spaces)|sources (separated by spaces)
  foreach(_spec
      "saxpy_zstd|-arch=sm_80|saxpy.cu"
      "saxpy_lz4|-arch=sm_80 -compress-mode=speed|saxpy.cu"
      "saxpy_none|-arch=sm_80 --no-compress|saxpy.cu"
      "saxpy_multi|-gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_90,code=compute_90 -gencode=arch=compute_120,code=compute_120|saxpy.cu"
      "libsaxpy.so|-arch=sm_80 -shared -Xcompiler -fPIC|saxpy.cu"
      "saxpy.o|-arch=sm_80 -c|saxpy.cu"
      "rdc|-arch=sm_80 -rdc=true|rdc_scale.cu rdc_main.cu")
    string(REPLACE "|" ";" _parts "${_spec}")
    list(GET _parts 0 _name)
    list(GET _parts 1 _flags)
    list(GET _parts 2 _sources)
    separate_arguments(_flags UNIX_COMMAND "${_flags}")
    separate_arguments(_sources UNIX_COMMAND "${_sources}")
    list(TRANSFORM _sources PREPEND ${_fatbin_src}/)
    add_custom_command(
      OUTPUT ${_fatbin_out}/${_name}
      COMMAND ${PTXVM_NVCC} -cudart shared ${_flags} ${_sources} -o ${_fatbin_out}/${_name}
      DEPENDS ${_sources}
      WORKING_DIRECTORY ${_fatbin_out}
      COMMENT "nvcc -> fatbin-programs/${_name}"
      VERBATIM)
    list(APPEND _fatbin_programs ${_fatbin_out}/${_name})
  endforeach()
  set(_fatbin_programs_dir ${_fatbin_out})
else()
  message(STATUS "nvcc not found: fatbin tests of nvcc-built programs will skip")
  set(_fatbin_programs_dir "")
endif()
add_custom_target(fatbin_programs DEPENDS ${_fatbin_programs})

add_executable(fatbin_tests
  runtime/FatbinTest.cpp
  runtime/FatbinRobustnessTest.cpp
  runtime/FatbinElfTest.cpp
  runtime/FatbinTestUtil.cpp
)
target_link_libraries(fatbin_tests PRIVATE fatbin ptx GTest::gtest_main PkgConfig::ZSTD PkgConfig::LZ4)
target_include_directories(fatbin_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_definitions(fatbin_tests PRIVATE ${PTXVM_TEST_DEFINES}
  PTXVM_FATBIN_FIXTURES="${_fatbin_src}"
  PTXVM_FATBIN_PROGRAMS="${_fatbin_programs_dir}")
add_dependencies(fatbin_tests fatbin_programs)
ptxvm_gtest_batches(fatbin_tests DISCOVERY_TIMEOUT 60)
