#!/usr/bin/env bash
# Fills /work/main/.devcarry/pp2 for bench/gpu/pp2/device_pp2.sh (issue 13,
# helper pp2), here (no GPU): cake and its libraries, the harness, the
# schedules, and the kernel libraries of the exact `cake run` commands the
# device script makes (NVCC_CACHE_FILL=1: cake run verifies, lowers and
# compiles, nvcc_cached.sh keeps the library under its key; the run stops at
# no_gpu), plus a named copy of each for Nsight Compute.
# Run from /work/h-pp2 after `cmake --build build --target cake`; the harness
# binary is built by the nvcc line below.
set -eu
W=/work/h-pp2
C=/work/main/.devcarry/pp2
. $W/bench/gpu/gemm_sweep_lib.sh
carry_base $W $C
cp $W/bench/gpu/pp2/device_pp2.sh $W/bench/gpu/pp2/nvcc_cached.sh $W/bench/gpu/pp2/ncu_balance.py $C/
G="sm90_ws_bn256_s4 sm90_pingpong_128x192_r240 sm90_pingpong_128x176 sm90_pingpong_128x208"
fill() {
  local g=$1 s k
  rm -f /tmp/pp2_fill_$g.log
  for s in 4096 8192; do
    # the same command as on the device (device_pp2.sh's run), from the same relative path
    (cd /work/main && CAKE_NVCC=$C/nvcc_cached.sh NVCC_CACHE=$C/socache NVCC_CACHE_FILL=1 NVCC_CACHE_LOG=/tmp/pp2_fill_$g.log \
      /usr/bin/time -f "$g $s: %e s wall %U s user" $C/bin/cake run .devcarry/pp2/$g.cake --workload gemm \
      --shape M=$s,N=$s,K=$s --check-timeout 60 --format json --runs 30 --seed 3 > /tmp/pp2_fill_$g.json 2> /tmp/pp2_fill_$g.err) || true
    echo "$(grep -h 's wall' /tmp/pp2_fill_$g.err) $(tail -1 /tmp/pp2_fill_$g.log) $(head -c 300 /tmp/pp2_fill_$g.json)"
    # the 4096^3 library, named, for Nsight Compute
    k=$(tail -1 /tmp/pp2_fill_$g.log | grep -o '[0-9a-f]\{24\}')
    [ $s = 4096 ] && [ -n "$k" ] && cp $C/socache/$k.so $C/so/$g.so
  done
}
for g in $G; do cp $W/bench/gpu/schedules/$g.cake $C/; done
for g in $G; do fill $g & done
wait
du -sh $C
