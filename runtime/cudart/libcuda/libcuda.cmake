# ptxvm's libcuda.so.1 (LibCuda.cpp): every function NVIDIA's driver exports (libcuda-symbols.txt),
# each a jump through a table that the library fills with libcudart.so.13's driver functions when
# it loads; the rest say they are not supported. Built next to libcudart.so.13, where `ptxvm exec`
# puts the dynamic linker's first look. Included from runtime/cudart.cmake; x86-64 Linux only
# (the stubs are assembly).

set(_libcuda_src ${CMAKE_CURRENT_SOURCE_DIR}/cudart/libcuda)
set(_libcuda_gen ${CMAKE_CURRENT_BINARY_DIR}/libcuda)
# Served in LibCuda.cpp itself.
set(_libcuda_own cuGetProcAddress cuGetProcAddress_v2)
file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/interpose/libcuda-symbols.txt _libcuda_symbols REGEX "^cu")
set(_stubs "# Generated from libcuda-symbols.txt by libcuda.cmake.\n\t.text\n")
set(_table "\t.data\n\t.align 8\n\t.globl ptxvm_libcuda_table\n\t.hidden ptxvm_libcuda_table\nptxvm_libcuda_table:\n")
set(_names "\t.section .data.rel.ro,\"aw\"\n\t.align 8\n\t.globl ptxvm_libcuda_names\n\t.hidden ptxvm_libcuda_names\nptxvm_libcuda_names:\n")
set(_addresses "\t.align 8\n\t.globl ptxvm_libcuda_stubs\n\t.hidden ptxvm_libcuda_stubs\nptxvm_libcuda_stubs:\n")
set(_strings "\t.section .rodata.str1.1,\"aMS\",@progbits,1\n")
set(_index 0)
foreach(_symbol IN LISTS _libcuda_symbols)
  list(FIND _libcuda_own ${_symbol} _own)
  if(NOT _own EQUAL -1)
    continue()
  endif()
  math(EXPR _offset "${_index} * 8")
  # The exported name jumps through the table; until a served function replaces it, the entry
  # points at a trampoline that passes the name to ptxvm_libcuda_unsupported.
  string(APPEND _stubs "\t.globl ${_symbol}\n\t.type ${_symbol},@function\n${_symbol}:\n.Lstub${_index}:\n"
                       "\tjmp *ptxvm_libcuda_table+${_offset}(%rip)\n"
                       ".Lunsupported${_index}:\n\tleaq .Lname${_index}(%rip), %rdi\n\tjmp ptxvm_libcuda_unsupported\n")
  string(APPEND _table "\t.quad .Lunsupported${_index}\n")
  string(APPEND _names "\t.quad .Lname${_index}\n")
  string(APPEND _addresses "\t.quad .Lstub${_index}\n")
  string(APPEND _strings ".Lname${_index}:\n\t.asciz \"${_symbol}\"\n")
  math(EXPR _index "${_index} + 1")
endforeach()
set(_asm "${_stubs}${_table}${_names}${_addresses}")
string(APPEND _asm "\t.globl ptxvm_libcuda_count\n\t.hidden ptxvm_libcuda_count\n\t.section .rodata\n\t.align 4\n"
                   "ptxvm_libcuda_count:\n\t.long ${_index}\n${_strings}")
string(APPEND _asm "\t.section .note.GNU-stack,\"\",@progbits\n")
file(MAKE_DIRECTORY ${_libcuda_gen})
# Written through a copy so that an unchanged list rebuilds nothing.
file(WRITE ${_libcuda_gen}/Stubs.S.new "${_asm}")
configure_file(${_libcuda_gen}/Stubs.S.new ${_libcuda_gen}/Stubs.S COPYONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/interpose/libcuda-symbols.txt)

enable_language(ASM)
add_library(cuda_driver SHARED ${_libcuda_src}/LibCuda.cpp ${_libcuda_gen}/Stubs.S)
target_include_directories(cuda_driver PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(cuda_driver PRIVATE cudart)
target_link_options(cuda_driver PRIVATE -Wl,--version-script=${_libcuda_src}/exports.map)
if(NOT PTXVM_SANITIZE AND NOT PTXVM_FUZZ)
  target_link_options(cuda_driver PRIVATE -Wl,--no-undefined)
endif()
set_target_properties(cuda_driver PROPERTIES
  OUTPUT_NAME cuda
  SOVERSION 1
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
  BUILD_RPATH "$ORIGIN"
  INSTALL_RPATH "$ORIGIN"
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  LINK_DEPENDS ${_libcuda_src}/exports.map)
install(TARGETS cuda_driver LIBRARY DESTINATION lib/ptxvm COMPONENT runtime)
