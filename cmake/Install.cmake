# cmake --install: the libraries, the headers, a CMake package
# (find_package(exactsample CONFIG) -> exactsample::exactsample,
# exactsample::c_api and exactsample::exactsample_static) and a relocatable
# pkg-config file. The `exactsample` program is installed by tools/.
include(CMakePackageConfigHelpers)
set(EXACTSAMPLE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/exactsample)

# Two export sets, so that users of the shared library need neither Highway
# nor Threads to be found: the static library's are loaded on demand
# (exactsampleConfig.cmake).
install(TARGETS exactsample exactsample_c_api EXPORT exactsampleTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS exactsample_static EXPORT exactsampleStaticTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT exactsampleTargets NAMESPACE exactsample::
  DESTINATION ${EXACTSAMPLE_CMAKE_DIR})
install(EXPORT exactsampleStaticTargets NAMESPACE exactsample::
  DESTINATION ${EXACTSAMPLE_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/exactsampleConfig.cmake.in
  ${PROJECT_BINARY_DIR}/exactsampleConfig.cmake
  INSTALL_DESTINATION ${EXACTSAMPLE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/exactsampleConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/exactsampleConfig.cmake
  ${PROJECT_BINARY_DIR}/exactsampleConfigVersion.cmake
  DESTINATION ${EXACTSAMPLE_CMAKE_DIR})

# pkg-config: prefix=${pcfiledir}/.. up to the prefix, so the file is right
# wherever `cmake --install --prefix` puts the tree (or it is moved later).
# Absolute lib/include dirs (outside the prefix) are written as they are.
set(EXACTSAMPLE_PC_LIBDIR ${CMAKE_INSTALL_LIBDIR})
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(EXACTSAMPLE_PC_UP "..")
  set(EXACTSAMPLE_PC_LIBDIR_VAR "${CMAKE_INSTALL_LIBDIR}")
else()
  set(EXACTSAMPLE_PC_UP "..")
  string(REGEX MATCHALL "[^/]+" _exactsample_libdir_parts "${CMAKE_INSTALL_LIBDIR}")
  foreach(_part IN LISTS _exactsample_libdir_parts)
    string(APPEND EXACTSAMPLE_PC_UP "/..")
  endforeach()
  set(EXACTSAMPLE_PC_LIBDIR_VAR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(EXACTSAMPLE_PC_INCLUDEDIR_VAR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(EXACTSAMPLE_PC_INCLUDEDIR_VAR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/exactsample.pc.in
  ${PROJECT_BINARY_DIR}/exactsample.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/exactsample.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
