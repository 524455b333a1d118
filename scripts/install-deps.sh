#!/usr/bin/env bash
# Installs the Debian 12 packages dstd needs, only those missing. Extra
# package names given as arguments are installed too.
set -euo pipefail

packages=(
  g++ cmake make pkg-config
  dpkg-dev                      # cpack -G DEB: dpkg-shlibdeps finds the package's dependencies
  libgoogle-perftools-dev       # tcmalloc: the global allocator
  libboost-context-dev          # fibers
  libibverbs-dev librdmacm-dev  # the verbs transport
  libucx-dev ucx-utils          # the ucx transport (ucx_perftest: the benchmark's floor)
  libpmix-dev openmpi-bin       # nodes started by mpirun or srun --mpi=pmix (wire-up through PMIx)
  iproute2                      # tests: network namespaces standing for hosts
  libgtest-dev libgmock-dev     # tests
  spin                          # model checking the coherence protocol
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
