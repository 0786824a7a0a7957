#!/usr/bin/env bash
# Z3 BMC vs the explicit-state simulator on random schedules, fanned out
# over the cores of one machine (docs/benchmarks.md). Run from a folder that
# holds cake_bench_differential (and, on the device host, the libz3.so.4 and
# libfmt.so.9 it needs):
#
#   bench/differential_shards.sh DIR SHARDS SCHEDULES SEED0 BUDGET_S [extra options]
#
# Shard i runs SCHEDULES schedules from seed SEED0+i for at most BUDGET_S
# seconds; every disagreement, internal error and undecided case of every
# shard is printed, then each shard's summary, then the totals.
set -u
dir=$1 shards=$2 n=$3 seed0=$4 budget=$5
shift 5
export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
out=$(mktemp -d)
for i in $(seq 1 "$shards"); do
  "$dir/cake_bench_differential" "$n" $((seed0 + i)) --budget-s="$budget" "$@" > "$out/shard$i.txt" 2>&1 &
done
wait
grep -h -E "^#[0-9]+ (DISAGREE|undecided|not built)" "$out"/shard*.txt
grep -h -E "^(differential seed=|z3-)" "$out"/shard*.txt
awk '/^differential seed=/ {
       for (f = 1; f <= NF; ++f) {
         if ($(f+1) ~ /^schedules/) s += $f; if ($(f+1) == "agree,") a += $f;
         if ($(f+1) == "disagree,") d += $f; if ($(f+1) == "undecided,") u += $f
         if ($(f+1) == "internal") e += $f
       }
     }
     END { printf "total: %d schedules, %d agree, %d disagree, %d undecided, %d internal errors\n", s, a, d, u, e }' \
  "$out"/shard*.txt
