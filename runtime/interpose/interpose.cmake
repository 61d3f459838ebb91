# The CUDA shim: a libcuda.so.1 that `ptxvm exec --device gpu` puts ahead of the real driver. It
# exports every function the real driver exports (libcuda-symbols.txt) as a jump to the real one,
# except the module-loading entry points and cuGetProcAddress, which rewrite the PTX of each
# module with the passes of PTXVM_PASSES before the driver JIT-compiles it. Included from
# runtime/CMakeLists.txt; x86-64 Linux only (the stubs are assembly).

set(_shim_src ${CMAKE_CURRENT_SOURCE_DIR}/interpose)
set(_shim_gen ${CMAKE_CURRENT_BINARY_DIR}/interpose)
# Interposed in CudaShim.cpp: no stub for these.
set(_shim_own cuGetProcAddress cuGetProcAddress_v2 cuModuleLoad cuModuleLoadData cuModuleLoadDataEx
  cuModuleLoadFatBinary cuLibraryLoadData cuLibraryLoadFromFile
  cuLaunchKernel cuLaunchKernel_ptsz cuLaunchKernelEx cuLaunchKernelEx_ptsz)
file(STRINGS ${_shim_src}/libcuda-symbols.txt _shim_symbols REGEX "^cu")
set(_asm "# Generated from libcuda-symbols.txt by interpose.cmake: one jump per forwarded function.\n")
string(APPEND _asm "\t.text\n")
set(_names "// Generated from libcuda-symbols.txt by interpose.cmake.\n")
set(_index 0)
foreach(_symbol IN LISTS _shim_symbols)
  list(FIND _shim_own ${_symbol} _own)
  if(NOT _own EQUAL -1)
    continue()
  endif()
  math(EXPR _offset "${_index} * 8")
  string(APPEND _asm "\t.globl ${_symbol}\n\t.type ${_symbol},@function\n${_symbol}:\n\tjmp *ptxvm_shim_table+${_offset}(%rip)\n")
  string(APPEND _names "\"${_symbol}\",\n")
  math(EXPR _index "${_index} + 1")
endforeach()
string(APPEND _asm "\t.bss\n\t.align 8\n\t.globl ptxvm_shim_table\n\t.hidden ptxvm_shim_table\nptxvm_shim_table:\n\t.zero ${_offset}+8\n")
string(APPEND _asm "\t.section .note.GNU-stack,\"\",@progbits\n")
file(MAKE_DIRECTORY ${_shim_gen})
# Written through a copy so that an unchanged list rebuilds nothing.
file(WRITE ${_shim_gen}/Stubs.S.new "${_asm}")
file(WRITE ${_shim_gen}/StubNames.inc.new "${_names}")
configure_file(${_shim_gen}/Stubs.S.new ${_shim_gen}/Stubs.S COPYONLY)
configure_file(${_shim_gen}/StubNames.inc.new ${_shim_gen}/StubNames.inc COPYONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_shim_src}/libcuda-symbols.txt)

enable_language(ASM)
add_library(cuda_shim SHARED ${_shim_src}/CudaShim.cpp ${_shim_src}/KernelTiming.cpp ${_shim_gen}/Stubs.S)
target_include_directories(cuda_shim PRIVATE ${_shim_gen} ${PROJECT_SOURCE_DIR})
target_link_libraries(cuda_shim PRIVATE regalloc analysis fatbin ptx ptx_version ${CMAKE_DL_LIBS})
# Only the driver's names leave the library (the project's own code stays hidden).
target_link_options(cuda_shim PRIVATE -Wl,--version-script=${_shim_src}/exports.map)
if(NOT PTXVM_SANITIZE AND NOT PTXVM_FUZZ)
  # Every symbol the library needs is in it or in a system library (clang's
  # sanitizer runtime comes from the executable or a preload instead).
  target_link_options(cuda_shim PRIVATE -Wl,--no-undefined)
endif()
set_target_properties(cuda_shim PROPERTIES
  OUTPUT_NAME cuda
  SOVERSION 1
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/cuda-shim
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
