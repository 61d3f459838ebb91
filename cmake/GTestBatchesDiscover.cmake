# Run after a GoogleTest executable is built (cmake/GTestBatches.cmake): lists
# its tests and writes CTEST_FILE, one add_test per batch of up to BATCH tests
# of one suite and test pattern (a parameterized test's name up to its '/').
# Inputs: TEST_EXECUTABLE TEST_PREFIX TEST_FILTER BATCH TIMEOUT
# WORKING_DIRECTORY PROPERTIES_FILE CTEST_FILE.
set(list_args --gtest_list_tests)
if(TEST_FILTER)
  list(APPEND list_args "--gtest_filter=${TEST_FILTER}")
endif()
execute_process(
  COMMAND "${TEST_EXECUTABLE}" ${list_args}
  WORKING_DIRECTORY "${WORKING_DIRECTORY}"
  TIMEOUT ${TIMEOUT}
  OUTPUT_VARIABLE output
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "Listing the tests of ${TEST_EXECUTABLE} failed (${result}):\n${output}")
endif()

# Properties: name and value on alternate lines.
file(STRINGS "${PROPERTIES_FILE}" property_lines)
set(properties "")
set(expect_name TRUE)
foreach(line IN LISTS property_lines)
  if(expect_name)
    set(name "${line}")
    set(expect_name FALSE)
  else()
    string(REPLACE "\\;" ";" line "${line}")
    string(APPEND properties " ${name} [==[${line}]==]")
    set(expect_name TRUE)
  endif()
endforeach()

set(script "")
set(batch "")
set(batch_size 0)
set(batch_key "")

# Writes the batch collected so far as one ctest entry.
macro(flush_batch)
  if(batch_size GREATER 0)
    list(GET batch 0 first)
    if(batch_size EQUAL 1)
      set(test_name "${TEST_PREFIX}${first}")
    else()
      math(EXPR others "${batch_size} - 1")
      set(test_name "${TEST_PREFIX}${first} (+${others})")
    endif()
    list(JOIN batch ":" filter)
    string(APPEND script
           "add_test([==[${test_name}]==] [==[${TEST_EXECUTABLE}]==] [==[--gtest_filter=${filter}]==] --gtest_brief=1)\n"
           "set_tests_properties([==[${test_name}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKING_DIRECTORY}]==]"
           "${properties})\n")
  endif()
  set(batch "")
  set(batch_size 0)
endmacro()

string(REPLACE "\n" ";" lines "${output}")
set(suite "")
foreach(line IN LISTS lines)
  if(line MATCHES "^Running main" OR line STREQUAL "")
    continue()
  endif()
  # "Suite." (a typed suite adds "  # TypeParam = ..."), then "  Test" lines
  # (a parameterized test adds "  # GetParam() = ...").
  string(REGEX REPLACE "  #.*" "" line "${line}")
  if(line MATCHES "^  ([^ ]+)$")
    set(test "${CMAKE_MATCH_1}")
    # A parameterized test's siblings share its name up to the '/'; plain
    # tests share their suite.
    set(key "${suite}")
    if(test MATCHES "^([^/]+)/")
      set(key "${suite}${CMAKE_MATCH_1}/")
    endif()
    if(NOT key STREQUAL batch_key OR batch_size GREATER_EQUAL BATCH)
      flush_batch()
      set(batch_key "${key}")
    endif()
    # A '-' would start gtest's negative patterns: let '?' match it.
    string(REPLACE "-" "?" test "${test}")
    list(APPEND batch "${suite}${test}")
    math(EXPR batch_size "${batch_size} + 1")
  elseif(line MATCHES "^([^ ]+\\.)$")
    flush_batch()
    set(suite "${CMAKE_MATCH_1}")
  endif()
endforeach()
flush_batch()
file(WRITE "${CTEST_FILE}" "${script}")
