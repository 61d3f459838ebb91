# The HTML report (`--report-html`) opened in a real browser: tests/browser/report.sh writes the
# reports of a deadlocking pipeline under `ptxvm run` and `ptxvm exec` and has
# check_report.mjs (playwright-core driving Debian's headless Chromium) check them; screenshots
# stay in build/test-artifacts/browser/. Chromium and playwright-core come from
# `scripts/setup.sh --tests` (what scripts/test.sh runs); without them the test is skipped.
if(PTXVM_SANITIZE OR PTXVM_FUZZ)
  return()
endif()
find_program(PTXVM_NODE node)
if(NOT PTXVM_NODE)
  message(STATUS "node not found: the browser test of the HTML report is skipped")
  return()
endif()
set(_browser_programs "")
if(TARGET cudart_programs)
  set(_browser_programs ${CMAKE_CURRENT_BINARY_DIR}/runtime-programs/bin)
endif()
add_test(NAME browser.report_html
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/report.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 "${_browser_programs}")
set_tests_properties(browser.report_html PROPERTIES LABELS browser TIMEOUT 300 SKIP_RETURN_CODE 77)
