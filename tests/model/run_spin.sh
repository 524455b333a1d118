#!/usr/bin/env bash
# Checks the coherence model with SPIN and compares the outcome with what is
# expected: no error for the correct protocol, an error for a deliberately
# broken variant (so the model is shown to catch real mistakes).
#
# usage: run_spin.sh MODEL.pml expect-ok|expect-error [-DDEFINE ...]
set -euo pipefail
model=$(realpath "$1")
expect=$2
shift 2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

spin -a "$@" "$model" > spin.log 2>&1 || { cat spin.log; echo "spin -a failed"; exit 1; }
# Safety properties only (assertions, invalid end states); COLLAPSE keeps the
# largest variant under ~300 MB.
gcc -O2 -DSAFETY -DCOLLAPSE -w -o pan pan.c
./pan -m100000 > pan.log 2>&1 || true

errors=$(grep -oE 'errors: [0-9]+' pan.log | grep -oE '[0-9]+' || echo missing)
grep -E 'errors:|states, stored|depth reached|total actual memory|assertion violated|invalid end state|elapsed' pan.log || true
if grep -q 'max search depth too small' pan.log; then
  echo "FAIL: the search was cut off by the depth bound (-m): the result is not exhaustive"
  exit 1
fi
case "$expect:$errors" in
  expect-ok:0) echo "OK: no error in $(basename "$model") $*" ;;
  expect-error:[1-9]*) echo "OK: SPIN found the expected error in $(basename "$model") $*" ;;
  *) echo "FAIL: expected ${expect#expect-}, got errors: $errors for $(basename "$model") $*"; exit 1 ;;
esac
