# CTest registration for the CUDA programs of kernels/apps: each one runs under `ptxvm exec` and
# its outcome (exit status, stdout, stderr, --report JSON) is checked against
# tests/gpu/apps/expected.txt by tests/gpu/apps/expect.py. Meant to be included from
# tests/CMakeLists.txt.
#
#   apps_expectations        every kernels/apps program has exactly one expectation (always)
#   apps_gpu_results         the runs recorded on a GPU (tests/gpu/apps/results/) agree with the
#                            expectations (when results are present)
#   app.<name>               `ptxvm exec -- <build>/apps/<name>` prints PASSED and exits 0
#   misuse.<name>            `ptxvm exec [flags] -- <build>/apps/misuse/<name>` gives the expected
#                            error names, diagnostics and stderr
# The app./misuse. tests exist only when the targets `ptxvm` and `apps` exist (nvcc found,
# PTXVM_CORPUS on) and the variable PTXVM_EXEC_READY is true.

find_program(PTXVM_PYTHON3 python3)
set(_apps_expect "${PROJECT_SOURCE_DIR}/tests/gpu/apps/expect.py")

if(NOT PTXVM_PYTHON3)
  message(STATUS "python3 not found: kernels/apps tests skipped")
  return()
endif()

add_test(NAME apps_expectations COMMAND "${PTXVM_PYTHON3}" "${_apps_expect}" lint)
set_tests_properties(apps_expectations PROPERTIES LABELS "apps")

if(EXISTS "${PROJECT_SOURCE_DIR}/tests/gpu/apps/results/ENVIRONMENT")
  add_test(NAME apps_gpu_results
           COMMAND "${PTXVM_PYTHON3}" "${_apps_expect}" gpu-results "${PROJECT_SOURCE_DIR}/tests/gpu/apps/results")
  set_tests_properties(apps_gpu_results PROPERTIES LABELS "apps;gpu")
endif()

if(TARGET ptxvm AND TARGET apps AND PTXVM_EXEC_READY)
  get_property(_apps_names GLOBAL PROPERTY PTXVM_APPS)
  get_property(_apps_dir GLOBAL PROPERTY PTXVM_APPS_DIR)
  foreach(_name IN LISTS _apps_names)
    string(REPLACE "misuse/" "misuse." _test "${_name}")
    if(_test STREQUAL _name)
      set(_test "app.${_name}")
      set(_labels "apps")
    else()
      set(_labels "apps;misuse")
    endif()
    add_test(NAME ${_test}
             COMMAND "${PTXVM_PYTHON3}" "${_apps_expect}" exec --ptxvm $<TARGET_FILE:ptxvm>
                     --binary "${_apps_dir}/${_name}" --name "${_name}"
                     --work "${CMAKE_CURRENT_BINARY_DIR}/apps-work")
    # expect.py stops a run after 150 s and reports it; the CTest limit is a backstop.
    set_tests_properties(${_test} PROPERTIES LABELS "${_labels}" TIMEOUT 200)
    # The self-checking programs with every module register-allocated (issue 13): at 24
    # registers with spills placed by divergence, and at 16 with every spill in local memory.
    if(_labels STREQUAL "apps")
      add_test(NAME regalloc.app.${_name}
               COMMAND $<TARGET_FILE:ptxvm> exec --passes=regalloc,verify --max-registers=24
                       --spill=divergence -- "${_apps_dir}/${_name}")
      add_test(NAME regalloc-local.app.${_name}
               COMMAND $<TARGET_FILE:ptxvm> exec --passes=regalloc,verify --max-registers=16 --spill=local
                       --allocator=graph-coloring -- "${_apps_dir}/${_name}")
      # The same programs on the CPU device (kernels compiled through LLVM when
      # loaded, nothing kept on disk: the code generator's output is what runs).
      # Thrust's and CUB's kernels run tiered, as a user's would: compiling all
      # of them when loaded takes minutes (cub_algorithms: 4 min 45 s; CUB's
      # radix-sort histogram kernel alone, 605 PTX instructions, 18 s).
      set(_jit eager)
      if(_name MATCHES "^(thrust|cub)_")
        set(_jit tiered)
      endif()
      if(PTXVM_CPU_DEVICE)
        add_test(NAME cpu.app.${_name}
                 COMMAND $<TARGET_FILE:ptxvm> exec --device cpu --jit ${_jit} --no-cache -- "${_apps_dir}/${_name}")
        set_tests_properties(cpu.app.${_name} PROPERTIES LABELS "apps;cpu" TIMEOUT 200
                             PASS_REGULAR_EXPRESSION "PASSED" FAIL_REGULAR_EXPRESSION "FAILED")
      endif()
      set_tests_properties(regalloc.app.${_name} regalloc-local.app.${_name} PROPERTIES
                           LABELS "apps;regalloc" TIMEOUT 200 PASS_REGULAR_EXPRESSION "PASSED"
                           FAIL_REGULAR_EXPRESSION "FAILED")
    endif()
  endforeach()
  # Linear filtering and sRGB against the H200's fetches, within the measured bound.
  if("texture_probe" IN_LIST _apps_names)
    add_test(NAME app.texture_probe.filtering
             COMMAND "${PTXVM_PYTHON3}" "${PROJECT_SOURCE_DIR}/tests/gpu/apps/filtering.py" --ptxvm $<TARGET_FILE:ptxvm>
                     --binary "${_apps_dir}/texture_probe"
                     --expected "${PROJECT_SOURCE_DIR}/kernels/apps/expected/texture_probe_filtering.stdout")
    set_tests_properties(app.texture_probe.filtering PROPERTIES LABELS "apps" TIMEOUT 200)
  endif()
elseif(TARGET apps)
  message(STATUS "kernels/apps: programs built; their ptxvm exec tests wait for PTXVM_EXEC_READY")
endif()
