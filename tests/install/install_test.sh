#!/usr/bin/env bash
# Installs the build into a temporary prefix, then builds a small program
# against it twice — with CMake's find_package(dstd) and with a Makefile using
# pkg-config — and runs both under the installed dstdrun on 2 nodes.
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
echo "install test: find_package and pkg-config builds both ran on 2 nodes"
