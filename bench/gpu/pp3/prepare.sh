#!/usr/bin/env bash
# Fills /work/main/.devcarry/pp3 for bench/gpu/pp3/device_pp3.sh (issue 13,
# helper pingpong, session 12), here (no GPU): cake and its libraries, the
# harness, the schedules, and the kernel libraries of the exact `cake run`
# commands the device script makes (NVCC_CACHE_FILL=1 through
# bench/gpu/pp2/nvcc_cached.sh: cake run verifies, lowers and compiles, the
# library is kept under its key; the run stops at no_gpu here), plus a named
# copy of each 4096^3 library for Nsight Compute and the edge shapes.
# Run from /work/h-pingpong after `cmake --build build --target cake`.
#   bash bench/gpu/pp3/prepare.sh [SCHEDULE...]
# Another sweep reuses it with its own worktree W, carry C and folder DIR
# (the device scripts and schedules.txt there): bench/gpu/streamk/prepare.sh.
set -eu
W=${W:-/work/h-pingpong}
C=${C:-/work/main/.devcarry/pp3}
DIR=${DIR:-$W/bench/gpu/pp3}
. $W/bench/gpu/gemm_sweep_lib.sh
carry_base $W $C
cp $DIR/device_*.sh $DIR/schedules.txt $W/bench/gpu/pp2/nvcc_cached.sh $W/bench/gpu/pp2/ncu_balance.py $C/
G=${*:-$(cat $DIR/schedules.txt)}
R=.devcarry/$(basename $C)  # the carry as the device sees it
fill() {
  local g=$1 s k extra="--check-timeout 120"
  case $g in *cluster2*) extra="--allow-unverified --check-timeout 1";; esac
  for s in 4096 8192; do
    # the same command as on the device (the device script's run), from the same relative path
    (cd /work/main && CAKE_NVCC=$C/nvcc_cached.sh NVCC_CACHE=$C/socache NVCC_CACHE_FILL=1 NVCC_CACHE_LOG=/tmp/${R#.devcarry/}_fill_$g.log \
      /usr/bin/time -f "$g $s: %e s wall %U s user" $C/bin/cake run $R/$g.cake --workload gemm \
      --shape M=$s,N=$s,K=$s $extra --format json --runs 50 --seed 3 > /tmp/${R#.devcarry/}_fill_$g.json 2> /tmp/${R#.devcarry/}_fill_$g.err) || true
    echo "$(grep -h 's wall' /tmp/${R#.devcarry/}_fill_$g.err) $(tail -1 /tmp/${R#.devcarry/}_fill_$g.log) $(head -c 300 /tmp/${R#.devcarry/}_fill_$g.json)"
    k=$(tail -1 /tmp/${R#.devcarry/}_fill_$g.log | grep -o '[0-9a-f]\{24\}')
    [ $s = 4096 ] && [ -n "$k" ] && cp $C/socache/$k.so $C/so/$g.so
  done
}
for g in $G; do cp $W/bench/gpu/schedules/$g.cake $C/; rm -f /tmp/${R#.devcarry/}_fill_$g.log; done
for g in $G; do fill $g & done
wait
du -sh $C
