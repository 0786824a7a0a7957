#!/usr/bin/env bash
# One device call for issue 13 (helper sm80, session 14): the sm_80 GEMMs lowered with the accumulator's
# init= zeroing before the k-block loop, the ldmatrix per-thread offsets hoisted to the role's start and the
# interior-tile paired stores (NAME.so), each beside its previous lowering (base_NAME.so, alternated with
# it) against cuBLAS at 4096^3 and 8192^3 (time_base_and_new: the harness interleaves kernel and cuBLAS, L2
# flushed); correctness at the sm_80 edge shapes (EDGE names); SASS of every kernel; for the PROF names an
# Nsight Compute profile with the warp-state and source-counter sections (stall samples and instructions
# executed per SASS instruction, exported as CSV for bench/gpu/ncu_src_census.py), for the MET names the
# tensor-pipe and stall metrics only.
# Built here by:
#   BASE_CU_DIR=/tmp/base SCRIPT=device_sm80g.sh DEST=/work/main/.devcarry/sm80 SCHED="..." bash bench/gpu/build_sm80b.sh build
# run with carry [".devcarry/sm80"]:
#   D=.devcarry/sm80 LIMIT=200 EDGE="..." PROF="..." MET="..." bash .devcarry/sm80/device_sm80g.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80}
LIMIT=${LIMIT:-200}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
KRE=${KRE:-'cake_(frag|sm80)'}
gpu_line
NAMES=${NAMES:-$(carry_kernel_names)}
time_base_and_new ${SIZES-4096 8192}
gpu_line
# shellcheck disable=SC2086
sm80_edges ${EDGE-}
# EXTRA_SHAPES="M N K;M N K": more correctness-only shapes for the EDGE names (session 15: K = 192 and 320,
# 3 and 5 k-blocks of 64, the loop unrolled by 3 with no and with two remaining iterations)
IFS=';' read -r -a XS <<< "${EXTRA_SHAPES-}"
if [ ${#XS[@]} -gt 0 ]; then
  for n in ${EDGE-}; do
    [ "$(left)" -gt 10 ] || break
    edge_shapes "$D/$n.so" "${XS[@]}"
  done
fi
# shellcheck disable=SC2086
sass_tgz ${SASS-$NAMES}
M=$(mma_sync_metrics)
for n in ${PROF-}; do
  [ "$(left)" -gt 15 ] || break
  t=$(( $(left) - 4 )); [ $t -gt 50 ] && t=50
  timeout -s KILL $t ncu --metrics $M --section WarpStateStats --section SourceCounters --clock-control none \
    -k regex:"$KRE" -c 1 -o "$OUT/prof_$n" $H --kernel $D/$n.so --m 4096 --n 4096 --k 4096 --no-time 2>&1 | grep -v '^==PROF' | tail -3
  ncu -i "$OUT/prof_$n.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu_src_$n.csv" 2>/dev/null
  gzip -f "$OUT/ncu_src_$n.csv"
  echo "== ncu $n"
  ncu -i "$OUT/prof_$n.ncu-rep" --page raw --csv 2>/dev/null | python3 -c "
import csv, sys
rows = list(csv.reader(sys.stdin))
if len(rows) >= 3:
    for k, x in zip(rows[0], rows[2]):
        if ('stalled' in k and 'per_issue_active' in k) or 'hmma' in k or k.startswith('smsp__inst_executed.sum') or 'warps_active.avg.pct' in k or 'issue_active.avg.pct' in k or 'registers' in k or k == 'gpu__time_duration.sum':
            print(f'   {k} = {x}')
"
  rm -f "$OUT/prof_$n.ncu-rep"
  python3 "$D/ncu_src_census.py" "$OUT/ncu_src_$n.csv.gz" | head -30
done
# shellcheck disable=SC2086
ncu_mma_profiles "$KRE" ${MET-}
log "all done, $(left) s left"
# at most 8 files come back: run.log (the caller's tee), time.jsonl, results.jsonl, sass.tgz, the source CSVs
rm -f "$OUT/r.json" "$OUT/run.txt" "$OUT"/ncu_*.txt
