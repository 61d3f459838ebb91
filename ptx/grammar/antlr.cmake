# The ANTLR4 front end: PTX.g4 -> C++ (generated at build time) plus the
# visitor in AntlrFrontEnd.cpp and the files it is split into (AntlrImpl.h
# says which holds what), added to the `ptx` library.
# Included from ptx/CMakeLists.txt after `add_library(ptx ...)`:
#   include(grammar/antlr.cmake)
#
# Debian 12: the ANTLR tool is 4.7.2 (/usr/bin/antlr4), the C++ runtime 4.9
# (/usr/include/antlr4-runtime, libantlr4-runtime). The 4.7.2 generator
# writes u8"" literals into std::string initializers, which C++20 turns into
# char8_t: the generated sources are compiled with -fno-char8_t. They live in
# their own library so that flag and their warnings stay there.

find_program(PTXVM_ANTLR4 antlr4 PATHS /usr/bin REQUIRED)
find_path(PTXVM_ANTLR4_INCLUDE antlr4-runtime.h PATH_SUFFIXES antlr4-runtime REQUIRED)
find_library(PTXVM_ANTLR4_RUNTIME antlr4-runtime REQUIRED)
find_library(PTXVM_UUID uuid REQUIRED)

set(PTX_ANTLR_GRAMMAR ${CMAKE_CURRENT_LIST_DIR}/PTX.g4)
set(PTX_ANTLR_OUT ${CMAKE_CURRENT_BINARY_DIR}/antlr)
set(PTX_ANTLR_SOURCES
  ${PTX_ANTLR_OUT}/PTXLexer.cpp
  ${PTX_ANTLR_OUT}/PTXParser.cpp
  ${PTX_ANTLR_OUT}/PTXVisitor.cpp
  ${PTX_ANTLR_OUT}/PTXBaseVisitor.cpp
)
set(PTX_ANTLR_HEADERS
  ${PTX_ANTLR_OUT}/PTXLexer.h
  ${PTX_ANTLR_OUT}/PTXParser.h
  ${PTX_ANTLR_OUT}/PTXVisitor.h
  ${PTX_ANTLR_OUT}/PTXBaseVisitor.h
)

add_custom_command(
  OUTPUT ${PTX_ANTLR_SOURCES} ${PTX_ANTLR_HEADERS}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PTX_ANTLR_OUT}
  COMMAND ${PTXVM_ANTLR4} -Dlanguage=Cpp -visitor -no-listener -package ptx_antlr
          -o ${PTX_ANTLR_OUT} ${PTX_ANTLR_GRAMMAR}
  DEPENDS ${PTX_ANTLR_GRAMMAR}
  COMMENT "Generating the ANTLR4 PTX parser from PTX.g4"
  VERBATIM
)

add_library(ptx_antlr_generated STATIC ${PTX_ANTLR_SOURCES})
target_compile_options(ptx_antlr_generated PRIVATE -fno-char8_t -w)
target_include_directories(ptx_antlr_generated SYSTEM PUBLIC $<BUILD_INTERFACE:${PTX_ANTLR_OUT}>
                                                              ${PTXVM_ANTLR4_INCLUDE})
target_link_libraries(ptx_antlr_generated PUBLIC ${PTXVM_ANTLR4_RUNTIME} ${PTXVM_UUID})
set_target_properties(ptx_antlr_generated PROPERTIES POSITION_INDEPENDENT_CODE ON)

target_sources(ptx PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/AntlrFrontEnd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/AntlrErrors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/AntlrBody.cpp
  ${CMAKE_CURRENT_LIST_DIR}/AntlrOperands.cpp
)
target_link_libraries(ptx PRIVATE ptx_antlr_generated)
