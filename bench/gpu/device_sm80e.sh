#!/usr/bin/env bash
# One device call for issue 13 (helper sm80e): every NAME.so (and base_NAME.so, alternated with it)
# in the carry folder against cuBLAS at 4096^3 and 8192^3 (time_base_and_new: the harness interleaves
# kernel and cuBLAS, L2 flushed), correctness at edge shapes (EDGE names), the SASS of each kernel
# (SASS names; gzipped), and for the PROF names an Nsight Compute profile with the warp-state and
# source-counter sections: the stall samples per SASS instruction (exported as CSV), to see which
# instructions of the k-block loop the warps wait on.
# Built here by bench/gpu/build_sm80b.sh (SCRIPT=device_sm80e.sh DEST=/work/main/.devcarry/sm80e ...);
# run with carry [".devcarry/sm80e"]:
#   D=.devcarry/sm80e LIMIT=120 EDGE="..." PROF="one name" bash .devcarry/sm80e/device_sm80e.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80e}
LIMIT=${LIMIT:-120}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
gpu_line
NAMES=${NAMES:-$(carry_kernel_names)}
time_base_and_new ${SIZES-4096 8192}
gpu_line
# shellcheck disable=SC2086
sm80_edges ${EDGE-}
# shellcheck disable=SC2086
sass_tgz ${SASS-$NAMES}
M=$(mma_sync_metrics)
for n in ${PROF-}; do
  [ "$(left)" -gt 15 ] || break
  t=$(( $(left) - 4 )); [ $t -gt 40 ] && t=40
  timeout -s KILL $t ncu --metrics $M --section WarpStateStats --section SourceCounters --clock-control none \
    -k regex:'cake_sm80' -c 1 -o "$OUT/prof_$n" $H --kernel $D/$n.so --m 4096 --n 4096 --k 4096 --no-time 2>&1 | grep -v '^==PROF' | tail -3
  ncu -i "$OUT/prof_$n.ncu-rep" --page raw --csv > "$OUT/ncu_raw_$n.csv" 2>/dev/null
  ncu -i "$OUT/prof_$n.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu_src_$n.csv" 2>/dev/null
  gzip -f "$OUT/ncu_src_$n.csv"
  rm -f "$OUT/prof_$n.ncu-rep"
  echo "== ncu $n"
  python3 - "$OUT/ncu_raw_$n.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) >= 3:
    h, v = rows[0], rows[2]
    for k, x in zip(h, v):
        if ('stalled' in k and 'per_issue_active' in k) or 'hmma' in k or k.startswith('smsp__inst_executed.sum') or 'warps_active.avg.pct' in k or 'issue_active.avg.pct' in k or 'registers' in k:
            print(f"   {k} = {x}")
PY
done
log "all done, $(left) s left"
# at most 8 files come back from the device: keep run.log (the caller's tee), time.jsonl, results.jsonl,
# sass.tgz and two files per profiled kernel
rm -f "$OUT/r.json" "$OUT/run.txt"
