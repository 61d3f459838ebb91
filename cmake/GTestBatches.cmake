# ptxvm_gtest_batches(TARGET [TEST_PREFIX p] [TEST_FILTER f] [BATCH n] [DISCOVERY_TIMEOUT s]
#                     [PROPERTIES name value ...])
#
# Registers a GoogleTest executable's tests with ctest as gtest_discover_tests
# does, but several tests to a ctest entry: starting a test binary (loading
# libLLVM, its static initializers) costs about 0.2 s, far more than most of
# our tests, and a ctest entry per test spent most of the suite's time there.
# A batch holds up to BATCH tests (default 16) of one suite and, for
# parameterized tests, of one test pattern, so ctest names (and -R/-E
# expressions over them) still say what ran: "Suite.Test" for a batch of one,
# "Suite.First (+N)" for more. A batch in which every test skipped is reported
# skipped. The list is taken after each build (POST_BUILD), as GoogleTest's
# module takes it.
set(PTXVM_GTEST_BATCHES_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/GTestBatchesDiscover.cmake)

function(ptxvm_gtest_batches target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "TEST_PREFIX;TEST_FILTER;BATCH;DISCOVERY_TIMEOUT" "PROPERTIES")
  if(NOT arg_BATCH)
    set(arg_BATCH 16)
  endif()
  if(NOT arg_DISCOVERY_TIMEOUT)
    set(arg_DISCOVERY_TIMEOUT 60)
  endif()
  # One generated file per registration (a target may be registered twice,
  # with different prefixes and environments).
  get_property(count TARGET ${target} PROPERTY PTXVM_GTEST_BATCH_COUNT)
  if(NOT count)
    set(count 0)
  endif()
  math(EXPR next "${count} + 1")
  set_property(TARGET ${target} PROPERTY PTXVM_GTEST_BATCH_COUNT ${next})
  set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}_batches_${count}")
  set(tests_file "${base}_tests.cmake")
  set(include_file "${base}_include.cmake")
  # Properties are handed to the script as one list of name=value pairs
  # with ';' inside values escaped, so that ENVIRONMENT lists survive.
  set(props "")
  list(LENGTH arg_PROPERTIES n)
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE 0 ${last} 2)
      math(EXPR j "${i} + 1")
      list(GET arg_PROPERTIES ${i} name)
      list(GET arg_PROPERTIES ${j} value)
      string(REPLACE ";" "\\;" value "${value}")
      string(APPEND props "${name}\n${value}\n")
    endforeach()
  endif()
  file(WRITE "${base}_properties.txt" "${props}")
  add_custom_command(
    TARGET ${target} POST_BUILD BYPRODUCTS "${tests_file}"
    COMMAND "${CMAKE_COMMAND}" -D "TEST_EXECUTABLE=$<TARGET_FILE:${target}>" -D "TEST_PREFIX=${arg_TEST_PREFIX}"
            -D "TEST_FILTER=${arg_TEST_FILTER}" -D "BATCH=${arg_BATCH}" -D "TIMEOUT=${arg_DISCOVERY_TIMEOUT}"
            -D "WORKING_DIRECTORY=${CMAKE_CURRENT_BINARY_DIR}" -D "PROPERTIES_FILE=${base}_properties.txt"
            -D "CTEST_FILE=${tests_file}" -P "${PTXVM_GTEST_BATCHES_SCRIPT}"
    VERBATIM)
  file(WRITE "${include_file}"
       "if(EXISTS \"${tests_file}\")\n  include(\"${tests_file}\")\nelse()\n"
       "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
