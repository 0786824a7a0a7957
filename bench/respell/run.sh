#!/bin/bash
# For each re-spelling under bench/respell/<rule>/NAME_rN.cake, compare its verdict with
# the original corpus file's: the rule found (broken) or pass + proof (fixed).
# Usage: bench/respell/run.sh [BIN] [FILES...]
BIN=${1:-build/cli/cake}; shift
verdict() { python3 bench/respell/verdict.py $BIN "$1"; }
files=("$@"); [ ${#files[@]} = 0 ] && files=(bench/respell/*/*_r[0-9].cake)
same=0
for f in "${files[@]}"; do
  rule=$(basename $(dirname $f)); base=$(basename $f .cake); orig=corpus/bugs/$rule/${base%_r[0-9]}.cake
  want=$(grep -m1 '^# expect:' $f | sed 's/# expect: *//')
  v=$(verdict $f); o=$(verdict $orig)
  ok=SAME; [ "$v" != "$o" ] && ok=DIFF
  [ $ok = SAME ] && same=$((same + 1))
  echo "$ok | $rule/$base | want $want | respelled: $v | original: $o"
done
echo "$same of ${#files[@]} pairs agree (verdict and proof status, or the rules found)"
