#!/usr/bin/env bash
# Runs malloc_bench against glibc, tcmalloc and libdstd and prints one
# markdown table (median ns per operation, and dstd / tcmalloc).
#
# Why a script: the question (issue 3) is a ratio between two binaries, and
# on a shared 2-core VM one run of each is too noisy to answer it. Each
# variant runs RUNS times (default 3), interleaved so drift hits all three
# alike, and the table shows the median of the per-run medians. The
# single-threaded group is pinned to CPU 0 when taskset exists (PIN=0 turns
# that off); the two-thread group always runs unpinned, on both CPUs.
#
#   bench/run_malloc_bench.sh build/bin
set -euo pipefail

bin=${1:?usage: $0 BIN_DIR (e.g. build/bin)}
runs=${RUNS:-3}
variants=(glibc tcmalloc dstd)

for v in "${variants[@]}"; do
  [[ -x "$bin/malloc_bench_$v" ]] || { echo "missing $bin/malloc_bench_$v" >&2; exit 1; }
done

pin=()
if [[ ${PIN:-1} == 1 ]] && command -v taskset > /dev/null; then pin=(taskset -c 0); fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for ((r = 1; r <= runs; r++)); do
  for v in "${variants[@]}"; do
    "${pin[@]}" "$bin/malloc_bench_$v" single > "$out/$v.$r"
    "$bin/malloc_bench_$v" threads >> "$out/$v.$r"
  done
done

{
  echo "runs per variant: $runs; single-threaded rows: ${pin[*]:-unpinned}; $(nproc) CPUs"
  for v in "${variants[@]}"; do head -n 1 "$out/$v.1"; done
} >&2

# Rows of the harness's table: "| name | median | p10 | p90 |".
awk -F'|' -v variants="${variants[*]}" '
  function trim(s) { gsub(/^ +| +$/, "", s); return s }
  function median(key, n,    i, j, t, a) {
    for (i = 1; i <= n; i++) a[i] = vals[key, i]
    for (i = 2; i <= n; i++)
      for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  FNR == 1 { v = FILENAME; sub(/.*\//, "", v); sub(/\.[0-9]+$/, "", v) }
  /^\| / {
    op = trim($2)
    if (op == "operation") next
    if (!(op in seen)) { seen[op] = 1; order[++nops] = op }
    vals[v SUBSEP op, ++count[v SUBSEP op]] = trim($3) + 0
  }
  END {
    nv = split(variants, vs, " ")
    printf "| operation |"
    for (k = 1; k <= nv; k++) printf " %s (ns) |", vs[k]
    printf " dstd / tcmalloc |\n|---|"
    for (k = 1; k <= nv; k++) printf "---:|"
    printf "---:|\n"
    for (o = 1; o <= nops; o++) {
      op = order[o]
      printf "| %s |", op
      for (k = 1; k <= nv; k++) {
        key = vs[k] SUBSEP op
        m[vs[k]] = count[key] ? median(key, count[key]) : -1
        if (m[vs[k]] < 0) printf " – |"
        else printf " %.1f |", m[vs[k]]
      }
      if (m["tcmalloc"] > 0 && m["dstd"] >= 0) printf " %.2f |\n", m["dstd"] / m["tcmalloc"]
      else printf " – |\n"
    }
  }
' "$out"/*.*
