#!/usr/bin/env bash
# The proofs' soundness audit (docs/z3.md "Soundness audit",
# docs/benchmarks.md) fanned out over the cores of one machine, niced. Run
# from the repository root; DIR holds cake_bench_proof_audit:
#
#   bench/proof_audit.sh DIR SHARDS [options of cake_bench_proof_audit, e.g. --every=3 --budget-s=2400]
#
# Prints every DISCREPANCY line of every shard, then the totals. Exit
# status 1 on a discrepancy.
set -u
dir=$1 shards=$2
shift 2
out=$(mktemp -d)
for i in $(seq 0 $((shards - 1))); do
  nice "$dir/cake_bench_proof_audit" corpus --shard="$i/$shards" "$@" > "$out/shard$i.txt" 2>&1 &
done
wait
head -1 "$out/shard0.txt"
grep -h "^DISCREPANCY" "$out"/shard*.txt
awk '/^audited / { f += $2; nr += substr($4, 2) }
     /^deep check:/ { ds += $3; db += $6; dc += $12 }
     /^proof on broken schedules:/ { pb += $5; for (i = 7; i <= NF; i += 2) po[$(i+1)] += $i }
     /^discrepancies:/ { d += $2 }
     END {
       printf "total: %d files audited (%d not reached)\n", f, nr
       printf "deep check: %d proved schedules, %d larger bindings explored in full, %d cut\n", ds, db, dc
       printf "proof on broken schedules: %d run:", pb; for (k in po) printf " %d %s", po[k], k; printf "\n"
       printf "discrepancies: %d\n", d
     }' "$out"/shard*.txt
grep -h "^audited " "$out"/shard*.txt
echo "shard outputs: $out"
grep -q "^discrepancies: [1-9]" "$out"/shard*.txt && exit 1
exit 0
