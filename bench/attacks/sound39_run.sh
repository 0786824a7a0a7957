#!/usr/bin/env bash
# Runs session 39's soundness attack (bench/attacks/sound39_mutants.py):
# `cake check` on every mutant of OUT/index.tsv (exit status, the sync
# verdict's first words), one line each to OUT/check.tsv, then the counts.
# A broken mutant that exits 0 is a hole; so is one the proof alone says
# proved (cake_bench_proof_audit OUT --verbose, run after this).
#   bench/attacks/sound39_run.sh OUT [CAKE=build/cli/cake]
set -u
out=$1 cake=${2:-build/cli/cake}
: > "$out/check.tsv"
while IFS=$'\t' read -r path expected; do
  res=$("$cake" check "$out/$path" 2>&1)
  rc=$?
  verdict=$(printf "%s\n" "$res" | grep -m1 -o "result: [a-z]*" | head -1); rule=$(printf "%s\n" "$res" | grep -o "[a-z]*\.[a-z-]*: counterexample" | head -1 | cut -d: -f1)
  printf "%s\t%s\t%s\t%s\t%s\n" "$path" "$expected" "$rc" "$verdict" "$rule" >> "$out/check.tsv"
done < "$out/index.tsv"
awk -F'\t' '{ n[$2]++; k[$2 " exit " $3]++ }
  END { for (x in n) print n[x], x; for (x in k) print k[x], x }' "$out/check.tsv" | sort -k2
awk -F'\t' '$2 == "bad" && $3 == 0 { print "HOLE? " $0 }' "$out/check.tsv"
awk -F'\t' '$2 == "good" && $3 != 0 { print "good not passing: " $0 }' "$out/check.tsv"
