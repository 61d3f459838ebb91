# Assemble every corpus PTX file with ptxas for the architecture it was written for.
#
#   cmake -DPTXAS=/usr/local/cuda/bin/ptxas -DCORPUS_DIR=<build>/corpus
#         -DHANDWRITTEN_DIR=<src>/kernels/ptx -P check_ptxas.cmake
#
# Architectures:
#   <CORPUS_DIR>/<stem>.<sm_XX>[.<variant>].ptx   -> sm_XX from the file name
#   <HANDWRITTEN_DIR>/*.ptx                        -> the line "// ptxas-arch: sm_XX"
# Warnings are allowed; any non-zero exit status fails the check.

if(NOT PTXAS)
  message(FATAL_ERROR "PTXAS not given")
endif()

set(_files)
if(CORPUS_DIR AND EXISTS "${CORPUS_DIR}")
  file(GLOB _corpus "${CORPUS_DIR}/*.ptx")
  list(SORT _corpus)
  list(APPEND _files ${_corpus})
endif()
if(HANDWRITTEN_DIR AND EXISTS "${HANDWRITTEN_DIR}")
  file(GLOB _hand "${HANDWRITTEN_DIR}/*.ptx")
  list(SORT _hand)
  list(APPEND _files ${_hand})
endif()

set(_tmp "${CMAKE_CURRENT_BINARY_DIR}/ptxas_check.cubin")
set(_failed)
set(_count 0)
foreach(_f IN LISTS _files)
  get_filename_component(_name "${_f}" NAME)
  set(_arch)
  if(_name MATCHES "\\.(sm_[0-9]+[a-z]?)(\\.[A-Za-z0-9_]+)?\\.ptx$")
    set(_arch "${CMAKE_MATCH_1}")
  else()
    file(STRINGS "${_f}" _archline REGEX "^// ptxas-arch: *sm_[0-9]+[a-z]? *$" LIMIT_COUNT 1)
    if(_archline MATCHES "(sm_[0-9]+[a-z]?)")
      set(_arch "${CMAKE_MATCH_1}")
    endif()
  endif()
  if(NOT _arch)
    list(APPEND _failed "${_name} (no architecture: name it <stem>.sm_XX.ptx or add '// ptxas-arch: sm_XX')")
    continue()
  endif()
  execute_process(COMMAND "${PTXAS}" -arch=${_arch} "${_f}" -o "${_tmp}"
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  math(EXPR _count "${_count} + 1")
  if(NOT _rc EQUAL 0)
    string(STRIP "${_err}" _err)
    list(APPEND _failed "${_name} (-arch=${_arch}): ${_err}")
  endif()
endforeach()
file(REMOVE "${_tmp}")

list(LENGTH _failed _nfailed)
if(_nfailed GREATER 0)
  string(REPLACE ";" "\n  " _msg "${_failed}")
  message(FATAL_ERROR "ptxas rejected ${_nfailed} of ${_count} file(s):\n  ${_msg}")
endif()
message(STATUS "ptxas accepted all ${_count} PTX files")
