#!/usr/bin/env bash
# One device call for issue 13 (helper pp2): where the ping-pong GEMM loses
# at 4096^3. `cake run --workload gemm` (verify, bind, lower, compile, run
# against cuBLAS in the same process, L2 flushed, 30 runs) on the ping-pong
# schedules 128x192 (the last smoke's), 128x176 and 128x208 and the
# cooperative sm90_ws_bn256_s4, at 4096^3 and 8192^3, 4096^3 twice; then
# Nsight Compute at 4096^3 (per-SM busy cycles and tensor-pipe cycles: min,
# mean, max over the 132 SMs, which is what wave quantization moves; the
# stall reasons and SASS hot spots) on the fastest ping-pong, the 128x192
# ping-pong and the cooperative schedule.
# Carry [".devcarry/pp2"], filled here by bench/gpu/pp2/prepare.sh: bin/cake
# (built in /work/h-pp2, whose path it has compiled in for the ABI header),
# bin/cake_harness, lib/ (libz3, libfmt), the schedules, nvcc_cached.sh and
# its socache/ (the kernel libraries of the same lowered sources, nvcc 13.0
# here; a device with another nvcc misses and compiles).
#   bash .devcarry/pp2/device_pp2.sh
set -u
D=.devcarry/pp2
. bench/gpu/device_env.sh "$D"
. bench/gpu/gemm_sweep_lib.sh
sweep_start 220 /work/h-pp2
run() {  # run FILE SIZE REP
  [ "$(left)" -gt 25 ] || { log "skip $1 $2 (time)"; return; }
  gemm_run "$D" "$1" "$2" "$3" 30 --check-timeout 60
  tail -1 "$OUT/nvcc_cache.log" 2>/dev/null
}
G="sm90_ws_bn256_s4 sm90_pingpong_128x192_r240 sm90_pingpong_128x176 sm90_pingpong_128x208"
# shellcheck disable=SC2086
sweep_sizes $G
log "timing done, $(left) s left"
# correctness at edge shapes (partial tiles in M, N, K; tiny), untimed, the two new schedules
H=$CAKE_HARNESS
for g in sm90_pingpong_128x176 sm90_pingpong_128x208; do
  [ "$(left)" -gt 60 ] && edge_shapes $D/so/$g.so "3000 2056 1000" "1400 2056 200" "200 264 72" "1 8 8" 2>&1 | tee -a "$L"
done
# Nsight Compute at 4096^3: the fastest ping-pong by median ratio, the 128x192 one and the cooperative one
sweep_ncu_pack 20 sm90_pingpong_128x192_r240 sm90_ws_bn256_s4
