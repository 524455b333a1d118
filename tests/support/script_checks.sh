# Sourced by the script tests that check a program's output case by case
# (heap/exit_test.sh, control/static_init_test.sh): one report line per
# case and a count of the failures, which the script's last line turns
# into its status.
failures=0

# count PATTERN TEXT: how many lines of TEXT contain PATTERN.
count() { grep -c -- "$1" <<<"$2"; }

# report LABEL PROBLEMS OUTPUT: "ok   LABEL" when PROBLEMS is empty; else
# "FAIL LABEL:PROBLEMS", then OUTPUT indented, and one more failure.
report() {
  local label=$1 problems=$2 out=$3
  if [ -n "$problems" ]; then
    echo "FAIL $label:$problems"
    echo "$out" | sed 's/^/    /'
    failures=$((failures + 1))
  else
    echo "ok   $label"
  fi
}
