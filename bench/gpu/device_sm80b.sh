#!/usr/bin/env bash
# One device call for issue 13 (helper sm80b): the sm_80 GEMMs with their mma.sync fragments
# double-buffered across k-steps (NAME.so) against the previous lowering (base_NAME.so), each
# against cuBLAS (the harness interleaves, L2 flushed), at 4096^3 and 8192^3, base and new in
# alternation; then correctness at edge shapes (partial tiles), the SASS census (HMMA, LDSM,
# LDL/STL) and, while time is left, Nsight Compute's tensor-pipe and stall metrics on the new
# corpus kernel. Built here by bench/gpu/build_sm80b.sh; run with carry [".devcarry/sm80b"]:
#   LIMIT=200 bash .devcarry/sm80b/device_sm80b.sh
set -u
D=${D:-.devcarry/sm80b}
LIMIT=${LIMIT:-200}
E=$(dirname "$0")/device_env.sh; [ -f "$E" ] || E=bench/gpu/device_env.sh; . "$E" "$D"
H="$D/cake_harness"
gpu_line
NAMES=$(carry_kernel_names)
time_base_and_new 4096 8192
for n in $NAMES; do
  res=""
  for shp in "3000 2056 1000" "1400 2056 200" "200 264 72" "1 8 8" "4096 1000 64" "129 130 40"; do
    set -- $shp
    timeout -s KILL 60 $H --kernel $D/$n.so --m $1 --n $2 --k $3 --no-time 2>/dev/null | tail -1 > "$OUT/r.json"
    cat "$OUT/r.json" >> "$OUT/edge.jsonl"
    res="$res $1x$2x$3:$(grep -o '"result": "[a-z_]*"' $OUT/r.json | cut -d'"' -f4)"
  done
  echo "edge $n:$res"
done
log "edge done, $(left) s left"
for so in $D/*.so; do
  n=$(basename $so .so)
  cuobjdump --dump-sass $so > "$OUT/sass_$n.txt" 2>/dev/null
  echo "sass $n: $(grep -c 'HMMA' $OUT/sass_$n.txt) HMMA $(grep -c 'LDSM' $OUT/sass_$n.txt) LDSM $(grep -c 'LDGSTS' $OUT/sass_$n.txt) LDGSTS $(grep -c 'LDL\|STL' $OUT/sass_$n.txt) LDL/STL"
done
if command -v ncu >/dev/null && [ "$(left)" -gt 45 ]; then
  for n in sm80_cp_async_multistage base_sm80_cp_async_multistage; do
    [ "$(left)" -gt 25 ] || break
    timeout -s KILL 40 ncu --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_wait,smsp__average_warp_latency_issue_stalled_short_scoreboard,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_math_pipe_throttle,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread \
      --clock-control none -k regex:'cake_(gemm|sm80)' -c 1 $H --kernel $D/$n.so --m 4096 --n 4096 --k 4096 --no-time > "$OUT/ncu_$n.txt" 2>&1
    echo "== ncu $n"; grep -E 'sm__|smsp__|launch__' "$OUT/ncu_$n.txt"
  done
fi
log "all done, $(left) s left"
rm -f "$OUT/r.json"
