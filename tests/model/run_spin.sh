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
# MEMLIM (MiB, default 2048), PAN_OPT (C optimization for pan; default
# -O1 without gcc's two dead-store passes for expect-ok, -O0 for
# expect-error), PAN_FLAGS (extra ./pan options).
#
# Why those defaults: compiling pan costs more than most searches. -O1
# searches as fast as -O2 and compiles in half the time; on pan's one huge
# transition function the dead-store passes take 6 of -O1's 14 s of
# compile on the coherence_mt.pml V2 model, and the search is as fast
# without them. -O0 compiles coherence_mt.pml in 1.7 s against 5.0 s and
# searches 1.2-1.4 times slower, which wins below about 12 s of search: an
# expect-error search stops at its first error (0.5 to 2 s for most, 21 s
# the longest, a draw), an expect-ok search covers everything (22 s for
# coherence_mt.pml's default bounds).
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
if [ "$expect" = expect-ok ]; then default_opt="-O1 -fno-dse -fno-tree-dse"; else default_opt=-O0; fi
# shellcheck disable=SC2086  # PAN_OPT is a list of words
"$cc" ${PAN_OPT:-$default_opt} -w -DSAFETY -DCOLLAPSE -DMEMLIM="$memlim" -o pan pan.c > cc.out 2>&1 ||
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
