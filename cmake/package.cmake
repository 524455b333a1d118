# The Debian package: `cpack -G DEB` in the build directory makes
# dstd_<version>_amd64.deb with what `cmake --install` installs (libdstd,
# the public and compat/ headers, dstdrun, the CMake package and the
# pkg-config files), under /usr. Its runtime dependencies (Boost.Context,
# tcmalloc, libstdc++, glibc) are read from the binaries by dpkg-shlibdeps,
# so they follow what the build really links. tests/install/deb_test.sh
# installs it, builds a program against it and removes it.
set(CPACK_PACKAGE_NAME dstd)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Distributed shared memory for ordinary multithreaded C++")
set(CPACK_PACKAGE_DESCRIPTION
    "dstd runs the threads of an ordinary C++ program (std::thread, std::mutex, std::atomic, std::future, smart pointers) on several node processes that share one coherent global heap. Build with -I/usr/include/dstd-compat -ldstd (or find_package(dstd) and dstd::compat), start with dstdrun -n N.")
set(CPACK_PACKAGE_CONTACT "dstd developers <dstd-dev@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # dstd_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The headers are for C++20 compilers; the CMake package needs Threads.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "g++ (>= 4:12) | clang (>= 1:14), cmake (>= 3.22), pkg-config")
include(CPack)
