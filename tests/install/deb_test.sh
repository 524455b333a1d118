#!/usr/bin/env bash
# The Debian package (cmake/package.cmake), as a user meets it: cpack makes
# dstd_<version>_amd64.deb, whose dependencies name Boost.Context and
# tcmalloc; dpkg installs it under /usr; a CMake project finds it with
# find_package(dstd) and no hint, and its program runs on 2 nodes under the
# installed /usr/bin/dstdrun; an ordinary std program built with
# dstd::compat prints what its plain build prints at 4 nodes; dpkg removes
# (purges) the package, leaving nothing behind.
#
# Installing a package needs root: run as another user it says so and exits
# 77 (CTest counts that as skipped). CI runs as root.
# usage: deb_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
if [ "$(id -u)" != 0 ]; then
  echo "deb_test: skipped: installing a package needs root"
  exit 77
fi
if [ "$(dpkg-query -W -f='${Status}' dstd 2>/dev/null)" = "install ok installed" ]; then
  echo "deb_test: a dstd package is installed already; not replacing it (dpkg -r dstd first)"
  exit 1
fi
work=$(mktemp -d)
trap 'dpkg -P dstd >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

cpack -G DEB -B "$work/package" --config "$build/CPackConfig.cmake" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; exit 1; }
version=$(sed -n 's/^project(dstd VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
deb="$work/package/dstd_${version}_amd64.deb"
[ -f "$deb" ] || { echo "no $deb; cpack made: $(ls "$work/package")"; exit 1; }
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libboost-context libtcmalloc-minimal4 libstdc++6 libc6; do
  grep -q "$lib" <<<"$depends" || { echo "the package's Depends lacks $lib: $depends"; exit 1; }
done

dpkg -i "$deb" >/dev/null
[ -x /usr/bin/dstdrun ] || { echo "no /usr/bin/dstdrun after dpkg -i"; exit 1; }

cp -r "$src/tests/install/consumer" "$work/consumer"
cmake -S "$work/consumer" -B "$work/consumer/build" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
out=$(/usr/bin/dstdrun -n 2 --timeout 30 "$work/consumer/build/consumer")
[ "$out" = "consumer: node 0 of 2, thread ran on node 1" ] || { echo "find_package build printed: $out"; exit 1; }

cp -r "$src/tests/install/compat_consumer" "$work/compat_consumer"
c="$work/compat_consumer"
${CXX:-g++} -std=c++20 -O2 -pthread -o "$c/word_count_plain" "$c/word_count.cpp"
expected=$("$c/word_count_plain")
cmake -S "$c" -B "$c/build" >/dev/null
cmake --build "$c/build" >/dev/null
out=$(/usr/bin/dstdrun -n 4 --timeout 60 "$c/build/word_count")
[ "$out" = "$expected" ] || { echo "the compat build printed '$out', its plain build '$expected'"; exit 1; }

dpkg -P dstd >/dev/null
[ ! -e /usr/bin/dstdrun ] || { echo "/usr/bin/dstdrun is still there after dpkg -P"; exit 1; }
[ -z "$(dpkg-query -W -f='${Status}' dstd 2>/dev/null)" ] || { echo "dpkg still lists dstd after dpkg -P"; exit 1; }
echo "deb_test: $(basename "$deb") installed, used and removed"
