#!/usr/bin/env bash
# One device call for issue 13 (helper sm80c, session 16): the sm_80 GEMMs lowered with two cp.async
# chunks of a row per thread (NAME.so; the previous lowering beside it as base_NAME.so, alternated with
# it) against cuBLAS at 4096^3 and 8192^3 (time_base_and_new: the harness interleaves kernel and cuBLAS,
# L2 flushed, RUNS runs); correctness at the sm_80 edge shapes and EXTRA_SHAPES; then `cake run` end to
# end (verify, lower, nvcc here, oracle, timing) with this branch's cake on sm_80 schedules whose copies
# changed (the GEMMs, k-means, row-sum, attention); SASS of every kernel; a Nsight Compute profile of the
# PROF names (warp states, source counters).
# Built here by:
#   BASE_CAKE=/tmp/sm80c/cake_base DEST=.devcarry/sm80c SCRIPT=device_sm80c.sh SCHED="..." bash bench/gpu/build_sm80s15.sh build
#   (plus bin/cake, stripped, into .devcarry/sm80c)
# run with carry [".devcarry/sm80c"]:
#   D=.devcarry/sm80c LIMIT=400 EDGE="..." PROF="..." bash .devcarry/sm80c/device_sm80c.sh 2>&1 | tee $OUT/run.log
set -u
D=${D:-.devcarry/sm80c}
LIMIT=${LIMIT:-400}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
KRE=${KRE:-'cake_(frag|sm80)'}
gpu_line
NAMES=${NAMES:-$(carry_kernel_names)}
RUNS=${RUNS:-50} time_base_and_new ${SIZES-4096 8192}
gpu_line
# shellcheck disable=SC2086
sm80_edges ${EDGE-}
IFS=';' read -r -a XS <<< "${EXTRA_SHAPES-}"
if [ ${#XS[@]} -gt 0 ]; then
  for n in ${EDGE-}; do
    [ "$(left)" -gt 10 ] || break
    edge_shapes "$D/$n.so" "${XS[@]}"
  done
fi
log "edges done, $(left) s left"
R="$OUT/cake_run.jsonl"; : > "$R"
crun() {
  [ "$(left)" -gt 60 ] || { echo "skip cake run $*"; return; }
  echo "== cake run $*"
  timeout 120 "$D/bin/cake" run "$@" --format json --runs 20 --seed 3 --check-timeout 60 > "$OUT/one.json" 2> "$OUT/one.err"
  echo "rc=$?"; tail -c 600 "$OUT/one.json"; echo; tail -3 "$OUT/one.err"
  python3 -c "import json; d=json.load(open('$OUT/one.json')); print(json.dumps(d))" >> "$R" 2>/dev/null
}
crun bench/gpu/schedules/sm80/frag/fragsp12_128x128_k64_s3.cake --shape M=4096,N=4096,K=4096
crun corpus/gemm/sm80_cp_async_multistage.cake --shape M=2048,N=2048,K=2048
crun corpus/kmeans/sm80_assign_k128.cake --workload kmeans-assign --shape N=8192,K=128,D=128,B=2
crun corpus/reduction/sm80_row_sum_cp_async.cake --workload row-sum --shape M=4096,N=4000
crun corpus/attention/sm80_flash_attn2_fwd.cake --workload attention-fwd --shape S=64,D=64,B=2,H=4
log "cake run done, $(left) s left"
# shellcheck disable=SC2086
sass_tgz ${SASS-$NAMES}
for n in ${PROF-}; do
  [ "$(left)" -gt 20 ] || break
  t=$(( $(left) - 8 )); [ $t -gt 60 ] && t=60
  timeout -s KILL $t ncu --metrics "$(mma_sync_metrics)" --section WarpStateStats --section SourceCounters --clock-control none \
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
log "all done, $(left) s left"
rm -f "$OUT/r.json" "$OUT/run.txt" "$OUT/one.json" "$OUT/one.err" "$OUT"/ncu_*.txt
