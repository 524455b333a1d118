#!/usr/bin/env bash
# run_spin.sh MODEL [expect-ok|expect-error] [-DDEFINE...]
#
# Model-checks MODEL (a Promela file) with SPIN: generates the verifier
# (spin -a, with the given defines), compiles it (safety checks:
# assertions and invalid end states, state compression), runs an
# exhaustive search, prints pan's summary and exits 0 when the result is
# the expected one:
#   expect-ok     the search completed and found no error
#   expect-error  the search found an error (an assertion violation or an
#                 invalid end state); used for deliberately broken variants
# Works in a temporary directory (pan writes its files, trails, there);
# set KEEP=1 to keep it.  Environment: SPIN, CC (default spin, gcc),
# MEMLIM (MiB, default 2048), PAN_OPT (C optimization for pan: "optimized",
# the default for expect-ok, is gcc -O1 without its two dead-store passes
# and its RTL combiner; "unoptimized", the default for expect-error, is
# -O0; other words are used as the flags), PAN_FLAGS (extra ./pan options).
#
# Why those defaults: compiling pan costs more than most searches. -O1
# searches as fast as -O2 and compiles in half the time. Most of -O1's
# compile is spent on pan's one huge transition function by three passes
# that do not make the search faster: the two dead-store passes (6 of 14 s
# on the coherence_mt.pml V2 model) and the RTL combiner (5.6 of the 13 s
# left, gcc -ftime-report; without it that compile takes 6.8 s, and a
# 6.7 M-state search 18-22 s either way). coherence_mt.pml at its default
# bounds compiles in 1.5 s at -O0 and 3.4 s optimized; the optimized search
# is about twice as fast (14 s against 29 s on that 6.7 M-state run), which
# wins once the -O0 search passes about 4 s. An expect-error search stops
# at its first error (under 5 s for most), so unoptimized is their default
# and the few long ones ask for PAN_OPT=optimized (tests/model/CMakeLists.txt).
set -euo pipefail

usage() { echo "usage: $0 MODEL [expect-ok|expect-error] [-DDEFINE...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
model=$1; shift
expect=expect-ok
if [ $# -ge 1 ] && [[ $1 == expect-* ]]; then expect=$1; shift; fi
case $expect in expect-ok|expect-error) ;; *) usage ;; esac
for d in "$@"; do [[ $d == -D* || $d == -U* ]] || usage; done

spin=${SPIN:-spin}
cc=${CC:-gcc}
memlim=${MEMLIM:-2048}
[ -r "$model" ] || { echo "run_spin.sh: cannot read $model" >&2; exit 2; }
model=$(cd "$(dirname "$model")" && pwd)/$(basename "$model")

work=$(mktemp -d "${TMPDIR:-/tmp}/spin_model.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
  echo "run_spin.sh: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi
cd "$work"
cp "$model" model.pml

echo "== $(basename "$model") $* ($expect)"
"$spin" -a "$@" model.pml > spin.out 2>&1 || { cat spin.out; echo "FAIL: spin -a"; exit 1; }
# -DSAFETY: assertions + invalid end states, no cycle detection.
# -DCOLLAPSE: state compression.  -DMEMLIM: fail instead of swapping.
# PAN_OPT=optimized or unoptimized names one of the two; anything else is
# taken as the flags themselves.
if [ "$expect" = expect-ok ]; then pan_opt=${PAN_OPT:-optimized}; else pan_opt=${PAN_OPT:-unoptimized}; fi
case $pan_opt in
  optimized) pan_opt="-O1 -fno-dse -fno-tree-dse -fdisable-rtl-combine" ;;
  unoptimized) pan_opt=-O0 ;;
esac
# shellcheck disable=SC2086  # pan_opt is a list of words
"$cc" $pan_opt -w -DSAFETY -DCOLLAPSE -DMEMLIM="$memlim" -o pan pan.c > cc.out 2>&1 ||
  { cat cc.out; echo "FAIL: compiling pan"; exit 1; }

start=$(date +%s%N)
# -m: depth limit, far above the models' (a few hundred steps).
# shellcheck disable=SC2086
./pan -m200000 ${PAN_FLAGS:-} > pan.out 2>&1 || true
end=$(date +%s%N)

# Summary: the error (if any), the search statistics.
grep -E '^pan:[0-9]+: |^pan: (error|out of memory|reached -DMEMLIM)|max search depth too small|State-vector|states, stored|transitions \(|total actual memory|elapsed time' pan.out || true
ms=$(( (end - start) / 1000000 ))
printf 'wall time %d.%03d s\n' $((ms / 1000)) $((ms % 1000))

errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' pan.out | head -n1)
if [ -z "$errors" ]; then
  tail -n 20 pan.out
  echo "FAIL: no result from pan (out of memory or crashed?)"
  exit 1
fi
incomplete=0
if grep -qE 'max search depth too small|out of memory|MEMLIM bound' pan.out; then incomplete=1; fi

if [ "$expect" = expect-ok ]; then
  if [ "$errors" -eq 0 ] && [ $incomplete -eq 0 ]; then
    echo "PASS: no error in the whole state space"
    exit 0
  fi
  if [ "$errors" -ne 0 ] && [ -f model.pml.trail ]; then
    echo "-- counterexample (spin -t -p, last 150 lines):"
    "$spin" -t -p "$@" model.pml 2>&1 | tail -n 150 || true
  fi
  [ $incomplete -eq 1 ] && echo "FAIL: the search did not complete"
  [ "$errors" -ne 0 ] && echo "FAIL: SPIN found an error in a model expected to be correct"
  exit 1
else
  if [ "$errors" -gt 0 ] && grep -qE 'assertion violated|invalid end state' pan.out; then
    echo "PASS: SPIN found the expected error"
    exit 0
  fi
  echo "FAIL: SPIN found no error in a model that should have one"
  exit 1
fi
