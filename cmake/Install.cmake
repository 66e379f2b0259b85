# cmake --install: the libraries, the headers, a CMake package
# (find_package(exactsample CONFIG) -> exactsample::exactsample and
# exactsample::exactsample_static) and a pkg-config file.
include(CMakePackageConfigHelpers)
set(EXACTSAMPLE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/exactsample)

install(TARGETS exactsample exactsample_static EXPORT exactsampleTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT exactsampleTargets NAMESPACE exactsample::
  DESTINATION ${EXACTSAMPLE_CMAKE_DIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/exactsampleConfig.cmake.in
  ${PROJECT_BINARY_DIR}/exactsampleConfig.cmake
  INSTALL_DESTINATION ${EXACTSAMPLE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/exactsampleConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/exactsampleConfig.cmake
  ${PROJECT_BINARY_DIR}/exactsampleConfigVersion.cmake
  DESTINATION ${EXACTSAMPLE_CMAKE_DIR})

configure_file(${PROJECT_SOURCE_DIR}/cmake/exactsample.pc.in
  ${PROJECT_BINARY_DIR}/exactsample.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/exactsample.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
