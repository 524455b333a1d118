#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds a small program
# against it twice — with CMake's find_package(dstd) and with a Makefile using
# pkg-config — and runs both under the installed dstdrun on 2 nodes. Then
# distributes an ordinary std program (compat_consumer/, which knows nothing
# of dstd) as README.md's "Distribute an existing program" says, with
# dstd::compat and with pkg-config's dstd-compat: at 4 nodes it prints what
# its plain build prints, and its threads ran on other nodes than 0.
# usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
cp -r "$src/tests/install/consumer" "$work/consumer"

cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/consumer/build" >/dev/null
out=$("$prefix/bin/dstdrun" -n 2 --timeout 30 "$work/consumer/build/consumer")
[ "$out" = "consumer: node 0 of 2, thread ran on node 1" ] || { echo "find_package build printed: $out"; exit 1; }

pc_dir=$(dirname "$(find "$prefix" -name dstd.pc)")
PKG_CONFIG_PATH=$pc_dir make -s -C "$work/consumer" consumer_make
out=$("$prefix/bin/dstdrun" -n 2 --timeout 30 "$work/consumer/consumer_make")
[ "$out" = "consumer: node 0 of 2, thread ran on node 1" ] || { echo "pkg-config build printed: $out"; exit 1; }

cp -r "$src/tests/install/compat_consumer" "$work/compat_consumer"
c="$work/compat_consumer"
${CXX:-g++} -std=c++20 -O2 -pthread -o "$c/word_count_plain" "$c/word_count.cpp"
expected=$("$c/word_count_plain")
cmake -S "$c" -B "$c/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$c/build" >/dev/null
PKG_CONFIG_PATH=$pc_dir make -s -C "$c" word_count_make
for program in "$c/build/word_count" "$c/word_count_make"; do
  out=$("$prefix/bin/dstdrun" -n 4 --stats=json "$work/stats" --timeout 60 "$program")
  [ "$out" = "$expected" ] || { echo "$program printed '$out', its plain build '$expected'"; exit 1; }
  grep -qE '"node": [1-9][0-9]*, .*"pages_fetched": [1-9]' "$work/stats" ||
    { echo "$program: no thread ran on a node other than 0"; cat "$work/stats"; exit 1; }
done
echo "install test: find_package and pkg-config builds both ran on 2 nodes;" \
     "a std program built with dstd::compat and with dstd-compat.pc ran on 4"
