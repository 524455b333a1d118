# Installation: the library, public headers, compat/'s headers, dstdrun, a
# CMake package (find_package(dstd) -> dstd::dstd and dstd::compat) and
# pkg-config files for Makefiles (dstd.pc, dstd-compat.pc).
include(CMakePackageConfigHelpers)

install(TARGETS dstd dstd_compat EXPORT dstdTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/compat/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dstd-compat
        PATTERN README.md EXCLUDE)
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
foreach(pc dstd dstd-compat)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
