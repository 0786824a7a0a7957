#!/usr/bin/env bash
# The corpus mutants labelled by both synchronization engines (the explicit
# simulator and the Z3 partial-order engine), fanned out over the cores of
# one machine (docs/benchmarks.md "Mutant labels with the Z3 engine"). Run
# from the repository root; DIR holds cake_bench_sync_engines:
#
#   bench/label_mutants.sh DIR SHARDS BUDGET_S [extra options, e.g. --every=10 --timeout-ms=20000]
#
# Prints every disagreement, internal error and undecided schedule of every
# shard, then the totals.
set -u
dir=$1 shards=$2 budget=$3
shift 3
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=$(mktemp -d)
for i in $(seq 0 $((shards - 1))); do
  "$dir/cake_bench_sync_engines" corpus/mutants --shard="$i/$shards" --budget-s="$budget" "$@" > "$out/shard$i.txt" 2>&1 &
done
wait
grep -h -E "^(DISAGREE|INTERNAL|undecided) " "$out"/shard*.txt
grep -h -E "^(sync engines over|undecided but bad)" "$out"/shard*.txt
awk '/^sync engines over/ {
       s += $4; a += $8; bad += substr($10, 2); ben += $12; d += $14; u += $16; e += $18; nr += $21
     }
     /^undecided but bad/ { ub += $NF }
     END { printf "total: %d schedules, %d agree (%d bad, %d benign), %d disagree, %d undecided (%d of them bad in both where decided), %d internal errors; %d not reached\n", s, a, bad, ben, d, u, ub, e, nr }' \
  "$out"/shard*.txt
