#!/usr/bin/env bash
# One device call for issue 13 (helper streamk, session 13): ping-pong >=
# cooperative at 4096^3 and 8192^3 with a 128x64 tail after the 128x192
# tiles (bench/gpu/schedules/sm90_pingpong_128x192_tail64.cake: 8 units of
# 128x128 on the busiest SM at 4096^3, as the cooperative kernel). `cake run
# --workload gemm` (verify, bind, lower, compile, run against cuBLAS in the
# same process: 50 runs interleaved, L2 flushed, seed 3) on the cooperative
# sm90_ws_bn256_s4, the ping-pong 128x208 and 128x192 of earlier sessions and
# the new schedule, at 4096^3, 8192^3, 4096^3 again; edge shapes of the new
# schedule; Nsight Compute at 4096^3 on the fastest ping-pong and the
# cooperative schedule while time is left. Every schedule runs verified.
# Carry [".devcarry/streamk"], filled here by bench/gpu/streamk/prepare.sh.
#   LIMIT=150 bash .devcarry/streamk/device_streamk.sh
set -u
D=.devcarry/streamk
. bench/gpu/device_env.sh "$D"
. bench/gpu/gemm_sweep_lib.sh
sweep_start 150 /work/h-streamk
run() {  # run FILE SIZE REP
  [ "$(left)" -gt 20 ] || { log "skip $1 $2 (time)"; return; }
  gemm_run "$D" "$1" "$2" "$3" 50 --check-timeout 120
}
G=${G:-$(cat $D/schedules.txt)}
# shellcheck disable=SC2086
sweep_sizes $G
log "timing done, $(left) s left; nvcc cache: $(grep -c hit "$OUT/nvcc_cache.log") hits, $(grep -c miss "$OUT/nvcc_cache.log") misses"
# correctness at edge shapes (partial tiles in M, N, K; N below and around the tail; tiny), untimed
H=$CAKE_HARNESS
for g in $G; do
  case $g in *tail64*|*xvar*) ;; *) continue;; esac
  [ "$(left)" -gt 30 ] && edge_shapes $D/so/$g.so "3000 2056 1000" "1400 2056 200" "200 264 72" "1 8 8" "4224 4096 128" "256 200 64" "384 520 136" 2>&1 | tee -a "$L"
done
# Nsight Compute at 4096^3: the fastest ping-pong by median ratio and the cooperative schedule
sweep_ncu_pack 12 sm90_ws_bn256_s4
