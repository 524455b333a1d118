#!/usr/bin/env bash
# compat/'s three lists name one set: the words bits/dstd_rename_on.h
# renames, the ones bits/dstd_rename_off.h restores, and the std names
# bits/dstd_std_names.h gives to dstd's (plus this_thread, a namespace, and
# the names renamed on purpose with no dstd counterpart yet, which
# compat/README.md lists as not covered).
# usage: names_test.sh COMPAT_DIR
set -euo pipefail
dir=$1
not_covered=""
on=$(sed -n 's/^#define \([a-z_0-9]*\) __dstd_libstdcxx_\1$/\1/p' "$dir/bits/dstd_rename_on.h" | sort)
off=$(sed -n 's/^#undef \([a-z_0-9]*\)$/\1/p' "$dir/bits/dstd_rename_off.h" | sort)
declared=$( (sed -n 's/^using dstd::\([a-z_0-9]*\);$/\1/p' "$dir/bits/dstd_std_names.h" | grep -v -e '^get_id$' -e '^sleep_for$' -e '^sleep_until$' -e '^yield$'
             echo this_thread; for n in $not_covered; do echo "$n"; done) | sort)
status=0
if [ "$on" != "$off" ]; then
  echo "renamed but not restored, or restored but not renamed:"; diff <(echo "$on") <(echo "$off"); status=1
fi
if [ "$on" != "$declared" ]; then
  echo "renamed vs declared as dstd's (< renamed only, > declared only):"; diff <(echo "$on") <(echo "$declared"); status=1
fi
for n in $not_covered; do
  grep -q "$n" "$dir/README.md" || { echo "compat/README.md does not list $n as not covered"; status=1; }
done
[ $status -eq 0 ] && echo "compat names: $(echo "$on" | wc -l) names renamed, restored and declared"
exit $status
