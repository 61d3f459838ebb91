# Installing and packaging (cmake/Install.cmake): tests/install/install.sh installs into a
# scratch prefix and uses it with the build tree out of reach; package.sh builds the Debian
# package and runs from its unpacked files. Both use the whole build (`ninja` first): left out
# of sanitizer and fuzzing builds, whose binaries are not what gets installed.
if(PTXVM_SANITIZE OR PTXVM_FUZZ OR NOT TARGET cudart)
  return()
endif()
add_test(NAME install.prefix COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(install.prefix PROPERTIES LABELS install TIMEOUT 600)
find_program(PTXVM_DPKG_DEB dpkg-deb)
find_program(PTXVM_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(PTXVM_DPKG_DEB AND PTXVM_DPKG_SHLIBDEPS)
  add_test(NAME install.debian-package COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/package.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(install.debian-package PROPERTIES LABELS install TIMEOUT 900)
else()
  message(STATUS "dpkg-deb or dpkg-shlibdeps not found: the Debian package test is skipped")
endif()
