#!/bin/bash
# For each re-spelling under bench/respell/good/ (a known-good corpus file or one of its broken
# twins, written another way IR.md allows), compare its verdict with that of the file its
# `# respells:` line names: pass + proof status, or the rules found.
# Usage: bench/respell/twins.sh [BIN] [FILES...]
BIN=${1:-build/cli/cake}; shift
files=("$@"); [ ${#files[@]} = 0 ] && files=(bench/respell/good/*.cake)
same=0
for f in "${files[@]}"; do
  orig=$(grep -m1 '^# respells:' $f | sed 's/# respells: *//')
  v=$(python3 bench/respell/verdict.py $BIN $f); o=$(python3 bench/respell/verdict.py $BIN $orig)
  ok=SAME; [ "$v" != "$o" ] && ok=DIFF
  [ $ok = SAME ] && same=$((same + 1))
  echo "$ok | $(basename $f .cake) | respelled: $v | original: $o"
done
echo "$same of ${#files[@]} re-spellings agree with their originals (verdict and proof status, or the rules found)"
