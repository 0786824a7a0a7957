#!/usr/bin/env bash
# Independent labels on the lent 16-core host (CPU only; docs/benchmarks.md
# "Z3 labels of every corpus mutant"): the corpus mutants labelled by the Z3
# partial-order engine beside the explicit-state simulator, as `cake check
# --engine z3` decides them (cake_bench_sync_engines --verdict, one process,
# threads taking the next file), and random schedules through both engines
# (cake_bench_differential --engine=po, one process per core). Then, with the
# time left, the rule-level labels (every rule on every binding) of as many
# mutants as fit. Run from the repository root:
#
#   D=.devcarry/z3lab OUT=/tmp/out bench/gpu/device_z3_labels.sh
#
# D holds cake_bench_sync_engines, cake_bench_differential, libz3.so.4 and
# libfmt.so.9. Writes $OUT/labels.txt (one line per mutant, then totals),
# $OUT/differential.txt (every shard's summary, then the totals) and
# $OUT/rules.txt. Budgets in seconds: TOTAL_S, LABEL_S, DIFF_S; SHARDS_SCRIPT is
# bench/differential_shards.sh (or a carried copy).
set -u
D=${D:-.devcarry/z3lab}
OUT=${OUT:?set OUT}
export LD_LIBRARY_PATH="$D${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cores=$(nproc)
label_jobs=${LABEL_JOBS:-8}
diff_shards=$((cores - label_jobs))
echo "host: $cores cores; labels on $label_jobs threads, differential on $diff_shards processes; $(date -u +%H:%M:%S)"

total=${TOTAL_S:-190}  # every process ends by then (a hard stop for the labellers)
timeout "$total" "$D/cake_bench_sync_engines" corpus/mutants --verdict --jobs="$label_jobs" \
  --timeout-ms="${LABEL_TIMEOUT_MS:-20000}" --schedule-budget-s="${SCHEDULE_S:-40}" --budget-s="${LABEL_S:-100}" \
  > "$OUT/labels.txt" 2>&1 &
label_pid=$!
"${SHARDS_SCRIPT:-bench/differential_shards.sh}" "$D" "$diff_shards" "${DIFF_N:-3000}" "${DIFF_SEED0:-20000}" \
  "${DIFF_S:-150}" --engine=po --timeout-ms=20000 > "$OUT/differential.txt" 2>&1 &
wait "$label_pid"
echo "labels done: $(date -u +%H:%M:%S), ${SECONDS} s"
# the label threads' cores, for the rule-level labels (every rule on every
# binding) of every 6th mutant while the differential runs: started until 40 s
# before the end, each gets at most 30 s of Z3
left=$((total - SECONDS))
if [ "$left" -gt 50 ]; then
  timeout "$left" "$D/cake_bench_sync_engines" corpus/mutants --every=6 --jobs="$label_jobs" --timeout-ms=20000 \
    --schedule-budget-s=30 --budget-s=$((left - 40)) > "$OUT/rules.txt" 2>&1 &
fi
wait
echo "all done: $(date -u +%H:%M:%S)"
grep -h -E "^(sync engines over|undecided but|time per system)" "$OUT"/labels.txt "$OUT"/rules.txt 2>/dev/null
grep -h -E "^(DISAGREE|INTERNAL)" "$OUT"/labels.txt "$OUT"/rules.txt 2>/dev/null | head -20
tail -1 "$OUT/differential.txt"
