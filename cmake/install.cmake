# Installation: the library, public headers, dstdrun, a CMake package
# (find_package(dstd) -> dstd::dstd) and a pkg-config file for Makefiles.
include(CMakePackageConfigHelpers)

install(TARGETS dstd EXPORT dstdTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT dstdTargets NAMESPACE dstd::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dstd)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/dstdConfig.cmake.in
  ${PROJECT_BINARY_DIR}/dstdConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dstd)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/dstdConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/dstdConfig.cmake ${PROJECT_BINARY_DIR}/dstdConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/dstd)

# Relocatable: the prefix is found from where dstd.pc itself lies.
file(RELATIVE_PATH DSTD_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(${PROJECT_SOURCE_DIR}/cmake/dstd.pc.in ${PROJECT_BINARY_DIR}/dstd.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/dstd.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
